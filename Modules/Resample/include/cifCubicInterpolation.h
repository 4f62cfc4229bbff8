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
/** The buffered grid of the coefficients: up to kMaxDimension axes. */
struct CoefficientGrid
{
  std::int64_t size[kMaxDimension] = { 1, 1, 1, 1 };
  std::int64_t start[kMaxDimension] = { 0, 0, 0, 0 };
};

/** ITK's support start: floor((float) x) - 1 (ITK casts the continuous index to
 * float first, which decides the support of points within float rounding of an
 * integer). NaN, infinities and |x| > 2^40 start at -2^40 or 2^40 instead of
 * overflowing the conversion (undefined, and on the GPU a wild index): every read
 * after that stays in the buffer (mirrored, then clamped), and their weights make
 * the value NaN. Finite indices of any real buffer are unchanged. */
CIF_HD std::int64_t
CubicSupportStart(double x)
{
  constexpr float kLimit = 1099511627776.0f; // 2^40
  const float     clamped = fminf(fmaxf(static_cast<float>(x), -kLimit), kLimit); // fmaxf(NaN, a) = a
  return static_cast<std::int64_t>(floorf(clamped)) - 1;
}

/** Weights of the 4 coefficients from \a supportStart for position \a x (the
 * fraction t taken in double, the polynomial in T). */
template <typename T = double>
CIF_HD void
CubicWeights(double x, std::int64_t supportStart, T w[4])
{
  const T t = static_cast<T>(x - static_cast<double>(supportStart + 1));
  w[3] = (T(1) / T(6)) * t * t * t;
  w[0] = (T(1) / T(6)) + T(0.5) * t * (t - T(1)) - w[3];
  w[2] = t + w[0] - T(2) * w[3];
  w[1] = T(1) - w[0] - w[2] - w[3];
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
  return grid.size[0] * grid.size[1] * grid.size[2] * grid.size[3] < 0x7FFFFFFFll;
}

/** Support and weights of one evaluation: per axis the first support index and the
 * 4 value (and derivative) weights, in the accumulation type Acc. */
template <typename Acc>
struct CubicSupport
{
  std::int64_t first[kMaxDimension] = { 0, 0, 0, 0 };
  Acc          w[kMaxDimension][4];
  Acc          d[kMaxDimension][4];
};

/** The support of x (D axes used, the others a single unit weight), as ITK takes it. */
template <int D, typename Acc>
CIF_HD CubicSupport<Acc>
MakeCubicSupport(const double x[], bool withDerivative)
{
  CubicSupport<Acc> support;
  CIF_UNROLL
  for (int a = 0; a < kMaxDimension; ++a)
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

/** The weighted sum over the 4^D support, reading coefficient (kx, ky, kz, kw) at
 * c[offset[0][kx] + offset[1][ky] + offset[2][kz] + offset[3][kw]] (offsets with
 * strides applied). One order of summation for every caller, so every path gives
 * the same numbers. With \a gradient, the D partial derivatives in index space. */
template <int D, typename Acc, typename TCoefficient, typename TIndex>
CIF_HD Acc
CubicWeightedSum(const TCoefficient * __restrict__ c, const TIndex offset[kMaxDimension][4],
                 const CubicSupport<Acc> & s, double * gradient)
{
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

/** EvaluateCubic with buffer offsets of type TIndex. */
template <int D, typename TIndex, typename TCoefficient>
CIF_HD double
EvaluateCubicIndexed(const TCoefficient * __restrict__ c, const CoefficientGrid & grid, const double x[],
                     double * gradient)
{
  using Acc = std::conditional_t<sizeof(TCoefficient) == 4, float, double>;
  const CubicSupport<Acc> support = MakeCubicSupport<D, Acc>(x, gradient != nullptr);
  const TIndex            stride[kMaxDimension] = { 1, static_cast<TIndex>(grid.size[0]),
                                                    static_cast<TIndex>(grid.size[0] * grid.size[1]),
                                                    static_cast<TIndex>(grid.size[0] * grid.size[1] * grid.size[2]) };
  TIndex                  offset[kMaxDimension][4];
  CIF_UNROLL
  for (int a = 0; a < kMaxDimension; ++a)
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
        offset[a][k] = static_cast<TIndex>(MirroredOffset(support.first[a] + k, grid.start[a], grid.size[a])) * stride[a];
      }
    }
  }
  return CubicWeightedSum<D, Acc>(c, offset, support, gradient);
}

/** The spline's value alone at continuous index \a x, for buffers of fewer than 2^31
 * samples, with the same terms in the same order as EvaluateCubic (so the same
 * numbers). Where the support lies inside the buffer (every voxel but a border
 * layer) the 4 samples of each row along axis 0 are contiguous: one address per
 * row, the 4 reads at fixed offsets from it. Reads and their address arithmetic are
 * what the resampling kernels spend their instructions on (64 reads per 3-D voxel). */
template <int D, typename TCoefficient>
CIF_HD double
EvaluateCubicValue32(const TCoefficient * __restrict__ c, const CoefficientGrid & grid, const double x[])
{
  using Acc = std::conditional_t<sizeof(TCoefficient) == 4, float, double>;
  const CubicSupport<Acc> s = MakeCubicSupport<D, Acc>(x, false);
  std::int32_t            first[kMaxDimension] = { 0, 0, 0, 0 };
  bool                    inside = true;
  CIF_UNROLL
  for (int a = 0; a < D; ++a)
  {
    first[a] = static_cast<std::int32_t>(s.first[a] - grid.start[a]);
    inside = inside && first[a] >= 0 && first[a] + 3 < static_cast<std::int32_t>(grid.size[a]);
  }
  if (!inside)
  {
    return EvaluateCubicIndexed<D, std::int32_t>(c, grid, x, nullptr);
  }
  const auto                 strideY = static_cast<std::int32_t>(grid.size[0]);
  const auto                 strideZ = static_cast<std::int32_t>(grid.size[0] * grid.size[1]);
  const auto                 strideW = static_cast<std::int32_t>(grid.size[0] * grid.size[1] * grid.size[2]);
  const TCoefficient * const corner = c + (first[3] * strideW + first[2] * strideZ + first[1] * strideY + first[0]);
  constexpr int              KY = D > 1 ? 4 : 1;
  constexpr int              KZ = D > 2 ? 4 : 1;
  constexpr int              KW = D > 3 ? 4 : 1;
  Acc                        value = 0;
  CIF_UNROLL
  for (int kw = 0; kw < KW; ++kw)
  {
    CIF_UNROLL
    for (int kz = 0; kz < KZ; ++kz)
    {
      CIF_UNROLL
      for (int ky = 0; ky < KY; ++ky)
      {
        const TCoefficient * row = corner + (kw * strideW + kz * strideZ + ky * strideY);
        Acc                  sum = 0;
        CIF_UNROLL
        for (int kx = 0; kx < 4; ++kx)
        {
          sum += s.w[0][kx] * static_cast<Acc>(row[kx]);
        }
        const Acc wyz = D > 3 ? s.w[1][ky] * s.w[2][kz] * s.w[3][kw] : s.w[1][ky] * s.w[2][kz];
        value += wyz * sum;
      }
    }
  }
  return value;
}

/** The spline's value at continuous index \a x (D = 1..4), and with \a gradient its
 * partial derivatives in index space (ITK divides them by the spacing and, for
 * physical gradients, rotates them by the direction). Support and indices come from
 * x exactly as ITK computes them; weights and the weighted sum run in the
 * coefficients' precision (float coefficients: float, within float rounding of
 * ITK's double sum; double coefficients: double, as ITK). Buffers of fewer than 2^31
 * samples use 32-bit offsets (fewer instructions per gather on the GPU). */
template <int D, typename TCoefficient>
CIF_HD double
EvaluateCubic(const TCoefficient * __restrict__ c, const CoefficientGrid & grid, const double x[],
              double * gradient = nullptr)
{
  if (Indexable32(grid))
  {
    return gradient ? EvaluateCubicIndexed<D, std::int32_t>(c, grid, x, gradient)
                    : EvaluateCubicValue32<D>(c, grid, x);
  }
  return EvaluateCubicIndexed<D, std::int64_t>(c, grid, x, gradient);
}
} // namespace cif

#endif
