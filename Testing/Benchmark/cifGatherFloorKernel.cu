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
// ResampleBenchmark's load floor (cifGatherFloorKernel.h): 64 coalesced 4-byte loads
// per output voxel and nothing else.
#include "cifGatherFloorKernel.h"

#include <cuda_runtime.h>

namespace cif_bench
{
namespace
{
// Same launch shape and register cap as the module's resampling kernels.
__global__ void __launch_bounds__(256, 4)
  CoalescedGatherFloorKernel(const float * __restrict__ c, int n, float * __restrict__ out)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  const int z = blockIdx.z;
  if (x >= n)
  {
    return;
  }
  const std::int64_t row = n, slice = static_cast<std::int64_t>(n) * n;
  const float *      corner = c + (min(z, n - 4) * slice + min(y, n - 4) * row + min(x, n - 4));
  float              sum = 0;
#pragma unroll
  for (int kz = 0; kz < 4; ++kz)
  {
#pragma unroll
    for (int ky = 0; ky < 4; ++ky)
    {
#pragma unroll
      for (int kx = 0; kx < 4; ++kx)
      {
        sum += corner[kz * slice + ky * row + kx];
      }
    }
  }
  out[z * slice + y * row + x] = sum;
}
} // namespace

void
LaunchCoalescedGatherFloor(const float * coefficients, std::int64_t n, float * output)
{
  const dim3 grid(
    static_cast<unsigned int>((n + 255) / 256), static_cast<unsigned int>(n), static_cast<unsigned int>(n));
  CoalescedGatherFloorKernel<<<grid, 256>>>(coefficients, static_cast<int>(n), output);
}
} // namespace cif_bench
