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
#ifndef cifVTKTransformStages_h
#define cifVTKTransformStages_h

#include "cifVTKInterpolationMath.h"

#include <cstdint>

/** \file cifVTKTransformStages.h
 * The VTK transforms vtkCudaImageReslice applies on the device, as plain data, and
 * the arithmetic each applies to a point, in VTK 9.1's order of operations:
 * - a linear stage: vtkLinearTransform::InternalTransformPoint (rows of a 4x4 matrix,
 *   each summed left to right);
 * - a cubic B-spline stage: vtkBSplineTransform's forward transform (its coefficient
 *   grid, its three border modes, its DisplacementScale).
 * A vtkGeneralTransform is flattened into these in the order it applies its parts
 * (vtkCudaResliceTransform.h); anything else is mapped on the host. */
namespace cif
{
namespace vtkmath
{

enum class StageKind : int
{
  Linear = 0,
  BSpline = 1
};

/** vtkBSplineTransform's border modes (VTK_BSPLINE_EDGE, _ZERO, _ZERO_AT_BORDER). */
enum class GridBorder : int
{
  Edge = 0,
  Zero = 1,
  ZeroAtBorder = 2
};

struct TransformStage
{
  StageKind kind = StageKind::Linear;
  double    matrix[3][4] = { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 } };
  // B-spline: the coefficient grid (3 interleaved components), host or device pointer.
  const void * grid = nullptr;
  bool         gridIsDouble = false;
  int          gridExtent[6] = { 0, 0, 0, 0, 0, 0 };
  std::int64_t gridIncrement[3] = { 3, 3, 3 }; ///< in scalars, as vtkImageData::GetIncrements
  double       gridOrigin[3] = { 0, 0, 0 };
  double       gridSpacing[3] = { 1, 1, 1 };
  GridBorder   border = GridBorder::Edge;
  double       displacementScale = 1.0;
};

constexpr int kMaxTransformStages = 8;

struct TransformStages
{
  int            count = 0;
  TransformStage stage[kMaxTransformStages];
};

/** vtkMath::Floor: truncation corrected for negative values. */
CIF_HD int
TruncatingFloor(double x)
{
  const int i = static_cast<int>(x);
  return i - (static_cast<double>(i) > x ? 1 : 0);
}

CIF_HD void
ApplyLinear(const TransformStage & s, double p[3])
{
  double out[3];
  for (int r = 0; r < 3; ++r)
  {
    out[r] =
      Add(Add(Add(Mul(s.matrix[r][0], p[0]), Mul(s.matrix[r][1], p[1])), Mul(s.matrix[r][2], p[2])), s.matrix[r][3]);
  }
  p[0] = out[0];
  p[1] = out[1];
  p[2] = out[2];
}

/** The cubic weights of vtkBSplineTransform (its own expression, not the
 * interpolator's). */
CIF_HD void
GridWeights(double f, double w[4])
{
  constexpr double sixth = 1.0 / 6.0;
  const double     f2 = Mul(f, f);
  w[3] = Mul(Mul(f2, f), sixth);
  w[0] = Add(Sub(Mul(Sub(f2, f), 0.5), w[3]), sixth);
  w[2] = Sub(Add(f, w[0]), Mul(w[3], 2.0));
  w[1] = Sub(Sub(Sub(1.0, w[0]), w[2]), w[3]);
}

/** Where the 4-point support leaves the grid: zero or fold the weights as the
 * border mode says, and report points that get no displacement at all. \a last is
 * the grid's size less one on this axis; \a id the four support indices. */
CIF_HD bool
GridBorderWeights(int id[4], double w[4], int last, GridBorder border)
{
  bool invalid = false;
  if (border == GridBorder::Zero)
  {
    // coefficients past the edge are zero
    if (id[1] == 0)
    {
      w[0] = 0;
    }
    else if (id[2] == 0)
    {
      w[0] = w[1] = 0;
    }
    else if (id[3] == 0)
    {
      w[0] = w[1] = w[2] = 0;
    }
    else if (id[3] < 0)
    {
      invalid = true;
    }
    if (id[2] == last)
    {
      w[3] = 0;
    }
    else if (id[1] == last)
    {
      w[2] = w[3] = 0;
    }
    else if (id[0] == last)
    {
      w[1] = w[2] = w[3] = 0;
    }
    else if (id[0] > last)
    {
      invalid = true;
    }
  }
  else if (border == GridBorder::ZeroAtBorder)
  {
    // the displacement falls to zero one grid spacing past the grid (not smooth there)
    if (id[1] == 0)
    {
      w[0] = 0;
    }
    else if (id[2] == 0)
    {
      w[2] = Sub(w[2], w[0]);
      w[0] = w[1] = 0;
    }
    else if (id[2] < 0)
    {
      invalid = true;
    }
    if (id[2] == last)
    {
      w[3] = 0;
    }
    else if (id[1] == last)
    {
      w[1] = Sub(w[1], w[3]);
      w[2] = w[3] = 0;
    }
    else if (id[1] > last)
    {
      invalid = true;
    }
  }
  // Edge (and the indices of every mode): the edge coefficients continue outward.
  for (int l = 0; l < 4; ++l)
  {
    id[l] = id[l] < 0 ? 0 : (id[l] > last ? last : id[l]);
  }
  return invalid;
}

template <typename TGrid>
CIF_HD void
GridDisplacement(const TransformStage & s, const double index[3], double displacement[3])
{
  double w[3][4] = { { 0, 1, 0, 0 }, { 0, 1, 0, 0 }, { 0, 1, 0, 0 } };
  int    id[3][4] = { { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 0, 0, 0 } };
  int    last[3];
  bool   outside = false;
  CIF_UNROLL
  for (int a = 0; a < 3; ++a)
  {
    last[a] = s.gridExtent[2 * a + 1] - s.gridExtent[2 * a];
    if (last[a] != 0)
    {
      int          i = TruncatingFloor(index[a]);
      const double f = Sub(index[a], static_cast<double>(i));
      i -= s.gridExtent[2 * a] + 1;
      CIF_UNROLL
      for (int l = 0; l < 4; ++l)
      {
        id[a][l] = i + l;
      }
      GridWeights(f, w[a]);
      outside = outside || id[a][0] < 0 || id[a][3] > last[a];
    }
  }
  bool invalid = false;
  if (outside)
  {
    CIF_UNROLL
    for (int a = 0; a < 3; ++a)
    {
      // vtkBSplineTransform adjusts the weights of single-sample axes too (their
      // indices are all 0, which the rules leave alone) and clamps every index.
      if (last[a] != 0)
      {
        invalid = GridBorderWeights(id[a], w[a], last[a], s.border) || invalid;
      }
    }
  }
  displacement[0] = displacement[1] = displacement[2] = 0;
  if (invalid)
  {
    return;
  }
  const TGrid * grid = static_cast<const TGrid *>(s.grid);
  // 1-D and 2-D grids: only the middle weight (1) of a single-sample axis. Loops of a
  // fixed four with guards, so that the weights and indices stay in registers.
  const int zFirst = last[2] == 0 ? 1 : 0, zEnd = last[2] == 0 ? 2 : 4;
  const int yFirst = last[1] == 0 ? 1 : 0, yEnd = last[1] == 0 ? 2 : 4;
  CIF_UNROLL
  for (int j = 0; j < 4; ++j)
  {
    if (j < zFirst || j >= zEnd)
    {
      continue;
    }
    double vz[3] = { 0, 0, 0 };
    CIF_UNROLL
    for (int k = 0; k < 4; ++k)
    {
      if (k < yFirst || k >= yEnd)
      {
        continue;
      }
      double        vy[3] = { 0, 0, 0 };
      const TGrid * row = grid + id[2][j] * s.gridIncrement[2] + id[1][k] * s.gridIncrement[1];
      CIF_UNROLL
      for (int l = 0; l < 4; ++l)
      {
        const TGrid * c = row + id[0][l] * s.gridIncrement[0];
        for (int q = 0; q < 3; ++q)
        {
          vy[q] = Add(vy[q], Mul(static_cast<double>(c[q]), w[0][l]));
        }
      }
      for (int q = 0; q < 3; ++q)
      {
        vz[q] = Add(vz[q], Mul(vy[q], w[1][k]));
      }
    }
    for (int q = 0; q < 3; ++q)
    {
      displacement[q] = Add(displacement[q], Mul(vz[q], w[2][j]));
    }
  }
}

/** vtkBSplineTransform::ForwardTransformPoint. */
CIF_HD void
ApplyBSpline(const TransformStage & s, double p[3])
{
  double index[3];
  for (int a = 0; a < 3; ++a)
  {
#if defined(__CUDA_ARCH__)
    index[a] = __ddiv_rn(Sub(p[a], s.gridOrigin[a]), s.gridSpacing[a]);
#else
    index[a] = (p[a] - s.gridOrigin[a]) / s.gridSpacing[a];
#endif
  }
  double d[3];
  if (s.gridIsDouble)
  {
    GridDisplacement<double>(s, index, d);
  }
  else
  {
    GridDisplacement<float>(s, index, d);
  }
  for (int a = 0; a < 3; ++a)
  {
    p[a] = Add(p[a], Mul(d[a], s.displacementScale));
  }
}

CIF_HD void
ApplyStages(const TransformStages & stages, double p[3])
{
  for (int i = 0; i < stages.count; ++i)
  {
    if (stages.stage[i].kind == StageKind::Linear)
    {
      ApplyLinear(stages.stage[i], p);
    }
    else
    {
      ApplyBSpline(stages.stage[i], p);
    }
  }
}

} // namespace vtkmath
} // namespace cif

#endif
