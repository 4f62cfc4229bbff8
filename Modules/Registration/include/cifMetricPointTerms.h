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
#ifndef cifMetricPointTerms_h
#define cifMetricPointTerms_h

#include "cifImageMetricMath.h"

#include <cmath>
#include <cstdint>
#include <type_traits>

/** \file cifMetricPointTerms.h
 * What each metric makes of one sampled point (ITK's per-metric ProcessPoint): a
 * term of the value's sum and a "force" f, the derivative of the point's
 * contribution with respect to the moving point, so that the point's derivative is
 * f^T J (J: the moving transform's Jacobian). The CUDA kernels and the CPU path
 * share these. A term's Apply returns false for a point the metric leaves out.
 * Most terms add one value per point; a term that adds several (Correlation's value
 * passes) says how many in kValues and fills an array (ApplyMetricTerm). */
namespace cif
{
/** How many value sums \a TTerm adds per valid point: TTerm::kValues where it
 * declares it, else 1. */
template <typename TTerm, typename = void>
struct MetricTermValues
{
  static constexpr int value = 1;
};
template <typename TTerm>
struct MetricTermValues<TTerm, std::void_t<decltype(TTerm::kValues)>>
{
  static constexpr int value = TTerm::kValues;
};

/** \a term at sample \a s: its MetricTermValues<TTerm> values into \a values and
 * its force (the one-value terms' Apply(s, value, force), or the array form). */
template <int D, typename TTerm>
CIF_HD bool
ApplyMetricTerm(const TTerm & term, const MetricPointSample & s, double * values, double force[3])
{
  if constexpr (MetricTermValues<TTerm>::value == 1)
  {
    return term.template Apply<D>(s, values[0], force);
  }
  else
  {
    return term.template Apply<D>(s, values, force);
  }
}

/** MeanSquaresImageToImageMetricv4GetValueAndDerivativeThreader::ProcessPoint: the
 * squared difference (the difference in the pixel type, as ITK takes it) and the
 * force 2 (F - M) grad M. */
template <typename TValue>
struct MeanSquaresTerm
{
  template <int D>
  CIF_HD bool
  Apply(const MetricPointSample & s, double & value, double force[3]) const
  {
    const double difference = RoundToPixelType<TValue>(s.fixedValue - s.movingValue);
    for (int a = 0; a < 3; ++a)
    {
      force[a] = a < D ? 2.0 * difference * s.movingGradient[a] : 0.0;
    }
    value = difference * difference;
    return true;
  }
};

/** itk::BSplineKernelFunction<3>::Evaluate is CubicBSplineKernel (cifTransformChain.h);
 * itk::BSplineDerivativeKernelFunction<3>::Evaluate, term for term. */
CIF_HD double
CubicBSplineDerivativeKernel(double u)
{
  if (u >= 0.0 && u < 1.0)
  {
    return -2.0 * u + 1.5 * u * u;
  }
  if (u > -1.0 && u < 0.0)
  {
    return -2.0 * u - 1.5 * u * u;
  }
  if (u >= 1.0 && u < 2.0)
  {
    return -2.0 + 2.0 * u - 0.5 * u * u;
  }
  if (u > -2.0 && u <= -1.0)
  {
    return 2.0 + 2.0 * u + 0.5 * u * u;
  }
  return 0.0;
}

/** The Parzen windows of MattesMutualInformationImageToImageMetricv4 (from its
 * Initialize: true ranges, bin sizes padded by 2 bins, normalized minima). */
struct MattesParzen
{
  int    bins = 50;
  double fixedBinSize = 1.0;
  double fixedNormalizedMin = 0.0;
  double movingBinSize = 1.0;
  double movingNormalizedMin = 0.0;
  double movingTrueMin = 0.0;
  double movingTrueMax = 0.0;
  /** The joint histogram's fixed point: each Parzen weight is added as the integer
   * nearest weight x this (ParzenFixedPointScale of the domain's point count). */
  double fixedPointScale = 4294967296.0;

  /** ComputeSingleFixedImageParzenWindowIndex. */
  CIF_HD std::int64_t
         FixedBin(double fixedValue) const
  {
    const double term = fixedValue / fixedBinSize - fixedNormalizedMin;
    auto         index = static_cast<std::int64_t>(term);
    const auto   last = static_cast<std::int64_t>(bins) - 3;
    return index < 2 ? 2 : (index > last ? last : index);
  }

  /** The moving value's window: false outside the moving true range (ITK leaves
   * the point out); else the first of the 4 bins it touches and the kernel argument
   * at that bin (the next bins' arguments are 1, 2, 3 more). */
  CIF_HD bool
  MovingWindow(double movingValue, std::int64_t & firstBin, double & firstArgument) const
  {
    if (movingValue < movingTrueMin || movingValue > movingTrueMax)
    {
      return false;
    }
    const double term = movingValue / movingBinSize - movingNormalizedMin;
    auto         index = static_cast<std::int64_t>(term);
    const auto   last = static_cast<std::int64_t>(bins) - 3;
    index = index < 2 ? 2 : (index > last ? last : index);
    firstBin = index - 1;
    firstArgument = static_cast<double>(firstBin) - term;
    return true;
  }
};

/** The joint histogram's fixed-point scale for a domain of \a points points: the
 * Parzen weights are added as integers, so that the sums do not depend on the order
 * in which threads add them (the same bits on every run). The scale is as fine as the
 * 64-bit sums allow: a weight below half a unit rounds to 0, and where only such
 * weights reach a bin (a moving value within eps of a knot gives its window's far bin
 * eps^3/6), ITK's log-ratio of that nearly empty bin, which the force weighs with
 * eps^2/2, would go missing. Each point's weights add up to 1 (and at most 2 units of
 * rounding), so with 2^(62 - ceil(log2 points)) every sum stays below 2^63: 2^38 for
 * 2^24 points, 2^53 for 500; at 2^32 (the earlier fixed scale) a 2-D Mattes
 * derivative came out up to 2.8e-5 of its norm off ITK's. A power of two: the
 * conversions back to double are exact divisions. */
CIF_HD double
ParzenFixedPointScale(std::int64_t points)
{
  int bits = 0; // ceil(log2(points)), at least 0
  while (bits < 62 && (std::int64_t{ 1 } << bits) < points)
  {
    ++bits;
  }
  return ldexp(1.0, 62 - bits);
}

/** Mattes' second pass: with the joint and marginal pdfs known, the derivative of
 * ITK's value with respect to the moving point, per point: grad M times
 * nFactor sum_k BSpline3'(argument_k) pRatio(fixed bin, moving bin_k), where
 * \a ratioTable holds nFactor x pRatio per (fixed bin, moving bin) (0 where ITK
 * skips the bin) and nFactor = -1 / (moving bin size x valid points). */
struct MattesDerivativeTerm
{
  MattesParzen   parzen;
  const double * ratioTable = nullptr;

  template <int D>
  CIF_HD bool
  Apply(const MetricPointSample & s, double & value, double force[3]) const
  {
    std::int64_t first;
    double       argument;
    value = 0.0;
    if (!parzen.MovingWindow(s.movingValue, first, argument))
    {
      return false;
    }
    const double * row = ratioTable + parzen.FixedBin(s.fixedValue) * parzen.bins;
    double         scale = 0.0;
    for (int k = 0; k < 4; ++k)
    {
      scale += CubicBSplineDerivativeKernel(argument + k) * row[first + k];
    }
    for (int a = 0; a < 3; ++a)
    {
      force[a] = a < D ? scale * s.movingGradient[a] : 0.0;
    }
    return true;
  }
};
/** CorrelationImageToImageMetricv4HelperThreader::ProcessVirtualPoint: each valid
 * point's fixed and moving values, whose sums over the valid points give ITK's
 * means (m_AverageFix, m_AverageMov). A value pass: no force. */
struct CorrelationMeansTerm
{
  static constexpr int kValues = 2;

  template <int D>
  CIF_HD bool
  Apply(const MetricPointSample & s, double * values, double force[3]) const
  {
    values[0] = s.fixedValue;
    values[1] = s.movingValue;
    for (int a = 0; a < 3; ++a)
    {
      force[a] = 0.0;
    }
    return true;
  }
};

/** The value part of CorrelationImageToImageMetricv4GetValueAndDerivativeThreader::
 * ProcessPoint: with f' = F - mean F and m' = M - mean M (the means of the first
 * pass), f'm', f'^2 and m'^2, whose sums are ITK's fm, f2 and m2. A value pass: no
 * force. */
struct CorrelationCentredTerm
{
  static constexpr int kValues = 3;
  double               averageFixed = 0.0;
  double               averageMoving = 0.0;

  template <int D>
  CIF_HD bool
  Apply(const MetricPointSample & s, double * values, double force[3]) const
  {
    const double f = s.fixedValue - averageFixed;
    const double m = s.movingValue - averageMoving;
    values[0] = f * m;
    values[1] = f * f;
    values[2] = m * m;
    for (int a = 0; a < 3; ++a)
    {
      force[a] = 0.0;
    }
    return true;
  }
};

/** Correlation's force pass. ITK's derivative is 2 fm / (f2 m2) (fdm - fm / m2 mdm)
 * with fdm = sum f' grad M J and mdm = sum m' grad M J (J: the moving transform's
 * Jacobian); both sums share grad M J, so it is sum (scale (f' - ratio m') grad M) J
 * with scale = 2 fm / (f2 m2) and ratio = fm / m2, known after the value passes: one
 * force per point, gathered as any other (no second derivative-sized sum). The value
 * is not used (0). */
struct CorrelationDerivativeTerm
{
  double averageFixed = 0.0;
  double averageMoving = 0.0;
  double scale = 0.0;
  double ratio = 0.0;

  template <int D>
  CIF_HD bool
  Apply(const MetricPointSample & s, double & value, double force[3]) const
  {
    const double f = s.fixedValue - averageFixed;
    const double m = s.movingValue - averageMoving;
    const double c = scale * (f - ratio * m);
    for (int a = 0; a < 3; ++a)
    {
      force[a] = a < D ? c * s.movingGradient[a] : 0.0;
    }
    value = 0.0;
    return true;
  }
};
} // namespace cif

#endif
