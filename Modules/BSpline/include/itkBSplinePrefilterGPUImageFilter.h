#ifndef itkBSplinePrefilterGPUImageFilter_h
#define itkBSplinePrefilterGPUImageFilter_h

#include "cifBSplinePrefilterMath.h"
#include "cifBoundaryMode.h"
#include "itkBSplineDecompositionImageFilter.h"
#include "itkCudaImageFilterBase.h"
#include "itkCudaPixelTraits.h"
#include "itkRGBPixelScalarProduct.h"

namespace itk
{
/** \class BSplinePrefilterGPUImageFilter
 * \brief B-spline prefilter (samples to interpolation coefficients) on the GPU.
 *
 * The GPU twin of BSplineDecompositionImageFilter, and a subclass of it: the same
 * API, the same numbers (spline orders 0 to 5, ITK's mirror boundary, its causal
 * starting value truncated at the same tolerance), computed on the GPU with the
 * recursive filter of Ruijters & Thevenaz (2012), one in-place pass per axis.
 *
 * - Images of 1 to 6 dimensions (every axis filtered; 5-D and 6-D for the lookup
 *   tables of CubicBSplineTable); input scalars uchar, char, short, ushort, int, uint,
 *   float, double; output float (computed in float) or double (computed in double).
 * - Multi-component pixels (RGBPixel, Vector, CovariantVector, and VectorImage with
 *   any number of components) are filtered per component in the same pass.
 * - Boundary modes: Mirror (ITK's, the default), ClampToEdge, Periodic.
 * - With a CudaImage output the coefficients stay on the device for the next GPU
 *   filter; with a CudaImage input already on the device nothing is uploaded.
 * - Without a usable CUDA device (or with UseGPU off) the same arithmetic runs on the
 *   CPU, multithreaded with ITK's threader. Types this filter does not handle go to
 *   the superclass (ITK's own code), never to an approximation.
 *
 * Larger than the device: with host images in and out, a job that does not fit in
 * the device's free memory or under cif::SetDeviceMemoryLimit (CIF_DEVICE_MEMORY_LIMIT)
 * runs in slabs (the passes along the fast axes per slab of the slowest axis, the
 * slowest axis's pass per slab of the next one; cifSlabbedPrefilter.h), with the
 * bits of one piece. The CPU path runs the same plans under a limit. A job whose
 * smallest slab does not fit (a 1-D line; one plane) is an ExceptionObject naming
 * the sizes. CudaImage inputs and outputs live on the device whole.
 *
 * A line of one sample is left unchanged, as ITK does. NaN in the input spreads
 * along every line through it, as in ITK (the recursion carries it), so the NaN
 * pattern of the output equals ITK's. An empty input is an error.
 *
 * Progress: on the module's paths ProgressEvent follows the stages (the samples on
 * the device or converted, one pass per axis, the download), and AbortGenerateData
 * stops the filter between them with ProcessAborted, leaving the output empty
 * (itk::FilterStageProgress).
 *
 * \ingroup CudaImageFilters
 */
template <typename TInputImage, typename TOutputImage>
class ITK_TEMPLATE_EXPORT BSplinePrefilterGPUImageFilter
  : public CudaImageFilterBase<BSplineDecompositionImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(BSplinePrefilterGPUImageFilter);
  using Self = BSplinePrefilterGPUImageFilter;
  using Superclass = CudaImageFilterBase<BSplineDecompositionImageFilter<TInputImage, TOutputImage>>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(BSplinePrefilterGPUImageFilter, BSplineDecompositionImageFilter);

  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;
  static constexpr unsigned int ImageDimension = TInputImage::ImageDimension;
  using InputComponentType = CudaScalar<typename CudaImageTraits<TInputImage>::ComponentType>;
  using OutputComponentType = CudaScalar<typename CudaImageTraits<TOutputImage>::ComponentType>;
  /** Components per pixel, 0 for a VectorImage (its count is the image's). */
  static constexpr unsigned int Components = CudaImageTraits<TOutputImage>::Components;

  /** Which code produced the last output. */
  using ExecutionPath = CudaExecutionPath;

  /** True for the type combinations the GPU and CPU paths of this module handle. */
  static constexpr bool TypesSupported =
    ImageDimension >= 1 && ImageDimension <= cif::kMaxBufferDimension && IsCudaInputScalar<InputComponentType> &&
    IsCudaRealScalar<OutputComponentType> && CudaImageTraits<TInputImage>::Components == Components;

  /** Boundary continuation; Mirror (default) matches ITK. */
  itkSetEnumMacro(BoundaryMode, cif::BoundaryMode);
  itkGetEnumMacro(BoundaryMode, cif::BoundaryMode);

protected:
  BSplinePrefilterGPUImageFilter() = default;
  ~BSplinePrefilterGPUImageFilter() override = default;

  void
  GenerateData() override;

  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  void
  GenerateDataOnGPU(const cif::BufferShape & shape, const cif::SplinePoles & poles);
  void
  GenerateDataOnCPU(const cif::BufferShape & shape, const cif::SplinePoles & poles);
  /** The input's samples into the output buffer as the coefficients' type, on the
   * host's threads (the slabbed path's and the CPU path's first stage). */
  void
  ConvertInputOnHost();

  cif::BoundaryMode m_BoundaryMode{ cif::BoundaryMode::Mirror };
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkBSplinePrefilterGPUImageFilter.hxx"
#endif

#endif
