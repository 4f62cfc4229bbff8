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
#ifndef itkMattesMutualInformationImageToImageMetricv4GPU_h
#define itkMattesMutualInformationImageToImageMetricv4GPU_h

#include "itkImageMetricv4GPUBase.h"
#include "itkMattesMutualInformationImageToImageMetricv4.h"
#include "itkMetricIntensityRange.h"

#include <vector>

namespace itk
{
/** \class MattesMutualInformationImageToImageMetricv4GPU
 * \brief itk::MattesMutualInformationImageToImageMetricv4 whose value and derivative
 * are computed on the GPU (or by the module's CPU path where there is none).
 *
 * The same inputs and semantics as MeanSquaresImageToImageMetricv4GPU (which lists
 * what the module takes; ITK's code runs for anything else), with ITK's Mattes
 * histogram: the true intensity ranges and padded bins of its Initialize(), the
 * zero-order Parzen window for the fixed value and the cubic one for the moving
 * value, points whose moving value leaves the moving range left out, ITK's errors
 * when no point is valid or the joint pdf sums to zero, and its pdf normalisation.
 *
 * Two passes instead of ITK's joint-pdf derivative per parameter (bins x bins x
 * parameters, gigabytes for a fine B-spline grid): the joint histogram first (in
 * integer fixed point: the same bits whatever the order), then per point the
 * derivative of the value with respect to the moving point (a force from the pdf
 * table and the moving gradient), gathered per parameter like MeanSquares'.
 *
 * Initialize() reaches ITK's state with the dense intensity ranges (over the whole
 * fixed and moving images, or their masks: ITK scans them on one thread at every
 * level, 0.1 s for a pair of 256^3 images) found on the threads instead.
 *
 * The joint pdf of the last evaluation is not kept: GetJointPDF() and
 * GetJointPDFDerivatives() are those of ITK's code and stay empty on the module's
 * path.
 *
 * \ingroup CudaImageFilters
 */
template <typename TFixedImage,
          typename TMovingImage,
          typename TVirtualImage = TFixedImage,
          typename TInternalComputationValueType = double,
          typename TMetricTraits =
            DefaultImageToImageMetricTraitsv4<TFixedImage, TMovingImage, TVirtualImage, TInternalComputationValueType>>
class ITK_TEMPLATE_EXPORT MattesMutualInformationImageToImageMetricv4GPU
  : public ImageMetricv4GPUBase<MattesMutualInformationImageToImageMetricv4<TFixedImage,
                                                                            TMovingImage,
                                                                            TVirtualImage,
                                                                            TInternalComputationValueType,
                                                                            TMetricTraits>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MattesMutualInformationImageToImageMetricv4GPU);

  using Self = MattesMutualInformationImageToImageMetricv4GPU;
  using MetricType = MattesMutualInformationImageToImageMetricv4<TFixedImage,
                                                                 TMovingImage,
                                                                 TVirtualImage,
                                                                 TInternalComputationValueType,
                                                                 TMetricTraits>;
  using Superclass = ImageMetricv4GPUBase<MetricType>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkTypeMacro(MattesMutualInformationImageToImageMetricv4GPU, MattesMutualInformationImageToImageMetricv4);

protected:
  MattesMutualInformationImageToImageMetricv4GPU() = default;
  ~MattesMutualInformationImageToImageMetricv4GPU() override = default;

  /** ITK's MattesMutualInformationImageToImageMetricv4::Initialize(), but for its
   * dense ranges (a sampled point set: ITK's own, a scan of its points), which
   * CompleteInitializeAsITK finds once the scene is there. */
  void
  InitializeAsITK() override
  {
    m_RangesPending = false;
    if (this->m_UseSampledPointSet)
    {
      MetricType::Initialize();
      return;
    }
    MetricType::Superclass::Initialize();
    if (this->GetGradientSourceIncludesFixed() || !this->GetGradientSourceIncludesMoving())
    {
      itkExceptionMacro("Expected gradient source to be only Moving. Instead gradient source is: "
                        " Fixed: "
                        << this->GetGradientSourceIncludesFixed()
                        << " Moving: " << this->GetGradientSourceIncludesMoving());
    }
    m_RangesPending = true;
  }

  /** ITK's dense ranges over the whole fixed and moving images (or their masks):
   * on the device where the GPU path holds both images and there is no mask (two
   * reads of each image at the device's bandwidth, where the host threads take about
   * 13 ms at 256^3), else on the host threads (itkMetricIntensityRange.h); min and
   * max do not depend on the order, so either gives ITK's values. Then ITK's bins. */
  void
  CompleteInitializeAsITK(typename Superclass::EvaluatorType & scene) override
  {
    if (!m_RangesPending)
    {
      return;
    }
    m_RangesPending = false;
    typename TFixedImage::PixelType  fixedMin, fixedMax;
    typename TMovingImage::PixelType movingMin, movingMax;
    bool                             found = false;
    if constexpr (std::is_same<typename TFixedImage::PixelType, typename Superclass::EvaluatorType::ValueType>::value &&
                  std::is_same<typename TMovingImage::PixelType, typename Superclass::EvaluatorType::ValueType>::value)
    {
      found = this->m_FixedImageMask.IsNull() && this->m_MovingImageMask.IsNull() &&
              scene.ValueRangesOnDevice(fixedMin, fixedMax, movingMin, movingMax);
    }
    if (!found)
    {
      MetricIntensityRange(
        this->m_FixedImage.GetPointer(), this->m_FixedImageMask.GetPointer(), this->GetThreader(), fixedMin, fixedMax);
      MetricIntensityRange(this->m_MovingImage.GetPointer(),
                           this->m_MovingImageMask.GetPointer(),
                           this->GetThreader(),
                           movingMin,
                           movingMax);
    }
    this->m_FixedImageTrueMin = fixedMin;
    this->m_FixedImageTrueMax = fixedMax;
    this->m_MovingImageTrueMin = movingMin;
    this->m_MovingImageTrueMax = movingMax;
    // ITK's bins, padded by two on each side (the cubic Parzen window never centres there).
    constexpr int padding = 2;
    using BinValueType = typename MetricType::PDFValueType; // ITK's PDFValueType
    this->m_FixedImageBinSize = (this->m_FixedImageTrueMax - this->m_FixedImageTrueMin) /
                                static_cast<BinValueType>(this->m_NumberOfHistogramBins - 2 * padding);
    this->m_FixedImageNormalizedMin =
      this->m_FixedImageTrueMin / this->m_FixedImageBinSize - static_cast<BinValueType>(padding);
    this->m_MovingImageBinSize = (this->m_MovingImageTrueMax - this->m_MovingImageTrueMin) /
                                 static_cast<BinValueType>(this->m_NumberOfHistogramBins - 2 * padding);
    this->m_MovingImageNormalizedMin =
      this->m_MovingImageTrueMin / this->m_MovingImageBinSize - static_cast<BinValueType>(padding);
  }

  void
  EvaluateWithModule(typename Superclass::EvaluatorType & scene) const override
  {
    cif::MattesParzen parzen;
    parzen.bins = static_cast<int>(this->m_NumberOfHistogramBins);
    parzen.fixedBinSize = this->m_FixedImageBinSize;
    parzen.fixedNormalizedMin = this->m_FixedImageNormalizedMin;
    parzen.movingBinSize = this->m_MovingImageBinSize;
    parzen.movingNormalizedMin = this->m_MovingImageNormalizedMin;
    parzen.movingTrueMin = this->m_MovingImageTrueMin;
    parzen.movingTrueMax = this->m_MovingImageTrueMax;

    // The module's first pass, ITK's ComputeResults and (with the derivative) the
    // second pass in one call: on the GPU one readback, ITK's errors raised after it.
    const cif::MattesSummary summary =
      scene.EvaluateMattes(parzen,
                           this->GetThreader(),
                           this->GetComputeDerivative() ? this->m_DerivativeResult : nullptr,
                           this->DerivativeZerosPending());
    this->m_NumberOfValidPoints = static_cast<SizeValueType>(summary.validPoints);
    if (this->m_NumberOfValidPoints == 0)
    {
      // ITK's words, as the ITK in use writes them (ITK 6 dropped the final newline).
      itkExceptionMacro("All samples map outside moving image buffer. "
                        "The images do not sufficiently "
                        "overlap. They need to be initialized to have more overlap before this "
                        "metric will work. For instance, you can align the image centers by translation."
#if ITK_VERSION_MAJOR < 6
                        << std::endl
#endif
      );
    }
    if (summary.jointPDFSum < NumericTraits<double>::epsilon())
    {
      itkExceptionMacro("Joint PDF summed to zero");
    }
    this->m_Value = summary.value;
  }

private:
  bool m_RangesPending = false;
};
} // namespace itk

#endif
