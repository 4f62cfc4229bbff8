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
