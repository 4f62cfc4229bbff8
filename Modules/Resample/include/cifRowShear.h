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
#ifndef cifRowShear_h
#define cifRowShear_h

#include "cifResampleMath.h"

#include <cmath>

/** \file cifRowShear.h
 * Which output voxels a warp of the linear-transform resampling kernel takes. The
 * gathers of a warp are fastest when its 32 voxels read the same few input rows
 * (cache lines), one lane after another along the input's axis 0.
 *
 * - The lane axis: a warp's lanes lie along the output axis that runs closest to the
 *   input's axis 0 (the largest step of the input's axis-0 index per output step).
 *   Output axis 0 unless the transform turns the input by more than 45 degrees (a
 *   reorientation by 90 degrees puts the input's rows along output axis 1 or 2);
 *   lanes along output axis 0 otherwise read a different input row each.
 * - The walk axis: each thread walks along another output axis (output axis 0 when
 *   the lanes lie across the rows), and the warp's voxels are sheared along it —
 *   lane coordinate l of sheared position j is walk coordinate j + Shift(l), Shift
 *   following the output direction that keeps the input's row — so that a warp's
 *   voxels stay on nearly the same input row. With the lanes along output axis 0 the
 *   walk axis is the one (1 or 2) that this direction leaves most.
 *
 * Every output voxel is still computed exactly once, from its own row's endpoints,
 * so the results are the same bits; only the assignment of voxels to threads
 * changes. H100, 2026-11-23, the module's kernel before and after the shear in one
 * run: 0.567 -> 0.431 ms for a 256³ volume turned by 0.3 and 0.2 rad, 2.80 -> 2.72 ms
 * at 512³ under ResampleBenchmark's 0.1 rad (0.386 -> 0.394 ms at 256³). The lane
 * axis, 2026-11-25: see Modules/Resample/README.md.
 *
 * The kernels that map every voxel through the transform (one thread per voxel, and
 * the B-spline warp's 8-row blocks) take VoxelLaneAxis: the axis their consecutive
 * threads run along, unsheared. */
namespace cif
{
struct RowShear
{
  /** The output axis along which a warp's lanes lie. */
  int laneAxis = 0;
  /** The output axis along which each thread walks and the lanes are sheared
   * (output axis 0 when laneAxis is not). */
  int walkAxis = 1;
  /** The output axis whose index picks the sheet (axis 2 stands for the planes of
   * axes 2.. together, and for the one sheet of a 2-D output). */
  int sheetAxis = 2;
  /** Walk positions per lane position that keep the input's row (0: no shear). |slope| <= 1. */
  double slope = 0.0;
  /** Sheared positions before walk position 0 in each sheet (the largest shift); a
   * sheet: the output voxels of one index along the axes other than the lane and
   * walk axes. */
  std::int64_t before = 0;
  /** Sheared positions per sheet: the output's size along the walk axis plus the
   * spread of the shifts over the lane axis. */
  std::int64_t walkLength = 1;
};

/** The walk offset of lane coordinate \a l (0-based within the output region). The
 * host sizes the grid from the last lane's shift and the kernel assigns voxels by
 * every lane's, so both must round alike: no fused multiply-add on the device. */
CIF_HD std::int64_t
       ShiftOf(const RowShear & shear, std::int64_t l)
{
  return static_cast<std::int64_t>(floor(MulAddUnfused(shear.slope, static_cast<double>(l), 0.5)));
}

/** The most walk positions that \a lanes consecutive lane coordinates of \a steps
 * sheared positions touch: |Shift(a) - Shift(b)| <= floor(|slope| |a - b|) + 1. */
CIF_HD int
RowsTouched(const RowShear & shear, int steps, int lanes)
{
  return steps + static_cast<int>(floor(fabs(shear.slope) * (lanes - 1))) + 1;
}

/** The output rows (lines along output axis 0) between two voxels one step apart
 * along output axis \a axis: 0 along axis 0, 1 along axis 1, the output's height
 * along axis 2 (and along the planes of axes 2.. together, which a 4-D sheet walks
 * as one index). */
CIF_HD std::int64_t
       OutputRowStride(const ResampleGeometry & g, int axis)
{
  return axis == 0 ? 0 : (axis == 1 ? 1 : g.outputSize[1]);
}

/** The steps of the input continuous index per output index step along each output
 * axis, m[input axis][output axis], at the output region's first voxel, and (where \a
 * at is given) the continuous index there; the chain's grid transforms (B-spline,
 * displacement field) taken as the identity, which is what registration makes of
 * them, near enough to decide speed. */
template <int D>
void
InputStepsPerOutputStep(const ResampleGeometry & g,
                        const TransformChain &   chain,
                        double                   m[kMaxDimension][kMaxDimension],
                        double *                 at = nullptr)
{
  TransformChain affine = chain;
  for (int n = 0; n < affine.count; ++n)
  {
    if (affine.stage[n].kind != TransformKind::Affine)
    {
      affine.stage[n] = TransformStage{}; // the identity
    }
  }
  std::int64_t index[kMaxDimension] = { g.outputStart[0], g.outputStart[1], g.outputStart[2], g.outputStart[3] };
  double       first[kMaxDimension];
  OutputIndexToInputIndex<D, true>(g, affine, index, first);
  for (int c = 0; c < D; ++c)
  {
    ++index[c];
    double moved[kMaxDimension];
    OutputIndexToInputIndex<D, true>(g, affine, index, moved);
    --index[c];
    for (int r = 0; r < D; ++r)
    {
      m[r][c] = moved[r] - first[r];
    }
  }
  for (int r = 0; at != nullptr && r < D; ++r)
  {
    at[r] = first[r];
  }
}

/** The output axis along which a warp's lanes read the input's rows: the one with the
 * largest |m[0][axis]| (InputStepsPerOutputStep), ties to the lower axis, among axes
 * longer than one voxel; axis 0 for 4-D outputs (the kernels lay lanes across the
 * rows up to 3-D). */
template <int D>
int
LaneAxisOf(const ResampleGeometry & g, const double m[kMaxDimension][kMaxDimension])
{
  int lane = 0;
  for (int c = 1; c < D && D <= 3; ++c)
  {
    lane = fabs(m[0][c]) > fabs(m[0][lane]) && g.outputSize[c] > 1 ? c : lane;
  }
  return lane;
}

/** The output axis the one-thread-per-voxel kernel's consecutive threads run along.
 * Unsheared, a warp's gathers touch about 31 x (input rows crossed per step) rows, the
 * sum over input axes a >= 1 of |m[a][axis]| (InputStepsPerOutputStep): the axis with
 * the fewest, but axis 0 (whose stores are coalesced) unless another crosses under
 * 0.7 times as many (measured: a 46-degree turn gains nothing from lanes along axis
 * 1, a 60-degree one 7%, a quarter turn 4.7 times). Axis 0 for 4-D outputs. */
template <int D>
int
VoxelLaneAxis(const ResampleGeometry & g, const TransformChain & chain)
{
  if (D < 2 || D > 3)
  {
    return 0;
  }
  double m[kMaxDimension][kMaxDimension];
  InputStepsPerOutputStep<D>(g, chain, m);
  double crossed[kMaxDimension] = { 0, 0, 0, 0 };
  for (int c = 0; c < D; ++c)
  {
    for (int a = 1; a < D; ++a)
    {
      crossed[c] += fabs(m[a][c]);
    }
  }
  int lane = 0;
  for (int c = 1; c < D; ++c)
  {
    lane = g.outputSize[c] > 1 && crossed[c] < 0.7 * crossed[0] && crossed[c] < crossed[lane] ? c : lane;
  }
  return lane;
}

/** The output offset of the voxel that thread number \a i of the one-thread-per-voxel
 * kernel takes: with \a laneAxis 0 voxel i itself, otherwise the voxels in the order
 * of axes laneAxis, then the others from axis 0 up (D <= 3). */
template <int D>
CIF_HD std::int64_t
       VoxelOfThread(const ResampleGeometry & g, int laneAxis, std::int64_t i)
{
  if (D < 2 || D > 3 || laneAxis == 0)
  {
    return i;
  }
  const std::int64_t width = g.outputSize[0], height = g.outputSize[1];
  const std::int64_t along = i % g.outputSize[laneAxis], rest = i / g.outputSize[laneAxis];
  const std::int64_t x = rest % width, other = rest / width; // other: z for lanes along y, y for lanes along z
  return laneAxis == 1 ? (other * height + along) * width + x : (along * height + other) * width + x;
}

/** The shear for a linear transform: the transform's linear part M (output index ->
 * input continuous index; InputStepsPerOutputStep); the lane axis L (LaneAxisOf); d
 * with d_L = 1 solves (M d)a = 0 for the input axes a >= 1; the walk axis is axis 0
 * for L != 0, else the other axis with the larger |d|; the slope is d along the walk
 * axis. No shear where that is undefined or steeper than one position per lane.
 * Decides speed only, never values. */
template <int D>
RowShear
MakeRowShear(const ResampleGeometry & g, const TransformChain & chain)
{
  RowShear shear;
  shear.walkLength = g.outputSize[1];
  if (D < 2)
  {
    return shear;
  }
  double m[kMaxDimension][kMaxDimension]; // m[row][column]
  InputStepsPerOutputStep<D>(g, chain, m);
  const int lane = LaneAxisOf<D>(g, m);
  // Solve sum over b != L of m[a][b] d_b = -m[a][L] (a = 1..D-1) by Gaussian
  // elimination with partial pivoting; unknown k is output axis free[k].
  constexpr int N = D - 1;
  int           free[kMaxDimension];
  for (int c = 0, k = 0; c < D; ++c)
  {
    if (c != lane)
    {
      free[k++] = c;
    }
  }
  shear.laneAxis = lane;
  shear.walkAxis = lane == 0 ? 1 : 0;
  shear.sheetAxis = D == 3 ? 3 - lane - shear.walkAxis : 2;
  shear.walkLength = g.outputSize[shear.walkAxis];
  if (g.outputSize[0] < 2 || g.outputSize[1] < 2)
  {
    return shear;
  }
  double a[kMaxDimension][kMaxDimension + 1];
  for (int r = 0; r < N; ++r)
  {
    for (int k = 0; k < N; ++k)
    {
      a[r][k] = m[r + 1][free[k]];
    }
    a[r][N] = -m[r + 1][lane];
  }
  for (int k = 0; k < N; ++k)
  {
    int pivot = k;
    for (int r = k + 1; r < N; ++r)
    {
      pivot = fabs(a[r][k]) > fabs(a[pivot][k]) ? r : pivot;
    }
    if (!(fabs(a[pivot][k]) > 1e-12))
    {
      return shear;
    }
    for (int c = 0; c <= N; ++c)
    {
      const double t = a[k][c];
      a[k][c] = a[pivot][c];
      a[pivot][c] = t;
    }
    for (int r = k + 1; r < N; ++r)
    {
      const double f = a[r][k] / a[k][k];
      for (int c = k; c <= N; ++c)
      {
        a[r][c] -= f * a[k][c];
      }
    }
  }
  double d[kMaxDimension];
  for (int k = N - 1; k >= 0; --k)
  {
    double s = a[k][N];
    for (int c = k + 1; c < N; ++c)
    {
      s -= a[k][c] * d[c];
    }
    d[k] = s / a[k][k];
  }
  int walk = 0; // the unknown of the walk axis
  if (lane == 0 && D == 3 && fabs(d[1]) > fabs(d[0]) && g.outputSize[2] > 1)
  {
    walk = 1; // output axis 2
  }
  const double slope = d[walk];
  shear.walkAxis = free[walk];
  shear.sheetAxis = D == 3 ? 3 - lane - shear.walkAxis : 2;
  shear.walkLength = g.outputSize[shear.walkAxis];
  if (!std::isfinite(slope) || fabs(slope) > 1.0)
  {
    return shear;
  }
  shear.slope = slope;
  const std::int64_t last = ShiftOf(shear, g.outputSize[lane] - 1); // ShiftOf(0) is 0
  const std::int64_t largest = last > 0 ? last : 0;
  const std::int64_t smallest = last < 0 ? last : 0;
  shear.before = largest;
  shear.walkLength = g.outputSize[shear.walkAxis] + largest - smallest;
  return shear;
}
} // namespace cif

#endif
