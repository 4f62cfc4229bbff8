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
#ifndef itkZoomGPUImageFilter_h
#define itkZoomGPUImageFilter_h

#include "cifConvolutionKernel.h"
#include "cifZoomMath.h"
#include "itkCudaImageFilterBase.h"
#include "itkCudaPixelTraits.h"
#include "itkImageToImageFilter.h"

namespace itk
{
/** \class ZoomGPUImageFilter
 * \brief Cut-out, zoom and optional enhancement of a 2-D image (the upscaling seed's
 * workflow), on the GPU.
 *
 * The cut-out is the CutOutSize box centred on CutOutCenter (index space; for an
 * even side the centre is the first pixel of the box's upper half), and must lie in
 * the image. It is enlarged by ZoomFactor (>= 1, not necessarily an integer) into
 * floor(size * zoom) pixels, sampling the input at cut + (i + 1/2) / zoom - 1/2:
 * by cubic B-spline interpolation (exact mode, as itk::BSplineInterpolateImageFunction
 * of order 3), nearest neighbour (the seed's pixel replication for integer zooms) or
 * linear. The spline is fitted on the cut-out plus a margin of real image pixels
 * (the interpolation region, clipped to the image), so the result matches a spline
 * of the whole image to about 1e-10.
 *
 * An optional kernel (any preset of cifKernelPresets.h or a kernel file) then
 * convolves the enlarged cut-out. Near the cut-out's edges the convolution reads the
 * zoom of the real neighbouring pixels (the zoom canvas extends past the cut-out by
 * the kernel radius) and it repeats samples only at the image's own edge, as the
 * seed's final version does; the kernel is flipped as ITK's ConvolutionImageFilter
 * flips it. Upload, conversion, prefilter, zoom, convolution and the cast back run on
 * the device with no host round trip between them.
 *
 * Pixels: scalar or multi-component (RGB, RGBA, Vector), components of any integer
 * or floating type; computed in float per component, cast to the output type
 * (integers truncated, clamped to the type's range). The output has the input's
 * direction, spacing / zoom, and its first pixel centred where the first zoomed
 * sample lies.
 *
 * Streaming: the filter computes exactly the output's requested region (a piece of
 * StreamingImageFilter or a streaming writer): the zoom canvas of that region plus
 * the kernel radius, clipped as the whole canvas is, so every piece has the bits of
 * the same pixels of a one-piece run. The input request is always the whole
 * interpolation region, since the spline is fitted on all of it: each piece refits
 * the same spline (its cost is the cut-out's, not the piece's).
 *
 * Progress: ProgressEvent follows the stages (the region's conversion and upload,
 * each prefilter axis of each component, the zoom, the enhancement, the output), and
 * AbortGenerateData stops the filter between them with ProcessAborted, leaving the
 * output empty (itk::FilterStageProgress).
 *
 * \ingroup CudaImageFilters
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT ZoomGPUImageFilter : public CudaImageFilterBase<ImageToImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ZoomGPUImageFilter);
  using Self = ZoomGPUImageFilter;
  using Superclass = CudaImageFilterBase<ImageToImageFilter<TInputImage, TOutputImage>>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(ZoomGPUImageFilter, ImageToImageFilter);

  static constexpr unsigned int ImageDimension = TInputImage::ImageDimension;
  static_assert(ImageDimension == 2, "ZoomGPUImageFilter works on 2-D images");
  using InputComponentType = CudaScalar<typename CudaImageTraits<TInputImage>::ComponentType>;
  using OutputComponentType = CudaScalar<typename CudaImageTraits<TOutputImage>::ComponentType>;
  static_assert(IsCudaInputScalar<InputComponentType> && IsCudaInputScalar<OutputComponentType>,
                "pixel components must be integer or floating scalars");
  using IndexType = typename TInputImage::IndexType;
  using SizeType = typename TInputImage::SizeType;
  using RegionType = typename TInputImage::RegionType;
  using ExecutionPath = CudaExecutionPath;
  using Interpolation = cif::ZoomInterpolation;

  itkSetMacro(CutOutCenter, IndexType);
  itkGetConstMacro(CutOutCenter, IndexType);
  itkSetMacro(CutOutSize, SizeType);
  itkGetConstMacro(CutOutSize, SizeType);
  itkSetMacro(ZoomFactor, double);
  itkGetConstMacro(ZoomFactor, double);
  itkSetMacro(Interpolation, Interpolation);
  itkGetConstMacro(Interpolation, Interpolation);
  /** Runs the general convolution path even for a separable kernel. */
  itkSetMacro(ForceGeneralPath, bool);
  itkGetConstMacro(ForceGeneralPath, bool);
  itkBooleanMacro(ForceGeneralPath);

  /** The enhancement kernel (2-D, odd sides up to 127; used as given, not normalized). */
  void
  SetKernel(const cif::ConvolutionKernel & kernel);
  /** No enhancement. */
  void
  ClearKernel();
  bool
  HasKernel() const
  {
    return m_HasKernel;
  }
  const cif::ConvolutionKernel &
  GetKernel() const
  {
    return m_Kernel;
  }

  /** The cut-out box in the input's index space (valid after UpdateOutputInformation). */
  itkGetConstReferenceMacro(CutOutRegion, RegionType);
  /** The input pixels the interpolation reads: the cut-out plus a margin, clipped to
   * the image (valid after UpdateOutputInformation). */
  itkGetConstReferenceMacro(InterpolationRegion, RegionType);
  /** The zoom canvas of the whole output, in output indices (it extends past the
   * output by the kernel radius where the image allows; a piece of a streamed output
   * computes the part of it that its convolution reads; valid after
   * UpdateOutputInformation). */
  itkGetConstReferenceMacro(CanvasRegion, RegionType);

protected:
  ZoomGPUImageFilter();
  ~ZoomGPUImageFilter() override = default;

  /** Validates the parameters (itk::ExceptionObject naming the bad one) and sets the
   * output grid. */
  void
  GenerateOutputInformation() override;
  void
  GenerateInputRequestedRegion() override;
  void
  GenerateData() override;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  IndexType              m_CutOutCenter;
  SizeType               m_CutOutSize;
  double                 m_ZoomFactor{ 2.0 };
  Interpolation          m_Interpolation{ Interpolation::Cubic };
  bool                   m_ForceGeneralPath{ false };
  bool                   m_HasKernel{ false };
  cif::ConvolutionKernel m_Kernel;
  RegionType             m_CutOutRegion;
  RegionType             m_InterpolationRegion;
  RegionType             m_CanvasRegion;
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkZoomGPUImageFilter.hxx"
#endif

#endif
