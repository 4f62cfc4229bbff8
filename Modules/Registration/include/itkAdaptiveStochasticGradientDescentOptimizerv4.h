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
#ifndef itkAdaptiveStochasticGradientDescentOptimizerv4_h
#define itkAdaptiveStochasticGradientDescentOptimizerv4_h

#include "itkAdaptiveStochasticGradientDescentParameterEstimator.h"
#include "itkGradientDescentOptimizerv4.h"

#include <functional>

namespace itk
{
/** \class AdaptiveStochasticGradientDescentOptimizerv4Template
 * \brief elastix's AdaptiveStochasticGradientDescent as an ITK v4 optimizer.
 *
 * Klein S, Pluim JPW, Staring M, Viergever MA, "Adaptive stochastic gradient descent
 * optimisation for image registration", International Journal of Computer Vision
 * 81(3):227-239, 2009. The gain decays with a time t that the gradients drive:
 *
 *   gamma(t) = a / (A + t + 1)^alpha,
 *   x_{k+1} = x_k - gamma(t_k) g_k                   (ITK: x += gamma(t_k) d_k / s),
 *   t_{k+1} = max(0, t_k + f(-<g_k, g_{k-1}>))        (k > 0; t_1 = t_0),
 *
 * with g the gradient in elastix's scaled parameters (the metric derivative d, ITK's
 * sign, over the square roots of the scales s) and f elastix's sigmoid of maximum
 * SigmoidMax, minimum SigmoidMin and width SigmoidScale, shifted so that f(0) = 0:
 * gradients that keep their direction shorten the time's growth (the gain stays
 * large), gradients that turn lengthen it. Without UseAdaptiveStepSizes the time grows
 * by (SigmoidMax + SigmoidMin) / 2 a step. Every iteration runs (no convergence test).
 *
 * AutomaticParameterEstimation (elastix's default, method "Original"): at
 * StartOptimization the ParameterEstimator measures the transform's Jacobian terms
 * and the gradients' magnitudes and sets a, alpha = 1 and the sigmoid so that the
 * first step moves no voxel by more than MaximumStepLength (by default the images'
 * mean in-plane spacing). Scales as elastix's AutomaticScalesEstimation:
 * ITK's RegistrationParameterScalesFromJacobian over elastix's grid of 10000 points
 * (the estimator's MakeScalesEstimator()).
 *
 * \ingroup CudaImageFilters */
template <typename TInternalComputationValueType>
class ITK_TEMPLATE_EXPORT AdaptiveStochasticGradientDescentOptimizerv4Template
  : public GradientDescentOptimizerv4Template<TInternalComputationValueType>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(AdaptiveStochasticGradientDescentOptimizerv4Template);
  using Self = AdaptiveStochasticGradientDescentOptimizerv4Template;
  using Superclass = GradientDescentOptimizerv4Template<TInternalComputationValueType>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(AdaptiveStochasticGradientDescentOptimizerv4Template, GradientDescentOptimizerv4Template);

  using DerivativeType = typename Superclass::DerivativeType;
  using EstimatorType = AdaptiveStochasticGradientDescentParameterEstimatorBase;

  /** elastix's ASGDParameterEstimationMethod (DisplacementDistribution is not here). */
  enum class ParameterEstimationMethodEnum
  {
    Original,                   ///< a, alpha and the sigmoid
    OriginalButSigmoidToDefault ///< a and alpha; the sigmoid as set
  };

  /** The gain a/(A + t + 1)^alpha (elastix's SP_a, SP_A, SP_alpha). */
  itkSetMacro(Param_a, double);
  itkGetConstMacro(Param_a, double);
  itkSetMacro(Param_A, double);
  itkGetConstMacro(Param_A, double);
  itkSetMacro(Param_alpha, double);
  itkGetConstMacro(Param_alpha, double);
  /** The sigmoid of the time's update. */
  itkSetMacro(SigmoidMax, double);
  itkGetConstMacro(SigmoidMax, double);
  itkSetMacro(SigmoidMin, double);
  itkGetConstMacro(SigmoidMin, double);
  itkSetMacro(SigmoidScale, double);
  itkGetConstMacro(SigmoidScale, double);
  /** t_0 (elastix's SigmoidInitialTime). */
  itkSetMacro(InitialTime, double);
  itkGetConstMacro(InitialTime, double);
  itkSetMacro(UseAdaptiveStepSizes, bool);
  itkGetConstMacro(UseAdaptiveStepSizes, bool);
  itkBooleanMacro(UseAdaptiveStepSizes);

  /** The estimation, at each StartOptimization (each level). */
  itkSetMacro(AutomaticParameterEstimation, bool);
  itkGetConstMacro(AutomaticParameterEstimation, bool);
  itkBooleanMacro(AutomaticParameterEstimation);
  itkSetEnumMacro(ParameterEstimationMethod, ParameterEstimationMethodEnum);
  itkGetEnumMacro(ParameterEstimationMethod, ParameterEstimationMethodEnum);
  /** delta, physical units; 0 (default): MaximumStepLengthRatio x the mean spacing. */
  itkSetMacro(MaximumStepLength, double);
  itkGetConstMacro(MaximumStepLength, double);
  itkSetMacro(MaximumStepLengthRatio, double);
  itkGetConstMacro(MaximumStepLengthRatio, double);
  /** 0 (default): from the Jacobian terms. */
  itkSetMacro(NumberOfGradientMeasurements, unsigned int);
  itkGetConstMacro(NumberOfGradientMeasurements, unsigned int);
  /** 0 (default): max(1000, parameters). */
  itkSetMacro(NumberOfJacobianMeasurements, unsigned int);
  itkGetConstMacro(NumberOfJacobianMeasurements, unsigned int);
  itkSetMacro(SigmoidScaleFactor, double);
  itkGetConstMacro(SigmoidScaleFactor, double);
  itkSetObjectMacro(ParameterEstimator, EstimatorType);
  itkGetModifiableObjectMacro(ParameterEstimator, EstimatorType);
  /** What the last estimation measured and set. */
  const AdaptiveStochasticGradientDescentEstimate &
  GetLastEstimate() const
  {
    return m_LastEstimate;
  }

  /** elastix's RequiredRatioOfValidSamples with MaximumNumberOfSamplingAttempts: an
   * evaluation whose valid points (\a count, called after it) are fewer than
   * \a required is evaluated again, on the new points the metric draws at each
   * evaluation, up to \a attempts more times; then the step throws. \a required 0: no
   * check (the default). */
  void
  SetValidSampleRequirement(SizeValueType required, unsigned int attempts, std::function<SizeValueType()> count)
  {
    m_RequiredValidPoints = required;
    m_MaximumNumberOfSamplingAttempts = attempts;
    m_CountValidPoints = std::move(count);
    this->Modified();
  }
  itkGetConstMacro(RequiredValidPoints, SizeValueType);
  itkGetConstMacro(MaximumNumberOfSamplingAttempts, unsigned int);

  /** t_k of the step just taken, once an iteration's event fires (the step used
   * GetLearningRate() = gamma(t_k)); t_{k+1} once the iteration is over. */
  itkGetConstMacro(CurrentTime, double);

  void
  StartOptimization(bool doOnlyInitialization = false) override;

protected:
  AdaptiveStochasticGradientDescentOptimizerv4Template();
  ~AdaptiveStochasticGradientDescentOptimizerv4Template() override = default;

  /** The step with gamma(t_k), then t's update; IterationEvent between the two. */
  void
  AdvanceOneStep() override;

  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  double                                    m_Param_a = 400.0;
  double                                    m_Param_A = 20.0;
  double                                    m_Param_alpha = 0.602;
  double                                    m_SigmoidMax = 1.0;
  double                                    m_SigmoidMin = -0.8;
  double                                    m_SigmoidScale = 1e-8;
  double                                    m_InitialTime = 0.0;
  bool                                      m_UseAdaptiveStepSizes = true;
  bool                                      m_AutomaticParameterEstimation = true;
  ParameterEstimationMethodEnum             m_ParameterEstimationMethod = ParameterEstimationMethodEnum::Original;
  double                                    m_MaximumStepLength = 0.0;
  double                                    m_MaximumStepLengthRatio = 1.0;
  unsigned int                              m_NumberOfGradientMeasurements = 0;
  unsigned int                              m_NumberOfJacobianMeasurements = 0;
  double                                    m_SigmoidScaleFactor = 0.1;
  typename EstimatorType::Pointer           m_ParameterEstimator;
  SizeValueType                             m_RequiredValidPoints = 0;
  unsigned int                              m_MaximumNumberOfSamplingAttempts = 0;
  std::function<SizeValueType()>            m_CountValidPoints;
  AdaptiveStochasticGradientDescentEstimate m_LastEstimate;

  double         m_CurrentTime = 0.0;
  DerivativeType m_ScaledGradient;         // g_k in elastix's scaled parameters
  DerivativeType m_PreviousScaledGradient; // g_{k-1}
};

/** The optimizer in double, as ITK's GradientDescentOptimizerv4. */
using AdaptiveStochasticGradientDescentOptimizerv4 = AdaptiveStochasticGradientDescentOptimizerv4Template<double>;
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkAdaptiveStochasticGradientDescentOptimizerv4.hxx"
#endif

#endif
