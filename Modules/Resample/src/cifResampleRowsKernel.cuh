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
#ifndef cifResampleRowsKernel_cuh
#define cifResampleRowsKernel_cuh

// ResampleImageFilter's linear path on the GPU (cifResampleKernels.cuh): blocks of
// sheared rows (cifRowShear.h) whose voxels share the input rows they gather, with
// the rows' buckets (cifRowBuckets.h) and the row endpoints in shared memory.
#include "cifResampleVoxelKernels.cuh"
#include "cifRowBuckets.h"
#include "cifRowShear.h"

#include <type_traits>

namespace cif
{
namespace
{
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
} // namespace
} // namespace cif

#endif
