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
#ifndef itkBSplinePrefilterGPUImageFilter_h
#define itkBSplinePrefilterGPUImageFilter_h

#include "cifBSplinePrefilterMath.h"
#include "cifBoundaryMode.h"
#include "itkBSplineDecompositionImageFilter.h"
#include "itkCudaMultiDeviceFilterBase.h"
#include "itkCudaPixelTraits.h"
#include "itkFilterStageProgress.h"
#include "itkRGBPixelScalarProduct.h"

#include <string>
#include <vector>

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
 * - With a CudaDeviceImage output the coefficients stay on the device for the next GPU
 *   filter; with a CudaDeviceImage input already on the device nothing is uploaded.
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
 * the sizes. CudaDeviceImage inputs and outputs live on the device whole.
 *
 * Several GPUs: with host images in and out, a job of at least two devices' worth
 * (MinimumVoxelsPerDevice each) spreads over the devices of NumberOfDevices or
 * Devices, one host thread per device: each device uploads its share of the slowest
 * axis's planes and filters them along the other axes, the devices exchange chunks
 * (device to device) so that each holds whole lines of the slowest axis for its
 * share of the next axis's rows, filter those, exchange back and download their
 * planes (cifSpreadPrefilter.h). The bits of one device. See the module's README.
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
  : public CudaMultiDeviceFilterBase<BSplineDecompositionImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(BSplinePrefilterGPUImageFilter);
  using Self = BSplinePrefilterGPUImageFilter;
  using Superclass = CudaMultiDeviceFilterBase<BSplineDecompositionImageFilter<TInputImage, TOutputImage>>;
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

  /* Several GPUs (NumberOfDevices, Devices: CudaMultiDeviceFilterBase): a host image
   * in and out is spread over the devices. With one visible device (or 1) the job
   * takes the one-device path, with no overhead. A job smaller than two devices'
   * MinimumVoxelsPerDevice, a 1-D image, CudaDeviceImage inputs or outputs, and a job whose
   * shares do not fit the devices (about 2/n of the coefficients on each) take one
   * device. The same bits as one device. On the CPU path, 2 or more runs the devices'
   * plan with the host standing in for each device in turn (what CI tests the plan
   * with); 0 there is 1. */

  /** The fewest pixels a device of the spread takes (default 4 Mi: 2 devices from
   * about 203^3 pixels on); fewer devices take part in a smaller job, and a job of
   * less than two devices' worth stays on one. Tests lower it to spread small
   * images. */
  itkSetMacro(MinimumVoxelsPerDevice, SizeValueType);
  itkGetConstMacro(MinimumVoxelsPerDevice, SizeValueType);

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
  /** The whole job on the current device (a CudaDeviceImage input or output, or a host
   * image that fits). */
  void
  GenerateDataOnOneDevice(const cif::BufferShape & shape,
                          const cif::SplinePoles & poles,
                          FilterStageProgress &    progress);
  /** Host image in and out on the current device, in slabs within \a budget bytes. */
  void
  GenerateDataInSlabs(const cif::BufferShape & shape,
                      const cif::SplinePoles & poles,
                      std::size_t              budget,
                      FilterStageProgress &    progress);
  /** "the B-spline prefilter of a ...-pixel image (...)": messages naming the job. */
  std::string
  DescribeJob(const cif::BufferShape & shape) const;
  /** The devices this update would spread over (none: one device). */
  std::vector<int>
  DevicesForThisUpdate() const;
  /** Host image in and out over \a devices (cifSpreadPrefilter.h). False, with the
   * output untouched, where a device's share does not fit: one device then. */
  bool
  GenerateDataOnSeveralDevices(const std::vector<int> & devices,
                               const cif::BufferShape & shape,
                               const cif::SplinePoles & poles,
                               FilterStageProgress &    progress);
  /** The input's samples into the output buffer as the coefficients' type, on the
   * host's threads (the slabbed path's and the CPU path's first stage). */
  void
  ConvertInputOnHost();

  cif::BoundaryMode m_BoundaryMode{ cif::BoundaryMode::Mirror };
  SizeValueType     m_MinimumVoxelsPerDevice{ SizeValueType(1) << 22 };
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkBSplinePrefilterGPUImageFilter.hxx"
#endif

#endif
