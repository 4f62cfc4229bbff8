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
#ifndef cifRowBuckets_h
#define cifRowBuckets_h

#include "cifRowShear.h"

#include <cmath>

/** \file cifRowBuckets.h
 * Row buckets: which walk positions the threads of the linear-path kernel take when
 * its lanes lie along the input's rows but the transform also turns the input in the
 * plane of the lane and walk axes, by a few degrees or more.
 *
 * The shear (cifRowShear.h) gives every lane the same walk positions up to its shift,
 * so at one step the input row index u of a warp's 32 voxels spreads over about one
 * row, and its floor changes across the warp in several runs of lanes (one per step
 * of the shift's staircase): each of the warp's 64 gathers then touches two input
 * rows in pieces. Under ResampleBenchmark's rotation Nsight Compute counted 8.2 L1
 * sectors per request, against 4.5 under a translation.
 *
 * With buckets, step k of a thread takes the first voxel of its column whose u lies in
 * [A + k, A + k + 1) (bucket A + k, A the same for the whole warp), so that every lane
 * reads the same input rows: 4.9 sectors per request under that rotation. Where the
 * walk advances u by more than a row per step a bucket is sometimes empty, and its
 * lane idles for that step; by less, a bucket sometimes holds two voxels, and the
 * second costs its warp a step more. That step outweighs the gathers saved (measured,
 * H100: pure rotations by 0.5 to 24 degrees 1-8% slower), so the kernel takes buckets
 * only where u advances by 1 to kBucketLargestStep rows per step (a rotation with a
 * slightly coarser output grid, as ResampleBenchmark's scale of 1.01) and a warp's
 * lanes span at least kBucketLeastWarpSpread rows (below that, with few straddles
 * left to save, the bookkeeping costs more).
 *
 * The buckets decide which thread takes which voxel, never a value: each voxel is
 * still computed from its own row's endpoints. They tile each output column exactly,
 * since one function (WalkOfBucketAt, the same operations on every thread) gives the
 * boundary between a thread's run of buckets and the next. */
namespace cif
{
struct RowBuckets
{
  /** Whether the kernel takes buckets (else the shear's sheared positions). */
  bool on = false;
  /** u, the input continuous index along the input axis that the walk crosses most,
   * signed so that it grows along the walk, as a linear function of the output
   * coordinates (0-based in the output region): u at lane, walk and sheet coordinate 0
   * plus perLane, perSheet per unit of each (and 1 / walkPerUnit per walk step). */
  double at = 0.0;
  double perLane = 0.0;
  double perSheet = 0.0;
  /** Walk positions per unit of u (the inverse of u per walk step). */
  double walkPerUnit = 1.0;
  /** 1 / (walkPerUnit - 1), rounded to float (MakeBucketRun's search; infinite for 1). */
  float inverseDrift = 0.0f;
  /** at + the smaller of 0 and perLane x (the output's lanes - 1): the lowest u over a
   * sheet's lanes at walk coordinate 0, less perSheet x sheet. */
  double atLowest = 0.0;
  /** Buckets per sheet, the grid's walk length: as many as u spans over a sheet, with
   * a margin for rounding. */
  std::int64_t perSheetCount = 0;
};

/** The range of u per walk step (RowBuckets::walkPerUnit's inverse) for which the
 * kernel takes buckets: no bucket holds two voxels, and a bucket is empty at most
 * once in a thread's run. */
constexpr double kBucketLeastStep = 1.0;
constexpr double kBucketLargestStep = 1.1;
/** The least spread of u over a warp's 32 lanes (input rows) for which buckets pay:
 * measured, a turn of 1.2 degrees (0.65 rows) 1.7% slower, 2 degrees (1.1 rows) 1.2%
 * faster, 6 degrees 8% faster. */
constexpr double kBucketLeastWarpSpread = 1.0;

/** The first bucket of sheet \a sheet: two below the lowest u of its lanes at walk
 * coordinate 0, so that it starts before every column of the sheet. */
CIF_HD std::int64_t
       FirstBucketOfSheet(const RowBuckets & b, std::int64_t sheet)
{
  return static_cast<std::int64_t>(floor(MulAddUnfused(b.perSheet, static_cast<double>(sheet), b.atLowest))) - 2;
}

/** u (the linear model) at lane coordinate \a l of sheet \a sheet, walk coordinate 0. */
CIF_HD double
BucketU(const RowBuckets & b, std::int64_t l, std::int64_t sheet)
{
  return MulAddUnfused(b.perSheet, static_cast<double>(sheet), MulAddUnfused(b.perLane, static_cast<double>(l), b.at));
}

/** The walk coordinate at which bucket \a bucket starts in a column whose u at walk
 * coordinate 0 is \a u (BucketU): the first walk position whose u is at least \a
 * bucket, not clamped to the output. The same operations on every thread computing a
 * boundary, so that they all get the same number. */
CIF_HD std::int64_t
       WalkOfBucketAt(const RowBuckets & b, std::int64_t bucket, double u)
{
  return static_cast<std::int64_t>(ceil((static_cast<double>(bucket) - u) * b.walkPerUnit)); // nothing to fuse
}

/** WalkOfBucketAt in the column of lane coordinate \a l and sheet \a sheet. */
CIF_HD std::int64_t
       WalkOfBucket(const RowBuckets & b, std::int64_t bucket, std::int64_t l, std::int64_t sheet)
{
  return WalkOfBucketAt(b, bucket, BucketU(b, l, sheet));
}

/** A thread's run of kBucketsPerRun consecutive buckets in one column: its voxels are
 * the walk positions from WalkOfBucketAt(first bucket) to WalkOfBucketAt(first bucket
 * + kBucketsPerRun), exact, since the threads before and after it in the column meet
 * it there. With u advancing by about a row per walk step, the run holds
 * kBucketsPerRun + jump voxels (jump -1, 0 or 1), one per bucket but in bucket jumpAt
 * - 1: one fewer, it is empty; one more, it holds two. Where that bucket lies only
 * this thread needs to know, so it is found in float; the run's voxels are taken once
 * each whatever it finds. */
constexpr int kBucketsPerRun = 8;

struct BucketRun
{
  std::int64_t first = 0;               // the walk position of the run's first voxel
  int          jump = 0;                // the run's voxels - kBucketsPerRun: -1, 0 or 1
  int          jumpAt = kBucketsPerRun; // 1..kBucketsPerRun
};

CIF_HD BucketRun
MakeBucketRun(const RowBuckets & b, std::int64_t bucket, double u)
{
  const double exactStart = (static_cast<double>(bucket) - u) * b.walkPerUnit; // as in WalkOfBucketAt
  const double first = ceil(exactStart);
  BucketRun    run;
  run.first = static_cast<std::int64_t>(first);
  const std::int64_t count = WalkOfBucketAt(b, bucket + kBucketsPerRun, u) - run.first;
  run.jump = count > kBucketsPerRun ? 1 : (count < kBucketsPerRun ? -1 : 0);
  // Bucket k starts k + ceil(k drift - lag) walk positions after run.first (drift:
  // walkPerUnit - 1; lag: first - exactStart, in [0, 1)): the jump comes at the first
  // k where k drift passes lag (one more) or lag - 1 (one fewer).
  const float lag = static_cast<float>(first - exactStart);
  const float at = run.jump > 0 ? floorf(lag * b.inverseDrift) + 1
                                : (run.jump < 0 ? ceilf((lag - 1) * b.inverseDrift) : kBucketsPerRun);
  run.jumpAt = !(at >= 1) ? 1 : (at > kBucketsPerRun ? kBucketsPerRun : static_cast<int>(at)); // NaN: 1
  return run;
}

/** The offset from run.first of the first voxel of the run's bucket \a k, 0 <= k <
 * kBucketsPerRun (the run ends at kBucketsPerRun + jump). */
CIF_HD int
BucketOffset(const BucketRun & run, int k)
{
  return k + (k >= run.jumpAt ? run.jump : 0);
}

/** Whether the run's bucket \a k holds a voxel: all but bucket jumpAt - 1 of a run of
 * one voxel fewer. */
CIF_HD bool
BucketHoldsVoxel(const BucketRun & run, int k)
{
  return !(run.jump < 0 && k == run.jumpAt - 1);
}

/** The offset from run.first of the second voxel of bucket jumpAt - 1, in a run of
 * one voxel more (jump 1). */
CIF_HD int
BucketSecondVoxel(const BucketRun & run)
{
  return run.jumpAt;
}

/** The most walk positions that the buckets of \a buckets consecutive bucket indices
 * over \a lanes consecutive lane coordinates touch in one sheet (the walk positions'
 * rows that a kernel block keeps in shared memory): their u spans buckets + |perLane|
 * (lanes - 1); the kernel widens its range by one position at each end (rounding),
 * and each end's ceiling adds at most one more. */
CIF_HD int
RowsTouchedByBuckets(const RowBuckets & b, int buckets, int lanes)
{
  return static_cast<int>(floor((buckets + fabs(b.perLane) * (lanes - 1)) * b.walkPerUnit)) + 5;
}

/** The positions per sheet that the kernel's grid walks: buckets, or sheared positions. */
CIF_HD std::int64_t
       WalkLength(const RowShear & shear, const RowBuckets & b)
{
  return b.on ? b.perSheetCount : shear.walkLength;
}

/** The buckets for a linear transform with lanes along the input's rows (\a shear's
 * lane axis 0), or none (on false) where the lanes lie across them, the output is 4-D
 * or 1-D, the walk moves u by other than kBucketLeastStep to kBucketLargestStep rows
 * per step, or a warp's lanes span fewer than kBucketLeastWarpSpread rows. Decides
 * speed only, never values. */
template <int D>
RowBuckets
MakeRowBuckets(const ResampleGeometry & g, const TransformChain & chain, const RowShear & shear)
{
  RowBuckets b;
  if (D < 2 || D > 3 || shear.laneAxis != 0 || g.outputSize[0] < 2 || g.outputSize[shear.walkAxis] < 2)
  {
    return b;
  }
  double m[kMaxDimension][kMaxDimension];
  double at[kMaxDimension];
  InputStepsPerOutputStep<D>(g, chain, m, at);
  int axis = 1; // the input axis the walk crosses most
  for (int a = 2; a < D; ++a)
  {
    axis = fabs(m[a][shear.walkAxis]) > fabs(m[axis][shear.walkAxis]) ? a : axis;
  }
  const double perWalk = m[axis][shear.walkAxis];
  const double sign = perWalk < 0 ? -1.0 : 1.0;
  const double step = fabs(perWalk);
  const double perLane = sign * m[axis][0];
  if (!(step >= kBucketLeastStep && step <= kBucketLargestStep) || !std::isfinite(perLane) ||
      !(fabs(perLane) * 31 >= kBucketLeastWarpSpread))
  {
    return b;
  }
  const std::int64_t lanes = g.outputSize[0];
  b.on = true;
  b.at = sign * at[axis];
  b.perLane = perLane;
  b.perSheet = D == 3 ? sign * m[axis][shear.sheetAxis] : 0.0;
  b.walkPerUnit = 1.0 / step;
  b.inverseDrift = static_cast<float>(1.0 / (b.walkPerUnit - 1.0));
  b.atLowest = b.at + (perLane < 0 ? perLane * static_cast<double>(lanes - 1) : 0.0);
  // The last bucket must lie past the highest u at the end of every column: the
  // sheet's lanes span |perLane| (lanes - 1), the walk step x its length, and
  // FirstBucketOfSheet starts up to three below the lowest.
  b.perSheetCount = static_cast<std::int64_t>(ceil(step * static_cast<double>(g.outputSize[shear.walkAxis]) +
                                                   fabs(perLane) * static_cast<double>(lanes - 1))) +
                    4;
  return b;
}
} // namespace cif

#endif
