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
#ifndef cifMattesHistogram_h
#define cifMattesHistogram_h

#include "cifImageMetricMath.h"
#include "cifMetricPointTerms.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

/** \file cifMattesHistogram.h
 * MattesMutualInformationImageToImageMetricv4's first pass: the joint histogram of
 * fixed and moving values with its Parzen windows (a box for the fixed value, the
 * cubic B-spline for the moving one) and the fixed marginal, in integer fixed point
 * (MattesParzen::fixedPointScale) so that the sums are the same whatever the order; then
 * ITK's ComputeResults: the pdfs, the value, and the table of nFactor x pRatio per
 * bin that the second pass (MattesDerivativeTerm) turns into forces. */
namespace cif
{
struct MattesHistogram
{
  std::vector<std::int64_t> joint;         ///< bins x bins, fixed bin major, x fixedPointScale
  std::vector<std::int64_t> fixedMarginal; ///< bins, points per fixed bin
  std::int64_t              validPoints = 0;

  void
  Reset(int bins)
  {
    joint.assign(static_cast<std::size_t>(bins) * bins, 0);
    fixedMarginal.assign(static_cast<std::size_t>(bins), 0);
    validPoints = 0;
  }
};

/** What ITK's ComputeResults gives beside the ratio table: the value (-MI), and
 * what its errors are decided on (no valid point; a joint pdf summing to zero). */
struct MattesSummary
{
  double       value = 0.0;
  std::int64_t validPoints = 0;
  double       jointPDFSum = 0.0;

  /** ITK raises no error: some point is valid and the joint pdf sums to more than
   * zero (then the value and the ratio table are ITK's results). */
  bool
  HasResults() const
  {
    return validPoints > 0 && jointPDFSum >= std::numeric_limits<double>::epsilon();
  }
};

/** One point's Parzen contributions: false where Mattes leaves the point out (not
 * sampled, or a moving value outside the moving true range). */
CIF_HD bool
MattesPointBins(const MattesParzen &      parzen,
                const MetricPointSample & s,
                std::int64_t &            fixedBin,
                std::int64_t &            firstMovingBin,
                std::int64_t              weights[4])
{
  double argument;
  if (!s.valid || !parzen.MovingWindow(s.movingValue, firstMovingBin, argument))
  {
    return false;
  }
  fixedBin = parzen.FixedBin(s.fixedValue);
  for (int k = 0; k < 4; ++k)
  {
    weights[k] = static_cast<std::int64_t>(llrint(CubicBSplineKernel(argument + k) * parzen.fixedPointScale));
  }
  return true;
}

/** The first pass on the CPU. \a parallelFor: a callable (count, body(i)). */
template <int D, typename TValue, typename TParallelFor>
void
MattesHistogramOnHost(const MetricScene<TValue> &   scene,
                      const MetricMovingTransform & transform,
                      const MattesParzen &          parzen,
                      TParallelFor &&               parallelFor,
                      MattesHistogram &             histogram)
{
  constexpr std::int64_t       slices = 64;
  const std::int64_t           count = scene.domain.count;
  std::vector<MattesHistogram> partial(static_cast<std::size_t>(slices));
  parallelFor(slices, [&](std::int64_t slice) {
    MattesHistogram & h = partial[slice];
    h.Reset(parzen.bins);
    const std::int64_t begin = count * slice / slices, end = count * (slice + 1) / slices;
    for (std::int64_t n = begin; n < end; ++n)
    {
      double v[3];
      VirtualPointOf<D>(scene.domain, n, v);
      const MetricPointSample s = SampleMetricPoint<D>(scene, transform, v, false);
      std::int64_t            fixedBin, first, w[4];
      if (!MattesPointBins(parzen, s, fixedBin, first, w))
      {
        continue;
      }
      ++h.validPoints;
      ++h.fixedMarginal[fixedBin];
      for (int k = 0; k < 4; ++k)
      {
        h.joint[fixedBin * parzen.bins + first + k] += w[k];
      }
    }
  });
  histogram.Reset(parzen.bins);
  for (const MattesHistogram & h : partial)
  {
    histogram.validPoints += h.validPoints;
    for (std::size_t k = 0; k < h.joint.size(); ++k)
    {
      histogram.joint[k] += h.joint[k];
    }
    for (std::size_t k = 0; k < h.fixedMarginal.size(); ++k)
    {
      histogram.fixedMarginal[k] += h.fixedMarginal[k];
    }
  }
}

/** The joint pdf's sum before ITK's normalisation. */
inline double
JointPDFSum(const MattesParzen & parzen, const MattesHistogram & histogram)
{
  std::int64_t sum = 0;
  for (std::int64_t v : histogram.joint)
  {
    sum += v;
  }
  return static_cast<double>(sum) / parzen.fixedPointScale;
}

/** MattesMutualInformationImageToImageMetricv4::ComputeResults from the histogram
 * and its \a jointPDFSum: the value (-MI) and, in \a ratioTable (bins x bins),
 * nFactor x pRatio for the second pass. The caller has checked ITK's errors
 * (MattesSummary::HasResults()). */
inline double
MattesValueAndRatios(const MattesParzen &    parzen,
                     const MattesHistogram & histogram,
                     double                  jointPDFSum,
                     std::vector<double> &   ratioTable)
{
  const int           bins = parzen.bins;
  const double        normalization = 1.0 / jointPDFSum;
  std::vector<double> joint(histogram.joint.size()), fixedMarginal(static_cast<std::size_t>(bins)),
    movingMarginal(static_cast<std::size_t>(bins), 0.0);
  for (std::size_t k = 0; k < joint.size(); ++k)
  {
    joint[k] = static_cast<double>(histogram.joint[k]) / parzen.fixedPointScale * normalization;
  }
  for (int f = 0; f < bins; ++f)
  {
    fixedMarginal[f] = static_cast<double>(histogram.fixedMarginal[f]) * normalization;
    for (int m = 0; m < bins; ++m)
    {
      movingMarginal[m] += joint[f * bins + m];
    }
  }
  constexpr double closeToZero = std::numeric_limits<double>::epsilon();
  const double     nFactor = -1.0 / (parzen.movingBinSize * static_cast<double>(histogram.validPoints));
  ratioTable.assign(joint.size(), 0.0);
  double sum = 0.0;
  for (int f = 0; f < bins; ++f)
  {
    if (!(fixedMarginal[f] > closeToZero))
    {
      continue;
    }
    const double logFixed = std::log(fixedMarginal[f]);
    for (int m = 0; m < bins; ++m)
    {
      const double p = joint[f * bins + m];
      if (movingMarginal[m] > closeToZero && p > closeToZero)
      {
        const double pRatio = std::log(p / movingMarginal[m]);
        sum += p * (pRatio - logFixed);
        ratioTable[f * bins + m] = nFactor * pRatio;
      }
    }
  }
  return -sum;
}

/** The summary of \a histogram, and its ratio table where ITK would not raise an
 * error (MattesValueAndRatios; the value stays 0 otherwise). */
inline MattesSummary
MattesSummaryAndRatios(const MattesParzen & parzen, const MattesHistogram & histogram, std::vector<double> & ratioTable)
{
  MattesSummary summary;
  summary.validPoints = histogram.validPoints;
  summary.jointPDFSum = JointPDFSum(parzen, histogram);
  if (summary.HasResults())
  {
    summary.value = MattesValueAndRatios(parzen, histogram, summary.jointPDFSum, ratioTable);
  }
  return summary;
}
} // namespace cif

#endif
