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
// SyN's field steps on the device: one grid-stride kernel per functor, one fixed-order reduction.
#include "cifCudaCheck.cuh"
#include "cifDeviceBuffer.h"
#include "cifDisplacementFieldMath.h"

#include <algorithm>
#include <vector>

namespace cif
{
namespace
{
constexpr int kThreads = 256;
constexpr int kReduceBlocks = 1024;

template <typename TFunctor>
__global__ void
ForEachVoxelKernel(const TFunctor f, std::int64_t count)
{
  for (std::int64_t n = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; n < count;
       n += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    f(n);
  }
}

/** Each block reduces a contiguous run of voxels (thread-strided, then a fixed tree):
 * the order depends on the count alone. */
template <typename TFunctor>
__global__ void
ReduceVoxelsKernel(const TFunctor f, std::int64_t count, double * blockResults)
{
  __shared__ double  sums[kThreads];
  __shared__ double  largest[kThreads];
  const std::int64_t perBlock = (count + gridDim.x - 1) / gridDim.x;
  const std::int64_t begin = blockIdx.x * perBlock;
  const std::int64_t end = begin + perBlock < count ? begin + perBlock : count;
  double             sum = 0.0, most = 0.0;
  for (std::int64_t n = begin + threadIdx.x; n < end; n += blockDim.x)
  {
    f(n, sum, most);
  }
  sums[threadIdx.x] = sum;
  largest[threadIdx.x] = most;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2)
  {
    if (threadIdx.x < half)
    {
      sums[threadIdx.x] += sums[threadIdx.x + half];
      largest[threadIdx.x] = fmax(largest[threadIdx.x], largest[threadIdx.x + half]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
  {
    blockResults[2 * blockIdx.x] = sums[0];
    blockResults[2 * blockIdx.x + 1] = largest[0];
  }
}

unsigned int
GridBlocks(std::int64_t count)
{
  return static_cast<unsigned int>(
    std::max<std::int64_t>(1, std::min<std::int64_t>((count + kThreads - 1) / kThreads, 65535)));
}
} // namespace

template <typename TFunctor>
void
ForEachVoxelOnDevice(const TFunctor & f, std::int64_t count)
{
  if (count <= 0)
  {
    return;
  }
  ForEachVoxelKernel<TFunctor><<<GridBlocks(count), kThreads>>>(f, count);
  CIF_CUDA_CHECK_LAUNCH();
}

template <typename TFunctor>
void
ReduceVoxelsOnDevice(const TFunctor & f, std::int64_t count, double & sum, double & largest)
{
  sum = 0.0;
  largest = 0.0;
  if (count <= 0)
  {
    return;
  }
  const int    blocks = static_cast<int>(std::min<std::int64_t>(kReduceBlocks, (count + kThreads - 1) / kThreads));
  DeviceBuffer device(2 * static_cast<std::size_t>(blocks) * sizeof(double));
  std::vector<double> results(static_cast<std::size_t>(2 * blocks));
  ReduceVoxelsKernel<TFunctor><<<static_cast<unsigned int>(blocks), kThreads>>>(f, count, device.As<double>());
  CIF_CUDA_CHECK_LAUNCH();
  device.Download(results.data(), results.size() * sizeof(double));
  for (int b = 0; b < blocks; ++b)
  {
    sum += results[2 * b];
    largest = std::max(largest, results[2 * b + 1]);
  }
}

CIF_INSTANTIATE_FIELD_STEPS(2);
CIF_INSTANTIATE_FIELD_STEPS(3);
} // namespace cif
