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
#ifndef itkAdaptiveStochasticGradientDescentParameterEstimator_h
#define itkAdaptiveStochasticGradientDescentParameterEstimator_h

#include "itkArray.h"
#include "itkMersenneTwisterRandomVariateGenerator.h"
#include "itkObject.h"
#include "itkObjectFactory.h"
#include "itkOptimizerParameters.h"
#include "itkPointSet.h"
#include "itkRegistrationParameterScalesFromJacobian.h"

#include <functional>

namespace itk
{
/** What elastix's automatic parameter estimation of its adaptive stochastic gradient
 * descent ("Original", Klein et al. 2009, IJCV 81(3)) measures and derives: the
 * Jacobian terms of the transform over sample points, the mean square magnitudes of
 * exact and approximate gradients, and from them the gain and sigmoid settings. */
struct AdaptiveStochasticGradientDescentEstimate
{
  double       MaximumStepLength = 0.0; ///< delta: the largest voxel displacement a step may make
  double       TrC = 0.0;               ///< trace of C = 1/n sum_j J_j^T J_j
  double       TrCC = 0.0;              ///< ||C||_F^2
  double       MaxJJ = 0.0;             ///< max_j ||J_j||_F^2 + 2 sqrt(2) ||J_j J_j^T||_F
  double       MaxJCJ = 0.0;            ///< max_j Tr(J_j C J_j^T) + 2 sqrt(2) ||J_j C J_j^T||_F
  unsigned int NumberOfJacobianMeasurements = 0;
  unsigned int NumberOfGradientMeasurements = 0;
  double       PerturbationSigma = 0.0;             ///< sigma4 = delta / sqrt(maxJJ), in scaled parameters
  double       ExactGradientSquaredMagnitude = 0.0; ///< gg
  double       GradientErrorSquaredMagnitude = 0.0; ///< ee
  double       Sigma1 = 0.0;                        ///< sqrt(gg / TrC)
  double       Sigma3 = 0.0;                        ///< sqrt(ee / TrC)
  double       NoiseFactor = 0.0;                   ///< sigma1^2 / (sigma1^2 + sigma3^2)
  double       Param_a = 0.0;
  double       Param_alpha = 1.0;
  double       SigmoidMax = 1.0;
  double       SigmoidMin = 0.0;
  double       SigmoidScale = 0.0;
  /** Where the estimate's time went (s): all of it, the Jacobian terms, the gradients
   * (the exact twin's made and evaluated with the sampled metric). */
  double Seconds = 0.0;
  double JacobianSeconds = 0.0;
  double GradientSeconds = 0.0;
  double TwinSeconds = 0.0; ///< of GradientSeconds: making the exact metric
};

/** \class PointSourceScalesFromJacobian
 * \brief ITK's RegistrationParameterScalesFromJacobian over points asked for when the
 * scales are estimated (not when the estimator is made): in a multi-resolution
 * registration each level's virtual domain exists only once the level is initialized.
 * \ingroup CudaImageFilters */
template <typename TMetric>
class ITK_TEMPLATE_EXPORT PointSourceScalesFromJacobian : public RegistrationParameterScalesFromJacobian<TMetric>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(PointSourceScalesFromJacobian);
  using Self = PointSourceScalesFromJacobian;
  using Superclass = RegistrationParameterScalesFromJacobian<TMetric>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(PointSourceScalesFromJacobian, RegistrationParameterScalesFromJacobian);
  using ScalesType = typename Superclass::ScalesType;
  using VirtualPointSetType = typename TMetric::VirtualPointSetType;
  using PointSource = std::function<typename VirtualPointSetType::Pointer()>;

  void
  SetPointSource(PointSource source)
  {
    m_PointSource = std::move(source);
    this->Modified();
  }

  void
  EstimateScales(ScalesType & scales) override
  {
    if (m_PointSource)
    {
      this->SetVirtualDomainPointSet(m_PointSource());
    }
    Superclass::EstimateScales(scales);
  }

protected:
  PointSourceScalesFromJacobian() = default;
  ~PointSourceScalesFromJacobian() override = default;

private:
  PointSource m_PointSource;
};

/** \class AdaptiveStochasticGradientDescentParameterEstimatorBase
 * \brief The interface through which AdaptiveStochasticGradientDescentOptimizerv4
 * asks for its parameters; AdaptiveStochasticGradientDescentParameterEstimator
 * implements it over an ITK v4 image metric.
 * \ingroup CudaImageFilters */
class AdaptiveStochasticGradientDescentParameterEstimatorBase : public Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(AdaptiveStochasticGradientDescentParameterEstimatorBase);
  using Self = AdaptiveStochasticGradientDescentParameterEstimatorBase;
  using Superclass = Object;
  using Pointer = SmartPointer<Self>;
  itkTypeMacro(AdaptiveStochasticGradientDescentParameterEstimatorBase, Object);

  using ScalesType = Array<double>;

  /** The settings of the estimation: elastix's parameters of the same names. */
  struct Settings
  {
    double       MaximumStepLength = 0.0; ///< 0: MaximumStepLengthRatio x the images' mean in-plane spacing
    double       MaximumStepLengthRatio = 1.0;
    double       Param_A = 20.0;
    double       SigmoidScaleFactor = 0.1;
    unsigned int NumberOfGradientMeasurements = 0; ///< 0: from TrC and TrCC
    unsigned int NumberOfJacobianMeasurements = 0; ///< 0: max(1000, parameters)
  };

  /** Measures at the metric's current parameters, with the optimizer's \a scales
   * (ITK's convention: the gradient is divided by them; elastix's scaled parameters
   * are the parameters times their square roots). The metric's parameters are
   * restored before it returns. */
  virtual AdaptiveStochasticGradientDescentEstimate
  Estimate(const Settings & settings, const ScalesType & scales) = 0;

protected:
  AdaptiveStochasticGradientDescentParameterEstimatorBase() = default;
  ~AdaptiveStochasticGradientDescentParameterEstimatorBase() override = default;
};

/** \class AdaptiveStochasticGradientDescentParameterEstimator
 * \brief elastix's automatic parameter estimation of AdaptiveStochasticGradientDescent
 * (method "Original", elastix 5.0.1's default), over ITK v4 image metrics.
 *
 * The Jacobian terms come from the moving transform's
 * ComputeJacobianWithRespectToParameters at a grid of virtual-domain points (elastix's
 * grid sampler: an isotropic grid of about NumberOfJacobianMeasurements points,
 * centred on the virtual region, inside the fixed mask). The gradients come from
 * GetValueAndDerivative at random perturbations of the current parameters: the exact
 * one from SetExactMetric (e.g. the metric over every virtual voxel, or the grid of
 * ExactGradientPoints()), the approximate one from SetMetric (the metric of the
 * sampled schedule, which draws new points at each evaluation where it can, as the
 * module's twins with SetNumberOfRandomPointsPerEvaluation do). Without an exact
 * metric the gradients count as exact and the noise as zero (elastix without a random
 * sampler). Both may be the module's GPU twins: only the v4 API is used.
 *
 * \ingroup CudaImageFilters */
template <typename TMetric>
class ITK_TEMPLATE_EXPORT AdaptiveStochasticGradientDescentParameterEstimator
  : public AdaptiveStochasticGradientDescentParameterEstimatorBase
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(AdaptiveStochasticGradientDescentParameterEstimator);
  using Self = AdaptiveStochasticGradientDescentParameterEstimator;
  using Superclass = AdaptiveStochasticGradientDescentParameterEstimatorBase;
  using Pointer = SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(AdaptiveStochasticGradientDescentParameterEstimator,
               AdaptiveStochasticGradientDescentParameterEstimatorBase);

  using MetricType = TMetric;
  using VirtualPointSetType = typename TMetric::VirtualPointSetType;
  using VirtualPointType = typename TMetric::VirtualPointType;
  using ScalesType = typename Superclass::ScalesType;
  using Settings = typename Superclass::Settings;
  static constexpr unsigned int Dimension = TMetric::VirtualImageDimension;

  /** The approximate gradient's metric (also the one whose transform is measured). */
  itkSetObjectMacro(Metric, MetricType);
  itkGetModifiableObjectMacro(Metric, MetricType);
  /** The exact gradient's metric, sharing the moving transform; none: no noise. */
  itkSetObjectMacro(ExactMetric, MetricType);
  itkGetModifiableObjectMacro(ExactMetric, MetricType);
  /** Makes the exact gradient's metric at each Estimate() instead, from the approximate
   * metric as its registration level initialized it and the points ExactGradientPoints()
   * gives, and lets it go afterwards: what a multi-resolution registration needs, whose
   * levels each have their own images and virtual domain. */
  using ExactMetricMaker =
    std::function<typename MetricType::Pointer(MetricType * metric, const VirtualPointSetType * points)>;
  void
  SetExactMetricMaker(ExactMetricMaker maker)
  {
    m_ExactMetricMaker = std::move(maker);
    this->Modified();
  }
  /** The seed of the perturbations' normal draws. */
  itkSetMacro(RandomSeed, unsigned int);
  itkGetConstMacro(RandomSeed, unsigned int);
  /** The Jacobian terms of a B-spline stage (between affine-family ones, scales equal)
   * from its weights: C = G (x) S, G = M^T M for the affine M after it and S the
   * weights' covariance over control points, instead of the dense Jacobian's columns
   * (the same terms; on by default, off for the tests that compare the two). */
  itkSetMacro(UseBSplineStructure, bool);
  itkGetConstMacro(UseBSplineStructure, bool);
  /** elastix's default number of grid points for the exact gradient. */
  itkSetMacro(NumberOfSamplesForExactGradient, SizeValueType);
  itkGetConstMacro(NumberOfSamplesForExactGradient, SizeValueType);

  /** elastix's grid sampler over the metric's virtual region: about \a count points
   * (all voxels where the region has fewer), inside the fixed mask if there is one
   * and \a insideMask. */
  typename VirtualPointSetType::Pointer
  GridPoints(SizeValueType count, bool insideMask = true) const;

  /** GridPoints(NumberOfSamplesForExactGradient): points for the exact metric. */
  typename VirtualPointSetType::Pointer
  ExactGradientPoints() const
  {
    return this->GridPoints(m_NumberOfSamplesForExactGradient);
  }

  /** elastix's AutomaticScalesEstimation: s_p = 1/n sum_j sum_d J_dp(x_j)^2 over
   * its grid of 10000 points (no mask), which is ITK's
   * RegistrationParameterScalesFromJacobian over those points: that estimator, the
   * grid laid over the metric's virtual domain as it is at each estimate, for the
   * optimizer's SetScalesEstimator (with DoEstimateScales on). */
  typename PointSourceScalesFromJacobian<TMetric>::Pointer
  MakeScalesEstimator() const
  {
    auto scales = PointSourceScalesFromJacobian<TMetric>::New();
    scales->SetMetric(m_Metric);
    scales->SetTransformForward(true);
    // a plain pointer: the estimator outlives the optimizer's estimates it serves
    scales->SetPointSource([this] { return this->GridPoints(10000, false); });
    return scales;
  }

  /** elastix's default MaximumStepLength: the mean spacing over the first
   * min(D, 2) axes of the fixed and the moving image. */
  double
  DefaultMaximumStepLength() const;

  AdaptiveStochasticGradientDescentEstimate
  Estimate(const Settings & settings, const ScalesType & scales) override;

protected:
  AdaptiveStochasticGradientDescentParameterEstimator() = default;
  ~AdaptiveStochasticGradientDescentParameterEstimator() override = default;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  /** The Jacobian terms TrC, TrCC, maxJJ, maxJCJ over \a points. */
  void
  ComputeJacobianTerms(const VirtualPointSetType *                 points,
                       const Array<double> &                       inverseRootScales,
                       AdaptiveStochasticGradientDescentEstimate & estimate) const;
  /** ComputeJacobianTerms for a B-spline stage (SetUseBSplineStructure); false, with
   * nothing computed, for any other transform or unequal scales. */
  bool
  ComputeBSplineJacobianTerms(const VirtualPointSetType *                 points,
                              const Array<double> &                       inverseRootScales,
                              AdaptiveStochasticGradientDescentEstimate & estimate) const;

  typename MetricType::Pointer m_Metric;
  typename MetricType::Pointer m_ExactMetric;
  ExactMetricMaker             m_ExactMetricMaker;
  unsigned int                 m_RandomSeed = 121212;
  SizeValueType                m_NumberOfSamplesForExactGradient = 100000;
  bool                         m_UseBSplineStructure = true;
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkAdaptiveStochasticGradientDescentParameterEstimator.hxx"
#endif

#endif
