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
#ifndef cifVTKResliceShear_h
#define cifVTKResliceShear_h

#include "cifHostDevice.h"
#include "cifVTKResliceJob.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

/** \file cifVTKResliceShear.h
 * Which output voxels a warp of the reslice kernel takes. A warp's 64 gathers are
 * fastest when its 32 voxels read the same few input rows (cache lines). Lanes lie
 * along output x; an oblique reslice moves the input position off the input's row
 * with every lane (VTKBenchmark's 30-degree turn: a third of a row per lane, so a
 * warp reads about 14 rows per tap). Sheared, lane x of sheared position q takes the
 * voxel q + Shift(x) along a walk axis (output y or z) in its sheet (the other one),
 * Shift following the output direction that keeps the input row: a warp's voxels
 * then lie on one input row, up to the rounding of the shifts. The same principle as
 * the ITK resampler's row shear (Modules/Resample/include/cifRowShear.h), here from
 * the reslice's index matrix and without the Resample module.
 *
 * Every output voxel is still computed once, by the same per-voxel code: the same
 * bits. The shear decides speed only. */
namespace cif
{
namespace vtkmath
{
struct ResliceShear
{
  bool         on = false;
  int          walkAxis = 2;   ///< output axis 1 or 2 along which the lanes are sheared
  int          sheetAxis = 1;  ///< the other one: one sheet per index
  double       slope = 0;      ///< walk positions per lane (|slope| <= 1)
  std::int64_t walkLength = 1; ///< sheared positions per sheet and warp: the walk axis's size plus the
                               ///< largest spread of the shifts within a warp's 32 lanes
};

/** Lanes of a warp: the kernel's blocks are 32 output voxels wide along x. */
constexpr int kShearWarpLanes = 32;

/** The walk offset of lane coordinate \a x (0-based within the output extent). The host
 * sizes the grid from the shifts of each warp's end lanes and the kernel assigns
 * voxels by every lane's, so both round alike: the product and the sum unfused. */
CIF_HD std::int64_t
       ShearShift(const ResliceShear & shear, std::int64_t x)
{
  return static_cast<std::int64_t>(floor(MulAddUnfused(shear.slope, static_cast<double>(x), 0.5)));
}

/** The walk offset of every sheared position of lane coordinate \a x (of an output
 * \a nx wide): output voxel (x, q + offset) of sheet s is sheared position q of lane
 * x. Relative to the largest shift among the lanes of x's warp, so that each warp
 * walks only the positions its own lanes need (a walk over the whole output's
 * spread of shifts left whole warps idle: a quarter of the blocks at VTKBenchmark's
 * turn, over half in a slab of 64 planes). The shifts grow or shrink with x, so the
 * largest is at one end of the warp. */
CIF_HD int
ShearOffset(const ResliceShear & shear, int x, int nx)
{
  const int          first = x - x % kShearWarpLanes;
  const int          last = first + kShearWarpLanes - 1 < nx - 1 ? first + kShearWarpLanes - 1 : nx - 1;
  const std::int64_t a = ShearShift(shear, first), b = ShearShift(shear, last);
  return static_cast<int>(ShearShift(shear, x) - (a > b ? a : b));
}

/** Output voxel (x, walk, sheet) of sheared position \a q of a lane whose
 * ShearOffset is \a offset: its (y, z) within the output extent; false where the
 * position falls outside the output (the shear's ragged edges). */
CIF_HD bool
ShearedVoxel(const ResliceJob & job, const ResliceShear & shear, int offset, int sheet, int q, int & y, int & z)
{
  const int walk = q + offset;
  if (walk < 0 || walk >= static_cast<int>(job.OutputSize(shear.walkAxis)))
  {
    return false;
  }
  y = shear.walkAxis == 1 ? walk : sheet;
  z = shear.walkAxis == 1 ? sheet : walk;
  return true;
}

/** The input rows (distinct floors of the input y and z) that the 32 lanes x = 0..31
 * of a warp read at their first tap, averaged over 16 consecutive walk positions of
 * sheet 0: lanes sheared by \a shear, or (off) along one output row. \a m is the
 * linear part of the index matrix, \a origin its translation. */
inline double
MeanRowsRead(const double m[3][3], const double origin[3], const ResliceShear & shear)
{
  constexpr int kPositions = 16;
  double        total = 0;
  for (int w = 0; w < kPositions; ++w)
  {
    long rows[32][2];
    int  distinct = 0;
    for (int x = 0; x < 32; ++x)
    {
      double index[3] = { static_cast<double>(x), 0, 0 };
      index[shear.walkAxis] = w + (shear.on ? static_cast<double>(ShearShift(shear, x)) : 0.0);
      long row[2];
      for (int r = 1; r < 3; ++r)
      {
        row[r - 1] =
          static_cast<long>(std::floor(origin[r] + m[r][0] * index[0] + m[r][1] * index[1] + m[r][2] * index[2]));
      }
      bool seen = false;
      for (int n = 0; n < distinct && !seen; ++n)
      {
        seen = rows[n][0] == row[0] && rows[n][1] == row[1];
      }
      if (!seen)
      {
        rows[distinct][0] = row[0];
        rows[distinct][1] = row[1];
        ++distinct;
      }
    }
    total += distinct;
  }
  return total / kPositions;
}

/** The shear of \a job: off for positions mapped on the host, a perspective matrix,
 * a thin output, where keeping the row needs more than one walk step per lane, or
 * where it would not cut the rows a warp reads (MeanRowsRead) by a fifth: near the
 * input's axes the rounding of the shifts costs more rows than the shear saves.
 * The index matrix's linear part M (input index per output index; for device stages
 * the index matrix scaled by the input's inverse spacing, the stages taken as the
 * identity) gives d with d_x = 1 and (M d)_y = (M d)_z = 0; the walk axis is the
 * output axis (y or z) of d's larger component, and the slope that component. */
inline ResliceShear
MakeResliceShear(const ResliceJob & job)
{
  ResliceShear shear;
  if (job.source == PointSource::Given || job.perspective || job.OutputSize(0) < 2 || job.OutputSize(1) < 2 ||
      job.OutputSize(2) < 2)
  {
    return shear;
  }
  double m[3][3], origin[3];
  for (int r = 0; r < 3; ++r)
  {
    const double scale = job.source == PointSource::Stages ? job.inputInverseSpacing[r] : 1.0;
    for (int c = 0; c < 3; ++c)
    {
      m[r][c] = job.matrix[r][c] * scale;
    }
    origin[r] = job.matrix[r][3] * scale;
  }
  // [m11 m12; m21 m22] (d_y, d_z) = -(m10, m20), by Cramer's rule.
  const double det = m[1][1] * m[2][2] - m[1][2] * m[2][1];
  if (!(std::fabs(det) > 1e-12))
  {
    return shear;
  }
  const double dy = (-m[1][0] * m[2][2] + m[1][2] * m[2][0]) / det;
  const double dz = (-m[1][1] * m[2][0] + m[1][0] * m[2][1]) / det;
  shear.walkAxis = std::fabs(dz) >= std::fabs(dy) ? 2 : 1;
  shear.sheetAxis = 3 - shear.walkAxis;
  shear.slope = shear.walkAxis == 2 ? dz : dy;
  if (!std::isfinite(shear.slope) || std::fabs(shear.slope) > 1.0 || shear.slope == 0.0)
  {
    return ResliceShear{};
  }
  std::int64_t       spread = 0; // the largest spread of the shifts within a warp
  const std::int64_t nx = job.OutputSize(0);
  for (std::int64_t first = 0; first < nx; first += kShearWarpLanes)
  {
    const std::int64_t last = first + kShearWarpLanes - 1 < nx - 1 ? first + kShearWarpLanes - 1 : nx - 1;
    const std::int64_t d = ShearShift(shear, last) - ShearShift(shear, first);
    spread = std::max(spread, d > 0 ? d : -d);
  }
  shear.walkLength = job.OutputSize(shear.walkAxis) + spread;
  shear.on = true;
  ResliceShear unsheared = shear;
  unsheared.on = false;
  if (MeanRowsRead(m, origin, shear) > 0.8 * MeanRowsRead(m, origin, unsheared))
  {
    return ResliceShear{};
  }
  return shear;
}
} // namespace vtkmath
} // namespace cif

#endif
