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
#ifndef cifBSplineRowsKernels_cuh
#define cifBSplineRowsKernels_cuh

// The kernels for a single cubic B-spline transform (the warp of elastic registration,
// cifResampleKernels.cuh): a block of output rows shares the B-spline support of its
// control columns in shared memory, for resampling and for displacement fields.
#include "cifResampleVoxelKernels.cuh"

namespace cif
{
namespace
{
/** Output rows per block of the B-spline row kernels, and the control columns each
 * row's partial sums can hold in shared memory (a 125-cell mesh along x). */
constexpr int kBSplineRowsPerBlock = 8;
constexpr int kMaxBSplineColumns = 128;

/** What a block of B-spline rows keeps in shared memory: per row, the support along
 * axes 1.. and the partial sums of every control column. */
struct BSplineRowsShared
{
  double       columns[kBSplineRowsPerBlock][3][kMaxBSplineColumns];
  std::int64_t rowStart[kBSplineRowsPerBlock][3];
  std::int64_t rowOutputIndex[kBSplineRowsPerBlock][kMaxDimension]; // the row's first voxel
  double       rowWeights[kBSplineRowsPerBlock][3][4];
  bool         rowValid[kBSplineRowsPerBlock];
};

/** A single cubic B-spline stage applied to every voxel of the block's
 * kBSplineRowsPerBlock output rows, when the rows run along the control grid's first
 * axis (the usual case in registration: image and control grid in the fixed image's
 * direction; see RowsShareBSplineSupport). Then every voxel of an output row has the
 * same support and weights along the other axes, exactly (the matrices' zeros make
 * those grid indices independent of the row position). So the block first folds
 * those axes into one partial sum per row, control column and component (16 terms
 * each), and each voxel then sums 4 columns instead of 4^D control points. ITK's
 * valid-region rule and weights are applied per axis as in ApplyBSpline; only the
 * order of the sum differs (within 1e-16 relative). Calls voxel(row, x, p, q) with
 * the voxel's physical point p and its image q: the threads along each row in turn,
 * or with \a lanesAcrossRows down the block's rows first (where the input's rows run
 * along output axis 1, VoxelLaneAxis: a warp's gathers then read 8 consecutive
 * samples of each of 4 input rows instead of 32 rows). */
template <int D, typename TVoxel>
__device__ void
MapBSplineRows(const ResampleGeometry & geometry,
               const TransformStage &   stage,
               BSplineRowsShared &      shared,
               bool                     lanesAcrossRows,
               TVoxel &&                voxel)
{
  const std::int64_t rows = geometry.OutputRows();
  const std::int64_t firstRow = static_cast<std::int64_t>(blockIdx.x) * kBSplineRowsPerBlock;
  const int          rowsHere =
    rows - firstRow < kBSplineRowsPerBlock ? static_cast<int>(rows - firstRow) : kBSplineRowsPerBlock;

  // Each row's support along axes 1..D-1, from its first voxel (the same for all).
  const auto rowIndex = [&](int r, std::int64_t index[kMaxDimension]) {
    std::int64_t rest = firstRow + r;
    index[0] = geometry.outputStart[0];
    index[1] = index[2] = index[3] = 0;
    for (int a = 1; a < D; ++a)
    {
      index[a] = geometry.outputStart[a] + rest % geometry.outputSize[a];
      rest /= geometry.outputSize[a];
    }
  };
  if (threadIdx.x < rowsHere)
  {
    const int    r = threadIdx.x;
    std::int64_t index[kMaxDimension];
    rowIndex(r, index);
    for (int a = 0; a < kMaxDimension; ++a)
    {
      shared.rowOutputIndex[r][a] = index[a];
    }
    double p[kMaxDimension];
    IndexToOutputPoint<D>(geometry, index, p);
    bool valid = true;
    for (int a = 1; a < 3; ++a)
    {
      shared.rowStart[r][a] = 0;
      shared.rowWeights[r][a][0] = 1.0;
      shared.rowWeights[r][a][1] = shared.rowWeights[r][a][2] = shared.rowWeights[r][a][3] = 0.0;
      if (a < D)
      {
        valid = valid && BSplineAxisSupport(
                           stage, a, BSplineGridIndex<D>(stage, p, a), shared.rowStart[r][a], shared.rowWeights[r][a]);
      }
    }
    shared.rowValid[r] = valid;
  }
  __syncthreads();
  const int width = static_cast<int>(stage.gridSize[0]);
  for (int item = threadIdx.x; item < rowsHere * width; item += blockDim.x)
  {
    const int r = item / width, column = item - r * width;
    if (!shared.rowValid[r])
    {
      continue;
    }
    constexpr int      KY = D > 1 ? 4 : 1;
    constexpr int      KZ = D > 2 ? 4 : 1;
    const std::int64_t start[3] = { column, shared.rowStart[r][1], shared.rowStart[r][2] };
    double             sum[3] = { 0, 0, 0 };
    for (int kz = 0; kz < KZ; ++kz)
    {
      for (int ky = 0; ky < KY; ++ky)
      {
        const std::int64_t at = BSplineSupportRow<D>(stage, start, ky, kz);
        const double       wyz = shared.rowWeights[r][1][ky] * shared.rowWeights[r][2][kz];
        for (int c = 0; c < D; ++c)
        {
          sum[c] += wyz * stage.coefficients[c][at];
        }
      }
    }
    for (int c = 0; c < D; ++c)
    {
      shared.columns[r][c][column] = sum[c];
    }
  }
  __syncthreads();
  // Voxel x of row r: its point through the row's columns.
  const auto mapVoxel = [&](int r, std::int64_t x, std::int64_t index[kMaxDimension]) {
    index[0] = geometry.outputStart[0] + x;
    double p[kMaxDimension];
    IndexToOutputPoint<D>(geometry, index, p);
    double       q[kMaxDimension] = { p[0], p[1], p[2], 0.0 };
    double       wx[4];
    std::int64_t startX;
    if (shared.rowValid[r] && BSplineAxisSupport(stage, 0, BSplineGridIndex<D>(stage, p, 0), startX, wx))
    {
      for (int c = 0; c < D; ++c)
      {
        const double * column = &shared.columns[r][c][startX];
        q[c] = p[c] + (wx[0] * column[0] + wx[1] * column[1] + wx[2] * column[2] + wx[3] * column[3]);
      }
    }
    voxel(firstRow + r, x, p, q);
  };
  if (!lanesAcrossRows)
  {
    for (int r = 0; r < rowsHere; ++r)
    {
      std::int64_t index[kMaxDimension] = { shared.rowOutputIndex[r][0],
                                            shared.rowOutputIndex[r][1],
                                            shared.rowOutputIndex[r][2],
                                            shared.rowOutputIndex[r][3] };
      for (std::int64_t x = threadIdx.x; x < geometry.outputSize[0]; x += blockDim.x)
      {
        mapVoxel(r, x, index);
      }
    }
  }
  else
  {
    // consecutive threads down the block's rows, then along them
    const std::int64_t voxels = rowsHere * geometry.outputSize[0];
    for (std::int64_t item = threadIdx.x; item < voxels; item += blockDim.x)
    {
      const int    r = static_cast<int>(item % rowsHere);
      std::int64_t index[kMaxDimension] = { shared.rowOutputIndex[r][0],
                                            shared.rowOutputIndex[r][1],
                                            shared.rowOutputIndex[r][2],
                                            shared.rowOutputIndex[r][3] };
      mapVoxel(r, item / rowsHere, index);
    }
  }
}

/** The displacement field T(p) - p through MapBSplineRows. */
template <int D, typename TOut>
__global__ void
__launch_bounds__(kThreads)
  BSplineFieldRowsKernel(ResampleGeometry geometry, TransformStage stage, TOut * __restrict__ field)
{
  __shared__ BSplineRowsShared shared;
  const std::int64_t           width = geometry.outputSize[0];
  MapBSplineRows<D>(
    geometry,
    stage,
    shared,
    false,
    [&](std::int64_t row, std::int64_t x, const double p[kMaxDimension], const double q[kMaxDimension]) {
      TOut * out = field + static_cast<std::int64_t>(D) * (row * width + x);
      for (int c = 0; c < D; ++c)
      {
        out[c] = static_cast<TOut>(q[c] - p[c]);
      }
    });
}

/** Resampling through a B-spline transform (the warp of elastic registration)
 * through MapBSplineRows: each voxel's image point, then as ResampleVoxel. */
template <int D, typename TCoefficient, typename TOutput>
__global__ void
__launch_bounds__(kThreads) ResampleBSplineRowsKernel(const TCoefficient * __restrict__ coefficients,
                                                      ResampleGeometry geometry,
                                                      TransformStage   stage,
                                                      InsideBounds     bounds,
                                                      TOutput          output,
                                                      bool             lanesAcrossRows)
{
  __shared__ BSplineRowsShared shared;
  const std::int64_t           width = geometry.outputSize[0];
  MapBSplineRows<D>(geometry,
                    stage,
                    shared,
                    lanesAcrossRows,
                    [&](std::int64_t row, std::int64_t x, const double *, const double q[kMaxDimension]) {
                      double index[kMaxDimension];
                      InputContinuousIndex<D>(geometry, q, index);
                      if (InsideBounded<D>(index, bounds))
                      {
                        output.Store(row * width + x,
                                     EvaluateCubic<D>(StoredInputGridStart(coefficients, geometry),
                                                      StoredInputGrid<D>(geometry),
                                                      index));
                      }
                      else
                      {
                        output.StoreDefault(row * width + x);
                      }
                    });
}

/** Whether MapBSplineRows applies: a single cubic B-spline stage whose grid indices
 * along axes 1.. do not depend on the output's first index (exact zeros in both
 * matrices), with a control grid narrow enough for shared memory. */
template <int D>
bool
RowsShareBSplineSupport(const ResampleGeometry & geometry, const TransformChain & chain)
{
  if (D < 2 || D > 3 || chain.count != 1 || chain.stage[0].kind != TransformKind::BSpline ||
      chain.stage[0].gridSize[0] > kMaxBSplineColumns || geometry.OutputRows() > kMaxBSplineRowsOutputRows)
  {
    return false;
  }
  for (int a = 1; a < D; ++a)
  {
    if (geometry.outputIndexToPoint[a][0] != 0.0 || chain.stage[0].gridPointToIndex[a][0] != 0.0)
    {
      return false;
    }
  }
  return true;
}

/** Blocks of kBSplineRowsPerBlock output rows. */
unsigned int
BSplineRowBlocks(const ResampleGeometry & geometry)
{
  return static_cast<unsigned int>((geometry.OutputRows() + kBSplineRowsPerBlock - 1) / kBSplineRowsPerBlock);
}
} // namespace
} // namespace cif

#endif
