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
// The metric kernels' block shapes and their fixed-order reduction (TreeReduce), shared by every pass.
#ifndef cifMetricReductionKernels_cuh
#define cifMetricReductionKernels_cuh

#include <cuda_runtime.h>

#include <cstdint>

namespace cif
{
namespace
{
constexpr int          kNaturalThreads = 256;
constexpr std::int64_t kNaturalBlockPoints = 4096;
constexpr int          kWarpThreads = 32;
constexpr int          kItemThreads = 128;
constexpr int          kItemsPerBlock = kItemThreads / kWarpThreads; ///< WorkItemKernel: a warp an item
constexpr int          kSumThreads = 256;

template <int D>
constexpr int kSupportPoints = D > 2 ? 64 : (D > 1 ? 16 : 4);

struct Point3
{
  double x[3];
};

/** shared[0][k] = the sum over the block's threads of shared[t][k], for k < S, by a
 * tree whose shape depends only on the block size: at each stride s, element t < s
 * adds element t + s. The strides from 32 down run in the first warp with shuffles
 * (the same additions in the same order, without a barrier each). */
template <int S, int Threads>
__device__ void
TreeReduce(double (*shared)[S])
{
  static_assert(Threads >= 32 && (Threads & (Threads - 1)) == 0, "whole warps, a power of two");
  int stride = Threads / 2;
  for (; stride >= 32; stride /= 2)
  {
    __syncthreads();
    if (threadIdx.x < stride)
    {
      for (int k = 0; k < S; ++k)
      {
        shared[threadIdx.x][k] += shared[threadIdx.x + stride][k];
      }
    }
  }
  __syncthreads();
  if (stride > 0 && threadIdx.x < 32)
  {
    double sum[S];
    for (int k = 0; k < S; ++k)
    {
      sum[k] = threadIdx.x < 2 * stride ? shared[threadIdx.x][k] : 0.0;
    }
    for (; stride > 0; stride /= 2)
    {
      for (int k = 0; k < S; ++k)
      {
        // Lanes below the stride add the lane a stride above, as the shared steps do;
        // the other lanes' sums are not read again.
        sum[k] += __shfl_down_sync(0xffffffffU, sum[k], stride);
      }
    }
    if (threadIdx.x == 0)
    {
      for (int k = 0; k < S; ++k)
      {
        shared[0][k] = sum[k];
      }
    }
  }
  __syncthreads();
}

/** Adds a block's or warp's valid points (a whole number held in a double) to
 * \a validCount where it is given: integer additions, exact in any order. */
inline __device__ void
AddValidCount(unsigned long long * validCount, double points)
{
  if (validCount != nullptr)
  {
    atomicAdd(validCount, static_cast<unsigned long long>(points));
  }
}
} // namespace
} // namespace cif

#endif
