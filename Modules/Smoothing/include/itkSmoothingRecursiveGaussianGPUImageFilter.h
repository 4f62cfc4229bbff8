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
#ifndef itkSmoothingRecursiveGaussianGPUImageFilter_h
#define itkSmoothingRecursiveGaussianGPUImageFilter_h

#include "itkCudaImageFilterBase.h"
#include "itkRecursiveGaussianCoefficients.h"
#include "itkSmoothingRecursiveGaussianImageFilter.h"

namespace itk
{
/** \class SmoothingRecursiveGaussianGPUImageFilter
 * \brief SmoothingRecursiveGaussianImageFilter on the GPU.
 *
 * A subclass of ITK's filter (per-axis sigmas, NormalizeAcrossScale, in place) that
 * runs ITK's mini-pipeline as one chain of passes on the device: the last axis
 * first, then axes 0, 1, ..., as ITK orders them, each line in double with ITK's
 * coefficients and order of operations (cifRecursiveGaussianMath.h). Between passes
 * the values are rounded to ITK's internal pixel type (NumericTraits<InputPixel>::
 * FloatType: float for float and for double input in ITK 5.2), so the output carries
 * ITK's roundings, then cast to the output pixel type as ITK's CastImageFilter casts.
 *
 * Scalar itk::Image of 2 to 4 dimensions (ITK 5.2's own filter does not run in 1-D),
 * float or double in and out, with the input buffered whole (ITK asks for the whole
 * input too); anything else runs ITK's code (GetLastExecutionPath() == ITK). Without
 * a usable CUDA device, or with UseGPU off, the same arithmetic runs on the CPU over
 * ITK's threader. One piece on the device: the input, two double work volumes; a job
 * that does not fit is an ExceptionObject naming the sizes.
 *
 * \ingroup CudaImageFilters
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT SmoothingRecursiveGaussianGPUImageFilter
  : public CudaImageFilterBase<SmoothingRecursiveGaussianImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(SmoothingRecursiveGaussianGPUImageFilter);
  using Self = SmoothingRecursiveGaussianGPUImageFilter;
  using Superclass = CudaImageFilterBase<SmoothingRecursiveGaussianImageFilter<TInputImage, TOutputImage>>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(SmoothingRecursiveGaussianGPUImageFilter, SmoothingRecursiveGaussianImageFilter);

  static constexpr unsigned int ImageDimension = TInputImage::ImageDimension;
  using InputPixelType = typename TInputImage::PixelType;
  using OutputPixelType = typename TOutputImage::PixelType;
  /** ITK's type between the passes. */
  using InternalPixelType = typename NumericTraits<InputPixelType>::FloatType;

  static constexpr bool TypesSupported =
    ImageDimension >= 2 && ImageDimension <= static_cast<unsigned int>(cif::kGaussianMaxDimension) &&
    SmoothingGPUDetail::IsRealScalar<InputPixelType> && SmoothingGPUDetail::IsRealScalar<OutputPixelType> &&
    std::is_same_v<TInputImage, Image<InputPixelType, ImageDimension>> &&
    std::is_same_v<TOutputImage, Image<OutputPixelType, ImageDimension>>;

protected:
  SmoothingRecursiveGaussianGPUImageFilter() = default;
  ~SmoothingRecursiveGaussianGPUImageFilter() override = default;

  void
  GenerateData() override;
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkSmoothingRecursiveGaussianGPUImageFilter.hxx"
#endif

#endif
