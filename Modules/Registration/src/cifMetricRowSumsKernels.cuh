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
// Row sums in a fixed order, and the B-spline gather that ends a pass in the same launch.
#ifndef cifMetricRowSumsKernels_cuh
#define cifMetricRowSumsKernels_cuh

#include "cifCudaCheck.cuh"
#include "cifMetricReductionKernels.cuh"
#include "cifMetricSumsDevice.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace cif
{
namespace
{
/** out[k] = sum of rows[r * width + k] over r, for k < width, by one block of
 * kSumThreads threads: each thread a fixed stride of rows, then the tree. */
template <int Width>
__device__ void
SumRowsInBlock(const double * rows, std::int64_t rowCount, double * out)
{
  __shared__ double shared[kSumThreads][Width];
  double            local[Width];
  for (int k = 0; k < Width; ++k)
  {
    local[k] = 0.0;
  }
  for (std::int64_t r = threadIdx.x; r < rowCount; r += kSumThreads)
  {
    for (int k = 0; k < Width; ++k)
    {
      local[k] += rows[r * Width + k];
    }
  }
  for (int k = 0; k < Width; ++k)
  {
    shared[threadIdx.x][k] = local[k];
  }
  TreeReduce<Width, kSumThreads>(shared);
  if (threadIdx.x < Width)
  {
    out[threadIdx.x] = shared[0][threadIdx.x];
  }
}

template <int Width>
__global__ void
__launch_bounds__(kSumThreads) SumRowsKernel(const double * rows, std::int64_t rowCount, double * out)
{
  SumRowsInBlock<Width>(rows, rowCount, out);
}

/** A grid's cells per axis, by value for a kernel's parameters. */
struct CellsPerAxis
{
  std::int64_t n[3];
};

/** The end of a B-spline evaluation in one launch: block 0 sums the work items' rows
 * of (valid points, value) into \a sums (SumRowsInBlock; \a rowCountOnDevice, where
 * given, is read on the device), while the other blocks gather every control point's
 * derivative along every axis from the item partials, a thread per control point and
 * axis, each summing with GatherControlPointDerivative (the host's gather's bits) in
 * 32-bit index arithmetic (SumRowsAndGather checks that the grid fits), then divided
 * by \a validCount where it is given. The gather does not wait for block 0: the
 * valid points come from the integer count the work kernels added up (exact in any
 * order, the same double as the rows' sum). The axis varies fastest among a warp's
 * threads: a control point's D partials lie side by side in an item's, so a warp's
 * loads touch about a third of the sectors they would with the axis slowest (the
 * derivative's layout, axis then control point, is kept in the stores). */
template <int D>
__global__ void
__launch_bounds__(kSumThreads) SumRowsAndGatherKernel(const double *             rows,
                                                      std::int64_t               rowCountOnHost,
                                                      const std::int64_t *       rowCountOnDevice,
                                                      double *                   sums,
                                                      const double *             itemPartials,
                                                      const std::int64_t *       cellItemBegin,
                                                      const CellsPerAxis         cells,
                                                      const TransformStage       grid,
                                                      std::uint32_t              controlPoints,
                                                      const unsigned long long * validCount,
                                                      double *                   derivative)
{
  if (blockIdx.x == 0)
  {
    SumRowsInBlock<2>(rows, rowCountOnDevice != nullptr ? *rowCountOnDevice : rowCountOnHost, sums);
    return;
  }
  const std::uint32_t n = (blockIdx.x - 1) * kSumThreads + threadIdx.x;
  if (n >= controlPoints * static_cast<std::uint32_t>(D))
  {
    return;
  }
  const std::uint32_t k = n / static_cast<std::uint32_t>(D);
  const int           axis = static_cast<int>(n - k * static_cast<std::uint32_t>(D));
  const double        sum =
    GatherControlPointDerivative<D, std::uint32_t>(itemPartials, cellItemBegin, cells.n, grid.gridSize, k, axis);
  derivative[static_cast<std::uint32_t>(axis) * controlPoints + k] =
    validCount != nullptr ? sum / static_cast<double>(*validCount) : sum;
}

/** The rows' sums into the workspace's readback (kReadbackSums) and the derivative of
 * every control point (kReadbackDerivative), divided by \a validCount where given:
 * SumRowsAndGatherKernel. */
template <int D>
void
SumRowsAndGather(const double *             rows,
                 std::int64_t               rowCountOnHost,
                 const std::int64_t *       rowCountOnDevice,
                 const double *             itemPartials,
                 const std::int64_t *       cellItemBegin,
                 const std::int64_t         cellsPerAxis[3],
                 const TransformStage &     grid,
                 const unsigned long long * validCount,
                 MetricDeviceWorkspace &    workspace)
{
  const std::int64_t controlPoints = grid.gridSize[0] * grid.gridSize[1] * grid.gridSize[2];
  const std::int64_t outputs = D * controlPoints;
  if (outputs > std::int64_t(0xffffffff) - 2 * kSumThreads)
  {
    throw CudaError("B-spline grid of " + std::to_string(controlPoints) + " control points in " + std::to_string(D) +
                    "-D: the GPU metric takes fewer than 2^32 derivative values");
  }
  const CellsPerAxis cells = { { cellsPerAxis[0], cellsPerAxis[1], cellsPerAxis[2] } };
  double *           readback = workspace.readback.As<double>();
  SumRowsAndGatherKernel<D><<<static_cast<unsigned int>(1 + (outputs + kSumThreads - 1) / kSumThreads), kSumThreads>>>(
    rows,
    rowCountOnHost,
    rowCountOnDevice,
    readback + kReadbackSums,
    itemPartials,
    cellItemBegin,
    cells,
    grid,
    static_cast<std::uint32_t>(controlPoints),
    validCount,
    readback + kReadbackDerivative);
  CIF_CUDA_CHECK_LAUNCH();
}
} // namespace
} // namespace cif

#endif
