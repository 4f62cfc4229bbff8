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
#ifndef cifCubicInterpolation_h
#define cifCubicInterpolation_h

#include "cifHostDevice.h"
#include "cifMaxDimension.h"

#include <cmath>
#include <cstdint>
#include <type_traits>

/** \file cifCubicInterpolation.h
 * Cubic B-spline evaluation from coefficients, term for term as
 * itk::BSplineInterpolateImageFunction (order 3) computes it, for the CPU path and
 * the CUDA kernels alike. Indices are absolute image indices (a buffer that starts
 * at \a start); sums are in double. */
namespace cif
{
/** The buffered grid of the coefficients: up to kMaxGridDimension axes (unused
 * axes one sample at index 0). */
struct CoefficientGrid
{
  std::int64_t size[kMaxGridDimension] = { 1, 1, 1, 1, 1, 1 };
  std::int64_t start[kMaxGridDimension] = { 0, 0, 0, 0, 0, 0 };
};
static_assert(kMaxGridDimension == 6, "CoefficientGrid's initializers list 6 axes");

/** ITK's support start: floor((float) x) - 1 (ITK casts the continuous index to
 * float first, which decides the support of points within float rounding of an
 * integer). NaN, infinities and |x| > 2^40 start at -2^40 or 2^40 instead of
 * overflowing the conversion (undefined, and on the GPU a wild index): every read
 * after that stays in the buffer (mirrored, then clamped), and their weights make
 * the value NaN. Finite indices of any real buffer are unchanged. */
CIF_HD std::int64_t
       CubicSupportStart(double x)
{
  constexpr float kLimit = 1099511627776.0f;                                      // 2^40
  const float     clamped = fminf(fmaxf(static_cast<float>(x), -kLimit), kLimit); // fmaxf(NaN, a) = a
  return static_cast<std::int64_t>(floorf(clamped)) - 1;
}

/** Weights of the 4 coefficients for position \a x whose support starts one before
 * \a floorOfX, the integer floor of x as ITK takes it (the fraction t taken in
 * double, the polynomial in T). */
template <typename T = double>
CIF_HD void
CubicWeightsFromFloor(double x, double floorOfX, T w[4])
{
  const T t = static_cast<T>(x - floorOfX);
  w[3] = (T(1) / T(6)) * t * t * t;
  w[0] = (T(1) / T(6)) + T(0.5) * t * (t - T(1)) - w[3];
  w[2] = t + w[0] - T(2) * w[3];
  w[1] = T(1) - w[0] - w[2] - w[3];
}

/** Weights of the 4 coefficients from \a supportStart for position \a x. */
template <typename T = double>
CIF_HD void
CubicWeights(double x, std::int64_t supportStart, T w[4])
{
  CubicWeightsFromFloor<T>(x, static_cast<double>(supportStart + 1), w);
}

/** Weights of the first derivative (ITK's SetDerivativeWeights for order 3: the
 * differences of the quadratic B-spline). */
CIF_HD void
CubicDerivativeWeights(double x, std::int64_t supportStart, double d[4])
{
  const double t = x + 0.5 - static_cast<double>(supportStart + 2);
  const double w2 = 0.75 - t * t;
  const double w3 = 0.5 * (t - w2 + 1.0);
  const double w1 = 1.0 - w2 - w3;
  d[0] = -w1;
  d[1] = w1 - w2;
  d[2] = w2 - w3;
  d[3] = w3;
}

/** ITK's mirror of an index into [start, start + size - 1], as buffer offset. A
 * one-sample axis always reads its sample. The final clamp only matters for a
 * two-sample axis, where a single reflection can still fall outside (ITK reads
 * outside its buffer there). */
CIF_HD std::int64_t
       MirroredOffset(std::int64_t index, std::int64_t start, std::int64_t size)
{
  if (size == 1)
  {
    return 0;
  }
  const std::int64_t end = start + size - 1;
  if (index < start)
  {
    index = 2 * start - index;
  }
  if (index >= end)
  {
    index = 2 * end - index;
  }
  index -= start;
  return index < 0 ? 0 : (index >= size ? size - 1 : index);
}

/** The bounds of ITK's IsInsideBuffer for a continuous index along each axis:
 * start - 1/2 <= x < start + size - 1/2 (exact in double). Kernels take them as
 * parameters rather than recomputing them from the grid at every voxel. */
struct InsideBounds
{
  double low[kMaxDimension] = { 0, 0, 0, 0 };
  double high[kMaxDimension] = { 0, 0, 0, 0 };
};

CIF_HD InsideBounds
MakeInsideBounds(const CoefficientGrid & grid)
{
  InsideBounds b;
  for (int a = 0; a < kMaxDimension; ++a)
  {
    b.low[a] = static_cast<double>(grid.start[a]) - 0.5;
    b.high[a] = static_cast<double>(grid.start[a] + grid.size[a]) - 0.5;
  }
  return b;
}

template <int D>
CIF_HD bool
InsideBounded(const double x[], const InsideBounds & b)
{
  for (int a = 0; a < D; ++a)
  {
    if (!(x[a] >= b.low[a] && x[a] < b.high[a]))
    {
      return false;
    }
  }
  return true;
}

/** ITK's IsInsideBuffer for a continuous index: start - 1/2 <= x < start + size - 1/2. */
template <int D>
CIF_HD bool
InsideBuffer(const double x[], const CoefficientGrid & grid)
{
  return InsideBounded<D>(x, MakeInsideBounds(grid));
}

/** Whether 32-bit buffer offsets reach every coefficient of \a grid. */
CIF_HD bool
Indexable32(const CoefficientGrid & grid)
{
  std::int64_t count = 1;
  for (int a = 0; a < kMaxGridDimension; ++a)
  {
    count *= grid.size[a];
  }
  return count < 0x7FFFFFFFll;
}

/** Axes a support of D-dimensional evaluation carries: at least kMaxDimension, since
 * the 1-D to 4-D sums read the unit weights of the axes past D. */
template <int D>
constexpr int kSupportAxes = D > kMaxDimension ? D : kMaxDimension;

/** Support and weights of one evaluation: per axis (N of them) the first support
 * index and the 4 value (and derivative) weights, in the accumulation type Acc. */
template <typename Acc, int N = kMaxDimension>
struct CubicSupport
{
  std::int64_t first[N] = {};
  Acc          w[N][4];
  Acc          d[N][4];
};

/** The support of x (D axes used, the others a single unit weight), as ITK takes it. */
template <int D, typename Acc>
CIF_HD CubicSupport<Acc, kSupportAxes<D>>
       MakeCubicSupport(const double x[], bool withDerivative)
{
  static_assert(D >= 1 && D <= kMaxGridDimension, "1-D to kMaxGridDimension-D");
  CubicSupport<Acc, kSupportAxes<D>> support;
  CIF_UNROLL
  for (int a = 0; a < kSupportAxes<D>; ++a)
  {
    if (a >= D)
    {
      CIF_UNROLL
      for (int k = 0; k < 4; ++k)
      {
        support.w[a][k] = k == 0 ? Acc(1) : Acc(0);
        support.d[a][k] = Acc(0);
      }
      continue;
    }
    support.first[a] = CubicSupportStart(x[a]);
    CubicWeights<Acc>(x[a], support.first[a], support.w[a]);
    double dd[4] = { 0, 0, 0, 0 };
    if (withDerivative)
    {
      CubicDerivativeWeights(x[a], support.first[a], dd);
    }
    CIF_UNROLL
    for (int k = 0; k < 4; ++k)
    {
      support.d[a][k] = static_cast<Acc>(dd[k]);
    }
  }
  return support;
}

/** The weighted sum over the 4^D support (D = 1..4), reading coefficient (kx, ky,
 * kz, kw) at c[offset[0][kx] + offset[1][ky] + offset[2][kz] + offset[3][kw]]
 * (offsets with strides applied). One order of summation for every caller, so every
 * path gives the same numbers. With \a gradient, the D partial derivatives in index
 * space. */
template <int D, typename Acc, typename TCoefficient, typename TIndex, int N>
CIF_HD Acc
CubicWeightedSum(const TCoefficient * __restrict__ c,
                 const TIndex                 offset[][4],
                 const CubicSupport<Acc, N> & s,
                 double *                     gradient)
{
  static_assert(D >= 1 && D <= kMaxDimension && N >= kMaxDimension, "1-D to 4-D, a support of 4 axes or more");
  constexpr int KY = D > 1 ? 4 : 1;
  constexpr int KZ = D > 2 ? 4 : 1;
  constexpr int KW = D > 3 ? 4 : 1;
  Acc           value = 0, g0 = 0, g1 = 0, g2 = 0, g3 = 0;
  CIF_UNROLL
  for (int kw = 0; kw < KW; ++kw)
  {
    CIF_UNROLL
    for (int kz = 0; kz < KZ; ++kz)
    {
      CIF_UNROLL
      for (int ky = 0; ky < KY; ++ky)
      {
        const TCoefficient * row = c + (offset[3][kw] + offset[2][kz] + offset[1][ky]);
        Acc                  sum = 0, sumD = 0;
        CIF_UNROLL
        for (int kx = 0; kx < 4; ++kx)
        {
          const Acc coefficient = static_cast<Acc>(row[offset[0][kx]]);
          sum += s.w[0][kx] * coefficient;
          if (gradient)
          {
            sumD += s.d[0][kx] * coefficient;
          }
        }
        // The 4th axis multiplies in last, so 1-D to 3-D sums keep their order.
        const Acc w3 = D > 3 ? s.w[3][kw] : Acc(1);
        const Acc wyz = D > 3 ? s.w[1][ky] * s.w[2][kz] * w3 : s.w[1][ky] * s.w[2][kz];
        value += wyz * sum;
        if (gradient)
        {
          g0 += wyz * sumD;
          g1 += (D > 3 ? s.d[1][ky] * s.w[2][kz] * w3 : s.d[1][ky] * s.w[2][kz]) * sum;
          g2 += (D > 3 ? s.w[1][ky] * s.d[2][kz] * w3 : s.w[1][ky] * s.d[2][kz]) * sum;
          if (D > 3)
          {
            g3 += s.w[1][ky] * s.w[2][kz] * s.d[3][kw] * sum;
          }
        }
      }
    }
  }
  if (gradient)
  {
    const Acc g[kMaxDimension] = { g0, g1, g2, g3 };
    for (int a = 0; a < (D > 3 ? 4 : 3); ++a) // callers of 1-D to 3-D give 3 entries
    {
      gradient[a] = g[a];
    }
  }
  return value;
}

/** v[k] for a k known only at run time, by selects over the 4 entries: indexing a
 * register array with a variable would move the array to local memory on the GPU. */
template <typename T>
CIF_HD T
PickOf4(const T v[4], int k)
{
  T picked = v[0];
  CIF_UNROLL
  for (int j = 1; j < 4; ++j)
  {
    picked = k == j ? v[j] : picked;
  }
  return picked;
}

/** The weighted sum over the 4^D support for D = 5 and 6: the 3-D sum of
 * CubicWeightedSum over axes 0..2, once per support position (k3, k4, k5) of the
 * axes past the third, each weighted by those axes' weights (for the value and the
 * gradients of axes 0..2) or by one derivative weight among them (for the gradients
 * of axes 3..5). The loop over the outer positions (16 or 64) stays rolled around
 * the 3-D sum's 64 unrolled reads: unrolled, or around the 4-D sum, it held so many
 * values at once that the kernels spilled registers by kilobytes (ptxas, sm_90), and
 * it would multiply code and compile time without saving a read. The 1-D to 4-D
 * sums keep their own order (and numbers). */
template <int D, typename Acc, typename TCoefficient, typename TIndex, int N>
CIF_HD Acc
CubicWeightedSumOuter(const TCoefficient * __restrict__ c,
                      const TIndex                 offset[][4],
                      const CubicSupport<Acc, N> & s,
                      double *                     gradient)
{
  static_assert(D > kMaxDimension && D <= 6 && N >= D, "5-D or 6-D");
  constexpr int outerPositions = D > 5 ? 64 : 16;
  // The 3-D sum adds offset[3][0] to every row (0 below 4-D): here axis 3 is outer.
  TIndex inner3[kMaxDimension][4];
  CIF_UNROLL
  for (int k = 0; k < 4; ++k)
  {
    inner3[0][k] = offset[0][k];
    inner3[1][k] = offset[1][k];
    inner3[2][k] = offset[2][k];
    inner3[3][k] = 0;
  }
  Acc value = 0, g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0;
  CIF_NO_UNROLL
  for (int r = 0; r < outerPositions; ++r)
  {
    const int k3 = r & 3, k4 = (r >> 2) & 3, k5 = r >> 4;
    const Acc w3 = PickOf4(s.w[3], k3), w4 = PickOf4(s.w[4], k4);
    Acc       w5 = 1, d5 = 0;
    TIndex    shift = PickOf4(offset[3], k3) + PickOf4(offset[4], k4);
    if constexpr (D > 5)
    {
      w5 = PickOf4(s.w[5], k5);
      d5 = PickOf4(s.d[5], k5);
      shift += PickOf4(offset[5], k5);
    }
    double    inner[3];
    const Acc partial = CubicWeightedSum<3, Acc>(c + shift, inner3, s, gradient ? inner : nullptr);
    const Acc w45 = w4 * w5;
    const Acc outer = w3 * w45;
    value += outer * partial;
    if (gradient)
    {
      g0 += outer * static_cast<Acc>(inner[0]);
      g1 += outer * static_cast<Acc>(inner[1]);
      g2 += outer * static_cast<Acc>(inner[2]);
      g3 += PickOf4(s.d[3], k3) * w45 * partial;
      g4 += w3 * PickOf4(s.d[4], k4) * w5 * partial;
      g5 += w3 * w4 * d5 * partial;
    }
  }
  if (gradient)
  {
    const Acc g[6] = { g0, g1, g2, g3, g4, g5 };
    for (int a = 0; a < D; ++a)
    {
      gradient[a] = g[a];
    }
  }
  return value;
}

/** EvaluateCubic with buffer offsets of type TIndex. */
template <int D, typename TIndex, typename TCoefficient>
CIF_HD double
EvaluateCubicIndexed(const TCoefficient * __restrict__ c,
                     const CoefficientGrid & grid,
                     const double            x[],
                     double *                gradient)
{
  using Acc = std::conditional_t<sizeof(TCoefficient) == 4, float, double>;
  constexpr int              N = kSupportAxes<D>;
  const CubicSupport<Acc, N> support = MakeCubicSupport<D, Acc>(x, gradient != nullptr);
  TIndex                     stride[N];
  std::int64_t               step = 1;
  CIF_UNROLL
  for (int a = 0; a < N; ++a)
  {
    stride[a] = static_cast<TIndex>(step);
    step *= grid.size[a];
  }
  TIndex offset[N][4];
  CIF_UNROLL
  for (int a = 0; a < N; ++a)
  {
    const std::int64_t first = support.first[a] - grid.start[a];
    if (a >= D)
    {
      CIF_UNROLL
      for (int k = 0; k < 4; ++k)
      {
        offset[a][k] = 0;
      }
    }
    else if (first >= 0 && first + 3 < grid.size[a])
    {
      CIF_UNROLL
      for (int k = 0; k < 4; ++k) // the common case: the support lies inside, no mirroring
      {
        offset[a][k] = static_cast<TIndex>(first + k) * stride[a];
      }
    }
    else
    {
      CIF_UNROLL
      for (int k = 0; k < 4; ++k)
      {
        offset[a][k] =
          static_cast<TIndex>(MirroredOffset(support.first[a] + k, grid.start[a], grid.size[a])) * stride[a];
      }
    }
  }
  if constexpr (D > kMaxDimension)
  {
    return CubicWeightedSumOuter<D, Acc>(c, offset, support, gradient);
  }
  else
  {
    return CubicWeightedSum<D, Acc>(c, offset, support, gradient);
  }
}

/** The support of \a x on a grid of fewer than 2^31 samples, as EvaluateCubicValue32
 * takes it (D = 1..4): per axis the first support index relative to the grid's start
 * and the 4 weights (axes past D: first 0, weights 1, 0, 0, 0). Returns whether the
 * whole 4^D support lies inside the grid (no mirroring). With \a KnownInsideBuffer
 * the caller has tested x against the buffer (InsideBounded) and the grid's indices
 * fit in 31 bits (SupportFits32): x is then finite and small, so ITK's float floor
 * needs neither CubicSupportStart's clamp nor its 64-bit round trip; the numbers are
 * the same. */
template <int D, typename Acc, bool KnownInsideBuffer = false>
CIF_HD bool
CubicSupport32(const CoefficientGrid & grid,
               const double            x[],
               std::int32_t            first[kMaxDimension],
               Acc                     w[kMaxDimension][4])
{
  static_assert(D >= 1 && D <= kMaxDimension, "1-D to 4-D");
  bool inside = true;
  CIF_UNROLL
  for (int a = 0; a < kMaxDimension; ++a)
  {
    if (a >= D)
    {
      first[a] = 0;
      w[a][0] = Acc(1);
      w[a][1] = w[a][2] = w[a][3] = Acc(0);
      continue;
    }
    if constexpr (KnownInsideBuffer)
    {
      const float floorOfX = floorf(static_cast<float>(x[a])); // CubicSupportStart + 1
      first[a] = static_cast<std::int32_t>(floorOfX) - 1 - static_cast<std::int32_t>(grid.start[a]);
      CubicWeightsFromFloor<Acc>(x[a], static_cast<double>(floorOfX), w[a]);
    }
    else
    {
      const std::int64_t supportStart = CubicSupportStart(x[a]);
      CubicWeights<Acc>(x[a], supportStart, w[a]);
      first[a] = static_cast<std::int32_t>(supportStart - grid.start[a]);
    }
    inside = inside && first[a] >= 0 && first[a] + 3 < static_cast<std::int32_t>(grid.size[a]);
  }
  return inside;
}

/** Whether every index of \a grid, and the 2 beyond each end, fits in 31 bits:
 * CubicSupport32's KnownInsideBuffer then holds for any x inside the buffer. */
CIF_HD bool
SupportFits32(const CoefficientGrid & grid)
{
  for (int a = 0; a < kMaxGridDimension; ++a)
  {
    const std::int64_t low = grid.start[a] - 2, high = grid.start[a] + grid.size[a] + 2;
    if (low < -0x3FFFFFFFll || high > 0x3FFFFFFFll)
    {
      return false;
    }
  }
  return true;
}

/** The weighted sum over the 4^D support in EvaluateCubic's order (D = 1..4): per row
 * (kw, kz, ky) its 4 samples along axis 0 weighted by w[0], then the row's sum weighted
 * by w[1][ky] w[2][kz] (and w[3][kw]). \a rowAt(kw, kz, ky) gives the row's first
 * sample and \a sampleOf(row, kx) its sample kx: contiguous reads at fixed offsets, or
 * mirrored ones, through the same arithmetic. */
template <int D, typename Acc, typename TRowAt, typename TSampleOf>
CIF_HD Acc
SumOfWeightedRows(const Acc w[kMaxDimension][4], const TRowAt & rowAt, const TSampleOf & sampleOf)
{
  constexpr int KY = D > 1 ? 4 : 1;
  constexpr int KZ = D > 2 ? 4 : 1;
  constexpr int KW = D > 3 ? 4 : 1;
  Acc           value = 0;
  CIF_UNROLL
  for (int kw = 0; kw < KW; ++kw)
  {
    CIF_UNROLL
    for (int kz = 0; kz < KZ; ++kz)
    {
      CIF_UNROLL
      for (int ky = 0; ky < KY; ++ky)
      {
        const auto row = rowAt(kw, kz, ky);
        Acc        sum = 0;
        CIF_UNROLL
        for (int kx = 0; kx < 4; ++kx)
        {
          sum += w[0][kx] * static_cast<Acc>(sampleOf(row, kx));
        }
        const Acc wyz = D > 3 ? w[1][ky] * w[2][kz] * w[3][kw] : w[1][ky] * w[2][kz];
        value += wyz * sum;
      }
    }
  }
  return value;
}

/** The weighted sum over a support that lies inside the grid (D = 1..4, fewer than
 * 2^31 samples), from CubicSupport32's \a first and \a w: the 4 samples of each row
 * along axis 0 are contiguous, one address per row, the 4 reads at fixed offsets from
 * it. Reads and their address arithmetic are what the resampling kernels spend their
 * instructions on (64 reads per 3-D voxel). Terms in EvaluateCubic's order. */
template <int D, typename TCoefficient, typename Acc>
CIF_HD Acc
SumOverInteriorSupport32(const TCoefficient * __restrict__ c,
                         const CoefficientGrid & grid,
                         const std::int32_t      first[kMaxDimension],
                         const Acc               w[kMaxDimension][4])
{
  const auto                 strideY = static_cast<std::int32_t>(grid.size[0]);
  const auto                 strideZ = static_cast<std::int32_t>(grid.size[0] * grid.size[1]);
  const auto                 strideW = static_cast<std::int32_t>(grid.size[0] * grid.size[1] * grid.size[2]);
  const TCoefficient * const corner = c + (first[3] * strideW + first[2] * strideZ + first[1] * strideY + first[0]);
  return SumOfWeightedRows<D, Acc>(
    w,
    [&](int kw, int kz, int ky) { return corner + (kw * strideW + kz * strideZ + ky * strideY); },
    [](const TCoefficient * row, int kx) { return row[kx]; });
}

/** The spline's value at \a x when its whole support lies inside the grid (D = 1..4,
 * fewer than 2^31 samples): returns false, and leaves \a value alone, otherwise. */
template <int D, typename TCoefficient, bool KnownInsideBuffer = false>
CIF_HD bool
TryEvaluateCubicInterior32(const TCoefficient * __restrict__ c,
                           const CoefficientGrid & grid,
                           const double            x[],
                           double &                value)
{
  using Acc = std::conditional_t<sizeof(TCoefficient) == 4, float, double>;
  std::int32_t first[kMaxDimension];
  Acc          w[kMaxDimension][4];
  if (!CubicSupport32<D, Acc, KnownInsideBuffer>(grid, x, first, w))
  {
    return false;
  }
  value = SumOverInteriorSupport32<D>(c, grid, first, w);
  return true;
}

/** The spline's value at \a x, a point inside the buffer (InsideBounded) whose support
 * is known to lie inside \a grid: a mirror-padded grid (cifMirrorPadding.h) with
 * SupportFits32 and fewer than 2^31 samples (D = 1..4). No test of the support at all:
 * what the resampling kernels run for every voxel of padded coefficients. */
template <int D, typename TCoefficient>
CIF_HD double
EvaluateCubicInterior32(const TCoefficient * __restrict__ c, const CoefficientGrid & grid, const double x[])
{
  using Acc = std::conditional_t<sizeof(TCoefficient) == 4, float, double>;
  std::int32_t first[kMaxDimension];
  Acc          w[kMaxDimension][4];
  CubicSupport32<D, Acc, true>(grid, x, first, w);
  return SumOverInteriorSupport32<D>(c, grid, first, w);
}

/** ITK's mirror (MirroredOffset) of support index \a k, relative to the grid's start,
 * along an axis of \a size samples, in 32 bits. */
CIF_HD std::int32_t
       MirroredIndex32(std::int32_t k, std::int32_t size)
{
  if (size == 1)
  {
    return 0;
  }
  const std::int32_t last = size - 1;
  k = k < 0 ? -k : k;
  k = k >= last ? 2 * last - k : k;
  return k < 0 ? 0 : (k > last ? last : k);
}

/** The spline's value at \a x where its support reaches past the grid: ITK's mirrored
 * sum, term for term as EvaluateCubicIndexed<D, std::int32_t> (the same numbers), for
 * a point inside the buffer (InsideBounded) of a grid with SupportFits32 and fewer
 * than 2^31 samples (D = 1..4). In 32 bits throughout and with CubicSupport32's float
 * floor: what the resampling kernels run for the voxels at the input's faces. */
template <int D, typename TCoefficient>
CIF_HD double
EvaluateCubicMirrored32(const TCoefficient * __restrict__ c, const CoefficientGrid & grid, const double x[])
{
  using Acc = std::conditional_t<sizeof(TCoefficient) == 4, float, double>;
  std::int32_t first[kMaxDimension];
  Acc          w[kMaxDimension][4];
  CubicSupport32<D, Acc, true>(grid, x, first, w);
  std::int32_t offset[kMaxDimension][4];
  std::int32_t stride = 1;
  CIF_UNROLL
  for (int a = 0; a < kMaxDimension; ++a)
  {
    const auto size = static_cast<std::int32_t>(grid.size[a]);
    CIF_UNROLL
    for (int k = 0; k < 4; ++k)
    {
      offset[a][k] = a < D ? MirroredIndex32(first[a] + k, size) * stride : 0;
    }
    stride *= a < D ? size : 1;
  }
  return SumOfWeightedRows<D, Acc>(
    w,
    [&](int kw, int kz, int ky) { return c + (offset[3][kw] + offset[2][kz] + offset[1][ky]); },
    [&](const TCoefficient * row, int kx) { return row[offset[0][kx]]; });
}

/** EvaluateCubicValue32 for D = 1..4: the interior sum, else the mirrored one. */
template <int D, typename TCoefficient>
CIF_HD double
EvaluateCubicValue32Core(const TCoefficient * __restrict__ c, const CoefficientGrid & grid, const double x[])
{
  double value;
  if (TryEvaluateCubicInterior32<D>(c, grid, x, value))
  {
    return value;
  }
  return EvaluateCubicIndexed<D, std::int32_t>(c, grid, x, nullptr);
}

/** The spline's value alone at continuous index \a x, for buffers of fewer than 2^31
 * samples, with the same terms in the same order as EvaluateCubic (so the same
 * numbers): TryEvaluateCubicInterior32 for every voxel but a border layer. */
template <int D, typename TCoefficient>
CIF_HD double
EvaluateCubicValue32(const TCoefficient * __restrict__ c, const CoefficientGrid & grid, const double x[])
{
  if constexpr (D > kMaxDimension)
  {
    // 5-D and 6-D: the general sum of CubicWeightedSumOuter (no corner-pointer path
    // written for them).
    return EvaluateCubicIndexed<D, std::int32_t>(c, grid, x, nullptr);
  }
  else
  {
    return EvaluateCubicValue32Core<D>(c, grid, x);
  }
}

/** The spline's value at continuous index \a x (D = 1..6), and with \a gradient its
 * D partial derivatives in index space (ITK divides them by the spacing and, for
 * physical gradients, rotates them by the direction). Support and indices come from
 * x exactly as ITK computes them; weights and the weighted sum run in the
 * coefficients' precision (float coefficients: float, within float rounding of
 * ITK's double sum; double coefficients: double, as ITK). Buffers of fewer than 2^31
 * samples use 32-bit offsets (fewer instructions per gather on the GPU). */
template <int D, typename TCoefficient>
CIF_HD double
EvaluateCubic(const TCoefficient * __restrict__ c,
              const CoefficientGrid & grid,
              const double            x[],
              double *                gradient = nullptr)
{
  if (Indexable32(grid))
  {
    return gradient ? EvaluateCubicIndexed<D, std::int32_t>(c, grid, x, gradient) : EvaluateCubicValue32<D>(c, grid, x);
  }
  return EvaluateCubicIndexed<D, std::int64_t>(c, grid, x, gradient);
}
} // namespace cif

#endif
