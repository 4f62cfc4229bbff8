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
// The neighbourhood correlation's device pass: one kernel samples every voxel, one sums
// every window column, one forms each voxel's term from its columns.
#include "cifCudaCheck.cuh"
#include "cifNeighborhoodCorrelation.h"

#include <algorithm>
#include <vector>

namespace cif
{
namespace
{
constexpr int kThreads = kNeighborhoodThreads;

template <int D, typename TValue>
__global__ void
SampleVoxelsKernel(const NeighborhoodCorrelationLaunch<TValue> launch)
{
  const NeighborhoodFixedStage  fixedStage = FixedStageOf(launch);
  const NeighborhoodMovingStage movingStage = MovingStageOf(launch);
  const std::int64_t            count = launch.scene.domain.count;
  for (std::int64_t n = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; n < count;
       n += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    SampleNeighborhoodVoxel<D>(launch.scene, launch.transform, fixedStage, movingStage, n, launch.samples);
  }
}

template <int D, typename TValue>
__global__ void
ColumnSumsKernel(const NeighborhoodCorrelationLaunch<TValue> launch)
{
  const std::int64_t count = launch.scene.domain.count;
  for (std::int64_t n = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; n < count;
       n += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    NeighborhoodColumnAt<D>(launch.samples, launch.window, n, launch.columns);
  }
}

/** Each block sums a contiguous run of voxels (thread-strided, then a fixed tree in
 * shared memory): the order depends on the domain's size only. */
template <int D, typename TValue>
__global__ void
CorrelationKernel(const NeighborhoodCorrelationLaunch<TValue> launch)
{
  __shared__ double  shared[kThreads];
  const std::int64_t count = launch.scene.domain.count;
  const std::int64_t perBlock = (count + gridDim.x - 1) / gridDim.x;
  const std::int64_t begin = blockIdx.x * perBlock;
  const std::int64_t end = begin + perBlock < count ? begin + perBlock : count;
  double             sums[kNeighborhoodSums] = {};
  for (std::int64_t n = begin + threadIdx.x; n < end; n += blockDim.x)
  {
    const NeighborhoodCorrelationTerm term =
      NeighborhoodCorrelationAt<D>(launch.samples, launch.window, launch.columns, n, launch.withDerivative);
    if (launch.forces != nullptr)
    {
      for (int a = 0; a < D; ++a)
      {
        launch.forces[n * D + a] = term.force[a];
      }
    }
    AddNeighborhoodSums<D>(term, launch.scene.domain, n, launch.moments, launch.virtualCentre, sums);
  }
  const int values = launch.moments ? kNeighborhoodSums : 2;
  for (int k = 0; k < values; ++k)
  {
    shared[threadIdx.x] = sums[k];
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2)
    {
      if (threadIdx.x < half)
      {
        shared[threadIdx.x] += shared[threadIdx.x + half];
      }
      __syncthreads();
    }
    if (threadIdx.x == 0)
    {
      launch.blockSums[blockIdx.x * kNeighborhoodSums + k] = shared[0];
    }
    __syncthreads();
  }
}
} // namespace

template <int D, typename TValue>
void
NeighborhoodCorrelationOnDevice(const NeighborhoodCorrelationLaunch<TValue> & launch, double * sums)
{
  const std::int64_t count = launch.scene.domain.count;
  const auto         sampleBlocks = static_cast<unsigned int>(
    std::max<std::int64_t>(1, std::min<std::int64_t>((count + kThreads - 1) / kThreads, 65535)));
  SampleVoxelsKernel<D, TValue><<<sampleBlocks, kThreads>>>(launch);
  CIF_CUDA_CHECK_LAUNCH();
  ColumnSumsKernel<D, TValue><<<sampleBlocks, kThreads>>>(launch);
  CIF_CUDA_CHECK_LAUNCH();
  CorrelationKernel<D, TValue><<<static_cast<unsigned int>(launch.blocks), kThreads>>>(launch);
  CIF_CUDA_CHECK_LAUNCH();
  std::vector<double> blockSums(static_cast<std::size_t>(launch.blocks) * kNeighborhoodSums, 0.0);
  CIF_CUDA_CHECK(
    cudaMemcpy(blockSums.data(), launch.blockSums, blockSums.size() * sizeof(double), cudaMemcpyDeviceToHost));
  const int values = launch.moments ? kNeighborhoodSums : 2;
  for (int k = 0; k < kNeighborhoodSums; ++k)
  {
    sums[k] = 0.0;
  }
  for (int b = 0; b < launch.blocks; ++b)
  {
    for (int k = 0; k < values; ++k)
    {
      sums[k] += blockSums[static_cast<std::size_t>(b) * kNeighborhoodSums + k];
    }
  }
}

template void
NeighborhoodCorrelationOnDevice<2, float>(const NeighborhoodCorrelationLaunch<float> &, double *);
template void
NeighborhoodCorrelationOnDevice<2, double>(const NeighborhoodCorrelationLaunch<double> &, double *);
template void
NeighborhoodCorrelationOnDevice<3, float>(const NeighborhoodCorrelationLaunch<float> &, double *);
template void
NeighborhoodCorrelationOnDevice<3, double>(const NeighborhoodCorrelationLaunch<double> &, double *);
} // namespace cif
