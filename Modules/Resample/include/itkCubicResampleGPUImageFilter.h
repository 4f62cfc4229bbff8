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
#ifndef itkCubicResampleGPUImageFilter_h
#define itkCubicResampleGPUImageFilter_h

#include "cifBSplinePrefilterMath.h"
#include "cifDeviceBuffer.h"
#include "cifHostWorkArea.h"
#include "cifResampleSlabs.h"
#include "cifTextureResampleDevice.h"
#include "cifTransformChain.h"
#include "itkCudaTransformChain.h"
#include "itkFilterStageProgress.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkCudaMultiDeviceFilterBase.h"
#include "itkCudaPixelTraits.h"
#include "itkResampleImageFilter.h"

#include <memory>
#include <optional>
#include <vector>

namespace itk
{
/** \class CubicResampleGPUImageFilter
 * \brief ResampleImageFilter with a cubic B-spline interpolator, on the GPU.
 *
 * A subclass of ResampleImageFilter with the same API (output geometry, reference
 * image, default pixel value, transform, interpolator). When the interpolator is a
 * BSplineInterpolateImageFunction of order 3, the filter computes the coefficients
 * with its own prefilter (GPU, or the module's CPU path; never ITK's single-threaded
 * prefilter that the interpolator would run) and evaluates the spline at every output
 * voxel in exact mode: on-the-fly weights over all 4^D coefficients, ITK's mirror
 * boundary, ITK's inside test and output cast, in double. Any other interpolator,
 * an extrapolator, or a pixel type outside the module's (scalar 2-D to 4-D images)
 * runs the superclass unchanged. Multi-component images (RGB, vectors, VectorImage)
 * are resampled component by component with CubicBSplinePerComponent on.
 *
 * Transforms evaluated on the device: MatrixOffsetTransformBase and its subclasses,
 * TranslationTransform, IdentityTransform, cubic BSplineTransform, and
 * CompositeTransform chains of these (4-D: the matrix-offset family, translation and
 * identity; B-spline transforms and displacement fields are 2-D and 3-D). Any other
 * transform is applied on the host
 * (multithreaded) and only the interpolation runs on the device: the answer is the
 * same, only slower.
 *
 * With InputIsCoefficients on, the input already holds B-spline coefficients (the
 * output of BSplinePrefilterGPUImageFilter, for instance a CudaDeviceImage left on the
 * device): no prefilter runs and, for a CudaDeviceImage, nothing is uploaded.
 *
 * Progress: on the module's path the filter reports ProgressEvent at its stages
 * (input on the device or converted, each prefilter axis, each slab of the output,
 * the download) and stops with ProcessAborted between them when AbortGenerateData is
 * set, leaving the output empty (itk::FilterStageProgress). The superclass's path
 * reports as ResampleImageFilter does.
 *
 * \ingroup CudaImageFilters
 */
template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType = double,
          typename TTransformPrecisionType = TInterpolatorPrecisionType>
class ITK_TEMPLATE_EXPORT CubicResampleGPUImageFilter
  : public CudaMultiDeviceFilterBase<
      ResampleImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CubicResampleGPUImageFilter);
  using Self = CubicResampleGPUImageFilter;
  using Superclass = CudaMultiDeviceFilterBase<
    ResampleImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(CubicResampleGPUImageFilter, ResampleImageFilter);

  static constexpr unsigned int ImageDimension = TInputImage::ImageDimension;
  using InputComponentType = CudaScalar<typename CudaImageTraits<TInputImage>::ComponentType>;
  using OutputComponentType = CudaScalar<typename CudaImageTraits<TOutputImage>::ComponentType>;
  /** Coefficients are computed in double for double output, else in float. */
  using CoefficientType = std::conditional_t<std::is_same_v<OutputComponentType, double>, double, float>;

  static constexpr bool TypesSupported =
    ImageDimension >= 2 && ImageDimension <= 4 && CudaImageTraits<TInputImage>::Components == 1 &&
    CudaImageTraits<TOutputImage>::Components == 1 && IsCudaInputScalar<InputComponentType> &&
    IsCudaInputScalar<OutputComponentType> && std::is_same_v<TTransformPrecisionType, double>;

  /** Multi-component pixels (RGBPixel, Vector, CovariantVector, VectorImage) of the
   * same component count in and out, 2-D to 4-D. */
  static constexpr bool ComponentsSupported =
    ImageDimension >= 2 && ImageDimension <= 4 && CudaImageTraits<TInputImage>::Components != 1 &&
    CudaImageTraits<TInputImage>::Components == CudaImageTraits<TOutputImage>::Components &&
    !CudaImageTraits<TInputImage>::IsCudaDeviceImage && !CudaImageTraits<TOutputImage>::IsCudaDeviceImage &&
    IsCudaInputScalar<InputComponentType> && IsCudaInputScalar<OutputComponentType> &&
    std::is_same_v<TTransformPrecisionType, double>;

  /** Which code produced the last output. */
  using ExecutionPath = CudaExecutionPath;

  /** Opt-in texture-accelerated mode (seed 002): 2^D hardware linear fetches per
   * voxel instead of 4^D exact terms. The texture unit's interpolation weights have
   * about 8 fractional bits, so values differ from the exact mode (measured in the
   * Modules/Resample/README.md). GPU path, 2-D and 3-D, float coefficients (output other than double)
   * only; elsewhere the exact mode runs. Off by default.
   *
   * The texture is built once and kept with the filter: later updates of the same
   * input (the same image object, MTime and buffered region, with the same
   * InputIsCoefficients and TextureHalfFloat) read it without uploading or
   * prefiltering again, whatever the transform and output grid — the texture holds
   * only the input's coefficients. A modified input (Modified(), a new buffer, a new
   * image) rebuilds it. It is released with the filter, when an update fails, and
   * at the first update that does not use it (the mode turned off, the CPU path). */
  itkSetMacro(UseTextureInterpolation, bool);
  itkGetConstMacro(UseTextureInterpolation, bool);
  itkBooleanMacro(UseTextureInterpolation);

  /** Texture mode only: 16-bit float texels (the coefficients rounded to half, 11
   * significant bits, scaled by a power of two that keeps them finite) instead of
   * 32-bit: half the texture's memory and of the bytes each fetch moves, at an
   * error of about 2^-12 of the coefficients' magnitude on top of the texture
   * mode's own (measured in Modules/Resample/README.md). Off by default. */
  itkSetMacro(TextureHalfFloat, bool);
  itkGetConstMacro(TextureHalfFloat, bool);
  itkBooleanMacro(TextureHalfFloat);

  /** GPU exact mode: keep the coefficients the filter computes (not those handed in
   * with InputIsCoefficients) with a halo of 2
   * samples around each axis holding ITK's mirror, rows rounded up to 128 bytes
   * (cifMirrorPadding.h), so that every voxel reads its 4^D support without the
   * mirror's arithmetic: the same values, bit for bit, about 5% faster at 512^3 (15%
   * under translations), for some more device memory (8% at 512^3, more for small
   * or thin images). Taken only where the device memory budget holds the padded
   * buffer on top of the rest; otherwise, and with this off, the coefficients stay
   * dense. On by default. */
  itkSetMacro(MirrorPaddedCoefficients, bool);
  itkGetConstMacro(MirrorPaddedCoefficients, bool);
  itkBooleanMacro(MirrorPaddedCoefficients);

  /** Cubic B-spline resampling of multi-component images. ITK has no B-spline
   * interpolator for multi-component pixels (BSplineInterpolateImageFunction takes
   * scalar images); with this on, every component is resampled exactly as a scalar
   * image is with a BSplineInterpolateImageFunction of order 3 — the same weights,
   * boundary, inside test, cast and default value (per component) — whatever
   * interpolator is set. Off by default: the superclass then runs with its
   * interpolator (linear by default). Scalar images ignore it. */
  itkSetMacro(CubicBSplinePerComponent, bool);
  itkGetConstMacro(CubicBSplinePerComponent, bool);
  itkBooleanMacro(CubicBSplinePerComponent);

  itkSetMacro(InputIsCoefficients, bool);
  itkGetConstMacro(InputIsCoefficients, bool);
  itkBooleanMacro(InputIsCoefficients);

  /** The exact mode computes the output in slabs along its slowest axis, reporting
   * progress (ProgressEvent) and honouring AbortGenerateData between them: slabs of
   * at least this many output voxels (default 4 Mi), at most 16 of them; a smaller
   * output is one piece. Slabs give the same bits as one piece, so this only trades
   * progress steps against launches; tests lower it to force many slabs. The texture
   * mode always runs in one piece. */
  itkSetMacro(MinimumVoxelsPerSlab, SizeValueType);
  itkGetConstMacro(MinimumVoxelsPerSlab, SizeValueType);

  /* Several GPUs (NumberOfDevices, Devices: CudaMultiDeviceFilterBase): the exact
   * mode of a host image in and out (itk::Image, not CudaDeviceImage) spreads its output
   * over the devices, one host thread per device.
   * Each device uploads a share of the input and reads the other shares from the
   * other devices (peer copies), prefilters the whole input (the prefilter is global:
   * the coefficients of any piece are those of the whole input) and resamples a
   * contiguous run of the output's slabs, downloading each slab while the next
   * computes. The texture mode, CudaDeviceImage inputs or outputs, pieces of a
   * streamed output, outputs of one slab (fewer than 2 x MinimumVoxelsPerSlab
   * voxels) and jobs larger than a device (the slabbed path) run on the current
   * device. Every device must hold the whole input's coefficients and its share of
   * the output, or the update fails with the sizes. */

  /** True when the current interpolator, extrapolator and types take the module's path. */
  bool
  UsesModulePath() const;

protected:
  CubicResampleGPUImageFilter() = default;
  ~CubicResampleGPUImageFilter() override = default;

  /** On the module's path, the whole input (what the module prefilters, as ITK's
   * B-spline interpolator does) and nothing else. ResampleImageFilter's own version
   * hands the input to the interpolator here, and a BSplineInterpolateImageFunction
   * then runs ITK's single-threaded CPU prefilter over the whole input (downloading
   * a CudaDeviceImage first) — the work this filter does on the GPU. */
  void
  GenerateInputRequestedRegion() override;

  void
  GenerateData() override;

  using TransformForModule = Transform<double, ImageDimension, ImageDimension>;
  /** The input (not empty) and transform (set) of a run of the module's path. */
  const TransformForModule *
  CheckInputAndTransform() const;

  /** The multi-component path: each component through the scalar machinery. */
  void
  ResampleEachComponent();

  void
  PrintSelf(std::ostream & os, Indent indent) const override;

  /** True when the coefficients of the current input (pointer, MTime, buffered
   * region), for this filter's settings (its MTime, transform included), are kept
   * from the last piece: on the device (\a onDevice) or on the host. */
  bool
  CoefficientsCached(bool onDevice) const;
  void
  StampCoefficientCache();
  /** Keeps device coefficients for the next piece of a streamed output. */
  void
  KeepCoefficients(cif::DeviceBuffer && coefficients, bool mirrorPadded);
  /** The whole input's coefficients on the host (kept for the next piece): the
   * samples converted, then prefiltered on the device in slabs (\a prefilterOnDevice)
   * or on the host (in the same slabs under a device memory limit). Reports 1 + D
   * stages (1 with InputIsCoefficients). */
  template <typename TC>
  const TC *
  HostCoefficients(const cif::BufferShape & shape,
                   const cif::SplinePoles & poles,
                   FilterStageProgress &    progress,
                   bool                     prefilterOnDevice);

  /** What GenerateData decides once for an update of a scalar image, and hands to the
   * path that runs it. */
  struct ScalarJob
  {
    cif::ResampleGeometry g;
    cif::BufferShape      shape; ///< the input's, for the prefilter
    cif::SplinePoles      poles;
    std::int64_t          inputCount = 0;
    std::int64_t          outputCount = 0;
    OutputComponentType   defaultValue{};
    bool                  linearRows = false; ///< ResampleImageFilter's scanline path
    bool                  mapsOnHost = false; ///< ITK maps the points (a transform the device cannot evaluate)
    bool                  onGPU = false;
    bool                  useTextures = false;
    cif::TextureTexels    texels = cif::TextureTexels::Float;
    cif::ResampleSlabs    slabs;                    ///< progress slabs of the exact mode
    bool                  keepCoefficients = false; ///< a piece of a streamed output
    bool                  lastPiece = true;
  };
  ScalarJob
  PlanScalarJob(const CudaTransformChain<ImageDimension> & chain) const;
  /** True when a job of host images does not fit the device (or the device memory
   * limit) in one piece, the transform's own device arrays included; on the CPU
   * path, when it would not fit the limit. */
  bool
  TakesSlabbedPath(const ScalarJob & job, const CudaTransformChain<ImageDimension> & chain) const;

  /** The paths of a scalar image (GenerateData chooses one). The output in slabs of
   * its slowest axis that fit the device memory budget, each reading only the input
   * box it needs (a linear transform: cif::InputBoxOfRegion) or the whole input's
   * coefficients; the same bits as one piece. */
  void
  ResampleInSlabs(const ScalarJob &                    job,
                  CudaTransformChain<ImageDimension> & chain,
                  const TransformForModule *           transform);
  /** The texture mode, on the current device (see UseTextureInterpolation). */
  void
  ResampleWithTexture(const ScalarJob &                    job,
                      CudaTransformChain<ImageDimension> & chain,
                      const std::vector<double> &          mapped,
                      FilterStageProgress &                progress);
  /** The exact mode in one piece on the current device (its progress slabs queued in
   * turn, each downloaded while the next computes). */
  void
  ResampleExactOnDevice(const ScalarJob &                    job,
                        CudaTransformChain<ImageDimension> & chain,
                        const std::vector<double> &          mapped,
                        FilterStageProgress &                progress);
  /** The exact mode on the CPU (the same arithmetic). */
  void
  ResampleExactOnHost(const ScalarJob &                    job,
                      CudaTransformChain<ImageDimension> & chain,
                      const std::vector<double> &          mapped,
                      FilterStageProgress &                progress);
  /** The exact mode spread over \a devices (see SetNumberOfDevices). */
  void
  ResampleOnSeveralDevices(const std::vector<int> &                   devices,
                           const ScalarJob &                          job,
                           const CudaTransformChain<ImageDimension> & chain,
                           const std::vector<double> &                mapped,
                           FilterStageProgress &                      progress);
  /** The devices \a job spreads over: none (the one-device paths) unless it is the
   * exact mode of host images, a whole output of several slabs, and more than one
   * device is set and visible. */
  std::vector<int>
  DevicesToSpreadOver(const ScalarJob & job) const;

  /** The coefficients the one-device GPU paths read: the input's own device buffer
   * (a CudaDeviceImage of coefficients), those kept from the last piece of a streamed
   * output, none (\a textureReady), or computed here into \a own (uploaded or
   * converted, prefiltered, mirror-padded where that fits). Fails first, with the
   * sizes, where the job does not fit the device. */
  struct DeviceCoefficients
  {
    cif::DeviceBuffer       own;
    const CoefficientType * data = nullptr;
    bool                    owned = false; ///< computed here (own holds them)
    bool                    mirrorPadded = false;
  };
  DeviceCoefficients
  CoefficientsOnDevice(const ScalarJob &     job,
                       bool                  textureReady,
                       std::size_t           mappedBytes,
                       FilterStageProgress & progress);
  /** The output on the device: a CudaDeviceImage's own buffer, or a scratch buffer that
   * \a download copies into the host output. */
  struct DeviceOutput
  {
    cif::DeviceBuffer                      scratch;
    OutputComponentType *                  data = nullptr;
    std::optional<cif::OverlappedDownload> download; // after scratch: destroyed before it
  };
  void
  PrepareOutputOnDevice(const ScalarJob & job, DeviceOutput & out);
  /** The output downloaded (or the device waited for), the last stage reported. */
  void
  FinishOnDevice(DeviceOutput & out, FilterStageProgress & progress);

private:
  /** Coefficients kept between the pieces of a streamed output (see GenerateData). */
  struct CoefficientCache
  {
    const void *                     input = nullptr;
    ModifiedTimeType                 inputTime = 0;
    ModifiedTimeType                 filterTime = 0;
    typename TInputImage::RegionType region;
    bool                             inputIsCoefficients = false;
    cif::HostWorkArea<char>          host; // see HostCoefficients
    cif::DeviceBuffer                device;
    bool                             mirrorPadded = false; // device holds cifMirrorPadding.h's layout
  };
  CoefficientCache m_CoefficientCache;

  /** The texture mode's texture, kept between updates (see UseTextureInterpolation).
   * Keyed on what decides the coefficients, not on the filter's MTime: a new
   * transform or output grid reads the same texture. */
  struct TextureCache
  {
    const void *                     input = nullptr;
    ModifiedTimeType                 inputTime = 0;
    ModifiedTimeType                 pixelWriteTime = 0; // a CudaDeviceImage's data manager's MTime
    typename TInputImage::RegionType region;
    bool                             inputIsCoefficients = false;
    cif::CoefficientTexture          texture;
  };
  bool
               TextureCached(cif::TextureTexels texels) const;
  TextureCache m_TextureCache;

  bool          m_InputIsCoefficients{ false };
  bool          m_UseTextureInterpolation{ false };
  bool          m_TextureHalfFloat{ false };
  bool          m_MirrorPaddedCoefficients{ true };
  bool          m_CubicBSplinePerComponent{ false };
  SizeValueType m_MinimumVoxelsPerSlab{ static_cast<SizeValueType>(cif::kDefaultSlabVoxels) };

  /** The devices this update spreads over (see SetNumberOfDevices, SetDevices). */
  std::vector<int>
  DevicesForThisUpdate() const;

  /** The exact mode over several devices (host image in and out): the job's slabs
   * split into contiguous runs, one per device and host thread. */
  void
  SpreadOverDevices(const std::vector<int> &    devices,
                    const ScalarJob &           job,
                    const cif::TransformChain & hostChain,
                    bool                        chainOnDevice,
                    const std::vector<double> & mapped);
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCubicResampleGPUImageFilter.hxx"
#endif

#endif
