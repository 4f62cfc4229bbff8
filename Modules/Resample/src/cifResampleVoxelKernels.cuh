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
#ifndef cifResampleVoxelKernels_cuh
#define cifResampleVoxelKernels_cuh

// The one-thread-per-voxel kernels of exact cubic resampling (cifResampleKernels.cuh):
// resampling through any transform chain, row endpoints and displacement fields,
// each voxel through the arithmetic of cifResampleMath.h (shared with the CPU path).
#include "cifGridStride.cuh"
#include "cifResampleDevice.h"
#include "cifRowShear.h"
#include "cifScalarOutput.cuh"

namespace cif
{
namespace
{
constexpr int kThreads = 256;

unsigned int
BlocksFor(std::int64_t count)
{
  return GridStrideBlocks(count, kThreads);
}

/** One thread per output voxel, consecutive threads along output axis \a laneAxis
 * (VoxelLaneAxis: the one along the input's rows, so that a warp's gathers share
 * them). */
template <int D, typename TCoefficient, typename TOutput>
__global__ void
__launch_bounds__(kThreads, 4) ResampleKernel(const TCoefficient * coefficients,
                                              ResampleGeometry     geometry,
                                              TransformChain       chain,
                                              const double *       mappedPoints,
                                              TOutput              output,
                                              int                  laneAxis)
{
  const std::int64_t count = geometry.OutputCount();
  const auto         resample = [&](std::int64_t voxel) {
    double value;
    if (ResampleVoxelValue<D, TCoefficient>(
          coefficients, geometry, chain, mappedPoints ? mappedPoints + D * voxel : nullptr, voxel, value))
    {
      output.Store(voxel, value);
    }
    else
    {
      output.StoreDefault(voxel);
    }
  };
  // two loops, so that threads along the rows pay nothing for the reordering
  if (laneAxis == 0)
  {
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    {
      resample(i);
    }
  }
  else
  {
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    {
      resample(VoxelOfThread<D>(geometry, laneAxis, i));
    }
  }
}

template <int D>
__global__ void
RowEndpointsKernel(ResampleGeometry geometry, TransformChain chain, double * endpoints)
{
  const std::int64_t rows = geometry.OutputRows();
  for (std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; row < rows;
       row += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    double * e = endpoints + 2 * kMaxDimension * row;
    RowEndpoints<D>(geometry, chain, row, e, e + kMaxDimension);
  }
}

template <int D, typename TOut>
__global__ void
DisplacementFieldKernel(ResampleGeometry geometry, TransformChain chain, TOut * field)
{
  const std::int64_t count = geometry.OutputCount();
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    double p[kMaxDimension], q[kMaxDimension];
    OutputPoint<D>(geometry, i, p);
    ApplyTransformChain<D>(chain, p, q);
    for (int a = 0; a < D; ++a)
    {
      field[D * i + a] = static_cast<TOut>(q[a] - p[a]);
    }
  }
}
} // namespace
} // namespace cif

#endif
