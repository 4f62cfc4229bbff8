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
#ifndef itkConvolutionGPUImageFilter_h
#define itkConvolutionGPUImageFilter_h

#include "cifConvolutionPlan.h"
#include "itkConvolutionImageFilter.h"
#include "itkCovariantVector.h"
#include "itkCudaImageFilterBase.h"
#include "itkCudaPixelTraits.h"
#include "itkVector.h"

#include <string>
#include <type_traits>

namespace itk
{
namespace ConvolutionGPUDetail
{
template <typename T>
struct IsFixedVector : std::false_type
{};
template <typename T, unsigned int N>
struct IsFixedVector<Vector<T, N>> : std::true_type
{};
template <typename T, unsigned int N>
struct IsFixedVector<CovariantVector<T, N>> : std::true_type
{};

/** Whether itk::ConvolutionImageFilter (5.2) compiles for these images: scalar or
 * Vector pixels in an itk::Image. RGB pixels and VectorImage do not (its
 * NeighborhoodInnerProduct has no scalar * RGBPixel, no VariableLengthVector zero),
 * nor does CudaDeviceImage (its neighbourhood iterator's accessor is Image's). */
template <typename TImage>
constexpr bool ITKConvolves =
  (std::is_arithmetic_v<typename TImage::PixelType> || IsFixedVector<typename TImage::PixelType>::value) &&
  !CudaImageTraits<TImage>::IsCudaDeviceImage;
} // namespace ConvolutionGPUDetail

/** \class ConvolutionGPUImageFilter
 * \brief itk::ConvolutionImageFilter on the GPU, for 2-D and 3-D images with scalar or
 * multi-component pixels (RGB, RGBA, Vector, VectorImage).
 *
 * Same API and results as ConvolutionImageFilter: a true convolution (the kernel is
 * flipped), the default ZeroFluxNeumann boundary (the edge sample repeats), SAME and
 * VALID output regions, Normalize (the kernel divided by its sum). Kernels with odd
 * sides of at most 127 run the module's path: the separable path (in-plane passes in
 * one kernel) when the kernel is rank one, as the Gaussian and the box are, else the
 * tiled shared-memory general path. Each component of a pixel is convolved on its
 * own. Sums are in float (columns of the general path added in double); results lie
 * within a few 1e-6 of the data range of ITK's (double) result, and integer outputs
 * are truncated as ITK casts, clamped to the type's range.
 *
 * Everything else runs ConvolutionImageFilter itself (an even kernel side, a kernel
 * side over 127, another boundary condition, a non-scalar kernel pixel): for the
 * pixel types it compiles for, the filter is its subclass, so an ITK pipeline sees a
 * ConvolutionImageFilter; for RGB, VectorImage and CudaDeviceImage, which ITK 5.2 cannot convolve,
 * the filter derives from ConvolutionImageFilterBase and refuses such requests with an
 * exception saying why. With UseGPU off or without a CUDA device the module's CPU path
 * (the same arithmetic, ITK's threader) runs.
 *
 * An image larger than the device's memory (or than cif::SetDeviceMemoryLimit) is
 * convolved in slabs of output planes along its slowest axis, each with the input
 * planes the kernel reaches (cifConvolutionSlabs.h): the bits of one piece. The slabs'
 * buffers are reserved before any data moves, and a reservation the device refuses
 * although its memory is reported free is planned again finer (cif::PlanAndReserve);
 * where one output plane does not fit, the error names the sizes.
 *
 * Progress: the module's path reports ProgressEvent after the input's conversion
 * (and upload), the convolution and the output's conversion (and download), of each
 * slab, and stops with ProcessAborted between them when AbortGenerateData is set,
 * leaving the output empty (itk::FilterStageProgress).
 *
 * \ingroup CudaImageFilters
 */
template <typename TInputImage, typename TKernelImage = TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT ConvolutionGPUImageFilter
  : public CudaImageFilterBase<std::conditional_t<ConvolutionGPUDetail::ITKConvolves<TInputImage> &&
                                                    ConvolutionGPUDetail::ITKConvolves<TOutputImage>,
                                                  ConvolutionImageFilter<TInputImage, TKernelImage, TOutputImage>,
                                                  ConvolutionImageFilterBase<TInputImage, TKernelImage, TOutputImage>>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ConvolutionGPUImageFilter);
  static constexpr bool ITKFallbackAvailable =
    ConvolutionGPUDetail::ITKConvolves<TInputImage> && ConvolutionGPUDetail::ITKConvolves<TOutputImage>;
  using Self = ConvolutionGPUImageFilter;
  using Superclass =
    CudaImageFilterBase<std::conditional_t<ITKFallbackAvailable,
                                           ConvolutionImageFilter<TInputImage, TKernelImage, TOutputImage>,
                                           ConvolutionImageFilterBase<TInputImage, TKernelImage, TOutputImage>>>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(ConvolutionGPUImageFilter, ConvolutionImageFilterBase);

  static constexpr unsigned int ImageDimension = TInputImage::ImageDimension;
  using InputComponentType = CudaScalar<typename CudaImageTraits<TInputImage>::ComponentType>;
  using OutputComponentType = CudaScalar<typename CudaImageTraits<TOutputImage>::ComponentType>;
  using KernelPixelType = typename TKernelImage::PixelType;

  /** Types the module's path takes (component counts are checked at run time). */
  static constexpr bool TypesSupported =
    (ImageDimension == 2 || ImageDimension == 3) && IsCudaInputScalar<InputComponentType> &&
    IsCudaInputScalar<OutputComponentType> && std::is_arithmetic_v<KernelPixelType>;

  using ExecutionPath = CudaExecutionPath;

  /** Runs the general path even for a separable kernel (benchmarks, tests). */
  itkSetMacro(ForceGeneralPath, bool);
  itkGetConstMacro(ForceGeneralPath, bool);
  itkBooleanMacro(ForceGeneralPath);

  /** Whether the last module run took the separable path. */
  bool
  GetLastRunWasSeparable() const
  {
    return m_LastRunWasSeparable;
  }

  /** The number of slabs the last GPU run took (1: one piece; 0: no GPU run yet). */
  itkGetConstMacro(LastNumberOfSlabs, unsigned int);

  /** Why the current settings do not take the module's path ("" when they do). */
  std::string
  ModulePathRefusal() const;

protected:
  ConvolutionGPUImageFilter() = default;
  ~ConvolutionGPUImageFilter() override = default;

  /** ConvolutionImageFilter's request: the output region padded by the kernel radius,
   * cropped to the input (also where the superclass is only the base class). */
  void
  GenerateInputRequestedRegion() override;

  void
  GenerateData() override;

  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  /** The module's GPU path: \a plan over the whole images, in slabs where they do
   * not fit the device. */
  void
  ConvolveOnDevice(const TInputImage * input, TOutputImage * output, const cif::ConvolutionPlan & plan, int components);

  bool         m_ForceGeneralPath{ false };
  bool         m_LastRunWasSeparable{ false };
  unsigned int m_LastNumberOfSlabs{ 0 };
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkConvolutionGPUImageFilter.hxx"
#endif

#endif
