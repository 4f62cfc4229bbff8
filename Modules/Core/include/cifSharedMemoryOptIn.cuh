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
#ifndef cifSharedMemoryOptIn_cuh
#define cifSharedMemoryOptIn_cuh

// For .cu files only (and the host emulation of the convolution kernels, which brings
// its own stand-ins for the CUDA calls below and defines CIF_KERNEL_EMULATION).
#ifndef CIF_KERNEL_EMULATION
#  include "cifCudaCheck.cuh"
#endif
#include "cifCudaRuntime.h"

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace cif
{
/** Shared memory above the 48 KiB default, the kernel's own __shared__ arrays and the
 * launch's dynamic \a bytes together, must be asked for per kernel and per device: a
 * grant made on one device does not hold on another, so a process that runs a kernel
 * on two GPUs asks on each. The largest request seen so far is remembered per
 * (kernel, device), so that launches after the first cost no runtime call beyond
 * cudaGetDevice; a request beyond what the current device allows is a CudaError
 * naming \a what. */
template <typename TKernel>
void
AllowSharedMemory(TKernel kernel, std::size_t bytes, const char * what)
{
  constexpr std::size_t defaultLimit = 48 * 1024;
  if (bytes == 0)
  {
    return; // the static arrays alone: the compiler keeps them within the default
  }
  static std::mutex                                          mutex;
  static std::map<std::pair<const void *, int>, std::size_t> granted; // (kernel, device) -> bytes
  int                                                        device = 0, limit = 0;
  CIF_CUDA_CHECK(cudaGetDevice(&device));
  const auto                  key = std::make_pair(reinterpret_cast<const void *>(kernel), device);
  std::lock_guard<std::mutex> lock(mutex);
  if (granted[key] >= bytes)
  {
    return;
  }
  cudaFuncAttributes attributes{};
  CIF_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const std::size_t total = attributes.sharedSizeBytes + bytes;
  if (total <= defaultLimit)
  {
    granted[key] = bytes;
    return;
  }
  CIF_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (total > static_cast<std::size_t>(limit))
  {
    throw CudaError(std::string(what) + ": the kernel needs " + std::to_string(total) +
                    " bytes of shared memory per block; the device allows " + std::to_string(limit));
  }
  CIF_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  granted[key] = bytes;
}
} // namespace cif

#endif
