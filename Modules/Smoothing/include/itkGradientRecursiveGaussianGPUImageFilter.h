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
#ifndef itkGradientRecursiveGaussianGPUImageFilter_h
#define itkGradientRecursiveGaussianGPUImageFilter_h

#include "cifDeviceBuffer.h"
#include "itkCudaImageFilterBase.h"
#include "itkGradientRecursiveGaussianImageFilter.h"
#include "itkRecursiveGaussianCoefficients.h"

namespace itk
{
/** \class GradientRecursiveGaussianGPUImageFilter
 * \brief GradientRecursiveGaussianImageFilter on the GPU.
 *
 * A subclass of ITK's filter (per-axis sigmas, NormalizeAcrossScale,
 * UseImageDirection) that runs ITK's mini-pipeline as passes on the device: for each
 * gradient component d, the first-order pass along d with sigma[D-1], then the
 * zero-order passes along the other axes in increasing order, the k-th of them with
 * sigma[k] (ITK's assignment of sigmas to its internal filters), each line in double
 * and each pass's result rounded to float as ITK stores it (its internal images are
 * Image<float> for float and double input in ITK 5.2: InternalRealType is
 * NumericTraits<double>::FloatType, float), then divided by spacing[d] and rounded to
 * float again as ITK's float adaptor stores it; then, with UseImageDirection, each
 * gradient rotated by the direction matrix in double as
 * ImageBase::TransformLocalVectorToPhysicalVector does. Every line runs
 * FilterDataArray's recursion in ITK's order of operations without fused
 * multiply-adds (cifRecursiveGaussianMath.h).
 *
 * Scalar itk::Image input of 1 to 4 dimensions, float or double, with ITK's default
 * output Image<CovariantVector<double, D>, D> (what the v4 image metrics use), the
 * input buffered whole; anything else (vector pixels, VectorImage, other output
 * types) runs ITK's code (GetLastExecutionPath() == ITK). Without a usable CUDA
 * device, or with UseGPU off, the same arithmetic runs on the CPU over ITK's threader.
 * One piece on the device: the input, up to two double work volumes and the output;
 * a job that does not fit is an ExceptionObject naming the sizes.
 *
 * KeepResultOnDevice (off by default): the GPU path keeps the gradient on the device
 * (GetDeviceResult(): D doubles a pixel, interleaved, as the host output) and does not
 * download it; the host output is allocated but holds the gradient only after
 * DownloadResultToHost(). For a consumer on the device (the GPU image metrics, whose
 * Initialize() runs this filter at every level of a registration): it saves the
 * download and the upload back of D doubles a pixel (400 MB at 256^3). Whoever reads
 * the host output first calls DownloadResultToHost() (a no-op where nothing is pending).
 *
 * \ingroup CudaImageFilters
 */
template <
  typename TInputImage,
  typename TOutputImage = Image<
    CovariantVector<typename NumericTraits<typename TInputImage::PixelType>::RealType, TInputImage::ImageDimension>,
    TInputImage::ImageDimension>>
class ITK_TEMPLATE_EXPORT GradientRecursiveGaussianGPUImageFilter
  : public CudaImageFilterBase<GradientRecursiveGaussianImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(GradientRecursiveGaussianGPUImageFilter);
  using Self = GradientRecursiveGaussianGPUImageFilter;
  using Superclass = CudaImageFilterBase<GradientRecursiveGaussianImageFilter<TInputImage, TOutputImage>>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(GradientRecursiveGaussianGPUImageFilter, GradientRecursiveGaussianImageFilter);

  static constexpr unsigned int ImageDimension = TInputImage::ImageDimension;
  using InputPixelType = typename TInputImage::PixelType;
  /** ITK's type between the passes (float in ITK 5.2, also for double input). */
  using InternalPixelType = typename GradientRecursiveGaussianImageFilter<TInputImage, TOutputImage>::InternalRealType;

  static constexpr bool TypesSupported =
    ImageDimension >= 1 && ImageDimension <= static_cast<unsigned int>(cif::kGaussianMaxDimension) &&
    SmoothingGPUDetail::IsRealScalar<InputPixelType> && SmoothingGPUDetail::IsRealScalar<InternalPixelType> &&
    std::is_same_v<TInputImage, Image<InputPixelType, ImageDimension>> &&
    std::is_same_v<TOutputImage, Image<CovariantVector<double, ImageDimension>, ImageDimension>>;

  itkSetMacro(KeepResultOnDevice, bool);
  itkGetConstMacro(KeepResultOnDevice, bool);
  itkBooleanMacro(KeepResultOnDevice);

  /** The last GPU update's gradient on the device while KeepResultOnDevice is on and
   * it has not been downloaded instead; otherwise null. Valid until the next update. */
  const double *
  GetDeviceResult() const
  {
    return m_HostOutputPending ? m_DeviceResult.template As<const double>() : nullptr;
  }

  /** Fills the host output with the kept gradient (once; nothing where none is kept). */
  void
  DownloadResultToHost();

protected:
  GradientRecursiveGaussianGPUImageFilter() = default;
  ~GradientRecursiveGaussianGPUImageFilter() override = default;

  void
  GenerateData() override;

  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "KeepResultOnDevice: " << (m_KeepResultOnDevice ? "On" : "Off")
       << (m_HostOutputPending ? " (the host output waits for DownloadResultToHost)" : "") << std::endl;
  }

private:
  bool              m_KeepResultOnDevice = false;
  bool              m_HostOutputPending = false;
  cif::DeviceBuffer m_DeviceResult;
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkGradientRecursiveGaussianGPUImageFilter.hxx"
#endif

#endif
