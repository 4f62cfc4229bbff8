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
#ifndef cifResampleKernels_cuh
#define cifResampleKernels_cuh

// CUDA kernels of exact cubic resampling and displacement fields: one thread per
// output voxel (or a block per few output rows), the per-voxel arithmetic of
// cifResampleMath.h (shared with the CPU path). Included by the translation units
// that instantiate them: one for the resampling into every output type
// (cifResampleKernels.cu: the kernels write through ScalarOutput, float coefficients
// into float through TypedOutput) and one for the fields (cifResampleFieldKernels.cu),
// each a CUDA module of its own, so that lazy loading loads only what a pipeline uses.
#include "cifCudaCheck.cuh"
#include "cifGridStride.cuh"
#include "cifDeviceBuffer.h"
#include "cifResampleDevice.h"
#include "cifRowBuckets.h"
#include "cifRowShear.h"
#include "cifScalarOutput.cuh"
#include "cifScalarTypes.h"

#include <algorithm>
#include <type_traits>

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

/** ResampleImageFilter's linear path. A block takes kBlockColumns consecutive lane
 * coordinates (along the shear's lane axis) of kRowGroups x kRowsPerThread consecutive
 * sheared walk positions (along its walk axis) of one sheet (cifRowShear.h: lane l of
 * sheared position j is walk position j + ShiftOf(l), so that a warp's voxels share
 * input rows); each thread takes one lane coordinate and kRowsPerThread walk
 * positions, a warp 32 lane coordinates. The block's threads first map the endpoints
 * of every output row it touches (two transforms each, through affine stages only:
 * the kernel carries no grid transform's code, which would cost registers and
 * spills) into shared memory. With the lanes along the rows (output axis 0) each
 * thread divides its row fraction once for all its voxels; with the lanes across the
 * rows each thread's voxels lie on one row (its endpoints stored component-major, so
 * that a warp's 32 rows are read without bank conflicts), and the block's walk
 * positions' fractions are divided once into shared memory. No division
 * per voxel: what is left per voxel is the interpolation itself. Narrow blocks keep
 * the rows that a block of sheared lanes spans, and the threads left idle at the
 * sheets' edges, few. How a voxel inside the buffer is evaluated is RowsEvaluation's
 * choice. */
constexpr int kBlockColumns = 64;
constexpr int kRowGroups = kThreads / kBlockColumns;
constexpr int kRowsPerThread = 8;
constexpr int kBlockRows = kRowGroups * kRowsPerThread;
constexpr int kWarpsPerBlock = kThreads / 32;

/** How ResampleRowsKernel evaluates the voxels inside the buffer. */
enum class RowsEvaluation
{
  /** EvaluateCubic: any grid (64-bit offsets where needed). */
  General,
  /** Fewer than 2^31 coefficients with SupportFits32: the loop computes the voxels
   * whose support lies inside the grid and sets the others (at the input's faces)
   * aside; each warp computes its own together at the end, through ITK's mirror. */
  InteriorThenFaces,
  /** Mirror-padded coefficients (cifMirrorPadding.h) that MirrorPaddingFits32: every
   * voxel's support lies inside the padded grid, so every voxel takes the interior sum
   * and no voxel is set aside. */
  MirrorPadded
};

/** A row's start and its change along the row (end - start), as kept in shared
 * memory: ContinuousIndexOnRow's terms, the subtraction done once per row. The chain's
 * stages are all affine (ResampleOnDevice checks). */
template <int D>
__device__ void
RowStartAndStep(const ResampleGeometry & geometry,
                const TransformChain &   chain,
                std::int64_t             row,
                double                   startAndStep[2 * kMaxDimension])
{
  double * start = startAndStep;
  double * step = startAndStep + kMaxDimension;
  RowEndpoints<D, true>(geometry, chain, row, start, step);
  for (int a = 0; a < kMaxDimension; ++a)
  {
    step[a] = step[a] - start[a];
  }
}

/** ContinuousIndexOnRow from a row's start and step (RowStartAndStep): the same
 * numbers. Component c of the row lies at startAndStep[c * stride]. */
template <int D>
__device__ __forceinline__ void
IndexOnRow(const double * startAndStep, int stride, double alpha, double index[kMaxDimension])
{
  for (int a = 0; a < kMaxDimension; ++a)
  {
    index[a] = a < D ? MulAddUnfused(alpha, startAndStep[(kMaxDimension + a) * stride], startAndStep[a * stride]) : 0.0;
  }
}

/** The doubles of shared memory that ResampleRowsKernel takes for \a shear and \a
 * buckets: the endpoints (2 kMaxDimension each) of the rows it touches and, with the
 * lanes across the rows, the fractions of its walk positions. */
inline std::size_t
RowsKernelSharedDoubles(const RowShear & shear, const RowBuckets & buckets)
{
  const std::size_t walked =
    static_cast<std::size_t>(buckets.on ? RowsTouchedByBuckets(buckets, kBlockRows, kBlockColumns)
                                        : RowsTouched(shear, kBlockRows, kBlockColumns));
  return shear.laneAxis == 0 ? 2 * kMaxDimension * walked : 2 * kMaxDimension * kBlockColumns + walked;
}

template <int D, typename TCoefficient, typename TOutput, RowsEvaluation Evaluation, bool LanesAlongRows, bool Bucketed>
__global__ void
__launch_bounds__(kThreads, 4) // at most 64 registers: the gathers need warps in flight
  ResampleRowsKernel(const TCoefficient * __restrict__ coefficients,
                     ResampleGeometry geometry,
                     TransformChain   chain,
                     RowShear         shear,
                     RowBuckets       buckets,
                     InsideBounds     bounds,
                     TOutput          output)
{
  constexpr bool           setsFacesAside = Evaluation == RowsEvaluation::InteriorThenFaces;
  extern __shared__ double ends[]; // RowsKernelSharedDoubles(shear, buckets)
  // InteriorThenFaces: each warp's voxels whose support reaches past the grid, as k * 32 + lane
  __shared__ std::uint16_t borderVoxels[kWarpsPerBlock][setsFacesAside ? 32 * kRowsPerThread : 1];
  __shared__ int           borderCount[kWarpsPerBlock];
  // buckets (cifRowBuckets.h): lanes along the rows, mirror-padded coefficients only
  // (measured: no gain for the dense layout's faces), one run per thread
  static_assert(!Bucketed || (LanesAlongRows && Evaluation == RowsEvaluation::MirrorPadded),
                "buckets: see MakeRowBuckets");
  static_assert(!Bucketed || kRowsPerThread == kBucketsPerRun, "a thread takes one run of buckets");
  constexpr bool bucketed = Bucketed; // buckets.on
  const int      warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // the grid the samples are read on (the inside test is bounds', geometry.input's)
  const CoefficientGrid stored = StoredInputGrid<D>(geometry);
  const TCoefficient *  samples = StoredInputGridStart(coefficients, geometry);
  const std::int64_t    width = geometry.outputSize[0];
  const std::int64_t    laneSize = geometry.outputSize[shear.laneAxis];
  const std::int64_t    walkSize = geometry.outputSize[shear.walkAxis];
  const std::int64_t    laneRowStride = OutputRowStride(geometry, shear.laneAxis);
  const std::int64_t    walkRowStride = OutputRowStride(geometry, shear.walkAxis);
  const std::int64_t    blocksPerSheet = (WalkLength(shear, buckets) + kBlockRows - 1) / kBlockRows;
  // One grid dimension (2^31 - 1 blocks), walk positions fastest: blocksPerLaneTile
  // blocks walk down the sheets of one tile of lane coordinates, then the next tile.
  const std::int64_t blocksPerLaneTile = blocksPerSheet * (geometry.OutputCount() / (laneSize * walkSize));
  const std::int64_t walkBlock = blockIdx.x % blocksPerLaneTile;
  const std::int64_t sheet = walkBlock / blocksPerSheet;
  const std::int64_t sheetRow = sheet * OutputRowStride(geometry, shear.sheetAxis);
  const std::int64_t firstSheared = (walkBlock % blocksPerSheet) * kBlockRows - shear.before;
  const std::int64_t firstBucket =
    bucketed ? FirstBucketOfSheet(buckets, sheet) + (walkBlock % blocksPerSheet) * kBlockRows : 0;
  const std::int64_t firstLane = static_cast<std::int64_t>(blockIdx.x / blocksPerLaneTile) * kBlockColumns;
  const std::int64_t lastLane = (firstLane + kBlockColumns < laneSize ? firstLane + kBlockColumns : laneSize) - 1;
  // The block's walk positions: sheared, the lanes' shifts' extremes; bucketed, the
  // corner lanes' bucket boundaries (linear in the lane, but for rounding: one
  // position more at each end, RowsTouchedByBuckets).
  std::int64_t lowW, highW;
  if constexpr (bucketed)
  {
    // lanes 0-3 of each warp compute one corner each, and share them
    const int          corner = lane % 4;
    const std::int64_t mine =
      WalkOfBucket(buckets, firstBucket + (corner / 2) * kBlockRows, corner % 2 ? lastLane : firstLane, sheet);
    const std::int64_t c0 = __shfl_sync(0xFFFFFFFF, mine, 0), c1 = __shfl_sync(0xFFFFFFFF, mine, 1);
    const std::int64_t c2 = __shfl_sync(0xFFFFFFFF, mine, 2), c3 = __shfl_sync(0xFFFFFFFF, mine, 3);
    lowW = min(c0, c1) - 1;
    highW = max(c2, c3);
  }
  else
  {
    const std::int64_t shiftA = ShiftOf(shear, firstLane), shiftB = ShiftOf(shear, lastLane);
    lowW = firstSheared + min(shiftA, shiftB);
    highW = firstSheared + kBlockRows - 1 + max(shiftA, shiftB);
  }
  lowW = max(lowW, std::int64_t(0));
  highW = min(highW, walkSize - 1);
  if (lowW > highW)
  {
    return; // the whole block lies outside the output (the same for every thread)
  }
  const int walkHere = static_cast<int>(highW - lowW + 1);
  // lanes across the rows: the lanes' rows' endpoints, then the walk positions' fractions
  double * const fractions = ends + 2 * kMaxDimension * kBlockColumns;
  if constexpr (LanesAlongRows)
  {
    for (int r = threadIdx.x; r < walkHere; r += blockDim.x)
    {
      RowStartAndStep<D>(geometry, chain, sheetRow + (lowW + r) * walkRowStride, ends + 2 * kMaxDimension * r);
    }
  }
  else
  {
    // component-major (component c of lane row r at ends[c * kBlockColumns + r]): a
    // warp's lanes read consecutive doubles, which the banks serve at once
    for (int r = threadIdx.x; r <= lastLane - firstLane; r += blockDim.x)
    {
      double startAndStep[2 * kMaxDimension];
      RowStartAndStep<D>(geometry, chain, sheetRow + (firstLane + r) * laneRowStride, startAndStep);
      for (int c = 0; c < 2 * kMaxDimension; ++c)
      {
        ends[c * kBlockColumns + r] = startAndStep[c];
      }
    }
    for (int r = threadIdx.x; r < walkHere; r += blockDim.x)
    {
      fractions[r] = RowFraction(geometry, lowW + r);
    }
  }
  if (lane == 0)
  {
    borderCount[warp] = 0;
  }
  __syncthreads();
  // The lane coordinate and (sheared) first walk position of the voxels of this warp's thread number inWarp.
  const auto laneOf = [&](int inWarp) { return firstLane + (warp * 32 + inWarp) % kBlockColumns; };
  const auto firstWalkOf = [&](int inWarp) {
    return firstSheared + ((warp * 32 + inWarp) / kBlockColumns) * kRowsPerThread + ShiftOf(shear, laneOf(inWarp));
  };
  // The continuous index and output offset of the voxel at lane coordinate l, walk position w.
  const auto locate = [&](std::int64_t l, std::int64_t w, double index[kMaxDimension]) {
    if constexpr (LanesAlongRows)
    {
      IndexOnRow<D>(ends + 2 * kMaxDimension * (w - lowW), 1, RowFraction(geometry, l), index);
      return (sheetRow + w * walkRowStride) * width + l;
    }
    else
    {
      IndexOnRow<D>(ends + (l - firstLane), kBlockColumns, fractions[w - lowW], index);
      return (sheetRow + l * laneRowStride) * width + w;
    }
  };
  // One voxel at continuous index \a index, written to output voxel \a at; k: its step along the walk.
  const auto evaluate = [&](const double index[kMaxDimension], std::int64_t at, int k) {
    if (!InsideBounded<D>(index, bounds))
    {
      output.StoreDefault(at);
    }
    else if constexpr (Evaluation == RowsEvaluation::MirrorPadded)
    {
      output.Store(at, EvaluateCubicInterior32<D>(samples, stored, index));
    }
    else if constexpr (setsFacesAside)
    {
      double value;
      if (TryEvaluateCubicInterior32<D, TCoefficient, true>(samples, stored, index, value))
      {
        output.Store(at, value);
      }
      else
      {
        borderVoxels[warp][atomicAdd(&borderCount[warp], 1)] = static_cast<std::uint16_t>(k * 32 + lane);
      }
    }
    else
    {
      output.Store(at, EvaluateCubic<D>(samples, stored, index));
    }
  };
  const std::int64_t l = laneOf(lane);
  if (l < laneSize) // no return: the border voxels below need the whole warp
  {
    // What the thread's voxels share: along the rows their fraction (one division per
    // thread), across the rows their row. Voxel w is written at outputAt + w * outputStep.
    const double       alpha = LanesAlongRows ? RowFraction(geometry, l) : 0.0;
    const std::int64_t outputAt = LanesAlongRows ? sheetRow * width + l : (sheetRow + l * laneRowStride) * width;
    const std::int64_t outputStep = LanesAlongRows ? walkRowStride * width : 1;
    if constexpr (bucketed)
    {
      // Step k takes the first voxel of the thread's bucket k (cifRowBuckets.h), at
      // offset BucketOffset(run, k) from run.first, if the bucket holds one; voxels
      // outside the output fall outside [lowW, highW]. The offsets are kept running
      // (from lowW, and into the output), stepping by one voxel and once by the jump,
      // so that no address is rebuilt per voxel: the gathers need every register of
      // the 64 they can get (built per voxel, they cost 10-20% here).
      const BucketRun run = MakeBucketRun(
        buckets, firstBucket + ((warp * 32 + lane) / kBlockColumns) * kRowsPerThread, BucketU(buckets, l, sheet));
      const unsigned span = static_cast<unsigned>(highW - lowW);
      if (run.jump > 0)
      {
        // bucket jumpAt - 1's second voxel, at once (MakeRowBuckets' step range leaves
        // runs of one voxel more to rounding)
        const std::int64_t second = run.first + BucketSecondVoxel(run) - lowW;
        if (static_cast<unsigned>(second) <= span)
        {
          double index[kMaxDimension];
          IndexOnRow<D>(ends + 2 * kMaxDimension * second, 1, alpha, index);
          evaluate(index, outputAt + (lowW + second) * outputStep, 0);
        }
      }
      // the jump as one event at step eventK: one voxel more, the run's voxel jumpAt
      // (the second voxel, taken above) is stepped over before bucket jumpAt; one
      // fewer, bucket jumpAt - 1 is empty and its step takes no voxel
      const int    eventK = run.jump < 0 ? run.jumpAt - 1 : (run.jump > 0 ? run.jumpAt : kRowsPerThread);
      const bool   stepsOver = run.jump > 0;
      int          fromLow = static_cast<int>(run.first - lowW);
      std::int64_t outputIndex = outputAt + run.first * outputStep;
      for (int k = 0; k < kRowsPerThread; ++k)
      {
        const bool event = k == eventK;
        if (event && stepsOver)
        {
          ++fromLow;
          outputIndex += outputStep;
        }
        if (!(event && !stepsOver) && static_cast<unsigned>(fromLow) <= span)
        {
          double index[kMaxDimension];
          IndexOnRow<D>(ends + 2 * kMaxDimension * fromLow, 1, alpha, index);
          evaluate(index, outputIndex, k);
        }
        if (!(event && !stepsOver))
        {
          ++fromLow;
          outputIndex += outputStep;
        }
      }
    }
    else
    {
      const std::int64_t firstW = firstWalkOf(lane);
      for (int k = 0; k < kRowsPerThread; ++k)
      {
        const std::int64_t w = firstW + k;
        if (w >= lowW && w <= highW)
        {
          double index[kMaxDimension];
          if constexpr (LanesAlongRows)
          {
            IndexOnRow<D>(ends + 2 * kMaxDimension * (w - lowW), 1, alpha, index);
          }
          else
          {
            IndexOnRow<D>(ends + (l - firstLane), kBlockColumns, fractions[w - lowW], index);
          }
          evaluate(index, outputAt + w * outputStep, k);
        }
      }
    }
  }
  if constexpr (setsFacesAside)
  {
    // ITK's mirrored sum for the warp's voxels whose support reaches past the grid
    // (at the input's faces): taken together once the loop is done, so that the warp
    // runs it for up to 32 of them at a time, not once per row for the one or two
    // lanes of that row.
    __syncwarp();
    for (int i = lane; i < borderCount[warp]; i += 32)
    {
      const int  inWarp = borderVoxels[warp][i] % 32;
      double     index[kMaxDimension];
      const auto at = locate(laneOf(inWarp), firstWalkOf(inWarp) + borderVoxels[warp][i] / 32, index);
      output.Store(at, EvaluateCubicMirrored32<D>(samples, stored, index));
    }
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
/** ResampleOnDevice into \a output: a ScalarOutput (any scalar type) or a
 * TypedOutput. */
template <int D, typename TCoefficient, typename TOutput>
void
ResampleScalarsOnDevice(const TCoefficient *     coefficients,
                        const ResampleGeometry & geometry,
                        const TransformChain &   chain,
                        const double *           mappedPoints,
                        bool                     linearRows,
                        const TOutput &          output,
                        const ResampleSlabs &    slabs,
                        const StageCallback &    afterSlab)
{
  // The kernel is chosen once, from the whole output, so that every slab is computed
  // the same way (RowsShareBSplineSupport, for one, looks at the output's row count).
  enum class Path
  {
    Rows,        // ResampleImageFilter's linear path
    BSplineRows, // one B-spline stage whose support is shared along output rows
    Voxels       // one thread per voxel
  };
  Path path = Path::Voxels;
  if (linearRows && mappedPoints == nullptr)
  {
    if (!AllStagesAffine(chain))
    {
      // ITK's linear path is for linear transforms, whose stages are all affine; the
      // shear and the row endpoints are computed from the chain on that premise.
      throw CudaError("cubic resampling: the linear (scanline) path takes affine transform stages only");
    }
    path = Path::Rows;
  }
  else if constexpr (D <= 3)
  {
    if (mappedPoints == nullptr && RowsShareBSplineSupport<D>(geometry, chain))
    {
      path = Path::BSplineRows;
    }
  }
  const InsideBounds    bounds = MakeInsideBounds(geometry.input);
  const CoefficientGrid stored = StoredInputGrid<D>(geometry);
  const bool            fits32 = Indexable32(stored) && SupportFits32(stored);
  const RowsEvaluation  rowsEvaluation = !fits32                      ? RowsEvaluation::General
                                         : geometry.inputMirrorPadded ? RowsEvaluation::MirrorPadded
                                                                      : RowsEvaluation::InteriorThenFaces;
  for (std::int64_t slab = 0; slab < slabs.count; ++slab)
  {
    const ResampleGeometry g = SlabGeometry(geometry, slabs, slab);
    const std::int64_t     first = SlabFirstVoxel(slabs, slab);
    const std::int64_t     count = g.OutputCount();
    const TOutput          out = output.From(first);
    if (count == 0)
    {
      // nothing to launch
    }
    else if (path == Path::Rows)
    {
      // which voxels each thread takes: speed only, never values
      const RowShear   shear = MakeRowShear<D>(g, chain);
      const RowBuckets buckets =
        rowsEvaluation == RowsEvaluation::MirrorPadded ? MakeRowBuckets<D>(g, chain, shear) : RowBuckets{};
      const std::int64_t laneSize = g.outputSize[shear.laneAxis];
      const std::int64_t sheets = count / (laneSize * g.outputSize[shear.walkAxis]);
      const std::int64_t blockCount = (WalkLength(shear, buckets) + kBlockRows - 1) / kBlockRows * sheets *
                                      ((laneSize + kBlockColumns - 1) / kBlockColumns);
      if (blockCount > 0x7FFFFFFF)
      {
        throw CudaError("cubic resampling: an output of " + std::to_string(count) +
                        " voxels needs more thread blocks than one launch takes");
      }
      const unsigned int blocks = static_cast<unsigned int>(blockCount);
      const std::size_t  sharedBytes = sizeof(double) * RowsKernelSharedDoubles(shear, buckets);
      // The kernel for an evaluation, with the lanes along the rows (in buckets where
      // MakeRowBuckets takes them) or (D <= 3, the only outputs MakeRowShear turns them
      // for) across them.
      const auto launch = [&](auto evaluation) {
        constexpr RowsEvaluation evaluate = decltype(evaluation)::value;
        if (buckets.on)
        {
          if constexpr (D >= 2 && D <= 3 && evaluate == RowsEvaluation::MirrorPadded)
          {
            ResampleRowsKernel<D, TCoefficient, TOutput, evaluate, true, true>
              <<<blocks, kThreads, sharedBytes>>>(coefficients, g, chain, shear, buckets, bounds, out);
          }
        }
        else if (shear.laneAxis == 0)
        {
          ResampleRowsKernel<D, TCoefficient, TOutput, evaluate, true, false>
            <<<blocks, kThreads, sharedBytes>>>(coefficients, g, chain, shear, buckets, bounds, out);
        }
        else if constexpr (D <= 3)
        {
          ResampleRowsKernel<D, TCoefficient, TOutput, evaluate, false, false>
            <<<blocks, kThreads, sharedBytes>>>(coefficients, g, chain, shear, buckets, bounds, out);
        }
      };
      switch (rowsEvaluation)
      {
        case RowsEvaluation::MirrorPadded:
          launch(std::integral_constant<RowsEvaluation, RowsEvaluation::MirrorPadded>{});
          break;
        case RowsEvaluation::InteriorThenFaces:
          launch(std::integral_constant<RowsEvaluation, RowsEvaluation::InteriorThenFaces>{});
          break;
        default:
          launch(std::integral_constant<RowsEvaluation, RowsEvaluation::General>{});
      }
      CIF_CUDA_CHECK_LAUNCH();
    }
    else if (path == Path::BSplineRows)
    {
      if constexpr (D <= 3)
      {
        ResampleBSplineRowsKernel<D, TCoefficient, TOutput><<<BSplineRowBlocks(g), kThreads>>>(
          coefficients, g, chain.stage[0], bounds, out, VoxelLaneAxis<D>(g, chain) == 1);
        CIF_CUDA_CHECK_LAUNCH();
      }
    }
    else
    {
      ResampleKernel<D, TCoefficient, TOutput>
        <<<BlocksFor(count), kThreads>>>(coefficients,
                                         g,
                                         chain,
                                         mappedPoints ? mappedPoints + D * first : nullptr,
                                         out,
                                         mappedPoints ? 0 : VoxelLaneAxis<D>(g, chain));
      CIF_CUDA_CHECK_LAUNCH();
    }
    StageDone(afterSlab);
  }
}
} // namespace

template <int D, typename TCoefficient, typename TOut>
void
ResampleOnDevice(const TCoefficient *     coefficients,
                 const ResampleGeometry & geometry,
                 const TransformChain &   chain,
                 const double *           mappedPoints,
                 bool                     linearRows,
                 TOut                     defaultValue,
                 TOut *                   output,
                 const ResampleSlabs &    slabs,
                 const StageCallback &    afterSlab)
{
  if constexpr (std::is_same_v<TCoefficient, float> && std::is_same_v<TOut, float>)
  {
    ResampleScalarsOnDevice<D, TCoefficient>(coefficients,
                                             geometry,
                                             chain,
                                             mappedPoints,
                                             linearRows,
                                             TypedOutput<float>{ output, defaultValue },
                                             slabs,
                                             afterSlab);
  }
  else
  {
    ResampleScalarsOnDevice<D, TCoefficient>(coefficients,
                                             geometry,
                                             chain,
                                             mappedPoints,
                                             linearRows,
                                             ScalarOutput::Of(output, defaultValue),
                                             slabs,
                                             afterSlab);
  }
}

template <int D>
void
RowEndpointsOnDevice(const ResampleGeometry & geometry, const TransformChain & chain, double * endpoints)
{
  const std::int64_t rows = geometry.OutputRows();
  if (rows == 0)
  {
    return;
  }
  RowEndpointsKernel<D><<<BlocksFor(rows), kThreads>>>(geometry, chain, endpoints);
  CIF_CUDA_CHECK_LAUNCH();
}

template <int D, typename TOut>
void
DisplacementFieldOnDevice(const ResampleGeometry & geometry,
                          const TransformChain &   chain,
                          TOut *                   field,
                          const ResampleSlabs &    slabs,
                          const StageCallback &    afterSlab)
{
  bool sharedRows = false; // chosen once for the whole output, as in ResampleOnDevice
  if constexpr (D <= 3)
  {
    sharedRows = RowsShareBSplineSupport<D>(geometry, chain);
  }
  for (std::int64_t slab = 0; slab < slabs.count; ++slab)
  {
    const ResampleGeometry g = SlabGeometry(geometry, slabs, slab);
    const std::int64_t     count = g.OutputCount();
    TOut *                 out = field + static_cast<std::int64_t>(D) * SlabFirstVoxel(slabs, slab);
    if (count > 0 && sharedRows)
    {
      if constexpr (D <= 3)
      {
        BSplineFieldRowsKernel<D, TOut><<<BSplineRowBlocks(g), kThreads>>>(g, chain.stage[0], out);
        CIF_CUDA_CHECK_LAUNCH();
      }
    }
    else if (count > 0)
    {
      DisplacementFieldKernel<D, TOut><<<BlocksFor(count), kThreads>>>(g, chain, out);
      CIF_CUDA_CHECK_LAUNCH();
    }
    StageDone(afterSlab);
  }
}

} // namespace cif

#endif
