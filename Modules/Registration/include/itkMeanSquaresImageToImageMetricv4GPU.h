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
#ifndef itkMeanSquaresImageToImageMetricv4GPU_h
#define itkMeanSquaresImageToImageMetricv4GPU_h

#include "itkImageMetricv4GPUBase.h"
#include "itkMeanSquaresImageToImageMetricv4.h"

namespace itk
{
/** \class MeanSquaresImageToImageMetricv4GPU
 * \brief itk::MeanSquaresImageToImageMetricv4 whose value and derivative are computed
 * on the GPU (or by the module's CPU path, the same arithmetic, where there is none).
 *
 * A drop-in subclass: the same API, the same semantics (virtual domain, dense or
 * sampled points, fixed and moving masks, the moving gradient from the gradient
 * filter or the calculator, the number of valid points, ITK's sign and scaling). It
 * takes 2-D and 3-D images of float or double pixels (fixed and moving alike), the
 * fixed image through ITK's default linear interpolator, the moving one through the
 * linear or the cubic BSplineInterpolateImageFunction, and moving transforms of the
 * affine family, the cubic BSplineTransform, or a CompositeTransform optimizing one
 * such stage among affine-family ones (MetricMovingTransformSplit). For anything else
 * ITK's own threaded code runs; GetLastExecutionPath() says which ran
 * (GPU, CPU or ITK) and GetLastExecutionReason() why ITK did.
 *
 * What does not change between iterations (images, gradient image, masks, points,
 * the B-spline cells the points fall in) is prepared in Initialize() (per level of a
 * registration) and stays on the device; an evaluation uploads the parameters and
 * downloads the value and derivative. The derivative is formed as an adjoint: a
 * force per point, gathered per control point (B-spline) or as moments (affine), in
 * a fixed order: the same bits on every run.
 *
 * \ingroup CudaImageFilters
 */
template <typename TFixedImage,
          typename TMovingImage,
          typename TVirtualImage = TFixedImage,
          typename TInternalComputationValueType = double,
          typename TMetricTraits =
            DefaultImageToImageMetricTraitsv4<TFixedImage, TMovingImage, TVirtualImage, TInternalComputationValueType>>
class ITK_TEMPLATE_EXPORT MeanSquaresImageToImageMetricv4GPU
  : public ImageMetricv4GPUBase<MeanSquaresImageToImageMetricv4<TFixedImage,
                                                                TMovingImage,
                                                                TVirtualImage,
                                                                TInternalComputationValueType,
                                                                TMetricTraits>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MeanSquaresImageToImageMetricv4GPU);

  using Self = MeanSquaresImageToImageMetricv4GPU;
  using MetricType = MeanSquaresImageToImageMetricv4<TFixedImage,
                                                     TMovingImage,
                                                     TVirtualImage,
                                                     TInternalComputationValueType,
                                                     TMetricTraits>;
  using Superclass = ImageMetricv4GPUBase<MetricType>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkTypeMacro(MeanSquaresImageToImageMetricv4GPU, MeanSquaresImageToImageMetricv4);

protected:
  MeanSquaresImageToImageMetricv4GPU() = default;
  ~MeanSquaresImageToImageMetricv4GPU() override = default;

  /** ITK's MeanSquares: the sum of squared differences and of the forces over the
   * valid points, each divided by their number (ITK's warning, the largest value
   * and a zero derivative when there is none). */
  void
  EvaluateWithModule(typename Superclass::EvaluatorType & scene) const override
  {
    const bool      withDerivative = this->GetComputeDerivative();
    cif::MetricSums sums;
    // The derivative comes divided by the valid points (ITK's average); with none,
    // VerifyNumberOfValidPoints sets ITK's value and zeros.
    scene.EvaluateSums(cif::MeanSquaresTerm<typename Superclass::EvaluatorType::ValueType>{},
                       withDerivative,
                       this->GetThreader(),
                       sums,
                       this->m_DerivativeResult,
                       this->DerivativeZerosPending(),
                       cif::DerivativeScale::PerValidPoint);
    this->m_NumberOfValidPoints = static_cast<SizeValueType>(sums.value[0]);
    if (this->VerifyNumberOfValidPoints(this->m_Value, *this->m_DerivativeResult))
    {
      this->m_Value = sums.value[1] / static_cast<double>(this->m_NumberOfValidPoints);
    }
  }
};
} // namespace itk

#endif
