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
// The optimizer for new random points at every iteration (elastix's
// NewSamplesEveryIteration). A gradient from a few thousand points is noisy: a line
// search (L-BFGS) fails on it and a step that shrinks whenever the direction turns
// (RegularStepGradientDescent) stalls; a decaying gain averages the noise out.
#ifndef itkDecayingGainGradientDescentOptimizerv4_h
#define itkDecayingGainGradientDescentOptimizerv4_h

#include "itkGradientDescentOptimizerv4.h"
#include "itkImageBase.h"
#include "itkRegistrationParameterScalesFromPhysicalShift.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace itk
{
/** \class DecayingGainGradientDescentOptimizerv4
 * \brief ITK's GradientDescentOptimizerv4 with elastix's decaying gain:
 * a_k = a / (A + k + 1)^alpha, as elastix's StandardGradientDescent (A = 20 and
 * alpha = 0.602, the defaults of elastix's AdaptiveStochasticGradientDescent, without
 * its adaptive time), a set at each level's first iteration so that
 * its step moves no point by more than MaximumStepSizeInPhysicalUnits, and every
 * later step held to that bound too (a noisy gradient far larger than the first
 * cannot throw the transform off). A step's largest point shift: for a B-spline
 * (local support) the largest control-point displacement, which bounds the shift of
 * every point (the weights are nonnegative and sum to 1); otherwise the scales
 * estimator's (ITK's RegistrationParameterScalesFromPhysicalShift). No convergence
 * test: every iteration runs, as in elastix.
 *
 * \ingroup CudaImageFilters */
class DecayingGainGradientDescentOptimizerv4 : public GradientDescentOptimizerv4Template<double>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(DecayingGainGradientDescentOptimizerv4);
  using Self = DecayingGainGradientDescentOptimizerv4;
  using Superclass = GradientDescentOptimizerv4Template<double>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(DecayingGainGradientDescentOptimizerv4, GradientDescentOptimizerv4Template);

  /** The transform has local support (a B-spline): parameters in D blocks of
   * control-point displacements (x of every point, then y, ...). */
  itkSetMacro(LocalSupport, bool);
  itkGetConstMacro(LocalSupport, bool);
  /** A of the gain a / (A + k + 1)^alpha (default 20). */
  itkSetMacro(GainOffset, double);
  itkGetConstMacro(GainOffset, double);
  /** alpha of the gain (default 0.602). */
  itkSetMacro(GainDecay, double);
  itkGetConstMacro(GainDecay, double);
  /** a, set at the current level's first iteration (0 before it). */
  itkGetConstMacro(Gain, double);

protected:
  DecayingGainGradientDescentOptimizerv4()
  {
    this->SetDoEstimateLearningRateOnce(false);
    this->SetDoEstimateLearningRateAtEachIteration(false);
    this->SetConvergenceWindowSize(std::numeric_limits<unsigned int>::max());
  }
  ~DecayingGainGradientDescentOptimizerv4() override = default;

  void
  EstimateLearningRate() override
  {
    const double shift = this->LargestShift();
    const double bound = this->m_MaximumStepSizeInPhysicalUnits;
    const double k = static_cast<double>(this->m_CurrentIteration);
    if (this->m_CurrentIteration == 0)
    {
      m_Gain = shift > 0.0 ? bound / shift * std::pow(m_GainOffset + 1.0, m_GainDecay) : 0.0;
    }
    double rate = m_Gain / std::pow(m_GainOffset + k + 1.0, m_GainDecay);
    if (rate * shift > bound)
    {
      rate = bound / shift;
    }
    this->m_LearningRate = rate;
  }

  /** The largest point shift of a step of the current (scaled) gradient. */
  double
  LargestShift() const
  {
    const auto & g = this->m_Gradient;
    if (!m_LocalSupport)
    {
      return this->m_ScalesEstimator ? this->m_ScalesEstimator->EstimateStepScale(g) : 0.0;
    }
    const unsigned int dimension = this->m_Metric->GetNumberOfLocalParameters() > 0
                                     ? static_cast<unsigned int>(this->m_Metric->GetNumberOfLocalParameters())
                                     : 1u;
    const std::size_t  points = g.Size() / dimension;
    double             largest = 0.0;
    for (std::size_t n = 0; n < points; ++n)
    {
      double squared = 0.0;
      for (unsigned int a = 0; a < dimension; ++a)
      {
        squared += g[a * points + n] * g[a * points + n];
      }
      largest = std::max(largest, squared);
    }
    return std::sqrt(largest);
  }

  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "LocalSupport: " << m_LocalSupport << std::endl;
    os << indent << "GainOffset: " << m_GainOffset << std::endl;
    os << indent << "GainDecay: " << m_GainDecay << std::endl;
    os << indent << "Gain: " << m_Gain << std::endl;
  }

private:
  bool   m_LocalSupport = false;
  double m_GainOffset = 20.0;
  double m_GainDecay = 0.602;
  double m_Gain = 0.0;
};

/** The optimizer for \a metric: scales estimated (ITK's physical shift, over
 * \a points of the virtual domain) unless \a localSupport, where they stay 1. */
template <typename TMetric>
DecayingGainGradientDescentOptimizerv4::Pointer
MakeDecayingGainGradientDescent(TMetric *                                     metric,
                                const typename TMetric::VirtualPointSetType * points,
                                bool                                          localSupport)
{
  auto estimator = RegistrationParameterScalesFromPhysicalShift<TMetric>::New();
  estimator->SetMetric(metric);
  estimator->SetTransformForward(true);
  estimator->SetVirtualDomainPointSet(points);
  auto optimizer = DecayingGainGradientDescentOptimizerv4::New();
  optimizer->SetLocalSupport(localSupport);
  optimizer->SetDoEstimateScales(!localSupport);
  optimizer->SetScalesEstimator(estimator);
  return optimizer;
}

/** A regular grid of \a perAxis^D physical points over \a image (from the first to
 * the last voxel centre), where the scales estimator measures shifts. */
template <typename TPointSet, unsigned int D>
typename TPointSet::Pointer
GridPointsOver(const ImageBase<D> * image, unsigned int perAxis)
{
  auto                       points = TPointSet::New();
  const auto                 region = image->GetLargestPossibleRegion();
  ContinuousIndex<double, D> index;
  unsigned long              total = 1;
  for (unsigned int a = 0; a < D; ++a)
  {
    total *= perAxis;
  }
  for (unsigned long k = 0; k < total; ++k)
  {
    unsigned long rest = k;
    for (unsigned int a = 0; a < D; ++a)
    {
      const double step = perAxis > 1 ? (static_cast<double>(region.GetSize()[a]) - 1.0) / (perAxis - 1) : 0.0;
      index[a] = static_cast<double>(region.GetIndex()[a]) + static_cast<double>(rest % perAxis) * step;
      rest /= perAxis;
    }
    typename ImageBase<D>::PointType p;
    image->TransformContinuousIndexToPhysicalPoint(index, p);
    typename TPointSet::PointType q;
    q.CastFrom(p);
    points->SetPoint(k, q);
  }
  return points;
}
} // namespace itk

#endif
