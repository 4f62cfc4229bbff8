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
#ifndef itkRecursiveGaussianGPUImageFilter_h
#define itkRecursiveGaussianGPUImageFilter_h

#include "itkCudaImageFilterBase.h"
#include "itkRecursiveGaussianCoefficients.h"
#include "itkRecursiveGaussianImageFilter.h"

namespace itk
{
/** \class RecursiveGaussianGPUImageFilter
 * \brief RecursiveGaussianImageFilter (one axis: orders 0, 1, 2, NormalizeAcrossScale)
 * on the GPU.
 *
 * A subclass of ITK's filter with its API and its numbers: the coefficients are
 * computed by ITK's own SetUp, and every line runs FilterDataArray's recursion in
 * double, in ITK's order of operations, without fused multiply-adds
 * (cifRecursiveGaussianMath.h), then is cast to the output pixel type as ITK casts it.
 *
 * Scalar images of 1 to 4 dimensions, float or double in and out, where the input's
 * buffer is the output's requested region (the default: this filter asks for whole
 * images); anything else runs ITK's code (GetLastExecutionPath() == ITK). Without a
 * usable CUDA device, or with UseGPU off, the same arithmetic runs on the CPU over
 * ITK's threader. The whole image is filtered in one piece on the device; a job that
 * does not fit is an ExceptionObject naming the sizes.
 *
 * \ingroup CudaImageFilters
 */
template <typename TInputImage, typename TOutputImage>
class ITK_TEMPLATE_EXPORT RecursiveGaussianGPUImageFilter
  : public CudaImageFilterBase<RecursiveGaussianImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(RecursiveGaussianGPUImageFilter);
  using Self = RecursiveGaussianGPUImageFilter;
  using Superclass = CudaImageFilterBase<RecursiveGaussianImageFilter<TInputImage, TOutputImage>>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(RecursiveGaussianGPUImageFilter, RecursiveGaussianImageFilter);

  static constexpr unsigned int ImageDimension = TInputImage::ImageDimension;
  using InputPixelType = typename TInputImage::PixelType;
  using OutputPixelType = typename TOutputImage::PixelType;

  /** The type combinations the module's GPU and CPU paths take. */
  static constexpr bool TypesSupported =
    ImageDimension >= 1 && ImageDimension <= static_cast<unsigned int>(cif::kGaussianMaxDimension) &&
    SmoothingGPUDetail::IsRealScalar<InputPixelType> && SmoothingGPUDetail::IsRealScalar<OutputPixelType> &&
    std::is_same_v<TInputImage, Image<InputPixelType, ImageDimension>> &&
    std::is_same_v<TOutputImage, Image<OutputPixelType, ImageDimension>>;

protected:
  RecursiveGaussianGPUImageFilter() = default;
  ~RecursiveGaussianGPUImageFilter() override = default;

  void
  GenerateData() override;
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkRecursiveGaussianGPUImageFilter.hxx"
#endif

#endif
