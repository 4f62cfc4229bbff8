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
#ifndef itkAdaptiveStochasticGradientDescentOptimizerv4_hxx
#define itkAdaptiveStochasticGradientDescentOptimizerv4_hxx

#include "itkAdaptiveStochasticGradientDescentOptimizerv4.h"

#include <algorithm>
#include <cmath>

namespace itk
{
template <typename TInternalComputationValueType>
AdaptiveStochasticGradientDescentOptimizerv4Template<
  TInternalComputationValueType>::AdaptiveStochasticGradientDescentOptimizerv4Template()
{
  // elastix runs every iteration and takes its gain from a, A, alpha alone.
  this->m_UseConvergenceMonitoring = false;
  this->SetDoEstimateLearningRateOnce(false);
  this->SetDoEstimateLearningRateAtEachIteration(false);
}


template <typename TInternalComputationValueType>
void
AdaptiveStochasticGradientDescentOptimizerv4Template<TInternalComputationValueType>::StartOptimization(
  bool doOnlyInitialization)
{
  Superclass::StartOptimization(true); // scales (estimated if asked), iteration 0
  m_CurrentTime = m_InitialTime;
  m_PreviousScaledGradient.SetSize(0);
  if (m_AutomaticParameterEstimation)
  {
    if (!m_ParameterEstimator)
    {
      itkExceptionMacro("AutomaticParameterEstimation needs a ParameterEstimator (or set it off and a, alpha)");
    }
    EstimatorType::Settings settings;
    settings.MaximumStepLength = m_MaximumStepLength;
    settings.MaximumStepLengthRatio = m_MaximumStepLengthRatio;
    settings.Param_A = m_Param_A;
    settings.SigmoidScaleFactor = m_SigmoidScaleFactor;
    settings.NumberOfGradientMeasurements = m_NumberOfGradientMeasurements;
    settings.NumberOfJacobianMeasurements = m_NumberOfJacobianMeasurements;
    typename EstimatorType::ScalesType scales(this->GetScales().Size());
    for (SizeValueType i = 0; i < scales.Size(); ++i)
    {
      scales[i] = this->GetScales()[i];
    }
    m_LastEstimate = m_ParameterEstimator->Estimate(settings, scales);
    m_Param_a = m_LastEstimate.Param_a;
    m_Param_alpha = m_LastEstimate.Param_alpha;
    if (m_ParameterEstimationMethod == ParameterEstimationMethodEnum::Original)
    {
      m_SigmoidMax = m_LastEstimate.SigmoidMax;
      m_SigmoidMin = m_LastEstimate.SigmoidMin;
      m_SigmoidScale = m_LastEstimate.SigmoidScale;
    }
  }
  if (!doOnlyInitialization)
  {
    this->ResumeOptimization();
  }
}


template <typename TInternalComputationValueType>
void
AdaptiveStochasticGradientDescentOptimizerv4Template<TInternalComputationValueType>::AdvanceOneStep()
{
  if (m_RequiredValidPoints > 0 && m_CountValidPoints)
  {
    for (unsigned int attempt = 0;; ++attempt)
    {
      const SizeValueType valid = m_CountValidPoints();
      if (valid >= m_RequiredValidPoints)
      {
        break;
      }
      if (attempt == m_MaximumNumberOfSamplingAttempts)
      {
        this->m_StopCondition = StopConditionObjectToObjectOptimizerEnum::COSTFUNCTION_ERROR;
        this->m_StopConditionDescription << "too few valid points";
        this->StopOptimization();
        itkExceptionMacro("Too many samples map outside moving image buffer: "
                          << valid << " valid points, " << m_RequiredValidPoints
                          << " required (RequiredRatioOfValidSamples), after " << attempt + 1 << " draws");
      }
      this->m_Metric->GetValueAndDerivative(this->m_CurrentMetricValue, this->m_Gradient);
    }
  }
  const auto &        scales = this->GetScales();
  const SizeValueType size = this->m_Gradient.Size();
  if (scales.Size() == 0 || size % scales.Size() != 0)
  {
    itkExceptionMacro("The scales (" << scales.Size() << ") do not match the gradient (" << size << ")");
  }
  // elastix's gradient: the derivative over the scales' square roots (its parameters
  // are ITK's times those roots); ITK's step divides the derivative by the scales.
  m_ScaledGradient.SetSize(size);
  for (SizeValueType j = 0; j < size; ++j)
  {
    m_ScaledGradient[j] = this->m_Gradient[j] / std::sqrt(static_cast<double>(scales[j % scales.Size()]));
  }
  this->ModifyGradientByScales();
  this->m_LearningRate = m_Param_a / std::pow(m_Param_A + m_CurrentTime + 1.0, m_Param_alpha);
  this->ModifyGradientByLearningRate();
  try
  {
    this->m_Metric->UpdateTransformParameters(this->m_Gradient);
  }
  catch (ExceptionObject &)
  {
    this->m_StopCondition = StopConditionObjectToObjectOptimizerEnum::UPDATE_PARAMETERS_ERROR;
    this->m_StopConditionDescription << "UpdateTransformParameters error";
    this->StopOptimization();
    throw;
  }
  this->InvokeEvent(IterationEvent());

  if (!m_UseAdaptiveStepSizes)
  {
    m_CurrentTime += 0.5 * (m_SigmoidMax + m_SigmoidMin);
    return;
  }
  if (this->m_CurrentIteration > 0 && m_PreviousScaledGradient.Size() == size)
  {
    double inner = 0.0;
    for (SizeValueType j = 0; j < size; ++j)
    {
      inner += m_PreviousScaledGradient[j] * m_ScaledGradient[j];
    }
    // f(x) = (max - min) / (1 + exp(-(x - beta) / scale)) + min, beta such that f(0) = 0.
    const double beta = m_SigmoidScale * std::log(-m_SigmoidMax / m_SigmoidMin);
    const double e = 1.0 / (1.0 + std::exp(-((-inner - beta) / m_SigmoidScale)));
    m_CurrentTime = std::max(0.0, m_CurrentTime + (m_SigmoidMax - m_SigmoidMin) * e + m_SigmoidMin);
  }
  std::swap(m_PreviousScaledGradient, m_ScaledGradient);
}


template <typename TInternalComputationValueType>
void
AdaptiveStochasticGradientDescentOptimizerv4Template<TInternalComputationValueType>::PrintSelf(std::ostream & os,
                                                                                               Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Param_a: " << m_Param_a << ", Param_A: " << m_Param_A << ", Param_alpha: " << m_Param_alpha << '\n'
     << indent << "SigmoidMax: " << m_SigmoidMax << ", SigmoidMin: " << m_SigmoidMin
     << ", SigmoidScale: " << m_SigmoidScale << '\n'
     << indent << "InitialTime: " << m_InitialTime << ", CurrentTime: " << m_CurrentTime
     << ", UseAdaptiveStepSizes: " << m_UseAdaptiveStepSizes << '\n'
     << indent << "AutomaticParameterEstimation: " << m_AutomaticParameterEstimation << " ("
     << (m_ParameterEstimationMethod == ParameterEstimationMethodEnum::Original ? "Original"
                                                                                : "OriginalButSigmoidToDefault")
     << "), MaximumStepLength: " << m_MaximumStepLength << ", MaximumStepLengthRatio: " << m_MaximumStepLengthRatio
     << '\n'
     << indent << "NumberOfGradientMeasurements: " << m_NumberOfGradientMeasurements
     << ", NumberOfJacobianMeasurements: " << m_NumberOfJacobianMeasurements
     << ", SigmoidScaleFactor: " << m_SigmoidScaleFactor << '\n'
     << indent << "RequiredValidPoints: " << m_RequiredValidPoints
     << ", MaximumNumberOfSamplingAttempts: " << m_MaximumNumberOfSamplingAttempts << '\n'
     << indent << "ParameterEstimator: " << m_ParameterEstimator.GetPointer() << std::endl;
}
} // namespace itk

#endif
