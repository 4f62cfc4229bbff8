// The cost of a fresh process's CUDA context alone, for LatencyBenchmark.
#include "cifContextCreation.h"

#include <cuda_runtime.h>

#include <chrono>

namespace cif_bench
{
double
CreateContextMs()
{
  const auto start = std::chrono::steady_clock::now();
  if (cudaFree(nullptr) != cudaSuccess)
  {
    cudaGetLastError();
    return -1;
  }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}
} // namespace cif_bench
