/*=========================================================================
 *
 *  Copyright the CudaImageFilters contributors
 *
 *  Licensed under the Apache License, Version 2.0 (the "License");
 *  you may not use this file except in compliance with the License.
 *  You may obtain a copy of the License at
 *
 *         https://www.apache.org/licenses/LICENSE-2.0.txt
 *
 *  Unless required by applicable law or agreed to in writing, software
 *  distributed under the License is distributed on an "AS IS" BASIS,
 *  WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 *  See the License for the specific language governing permissions and
 *  limitations under the License.
 *
 *=========================================================================*/
#ifndef cifCudaCheck_cuh
#define cifCudaCheck_cuh

#include "cifCudaRuntime.h"

#include <cuda_runtime.h>

#include <string>

/** \file cifCudaCheck.cuh
 * For .cu files only: turns a cudaError_t into cif::CudaError with the call, the
 * place and CUDA's own text. */
namespace cif
{
inline void
CheckCuda(cudaError_t status, const char * call, const char * file, int line)
{
  if (status == cudaSuccess)
  {
    return;
  }
  const std::string message = std::string("CUDA error in ") + call + " (" + file + ":" + std::to_string(line) +
                              "): " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status);
  if (status == cudaErrorMemoryAllocation)
  {
    throw CudaOutOfMemory(message);
  }
  throw CudaError(message);
}
} // namespace cif

#define CIF_CUDA_CHECK(call) ::cif::CheckCuda((call), #call, __FILE__, __LINE__)
/** After a kernel launch: catches launch-configuration errors at once. */
#define CIF_CUDA_CHECK_LAUNCH() ::cif::CheckCuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

#endif
