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
#ifndef itkCorrelationImageToImageMetricv4GPU_h
#define itkCorrelationImageToImageMetricv4GPU_h

#include "itkCorrelationImageToImageMetricv4.h"
#include "itkImageMetricv4GPUBase.h"

namespace itk
{
/** \class CorrelationImageToImageMetricv4GPU
 * \brief itk::CorrelationImageToImageMetricv4 whose value and derivative are
 * computed on the GPU (or by the module's CPU path where there is none).
 *
 * The same inputs and semantics as MeanSquaresImageToImageMetricv4GPU (which lists
 * what the module takes; ITK's code runs for anything else), with ITK's normalized
 * cross correlation: the means of the fixed and moving values over the valid points
 * first (ITK's helper pass), then with f' and m' the centred values the sums fm,
 * f2 and m2, the value -fm^2 / (f2 m2) and the derivative
 * 2 fm / (f2 m2) (fdm - fm / m2 mdm) (fdm, mdm: the sums of f' and m' times the
 * moving gradient times the transform's Jacobian; ITK's sign). As ITK: no valid
 * point gives its warning, the largest value and a zero derivative; f2 m2 at or
 * below epsilon a value of 0 and a zero derivative; an empty sampled point set its
 * exception.
 *
 * Three passes over the points: the means and the centred sums are value passes
 * (sums of several values per point, in a fixed order); then, with the derivative's
 * two sums sharing the moving gradient times the Jacobian, the host's coefficients
 * make one force per point (cif::CorrelationDerivativeTerm), gathered as
 * MeanSquares' forces (affine moments, B-spline cells in a fixed order): the same
 * bits on every run, and nothing of twice the derivative's size.
 *
 * \ingroup CudaImageFilters
 */
template <typename TFixedImage,
          typename TMovingImage,
          typename TVirtualImage = TFixedImage,
          typename TInternalComputationValueType = double,
          typename TMetricTraits =
            DefaultImageToImageMetricTraitsv4<TFixedImage, TMovingImage, TVirtualImage, TInternalComputationValueType>>
class ITK_TEMPLATE_EXPORT CorrelationImageToImageMetricv4GPU
  : public ImageMetricv4GPUBase<CorrelationImageToImageMetricv4<TFixedImage,
                                                                TMovingImage,
                                                                TVirtualImage,
                                                                TInternalComputationValueType,
                                                                TMetricTraits>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CorrelationImageToImageMetricv4GPU);

  using Self = CorrelationImageToImageMetricv4GPU;
  using MetricType = CorrelationImageToImageMetricv4<TFixedImage,
                                                     TMovingImage,
                                                     TVirtualImage,
                                                     TInternalComputationValueType,
                                                     TMetricTraits>;
  using Superclass = ImageMetricv4GPUBase<MetricType>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkTypeMacro(CorrelationImageToImageMetricv4GPU, CorrelationImageToImageMetricv4);

protected:
  CorrelationImageToImageMetricv4GPU() = default;
  ~CorrelationImageToImageMetricv4GPU() override = default;

  /** ITK's InitializeForIteration without its means pass (ITK's threaded CPU pass
   * over every point, at every evaluation): the module forms the means itself, and
   * PrepareITKEvaluation runs ITK's pass where ITK's code evaluates. The derivative's
   * size and (deferred) zeros, and ITK's exception for an empty sampled point set, stay. */
  void
  InitializeForIteration() const override
  {
    if (this->m_UseSampledPointSet && this->GetNumberOfDomainPoints() < 1)
    {
      itkExceptionMacro("FixedSampledPointSet must have 1 or more points.");
    }
    this->InitializeDerivativeForIteration();
  }

  void
  PrepareITKEvaluation() const override
  {
    MetricType::InitializeForIteration();
  }

  /** ITK's two passes (helper threader, then GetValueAndDerivativeThreader's value
   * sums and AfterThreadedExecution), then the force pass for the derivative. */
  void
  EvaluateWithModule(typename Superclass::EvaluatorType & scene) const override
  {
    cif::MetricSums means;
    scene.EvaluateValueSums(cif::CorrelationMeansTerm{}, this->GetThreader(), means);
    cif::CorrelationCentredTerm centred;
    if (means.value[0] > 0.0)
    {
      centred.averageFixed = means.value[1] / means.value[0];
      centred.averageMoving = means.value[2] / means.value[0];
    }
    else
    {
      itkWarningMacro("collected only zero points"); // ITK's helper threader; its means stay 0
    }
    this->m_AverageFix = centred.averageFixed;
    this->m_AverageMov = centred.averageMoving;

    cif::MetricSums sums;
    scene.EvaluateValueSums(centred, this->GetThreader(), sums);
    this->m_NumberOfValidPoints = static_cast<SizeValueType>(sums.value[0]);
    if (!this->VerifyNumberOfValidPoints(this->m_Value, *this->m_DerivativeResult))
    {
      return;
    }
    this->m_Value = NumericTraits<typename Superclass::MeasureType>::ZeroValue();
    const double fm = sums.value[1];
    const double f2 = sums.value[2];
    const double m2 = sums.value[3];
    const double m2f2 = m2 * f2;
    if (m2f2 <= NumericTraits<double>::epsilon())
    {
      return; // ITK: the value 0, the derivative left at its zeros
    }
    this->m_Value = -1.0 * fm * fm / m2f2;
    if (this->GetComputeDerivative())
    {
      cif::CorrelationDerivativeTerm term;
      term.averageFixed = centred.averageFixed;
      term.averageMoving = centred.averageMoving;
      term.scale = 2.0 * fm / (f2 * m2);
      term.ratio = fm / m2;
      cif::MetricSums forces;
      scene.EvaluateSums(
        term, true, this->GetThreader(), forces, this->m_DerivativeResult, this->DerivativeZerosPending());
    }
  }
};
} // namespace itk

#endif
