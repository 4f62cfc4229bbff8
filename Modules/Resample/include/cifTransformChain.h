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
#ifndef cifTransformChain_h
#define cifTransformChain_h

#include "cifHostDevice.h"
#include "cifMaxDimension.h"

#include <cmath>
#include <cstdint>
#include <cstring>

/** \file cifTransformChain.h
 * ITK transforms as plain data that a kernel (or the CPU path) applies to points:
 * every itk::MatrixOffsetTransformBase as a matrix and offset in double, and the
 * cubic itk::BSplineTransform as its coefficient grid, with ITK's valid-region rule
 * and closed-form kernel weights, and itk::DisplacementFieldTransform with its linear
 * interpolation. A chain applies its stages in order (an
 * itk::CompositeTransform flattened the way it applies its transforms). */
namespace cif
{
enum class TransformKind : int
{
  Affine = 0,           ///< p' = M p + offset
  BSpline = 1,          ///< p' = p + sum of weights x coefficients (order 3)
  DisplacementField = 2 ///< p' = p + the field, linearly interpolated, where the point lies on it
};

struct TransformStage
{
  TransformKind kind = TransformKind::Affine;
  // Affine (1-D to 4-D)
  double matrix[kMaxDimension][kMaxDimension] = { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 } };
  double offset[kMaxDimension] = { 0, 0, 0, 0 };
  // BSpline and DisplacementField (1-D to 3-D): the grid of the coefficient images
  // (start 0) or of the field's buffer, and its data (device pointers for the GPU,
  // host pointers for the CPU path): one coefficient buffer per axis, or one
  // interleaved field.
  std::int64_t   gridSize[3] = { 1, 1, 1 };
  std::int64_t   gridStart[3] = { 0, 0, 0 };
  double         gridOrigin[3] = { 0, 0, 0 };
  double         gridPointToIndex[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
  const double * coefficients[3] = { nullptr, nullptr, nullptr };
  const double * field = nullptr;
};

constexpr int kMaxTransformStages = 4;

struct TransformChain
{
  int            count = 0;
  TransformStage stage[kMaxTransformStages];
};

/** itk::BSplineKernelFunction<3>::Evaluate. */
CIF_HD double
CubicBSplineKernel(double u)
{
  const double a = fabs(u);
  if (a < 1.0)
  {
    const double s = a * a;
    return (4.0 - 6.0 * s + 3.0 * s * a) / 6.0;
  }
  if (a < 2.0)
  {
    const double s = a * a;
    return (8.0 - 12.0 * a + 6.0 * s - s * a) / 6.0;
  }
  return 0.0;
}

/** Math::FloatAlmostEqual(x, y, 4 ulps) and Math::FloatAddULP for doubles, as the
 * valid-region test of itk::BSplineTransform uses them. */
CIF_HD std::int64_t
       DoubleBits(double x)
{
  std::int64_t bits;
  memcpy(&bits, &x, sizeof(bits));
  return bits;
}
CIF_HD double
BitsToDouble(std::int64_t bits)
{
  double x;
  memcpy(&x, &bits, sizeof(x));
  return x;
}
CIF_HD bool
AlmostEqualWithin4Ulps(double x, double y)
{
  if (fabs(x - y) <= 0.1 * 2.220446049250313e-16)
  {
    return true;
  }
  if ((x < 0.0) != (y < 0.0))
  {
    return false;
  }
  std::int64_t ulps = DoubleBits(x) - DoubleBits(y);
  if (ulps < 0)
  {
    ulps = -ulps;
  }
  return ulps <= 4;
}

/** Continuous index of physical point \a p along axis \a a of a B-spline stage's
 * control grid (ITK's TransformPhysicalPointToContinuousIndex, row a). */
template <int D>
CIF_HD double
BSplineGridIndex(const TransformStage & s, const double p[], int a)
{
  double x = 0.0;
  for (int j = 0; j < D; ++j)
  {
    x = MulAddUnfused(s.gridPointToIndex[a][j], p[j] - s.gridOrigin[j], x);
  }
  return x;
}

/** Along axis \a a, at grid index \a x: ITK's InsideValidRegion test ([1, size - 2),
 * a point within 4 ulps of the upper limit moved 6 ulps inside), then the first
 * control point of the support and the 4 kernel weights. False: outside, where ITK
 * returns the point unchanged. */
CIF_HD bool
BSplineAxisSupport(const TransformStage & s, int a, double x, std::int64_t & start, double w[4])
{
  const double maxLimit = static_cast<double>(s.gridSize[a]) - 1.0 - 1.0;
  if (AlmostEqualWithin4Ulps(x, maxLimit))
  {
    x = BitsToDouble(DoubleBits(maxLimit) - 6);
  }
  else if (!(x >= 1.0 && x < maxLimit)) // NaN too (ITK would take its floor)
  {
    return false;
  }
  start = static_cast<std::int64_t>(floor(x + 0.5 - 1.5));
  double u = x - static_cast<double>(start);
  for (int k = 0; k < 4; ++k)
  {
    w[k] = CubicBSplineKernel(u);
    u -= 1.0;
  }
  return true;
}

/** The support of itk::BSplineTransform<double, D, 3> at point p: false where ITK
 * returns the point unchanged (outside the valid region); else the first control
 * point of the 4^D support and the kernel weights along each axis. */
template <int D>
CIF_HD bool
BSplineSupport(const TransformStage & s, const double p[], std::int64_t start[3], double w[3][4])
{
  for (int a = 0; a < 3; ++a)
  {
    start[a] = 0;
    if (a >= D)
    {
      w[a][0] = 1.0;
      w[a][1] = w[a][2] = w[a][3] = 0.0;
    }
    else if (!BSplineAxisSupport(s, a, BSplineGridIndex<D>(s, p, a), start[a], w[a]))
    {
      return false;
    }
  }
  return true;
}

/** Where the support's first control point of each (y, z) row lies in the grid. */
template <int D>
CIF_HD std::int64_t
       BSplineSupportRow(const TransformStage & s, const std::int64_t start[3], int ky, int kz)
{
  return (start[2] + kz) * (s.gridSize[0] * s.gridSize[1]) + (start[1] + ky) * s.gridSize[0] + start[0];
}

/** itk::BSplineTransform<double, D, 3>::TransformPoint. */
template <int D>
CIF_HD void
ApplyBSpline(const TransformStage & s, const double p[3], double out[3])
{
  std::int64_t start[3];
  double       w[3][4];
  if (!BSplineSupport<D>(s, p, start, w))
  {
    for (int i = 0; i < 3; ++i)
    {
      out[i] = p[i];
    }
    return;
  }
  constexpr int KY = D > 1 ? 4 : 1;
  constexpr int KZ = D > 2 ? 4 : 1;
  double        sum[3] = { 0, 0, 0 };
  // The sum's rounding does not decide anything (unlike the index above), so it may
  // fuse; weights as products w0 * (w1 * w2), within 1e-16 of ITK's (w0 * w1) * w2.
  for (int kz = 0; kz < KZ; ++kz)
  {
    for (int ky = 0; ky < KY; ++ky)
    {
      const std::int64_t row = BSplineSupportRow<D>(s, start, ky, kz);
      const double       wyz = w[1][ky] * w[2][kz];
      for (int kx = 0; kx < 4; ++kx)
      {
        const double weight = w[0][kx] * wyz;
        for (int i = 0; i < D; ++i)
        {
          sum[i] += weight * s.coefficients[i][row + kx];
        }
      }
    }
  }
  for (int i = 0; i < 3; ++i)
  {
    out[i] = p[i] + (i < D ? sum[i] : 0.0);
  }
}

/** itk::DisplacementFieldTransform<double, D>::TransformPoint with its default
 * VectorLinearInterpolateImageFunction: outside the field's buffer the point is
 * returned as is; inside, the 2^D neighbours (clamped to the buffer) are summed with
 * their overlaps in ITK's order, stopping where the overlaps reach exactly 1. */
template <int D>
CIF_HD void
ApplyDisplacementField(const TransformStage & s, const double p[3], double out[3])
{
  double x[3] = { 0, 0, 0 };
  for (int i = 0; i < D; ++i)
  {
    for (int j = 0; j < D; ++j)
    {
      x[i] = MulAddUnfused(s.gridPointToIndex[i][j], p[j] - s.gridOrigin[j], x[i]);
    }
  }
  for (int i = 0; i < 3; ++i)
  {
    out[i] = p[i];
  }
  for (int a = 0; a < D; ++a)
  {
    if (!(x[a] >= static_cast<double>(s.gridStart[a]) - 0.5 &&
          x[a] < static_cast<double>(s.gridStart[a] + s.gridSize[a]) - 0.5))
    {
      return;
    }
  }
  std::int64_t base[3];
  double       distance[3];
  for (int a = 0; a < D; ++a)
  {
    base[a] = static_cast<std::int64_t>(floor(x[a]));
    distance[a] = x[a] - static_cast<double>(base[a]);
  }
  double displacement[3] = { 0, 0, 0 };
  double total = 0.0;
  for (int counter = 0; counter < (1 << D); ++counter)
  {
    double       overlap = 1.0;
    std::int64_t offset = 0, stride = 1;
    for (int a = 0; a < D; ++a)
    {
      std::int64_t n;
      if ((counter >> a) & 1)
      {
        n = base[a] + 1;
        n = n > s.gridStart[a] + s.gridSize[a] - 1 ? s.gridStart[a] + s.gridSize[a] - 1 : n;
        overlap *= distance[a];
      }
      else
      {
        n = base[a] < s.gridStart[a] ? s.gridStart[a] : base[a];
        overlap *= 1.0 - distance[a];
      }
      offset += (n - s.gridStart[a]) * stride;
      stride *= s.gridSize[a];
    }
    if (overlap != 0.0)
    {
      for (int k = 0; k < D; ++k)
      {
        displacement[k] = MulAddUnfused(overlap, s.field[D * offset + k], displacement[k]);
      }
      total += overlap;
    }
    if (total == 1.0)
    {
      break;
    }
  }
  for (int k = 0; k < D; ++k)
  {
    out[k] = p[k] + displacement[k];
  }
}

/** Whether every stage of \a chain is affine (ApplyTransformChain's AffineOnly). */
CIF_HD bool
AllStagesAffine(const TransformChain & chain)
{
  for (int n = 0; n < chain.count; ++n)
  {
    if (chain.stage[n].kind != TransformKind::Affine)
    {
      return false;
    }
  }
  return true;
}

/** Applies every stage of \a chain to \a p (kMaxDimension entries, as \a out).
 * Transforms with a grid (B-spline, displacement field) exist up to 3-D. With
 * \a AffineOnly the caller has checked that every stage is affine (AllStagesAffine):
 * the same arithmetic without the grid transforms' code, which a kernel would
 * otherwise carry in registers (and spill) for stages it never meets. */
template <int D, bool AffineOnly = false>
CIF_HD void
ApplyTransformChain(const TransformChain & chain, const double p[kMaxDimension], double out[kMaxDimension])
{
  double q[kMaxDimension] = { p[0], p[1], p[2], p[3] };
  for (int n = 0; n < chain.count; ++n)
  {
    const TransformStage & s = chain.stage[n];
    double                 r[kMaxDimension] = { 0, 0, 0, 0 };
    if (s.kind == TransformKind::Affine)
    {
      for (int i = 0; i < D; ++i) // ITK: m_Matrix * point + m_Offset
      {
        for (int j = 0; j < D; ++j)
        {
          r[i] = MulAddUnfused(s.matrix[i][j], q[j], r[i]);
        }
        r[i] += s.offset[i];
      }
    }
    else if constexpr (D <= 3 && !AffineOnly)
    {
      if (s.kind == TransformKind::BSpline)
      {
        ApplyBSpline<D>(s, q, r);
      }
      else
      {
        ApplyDisplacementField<D>(s, q, r);
      }
    }
    for (int i = 0; i < kMaxDimension; ++i)
    {
      q[i] = r[i];
    }
  }
  for (int i = 0; i < kMaxDimension; ++i)
  {
    out[i] = q[i];
  }
}
} // namespace cif

#endif
