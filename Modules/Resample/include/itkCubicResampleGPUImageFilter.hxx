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
#ifndef itkCubicResampleGPUImageFilter_hxx
#define itkCubicResampleGPUImageFilter_hxx

#include "cifBSplinePrefilterDevice.h"
#include "cifBSplinePrefilterHost.h"
#include "cifDeviceBuffer.h"
#include "cifDeviceMemoryLimit.h"
#include "cifMirrorPadding.h"
#include "cifSlabPlan.h"
#include "cifSlabbedPrefilter.h"
#include "cifSlabReservation.h"
#include "cifSpreadPrefilter.h"
#include "cifSpreadResample.h"
#include "cifResampleDevice.h"
#include "cifResampleSlabs.h"
#include "cifTextureResampleDevice.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaTransformChain.h"
#include "itkCudaHostInputRegistration.h"
#include "itkCudaParallelFor.h"
#include "itkFilterStageProgress.h"
#include "cifDeviceThreads.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <vector>

namespace itk
{

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
bool
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  UsesModulePath() const
{
  if constexpr (ComponentsSupported)
  {
    return m_CubicBSplinePerComponent && const_cast<Self *>(this)->GetExtrapolator() == nullptr;
  }
  else if constexpr (!TypesSupported)
  {
    return false;
  }
  else
  {
    const auto * interpolator = this->GetInterpolator();
    unsigned int order = 0;
    if (const auto * d =
          dynamic_cast<const BSplineInterpolateImageFunction<TInputImage, TInterpolatorPrecisionType, double> *>(
            interpolator))
    {
      order = d->GetSplineOrder();
    }
    else if (const auto * f =
               dynamic_cast<const BSplineInterpolateImageFunction<TInputImage, TInterpolatorPrecisionType, float> *>(
                 interpolator))
    {
      order = f->GetSplineOrder();
    }
    return order == 3 && const_cast<Self *>(this)->GetExtrapolator() == nullptr;
  }
}

namespace CubicResampleDetail
{
/** When the pixels of \a input were last written through a CudaDeviceImage's data manager
 * (host writes through its non-const accessors, device writes), which need not
 * touch the image's MTime; 0 for other images. */
template <typename TImage>
ModifiedTimeType
PixelWriteTime(const TImage * input)
{
  if constexpr (CudaImageTraits<TImage>::IsCudaDeviceImage)
  {
    return input->GetDataManager()->GetMTime();
  }
  else
  {
    return 0;
  }
}

/** Geometry of output region \a outRegion and input region \a inRegion. */
template <unsigned int D, typename TInputImage, typename TOutputImage>
cif::ResampleGeometry
MakeGeometry(const TInputImage *                       input,
             const typename TInputImage::RegionType &  inRegion,
             const TOutputImage *                      output,
             const typename TOutputImage::RegionType & outRegion)
{
  cif::ResampleGeometry g;
  for (unsigned int a = 0; a < D; ++a)
  {
    g.outputSize[a] = static_cast<std::int64_t>(outRegion.GetSize()[a]);
    g.outputStart[a] = outRegion.GetIndex()[a];
    g.outputOrigin[a] = output->GetOrigin()[a];
    g.input.size[a] = static_cast<std::int64_t>(inRegion.GetSize()[a]);
    g.input.start[a] = inRegion.GetIndex()[a];
    g.inputOrigin[a] = input->GetOrigin()[a];
  }
  IndexToPointMatrix<D>(output, g.outputIndexToPoint);
  PointToIndexMatrix<D>(input, g.inputPointToIndex);
  g.lineStart = output->GetLargestPossibleRegion().GetIndex()[0];
  g.lineLength = static_cast<std::int64_t>(output->GetLargestPossibleRegion().GetSize()[0]);
  return g;
}

/** Geometry of the output's buffered region and the input's buffer. */
template <unsigned int D, typename TInputImage, typename TOutputImage>
cif::ResampleGeometry
MakeGeometry(const TInputImage * input, const TOutputImage * output)
{
  return MakeGeometry<D>(input, input->GetBufferedRegion(), output, output->GetBufferedRegion());
}

/** The input buffer's shape, for the prefilter. */
template <unsigned int D>
cif::BufferShape
InputShape(const cif::ResampleGeometry & g)
{
  cif::BufferShape shape;
  shape.dimension = D;
  for (unsigned int a = 0; a < D; ++a)
  {
    shape.size[a] = g.input.size[a];
  }
  return shape;
}

/** Runs body(row) for every row (line along the first axis) of the output grid. */
template <typename TFilter, typename TBody>
void
ForEachOutputRow(TFilter * filter, const cif::ResampleGeometry & g, TBody && body)
{
  CudaParallelFor(filter->GetMultiThreader(), g.OutputRows(), body);
}
/** Points of the transforms the device cannot evaluate: ITK maps every output point
 * (D doubles per output voxel), in parallel. */
template <unsigned int D, typename TFilter, typename TOutputImage, typename TTransform>
std::vector<double>
MapPointsOnHost(TFilter *                     filter,
                const cif::ResampleGeometry & g,
                const TOutputImage *          output,
                const TTransform *            transform)
{
  std::vector<double> mapped(D * static_cast<std::size_t>(g.OutputCount()), 0.0);
  ForEachOutputRow(filter, g, [&](std::int64_t row) {
    typename TOutputImage::IndexType index;
    std::int64_t                     rest = row;
    index[0] = g.outputStart[0];
    for (unsigned int a = 1; a < D; ++a) // rows run over axes 1.., axis 1 fastest
    {
      index[a] = g.outputStart[a] + rest % g.outputSize[a];
      rest /= g.outputSize[a];
    }
    for (std::int64_t x = 0; x < g.outputSize[0]; ++x)
    {
      index[0] = g.outputStart[0] + x;
      typename TOutputImage::PointType p;
      output->TransformIndexToPhysicalPoint(index, p);
      const auto q = transform->TransformPoint(p);
      const auto i = static_cast<std::size_t>(row * g.outputSize[0] + x);
      for (unsigned int a = 0; a < D; ++a)
      {
        mapped[D * i + a] = q[a];
      }
    }
  });
  return mapped;
}

/** The CPU path's evaluation of every output voxel from host coefficients, slab by
 * slab (cifResampleSlabs.h; \a afterSlab after each). \a mapped: D transformed
 * points per output voxel, or nullptr where \a hostChain maps them. */
template <unsigned int D, typename TC, typename TOut, typename TFilter>
void
ResampleOnHost(TFilter *                     filter,
               const TC *                    coefficients,
               const cif::ResampleGeometry & whole,
               const cif::ResampleSlabs &    slabs,
               const cif::TransformChain &   hostChain,
               const double *                mapped,
               bool                          linearRows,
               TOut                          defaultValue,
               TOut *                        out,
               const cif::StageCallback &    afterSlab)
{
  for (std::int64_t slab = 0; slab < slabs.count; ++slab)
  {
    const cif::ResampleGeometry g = cif::SlabGeometry(whole, slabs, slab);
    const std::int64_t          first = cif::SlabFirstVoxel(slabs, slab);
    ForEachOutputRow(filter, g, [&](std::int64_t row) {
      double start[cif::kMaxDimension], end[cif::kMaxDimension];
      if (linearRows)
      {
        cif::RowEndpoints<static_cast<int>(D)>(g, hostChain, row, start, end);
      }
      for (std::int64_t x = 0; x < g.outputSize[0]; ++x)
      {
        const std::int64_t i = row * g.outputSize[0] + x; // within the slab
        out[first + i] =
          linearRows
            ? cif::ResampleVoxelOnRow<static_cast<int>(D), TC, TOut>(coefficients, g, start, end, x, defaultValue)
            : cif::ResampleVoxel<static_cast<int>(D), TC, TOut>(
                coefficients, g, hostChain, mapped ? mapped + D * (first + i) : nullptr, i, defaultValue);
      }
    });
    cif::StageDone(afterSlab);
  }
}

/** Progress stages of one scalar image (or of one component): its samples on the
 * device or converted on the host, one prefilter pass per axis (unless the input
 * holds coefficients), the slabs, and on the GPU path the download (for components,
 * on either path, the copy into the interleaved output). */
inline unsigned int
ResampleStages(unsigned int dimension, bool prefilter, const cif::ResampleSlabs & slabs, bool outputStage)
{
  return 1 + (prefilter ? dimension : 0) + static_cast<unsigned int>(slabs.count) + (outputStage ? 1 : 0);
}
} // namespace CubicResampleDetail

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
auto
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  CheckInputAndTransform() const -> const TransformForModule *
{
  const TInputImage * input = this->GetInput();
  if (input == nullptr || input->GetBufferedRegion().GetNumberOfPixels() == 0)
  {
    itkExceptionMacro("the input image is empty");
  }
  const auto * transform = dynamic_cast<const TransformForModule *>(this->GetTransform());
  if (transform == nullptr)
  {
    itkExceptionMacro("no transform set");
  }
  return transform;
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  GenerateInputRequestedRegion()
{
  if (!this->UsesModulePath())
  {
    Superclass::GenerateInputRequestedRegion();
    return;
  }
  auto * input = const_cast<TInputImage *>(this->GetInput());
  if (input == nullptr)
  {
    return;
  }
  // Samples are prefiltered, and the prefilter is global: the whole input. Given
  // coefficients, a linear transform reads only the box its output region maps into
  // (cif::InputBoxOfRegion), and evaluating against that box gives the bits of the
  // whole input (the box's edges are the input's wherever a support reaches them):
  // an upstream filter that streams computes only the box. (The texture mode keeps
  // to the whole input: its texture is cached per input.)
  constexpr unsigned int D = ImageDimension;
  const auto *           transform = dynamic_cast<const TransformForModule *>(this->GetTransform());
  if (m_InputIsCoefficients && !m_UseTextureInterpolation && transform != nullptr &&
      transform->GetTransformCategory() == Transform<double, D, D>::TransformCategoryEnum::Linear)
  {
    CudaTransformChain<D> chain(transform);
    const TOutputImage *  output = this->GetOutput();
    if (chain.IsDeviceEvaluable() && output->GetRequestedRegion().GetNumberOfPixels() > 0)
    {
      const cif::ResampleGeometry g = CubicResampleDetail::MakeGeometry<D>(
        input, input->GetLargestPossibleRegion(), output, output->GetRequestedRegion());
      const cif::CoefficientGrid       box = cif::InputBoxOfRegion<static_cast<int>(D)>(g, chain.HostChain());
      typename TInputImage::RegionType region;
      for (unsigned int a = 0; a < D; ++a)
      {
        region.SetIndex(a, box.start[a]);
        region.SetSize(a, static_cast<SizeValueType>(box.size[a]));
      }
      input->SetRequestedRegion(region);
      return;
    }
  }
  input->SetRequestedRegionToLargestPossibleRegion();
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  GenerateData()
{
  if (!this->UsesModulePath())
  {
    Superclass::GenerateData();
    this->SetLastExecutionPath(ExecutionPath::ITK);
    return;
  }
  if constexpr (ComponentsSupported)
  {
    this->ResampleEachComponent();
  }
  else if constexpr (TypesSupported)
  {
    const auto * transform = this->CheckInputAndTransform();
    this->PrepareHostOutput(this->GetOutput());
    this->AllocateOutputs();
    try
    {
      CudaTransformChain<ImageDimension> chain(transform);
      const ScalarJob                    job = this->PlanScalarJob(chain);
      if (!job.useTextures)
      {
        m_TextureCache = TextureCache{}; // the mode is off (or on the CPU): give its memory back
      }
      if (this->TakesSlabbedPath(job, chain))
      {
        this->ResampleInSlabs(job, chain, transform); // larger than the device, or than the memory limit
      }
      else
      {
        FilterStageProgress progress(
          this,
          (job.mapsOnHost ? 1 : 0) +
            CubicResampleDetail::ResampleStages(ImageDimension, !m_InputIsCoefficients, job.slabs, job.onGPU));
        // Transforms the device cannot evaluate: ITK maps every output point here.
        const std::vector<double> mapped =
          job.mapsOnHost
            ? CubicResampleDetail::MapPointsOnHost<ImageDimension>(this, job.g, this->GetOutput(), transform)
            : std::vector<double>{};
        if (job.mapsOnHost)
        {
          progress.Completed();
        }
        const std::vector<int> devices = this->DevicesToSpreadOver(job);
        if (devices.size() > 1)
        {
          this->ResampleOnSeveralDevices(devices, job, chain, mapped, progress);
        }
        else if (job.useTextures)
        {
          this->ResampleWithTexture(job, chain, mapped, progress);
        }
        else if (job.onGPU)
        {
          this->ResampleExactOnDevice(job, chain, mapped, progress);
        }
        else
        {
          this->ResampleExactOnHost(job, chain, mapped, progress);
        }
      }
      if (job.lastPiece || !job.keepCoefficients)
      {
        m_CoefficientCache = CoefficientCache{}; // kept only between the pieces of a streamed output
      }
    }
    catch (...)
    {
      m_CoefficientCache = CoefficientCache{};
      m_TextureCache = TextureCache{};
      this->GetOutput()->Initialize(); // no half-resampled image is left behind
      throw;
    }
  }
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
auto
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  PlanScalarJob(const CudaTransformChain<ImageDimension> & chain) const -> ScalarJob
{
  constexpr unsigned int D = ImageDimension;
  const TInputImage *    input = this->GetInput();
  const TOutputImage *   output = this->GetOutput();
  const auto *           transform = this->GetTransform();
  ScalarJob              job;
  job.g = CubicResampleDetail::MakeGeometry<D>(input, output);
  job.defaultValue = static_cast<OutputComponentType>(this->GetDefaultPixelValue());
  // ResampleImageFilter's own test for its scanline-interpolating linear path.
  job.linearRows = chain.IsDeviceEvaluable() &&
                   transform->GetTransformCategory() == Transform<double, D, D>::TransformCategoryEnum::Linear;
  job.mapsOnHost = !chain.IsDeviceEvaluable();
  job.inputCount = static_cast<std::int64_t>(input->GetBufferedRegion().GetNumberOfPixels());
  job.outputCount = job.g.OutputCount();
  job.shape = CubicResampleDetail::InputShape<D>(job.g);
  cif::MakeSplinePoles(3, job.poles);
  job.onGPU = this->RunsOnGPU();
  constexpr bool texturesExist = std::is_same_v<CoefficientType, float> && D <= 3; // 4-D: exact mode always
  job.useTextures = job.onGPU && texturesExist && m_UseTextureInterpolation;
  job.texels = m_TextureHalfFloat ? cif::TextureTexels::Half : cif::TextureTexels::Float;
  // The texture mode runs in one piece.
  job.slabs =
    job.useTextures ? cif::ResampleSlabs{} : cif::PlanResampleSlabs(job.g, static_cast<int>(D), m_MinimumVoxelsPerSlab);
  // Pieces of a streamed output (StreamingImageFilter, a streaming writer) keep the
  // whole input's coefficients for the next piece (see CoefficientsCached).
  const auto & largest = output->GetLargestPossibleRegion();
  const auto & piece = output->GetBufferedRegion();
  job.keepCoefficients = piece != largest;
  job.lastPiece = true;
  for (unsigned int a = 0; a < D; ++a)
  {
    job.lastPiece = job.lastPiece && piece.GetUpperIndex()[a] == largest.GetUpperIndex()[a];
  }
  return job;
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
std::vector<int>
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  DevicesToSpreadOver(const ScalarJob & job) const
{
  // Several GPUs: host images in and out, exact mode, a whole output of several slabs
  // at once. Otherwise (one visible device among them) none: the one-device path.
  constexpr bool hostImages =
    !CudaImageTraits<TInputImage>::IsCudaDeviceImage && !CudaImageTraits<TOutputImage>::IsCudaDeviceImage;
  const std::vector<int> devices = job.onGPU && hostImages && !job.useTextures && !job.keepCoefficients
                                     ? this->DevicesForThisUpdate()
                                     : std::vector<int>{};
  if (devices.size() > 1 && job.slabs.count > 1 && cif::SlabRunsTakeTheWholeOutputsKernels(job.g))
  {
    return devices;
  }
  return {};
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
auto
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  CoefficientsOnDevice(const ScalarJob &     job,
                       bool                  textureReady,
                       std::size_t           mappedBytes,
                       FilterStageProgress & progress) -> DeviceCoefficients
{
  DeviceCoefficients result;
  if constexpr (TypesSupported)
  {
    constexpr unsigned int D = ImageDimension;
    using TC = CoefficientType;
    using TIn = InputComponentType;
    const TInputImage * input = this->GetInput();
    constexpr bool      inputIsCuda = CudaImageTraits<TInputImage>::IsCudaDeviceImage;
    const std::int64_t  inputCount = job.inputCount;
    // Where the input's scalars are the coefficients' type, no conversion pass: the
    // prefilter's first pass reads the samples where they lie (uploaded straight into
    // the coefficients, or a CudaDeviceImage's own device buffer), and a CudaDeviceImage of
    // coefficients is interpolated in place.
    constexpr bool sameType = std::is_same_v<TIn, TC>;
    const bool     borrowsInput = inputIsCuda && sameType && m_InputIsCoefficients;
    constexpr bool needsStaging = !inputIsCuda && !sameType;
    // With the texture of this input already built, no coefficients are needed at all.
    const bool cached = !textureReady && !borrowsInput && this->CoefficientsCached(true);
    const bool ownsCoefficients = !textureReady && !borrowsInput && !cached;
    result.owned = ownsCoefficients;
    const std::size_t needed =
      inputCount * ((ownsCoefficients ? sizeof(TC) : 0) + (needsStaging && ownsCoefficients ? sizeof(TIn) : 0)) +
      (job.useTextures && !textureReady ? cif::CoefficientTexture::BuildBytes(D, job.g.input, job.texels) : 0) +
      mappedBytes + job.outputCount * sizeof(OutputComponentType);
    std::ostringstream what;
    what << "cubic resampling of a " << inputCount << "-voxel image into " << job.outputCount << " voxels";
    cif::RequireDeviceMemory(needed, what.str());
    // Coefficients it filters itself are mirror-padded where they fit
    // (cifMirrorPadding.h: every voxel then reads its support without ITK's mirror
    // arithmetic, the same bits), in the memory budget: the padded buffer on top of
    // the dense one that the samples are uploaded or converted into, which goes after
    // the prefilter. The prefilter writes the layout at no extra cost; host
    // coefficients (InputIsCoefficients) would need a copy of their own (0.64 ms at
    // 512^3 on an H100, more than the padding saves), so they stay dense.
    const std::size_t paddedBytes =
      static_cast<std::size_t>(cif::MirrorPaddedCount<static_cast<int>(D)>(job.g.input)) * sizeof(TC);
    const bool padCoefficients = m_MirrorPaddedCoefficients && ownsCoefficients && !m_InputIsCoefficients &&
                                 !job.useTextures && cif::MirrorPaddingFits32<static_cast<int>(D)>(job.g.input) &&
                                 needed + paddedBytes <= cif::GetDeviceMemoryBudget(true);

    cif::DeviceBuffer staging;
    const TIn *       source = nullptr;
    if constexpr (inputIsCuda)
    {
      source = static_cast<const TIn *>(input->GetDeviceBufferForReading());
    }
    if constexpr (sameType)
    {
      if (borrowsInput)
      {
        result.data = source;
      }
    }
    if (textureReady || cached)
    {
      if (cached)
      {
        result.data = m_CoefficientCache.device.template As<const TC>();
        result.mirrorPadded = m_CoefficientCache.mirrorPadded;
      }
      progress.Completed();
      for (unsigned int a = 0; a < (m_InputIsCoefficients ? 0u : D); ++a)
      {
        progress.Completed();
      }
    }
    else if (ownsCoefficients)
    {
      // The input's values as TC on the device (dense): uploaded or converted into
      // own, or a CudaDeviceImage's own buffer where its type is TC.
      constexpr bool inputReadInPlace = inputIsCuda && sameType;
      TC *           own = nullptr;
      if (!inputReadInPlace || !padCoefficients)
      {
        result.own.Allocate(inputCount * sizeof(TC));
        own = result.own.template As<TC>();
      }
      const TC * dense = own;
      if constexpr (!inputIsCuda && sameType)
      {
        NoteHostInputUpload(input->GetPixelContainer());
        result.own.Upload(input->GetBufferPointer(), inputCount * sizeof(TC));
      }
      else if constexpr (needsStaging)
      {
        staging.Allocate(inputCount * sizeof(TIn));
        NoteHostInputUpload(input->GetPixelContainer());
        staging.Upload(input->GetBufferPointer(), inputCount * sizeof(TIn));
        source = staging.As<TIn>();
      }
      if constexpr (inputReadInPlace)
      {
        dense = source;
      }
      else if constexpr (!sameType)
      {
        cif::ConvertOnDevice<TIn, TC>(source, own, inputCount);
      }
      progress.CompletedOnDevice();
      if (padCoefficients)
      {
        // Into the padded buffer, which takes own's place (own goes back to the pool
        // after the passes, in stream order).
        cif::DeviceBuffer padded(paddedBytes);
        cif::PrefilterIntoLayoutOnDevice<TC>(dense,
                                             padded.As<TC>(),
                                             cif::MirrorPaddedLayout<static_cast<int>(D)>(job.g.input),
                                             job.shape,
                                             job.poles,
                                             cif::BoundaryMode::Mirror,
                                             progress.DeviceCallback());
        cif::FillMirrorHaloOnDevice<static_cast<int>(D), TC>(padded.As<TC>(), job.g.input);
        result.own = std::move(padded);
        result.mirrorPadded = true;
      }
      else if (!m_InputIsCoefficients) // else a host input of coefficients, uploaded: no passes
      {
        cif::PrefilterOnDevice<TC>(
          dense, own, job.shape, job.poles, cif::BoundaryMode::Mirror, progress.DeviceCallback());
      }
      result.data = result.own.template As<TC>();
    }
    else
    {
      progress.Completed(); // the input's own device buffer holds the coefficients
    }
    // No wait here: the staging buffer's release is ordered after the prefilter on
    // the stream (cifDeviceMemoryPool.h).
  }
  return result;
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  PrepareOutputOnDevice(const ScalarJob & job, DeviceOutput & out)
{
  TOutputImage * output = this->GetOutput();
  if constexpr (CudaImageTraits<TOutputImage>::IsCudaDeviceImage)
  {
    out.data = static_cast<OutputComponentType *>(output->GetDeviceBufferForWriting(false));
  }
  else
  {
    const std::size_t bytes = static_cast<std::size_t>(job.outputCount) * sizeof(OutputComponentType);
    out.scratch.Allocate(bytes);
    out.data = out.scratch.template As<OutputComponentType>();
    // Downloaded slab by slab while the next slab computes (when its memory is
    // pinned: see PrepareHostOutput), else at once after the last.
    out.download.emplace(output->GetBufferPointer(), out.data, bytes);
  }
}

namespace CubicResampleDetail
{
/** \a mapped (D doubles per output voxel, or none) on the device. */
inline cif::DeviceBuffer
UploadMappedPoints(const std::vector<double> & mapped)
{
  cif::DeviceBuffer onDevice;
  if (!mapped.empty())
  {
    onDevice.Allocate(mapped.size() * sizeof(double));
    onDevice.Upload(mapped.data(), mapped.size() * sizeof(double));
  }
  return onDevice;
}
} // namespace CubicResampleDetail

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  ResampleWithTexture(const ScalarJob &                    job,
                      CudaTransformChain<ImageDimension> & chain,
                      const std::vector<double> &          mapped,
                      FilterStageProgress &                progress)
{
  constexpr unsigned int D = ImageDimension;
  if constexpr (TypesSupported && std::is_same_v<CoefficientType, float> && D <= 3)
  {
    CIF_ITK_TRY_CUDA([&] {
      const TInputImage * input = this->GetInput();
      // Built for this input already: no coefficients, no upload.
      const bool textureReady = this->TextureCached(job.texels);
      if (!textureReady)
      {
        m_TextureCache = TextureCache{}; // a stale texture: free it before the new one's memory is counted
      }
      DeviceCoefficients coefficients =
        this->CoefficientsOnDevice(job, textureReady, mapped.size() * sizeof(double), progress);
      const cif::DeviceBuffer mappedOnDevice = CubicResampleDetail::UploadMappedPoints(mapped);
      DeviceOutput            out;
      this->PrepareOutputOnDevice(job, out);
      const cif::TransformChain & deviceChain = chain.IsDeviceEvaluable() ? chain.DeviceChain() : chain.HostChain();
      if (!textureReady)
      {
        m_TextureCache.texture.Build(static_cast<int>(D), coefficients.data, job.g.input, job.texels);
        m_TextureCache.input = input;
        m_TextureCache.inputTime = input->GetMTime();
        m_TextureCache.pixelWriteTime = CubicResampleDetail::PixelWriteTime(input);
        m_TextureCache.region = input->GetBufferedRegion();
        m_TextureCache.inputIsCoefficients = m_InputIsCoefficients;
        coefficients.own.Release(); // the texture holds them now
      }
      cif::ResampleWithTextureOnDevice<static_cast<int>(D), OutputComponentType>(m_TextureCache.texture,
                                                                                 job.g,
                                                                                 deviceChain,
                                                                                 mappedOnDevice.As<const double>(),
                                                                                 job.linearRows,
                                                                                 job.defaultValue,
                                                                                 out.data);
      progress.CompletedOnDevice();
      this->FinishOnDevice(out, progress);
    });
    this->SetLastExecutionPath(ExecutionPath::GPU);
  }
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  ResampleExactOnDevice(const ScalarJob &                    job,
                        CudaTransformChain<ImageDimension> & chain,
                        const std::vector<double> &          mapped,
                        FilterStageProgress &                progress)
{
  if constexpr (TypesSupported)
  {
    constexpr unsigned int D = ImageDimension;
    using TC = CoefficientType;
    using TOut = OutputComponentType;
    CIF_ITK_TRY_CUDA([&] {
      DeviceCoefficients coefficients =
        this->CoefficientsOnDevice(job, false, mapped.size() * sizeof(double), progress);
      const cif::DeviceBuffer mappedOnDevice = CubicResampleDetail::UploadMappedPoints(mapped);
      DeviceOutput            out;
      this->PrepareOutputOnDevice(job, out);
      const cif::TransformChain & deviceChain = chain.IsDeviceEvaluable() ? chain.DeviceChain() : chain.HostChain();
      if (coefficients.owned && job.keepCoefficients)
      {
        // A piece of a streamed output: the next pieces read these coefficients.
        this->KeepCoefficients(std::move(coefficients.own), coefficients.mirrorPadded);
        coefficients.data = m_CoefficientCache.device.template As<const TC>();
      }
      cif::ResampleGeometry stored = job.g;
      stored.inputMirrorPadded = coefficients.mirrorPadded;
      cif::ResampleOnDevice<static_cast<int>(D), TC, TOut>(
        coefficients.data,
        stored,
        deviceChain,
        mappedOnDevice.As<const double>(),
        job.linearRows,
        job.defaultValue,
        out.data,
        job.slabs,
        out.download ? cif::DownloadEachSlab(*out.download, job.g, job.slabs, sizeof(TOut), progress.DeviceCallback())
                     : progress.DeviceCallback());
      this->FinishOnDevice(out, progress);
    });
    this->SetLastExecutionPath(ExecutionPath::GPU);
  }
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  FinishOnDevice(DeviceOutput & out, FilterStageProgress & progress)
{
  if (out.download)
  {
    out.download->Finish();
  }
  else
  {
    cif::Synchronize();
  }
  progress.Completed();
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  ResampleExactOnHost(const ScalarJob &                    job,
                      CudaTransformChain<ImageDimension> & chain,
                      const std::vector<double> &          mapped,
                      FilterStageProgress &                progress)
{
  if constexpr (TypesSupported)
  {
    using TC = CoefficientType;
    const TC * coefficients = this->template HostCoefficients<TC>(job.shape, job.poles, progress, false);
    CubicResampleDetail::ResampleOnHost<ImageDimension>(
      this,
      coefficients,
      job.g,
      job.slabs,
      chain.HostChain(),
      mapped.empty() ? nullptr : mapped.data(),
      job.linearRows,
      job.defaultValue,
      reinterpret_cast<OutputComponentType *>(this->GetOutput()->GetBufferPointer()),
      progress.HostCallback());
    this->SetLastExecutionPath(ExecutionPath::CPU);
  }
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
bool
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  CoefficientsCached(bool onDevice) const
{
  const TInputImage * input = this->GetInput();
  const auto &        c = m_CoefficientCache;
  return c.input == input && c.inputTime == input->GetMTime() && c.filterTime == this->GetMTime() &&
         c.region == input->GetBufferedRegion() && c.inputIsCoefficients == m_InputIsCoefficients &&
         (onDevice ? c.device.Bytes() > 0 : c.host != nullptr);
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
bool
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  TextureCached(cif::TextureTexels texels) const
{
  const TInputImage * input = this->GetInput();
  const auto &        c = m_TextureCache;
  // The device too: a texture object is only valid on the device that made it.
  return c.input == input && c.inputTime == input->GetMTime() &&
         c.pixelWriteTime == CubicResampleDetail::PixelWriteTime(input) && c.region == input->GetBufferedRegion() &&
         c.inputIsCoefficients == m_InputIsCoefficients && c.texture.Texels() == texels && c.texture.OnCurrentDevice();
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  StampCoefficientCache()
{
  const TInputImage * input = this->GetInput();
  m_CoefficientCache.input = input;
  m_CoefficientCache.inputTime = input->GetMTime();
  m_CoefficientCache.filterTime = this->GetMTime();
  m_CoefficientCache.region = input->GetBufferedRegion();
  m_CoefficientCache.inputIsCoefficients = m_InputIsCoefficients;
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  KeepCoefficients(cif::DeviceBuffer && coefficients, bool mirrorPadded)
{
  m_CoefficientCache = CoefficientCache{};
  m_CoefficientCache.device = std::move(coefficients);
  m_CoefficientCache.mirrorPadded = mirrorPadded;
  this->StampCoefficientCache();
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
template <typename TC>
const TC *
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  HostCoefficients(const cif::BufferShape & shape,
                   const cif::SplinePoles & poles,
                   FilterStageProgress &    progress,
                   bool                     prefilterOnDevice)
{
  if constexpr (TypesSupported)
  {
    const unsigned int D = ImageDimension;
    if (this->CoefficientsCached(false))
    {
      for (unsigned int stage = 0; stage < 1 + (m_InputIsCoefficients ? 0 : D); ++stage)
      {
        progress.Completed();
      }
      return reinterpret_cast<const TC *>(m_CoefficientCache.host.get());
    }
    using TIn = InputComponentType;
    m_CoefficientCache = CoefficientCache{};
    const std::int64_t count = shape.ScalarCount();
    // A volume larger than the device can be tens of GiB: a work area of huge pages,
    // not zeroed (cifHostWorkArea.h), first touched by the parallel conversion below
    // or, for an input of the coefficients' type prefiltered on the device, by the
    // prefilter's first phase, which reads its slabs from the input itself (one pass
    // over fresh memory instead of two: 4.7 s of a 2048^3 run went to the copy).
    cif::HostWorkArea<char> storage = cif::AllocateHostWorkArea<char>(static_cast<std::size_t>(count) * sizeof(TC));
    TC *                    coefficients = reinterpret_cast<TC *>(storage.get());
    const auto *            source = reinterpret_cast<const TIn *>(this->GetInput()->GetBufferPointer());
    const TC *              samplesFromInput = nullptr;
    if constexpr (std::is_same_v<TIn, TC>)
    {
      if (prefilterOnDevice && !m_InputIsCoefficients)
      {
        samplesFromInput = source;
      }
    }
    if (samplesFromInput == nullptr)
    {
      CudaParallelConvert(this->GetMultiThreader(), source, coefficients, count);
    }
    progress.Completed();
    if (!m_InputIsCoefficients)
    {
      std::ostringstream what;
      what << "the B-spline prefilter of a " << count << "-voxel image";
      auto parallelFor = MakeParallelFor(this->GetMultiThreader());
      if (prefilterOnDevice)
      {
        CIF_ITK_TRY_CUDA([&] {
          cif::DeviceSlabExecutor<TC> executor(poles, cif::BoundaryMode::Mirror);
          const auto                  plan =
            cif::PlanAndReserveSlabs(shape, sizeof(TC), cif::GetDeviceMemoryBudget(true), what.str(), executor);
          cif::RunSlabbedPrefilter(
            coefficients, shape, plan, executor, progress.HostCallback(), parallelFor, samplesFromInput);
        });
      }
      else
      {
        cif::SlabbedPrefilterPlan plan;
        if (cif::GetDeviceMemoryLimit() != 0)
        {
          CIF_ITK_TRY_CUDA([&] {
            plan = cif::PlanSlabbedPrefilter(shape, sizeof(TC), cif::GetDeviceMemoryBudget(false), what.str());
          });
        }
        if (plan.whole)
        {
          cif::PrefilterOnHost(
            coefficients, shape, poles, cif::BoundaryMode::Mirror, parallelFor, progress.HostCallback());
        }
        else
        {
          auto filterLeading =
            [&poles,
             parallelFor](TC * data, const cif::BufferShape & slab, int axisEnd, const cif::StageCallback & afterAxis) {
              cif::PrefilterLeadingAxesOnHost(
                data, slab, axisEnd, poles, cif::BoundaryMode::Mirror, parallelFor, afterAxis);
            };
          cif::HostSlabExecutor<TC, decltype(filterLeading)> executor(filterLeading);
          cif::RunSlabbedPrefilter(coefficients, shape, plan, executor, progress.HostCallback(), parallelFor);
        }
      }
    }
    m_CoefficientCache.host = std::move(storage);
    this->StampCoefficientCache();
    return reinterpret_cast<const TC *>(m_CoefficientCache.host.get());
  }
  else
  {
    return nullptr;
  }
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
bool
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  TakesSlabbedPath(const ScalarJob & job, const CudaTransformChain<ImageDimension> & chain) const
{
  if constexpr (TypesSupported && !CudaImageTraits<TInputImage>::IsCudaDeviceImage &&
                !CudaImageTraits<TOutputImage>::IsCudaDeviceImage)
  {
    // The transform's own device arrays (B-spline coefficients, fields) count too.
    const std::size_t oneShot =
      static_cast<std::size_t>(job.inputCount) *
        (sizeof(CoefficientType) +
         (std::is_same_v<InputComponentType, CoefficientType> ? 0 : sizeof(InputComponentType))) +
      static_cast<std::size_t>(job.outputCount) *
        (sizeof(OutputComponentType) + (job.mapsOnHost ? ImageDimension * sizeof(double) : 0)) +
      (job.mapsOnHost ? 0 : CudaTransformChain<ImageDimension>::DeviceBytes(chain.HostChain()));
    if (job.onGPU)
    {
      return !job.useTextures && oneShot > cif::GetDeviceMemoryBudget(true);
    }
    return cif::GetDeviceMemoryLimit() != 0 && oneShot > cif::GetDeviceMemoryLimit();
  }
  else
  {
    (void)job;
    (void)chain;
    return false;
  }
}

namespace CubicResampleDetail
{
/** What ResampleInSlabs plans with, in bytes: per output plane (its output values,
 * and its mapped points where ITK maps them), the whole input's coefficients (what a
 * transform that is not linear reads), one coefficient, and the transform's own
 * device arrays (B-spline coefficients, fields: the filter's scratch, set aside
 * before any slab). */
struct SlabbedSizes
{
  std::size_t perPlane = 0;
  std::size_t wholeInput = 0;
  std::size_t coefficient = 0;
  std::size_t transform = 0;
};

/** The largest input box, in voxels, that a slab of \a slabs reads through the linear
 * \a chain. */
template <unsigned int D>
std::int64_t
LargestInputBox(const cif::ResampleGeometry & g, const cif::ResampleSlabs & slabs, const cif::TransformChain & chain)
{
  std::int64_t largest = 0;
  for (std::int64_t s = 0; s < slabs.count; ++s)
  {
    largest = std::max(
      largest, cif::GridCount(cif::InputBoxOfRegion<static_cast<int>(D)>(cif::SlabGeometry(g, slabs, s), chain), D));
  }
  return largest;
}

/** The device bytes of \a slabs: fixed (the transform's arrays, and unless \a linear
 * the whole input's coefficients) and those of the largest slab (its output and
 * mapped points, and for \a linear the largest input box). */
template <unsigned int D>
cif::PlannedBytes
SlabbedBytes(const cif::ResampleGeometry & g,
             const cif::ResampleSlabs &    slabs,
             const cif::TransformChain &   chain,
             bool                          linear,
             const SlabbedSizes &          sizes)
{
  cif::PlannedBytes bytes;
  bytes.fixedBytes = sizes.transform + (linear ? 0 : sizes.wholeInput);
  bytes.slabBytes = sizes.perPlane * static_cast<std::size_t>(slabs.planesPerSlab) +
                    (linear ? static_cast<std::size_t>(LargestInputBox<D>(g, slabs, chain)) * sizes.coefficient : 0);
  return bytes;
}

/** The output of \a g in slabs of its slowest axis that fit \a budget, each with its
 * output (and mapped points) and the input it reads: for a \a linear chain the box
 * its slab maps into (the slabs halved until every slab's output and box fit), else
 * the whole coefficients. Throws CudaOutOfMemory, naming \a what and the sizes,
 * where one output plane does not fit with what it reads. */
template <unsigned int D>
cif::ResampleSlabs
PlanOutputSlabs(const cif::ResampleGeometry & g,
                const cif::TransformChain &   chain,
                bool                          linear,
                const SlabbedSizes &          sizes,
                std::size_t                   budget,
                const std::string &           what)
{
  const int          axis = static_cast<int>(D) - 1;
  const std::int64_t planes = g.outputSize[axis];
  cif::ResampleSlabs slabs;
  slabs.axis = axis;
  slabs.voxelsPerPlane = g.OutputCount() / planes;
  if (!linear)
  {
    const cif::SlabPlan plan = cif::PlanSlabs(planes,
                                              sizes.perPlane,
                                              sizes.wholeInput + sizes.transform,
                                              budget,
                                              what + " (the whole input's coefficients: the transform is not linear)");
    slabs.planesPerSlab = plan.unitsPerSlab;
    slabs.count = plan.count;
    return slabs;
  }
  std::int64_t per = cif::PlanSlabs(planes, sizes.perPlane, 0, budget / 2 > 0 ? budget / 2 : 1, what).unitsPerSlab;
  for (;;)
  {
    slabs.planesPerSlab = per;
    slabs.count = (planes + per - 1) / per;
    const std::size_t box = static_cast<std::size_t>(LargestInputBox<D>(g, slabs, chain)) * sizes.coefficient;
    if (sizes.perPlane * static_cast<std::size_t>(per) + box + sizes.transform <= budget)
    {
      return slabs;
    }
    if (per == 1)
    {
      cif::PlanSlabs(
        1, sizes.perPlane, box + sizes.transform, budget, what + " (one output plane and the input box it reads)");
    }
    per = (per + 1) / 2;
  }
}

/** Calls \a stageDone as many times as the stages of the \a planned slabs that are
 * done once \a doneUnits of \a units are (a plan cut finer after a failed
 * reservation reports the first plan's stages, in proportion), from \a reported. */
template <typename TStageDone>
void
ReportInProportion(std::int64_t   doneUnits,
                   std::int64_t   units,
                   std::int64_t   plannedUnits,
                   std::int64_t & reported,
                   TStageDone &&  stageDone)
{
  for (const std::int64_t due = doneUnits * plannedUnits / units; reported < due; ++reported)
  {
    stageDone();
  }
}
} // namespace CubicResampleDetail

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  ResampleInSlabs(const ScalarJob &                    job,
                  CudaTransformChain<ImageDimension> & chain,
                  const TransformForModule *           transform)
{
  if constexpr (TypesSupported)
  {
    constexpr unsigned int D = ImageDimension;
    using TC = CoefficientType;
    using TOut = OutputComponentType;
    const cif::ResampleGeometry & g = job.g;
    const bool                    linearRows = job.linearRows;
    const bool                    onGPU = job.onGPU;
    const bool                    mapsOnHost = job.mapsOnHost;
    TOutputImage *                output = this->GetOutput();
    const std::int64_t            inputCount = cif::GridCount(g.input, D);

    // The output's slabs: planes of its slowest axis, each with its output (and
    // mapped points) and the input it reads (a box for a linear transform, else the
    // whole coefficients), within the budget, which leaves room for what the driver
    // takes at a launch (GetDeviceMemoryBudget) and for the transform's own arrays.
    // Planned before the prefilter, so that a job that cannot fit fails before any work.
    CubicResampleDetail::SlabbedSizes sizes;
    sizes.perPlane = static_cast<std::size_t>(g.OutputCount() / g.outputSize[D - 1]) *
                     (sizeof(TOut) + (mapsOnHost ? D * sizeof(double) : 0));
    sizes.wholeInput = static_cast<std::size_t>(inputCount) * sizeof(TC);
    sizes.coefficient = sizeof(TC);
    sizes.transform = mapsOnHost ? 0 : CudaTransformChain<D>::DeviceBytes(chain.HostChain());
    const std::size_t  budget = cif::GetDeviceMemoryBudget(onGPU);
    std::ostringstream what;
    what << "cubic resampling of a " << inputCount << "-voxel image into " << g.OutputCount() << " voxels";
    const auto plan = [&](std::size_t within) {
      return CubicResampleDetail::PlanOutputSlabs<D>(g, chain.HostChain(), linearRows, sizes, within, what.str());
    };
    cif::ResampleSlabs planned;
    CIF_ITK_TRY_CUDA([&] { planned = plan(budget); });

    const unsigned int  stagesPerSlab = mapsOnHost ? 2 : 1;
    FilterStageProgress progress(
      this, (m_InputIsCoefficients ? 1 : 1 + D) + stagesPerSlab * static_cast<unsigned int>(planned.count));
    const TC * coefficients = this->template HostCoefficients<TC>(job.shape, job.poles, progress, onGPU);
    TOut *     out = reinterpret_cast<TOut *>(output->GetBufferPointer());

    // On the device, the buffers of the largest slab are reserved before any slab
    // runs; one that fails although the plan fits the budget is planned again finer,
    // down to one plane (cifSlabReservation.h).
    cif::ResampleSlabs slabs = planned;
    cif::DeviceBuffer  deviceCoefficients, deviceMapped, deviceOut;
    if (onGPU)
    {
      CIF_ITK_TRY_CUDA([&] {
        slabs = cif::PlanAndReserve(
          budget,
          plan,
          [&](const cif::ResampleSlabs & s) {
            return CubicResampleDetail::SlabbedBytes<D>(g, s, chain.HostChain(), linearRows, sizes);
          },
          [&](const cif::ResampleSlabs & s) {
            try
            {
              if (!mapsOnHost)
              {
                chain.DeviceChain();
              }
              const std::size_t slabVoxels = static_cast<std::size_t>(s.planesPerSlab * s.voxelsPerPlane);
              deviceCoefficients.Allocate(linearRows ? static_cast<std::size_t>(CubicResampleDetail::LargestInputBox<D>(
                                                         g, s, chain.HostChain())) *
                                                         sizeof(TC)
                                                     : sizes.wholeInput);
              deviceMapped.Allocate(mapsOnHost ? slabVoxels * D * sizeof(double) : 0);
              deviceOut.Allocate(slabVoxels * sizeof(TOut));
            }
            catch (...)
            {
              deviceCoefficients.Release();
              deviceMapped.Release();
              deviceOut.Release();
              throw;
            }
          });
        if (!linearRows)
        {
          deviceCoefficients.Upload(coefficients, sizes.wholeInput);
        }
      });
    }

    // One host buffer for every slab's input box, the largest (the boxes of a rotation
    // span most of the input: gigabytes; cifHostWorkArea.h), filled row by row on the
    // filter's threads.
    auto                  parallelFor = MakeParallelFor(this->GetMultiThreader());
    cif::HostWorkArea<TC> box;
    if (linearRows)
    {
      box = cif::AllocateHostWorkArea<TC>(
        static_cast<std::size_t>(CubicResampleDetail::LargestInputBox<D>(g, slabs, chain.HostChain())));
    }
    std::int64_t reported = 0;
    const auto   stageDone = [&progress] { progress.Completed(); };
    for (std::int64_t s = 0; s < slabs.count; ++s)
    {
      cif::ResampleGeometry gs = cif::SlabGeometry(g, slabs, s);
      const std::int64_t    first = cif::SlabFirstVoxel(slabs, s);
      const std::int64_t    count = gs.OutputCount();
      const TC *            slabCoefficients = coefficients;
      if (linearRows)
      {
        gs.input = cif::InputBoxOfRegion<static_cast<int>(D)>(gs, chain.HostChain());
        cif::CopyInputBox<static_cast<int>(D)>(coefficients, g.input, gs.input, box.get(), parallelFor);
        slabCoefficients = box.get();
      }
      std::vector<double> mapped;
      if (mapsOnHost)
      {
        mapped = CubicResampleDetail::MapPointsOnHost<D>(this, gs, output, transform);
        CubicResampleDetail::ReportInProportion(
          stagesPerSlab * s + 1, stagesPerSlab * slabs.count, stagesPerSlab * planned.count, reported, stageDone);
      }
      if (onGPU)
      {
        CIF_ITK_TRY_CUDA([&] {
          if (linearRows)
          {
            deviceCoefficients.Upload(box.get(), static_cast<std::size_t>(cif::GridCount(gs.input, D)) * sizeof(TC));
          }
          if (mapsOnHost)
          {
            deviceMapped.Upload(mapped.data(), mapped.size() * sizeof(double));
          }
          const cif::TransformChain & deviceChain = chain.IsDeviceEvaluable() ? chain.DeviceChain() : chain.HostChain();
          cif::ResampleOnDevice<static_cast<int>(D), TC, TOut>(deviceCoefficients.As<const TC>(),
                                                               gs,
                                                               deviceChain,
                                                               mapsOnHost ? deviceMapped.As<const double>() : nullptr,
                                                               linearRows,
                                                               job.defaultValue,
                                                               deviceOut.As<TOut>());
          cif::Synchronize();
          deviceOut.Download(out + first, static_cast<std::size_t>(count) * sizeof(TOut));
        });
      }
      else
      {
        CubicResampleDetail::ResampleOnHost<D>(this,
                                               slabCoefficients,
                                               gs,
                                               cif::ResampleSlabs{},
                                               chain.HostChain(),
                                               mapsOnHost ? mapped.data() : nullptr,
                                               linearRows,
                                               job.defaultValue,
                                               out + first,
                                               cif::StageCallback{});
      }
      CubicResampleDetail::ReportInProportion(
        stagesPerSlab * (s + 1), stagesPerSlab * slabs.count, stagesPerSlab * planned.count, reported, stageDone);
    }
    this->SetLastExecutionPath(onGPU ? ExecutionPath::GPU : ExecutionPath::CPU);
  }
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  ResampleEachComponent()
{
  if constexpr (ComponentsSupported)
  {
    constexpr unsigned int D = ImageDimension;
    using TC = CoefficientType;
    using TIn = InputComponentType;
    using TOut = OutputComponentType;
    const TInputImage * input = this->GetInput();
    const auto *        transform = this->CheckInputAndTransform();
    this->PrepareHostOutput(this->GetOutput());
    this->AllocateOutputs();
    TOutputImage *     output = this->GetOutput();
    const unsigned int components = CudaImageTraits<TInputImage>::ComponentsOf(input);
    if (CudaImageTraits<TOutputImage>::ComponentsOf(output) != components)
    {
      itkExceptionMacro("the output has " << CudaImageTraits<TOutputImage>::ComponentsOf(output)
                                          << " components per pixel, the input " << components);
    }
    try
    {
      const cif::ResampleGeometry g = CubicResampleDetail::MakeGeometry<D>(input, output);
      CudaTransformChain<D>       chain(transform);
      const bool                  linearRows = chain.IsDeviceEvaluable() && transform->GetTransformCategory() ==
                                                             Transform<double, D, D>::TransformCategoryEnum::Linear;
      const std::int64_t     inputCount = static_cast<std::int64_t>(input->GetBufferedRegion().GetNumberOfPixels());
      const std::int64_t     outputCount = g.OutputCount();
      const cif::BufferShape shape = CubicResampleDetail::InputShape<D>(g);
      cif::SplinePoles       poles;
      cif::MakeSplinePoles(3, poles);
      const bool                onGPU = this->RunsOnGPU();
      const cif::ResampleSlabs  slabs = cif::PlanResampleSlabs(g, static_cast<int>(D), m_MinimumVoxelsPerSlab);
      const bool                mapsOnHost = !chain.IsDeviceEvaluable();
      FilterStageProgress       progress(this,
                                   (mapsOnHost ? 1 : 0) + components * CubicResampleDetail::ResampleStages(
                                                                         D, !m_InputIsCoefficients, slabs, true));
      const std::vector<double> mapped =
        mapsOnHost ? CubicResampleDetail::MapPointsOnHost<D>(this, g, output, transform) : std::vector<double>{};
      if (mapsOnHost)
      {
        progress.Completed();
      }
      const auto defaultPixel = this->GetDefaultPixelValue();
      auto       defaultOf = [&](unsigned int c) -> TOut {
        // a VectorImage's default may be empty: zero then, as ITK fills it
        if constexpr (CudaImageTraits<TOutputImage>::Components == 0)
        {
          return c < defaultPixel.GetSize() ? static_cast<TOut>(defaultPixel[c]) : TOut{};
        }
        else
        {
          return static_cast<TOut>(defaultPixel[c]);
        }
      };
      const auto *      interleavedIn = reinterpret_cast<const TIn *>(input->GetBufferPointer());
      auto *            interleavedOut = reinterpret_cast<TOut *>(output->GetBufferPointer());
      std::vector<TIn>  plane(static_cast<std::size_t>(inputCount));
      std::vector<TOut> outPlane(static_cast<std::size_t>(outputCount));
      auto              takeComponent = [&](unsigned int c) {
        for (std::int64_t i = 0; i < inputCount; ++i)
        {
          plane[i] = interleavedIn[i * components + c];
        }
      };
      auto putComponent = [&](unsigned int c) {
        for (std::int64_t i = 0; i < outputCount; ++i)
        {
          interleavedOut[i * components + c] = outPlane[i];
        }
      };

      if (onGPU)
      {
        CIF_ITK_TRY_CUDA([&] {
          std::ostringstream what;
          what << "cubic resampling of a " << inputCount << "-voxel, " << components << "-component image into "
               << outputCount << " voxels";
          cif::RequireDeviceMemory(inputCount * (sizeof(TC) + sizeof(TIn)) + mapped.size() * sizeof(double) +
                                     outputCount * sizeof(TOut),
                                   what.str());
          cif::DeviceBuffer staging(inputCount * sizeof(TIn)), coefficients(inputCount * sizeof(TC));
          cif::DeviceBuffer outputPlane(outputCount * sizeof(TOut)), mappedOnDevice;
          if (!mapped.empty())
          {
            mappedOnDevice.Allocate(mapped.size() * sizeof(double));
            mappedOnDevice.Upload(mapped.data(), mapped.size() * sizeof(double));
          }
          const cif::TransformChain & deviceChain = chain.IsDeviceEvaluable() ? chain.DeviceChain() : chain.HostChain();
          for (unsigned int c = 0; c < components; ++c)
          {
            takeComponent(c);
            staging.Upload(plane.data(), inputCount * sizeof(TIn));
            cif::ConvertOnDevice<TIn, TC>(staging.As<TIn>(), coefficients.As<TC>(), inputCount);
            progress.CompletedOnDevice();
            if (!m_InputIsCoefficients)
            {
              cif::PrefilterOnDevice<TC>(
                coefficients.As<TC>(), shape, poles, cif::BoundaryMode::Mirror, progress.DeviceCallback());
            }
            cif::ResampleOnDevice<static_cast<int>(D), TC, TOut>(coefficients.As<const TC>(),
                                                                 g,
                                                                 deviceChain,
                                                                 mappedOnDevice.As<const double>(),
                                                                 linearRows,
                                                                 defaultOf(c),
                                                                 outputPlane.As<TOut>(),
                                                                 slabs,
                                                                 progress.DeviceCallback());
            outputPlane.Download(outPlane.data(), outputCount * sizeof(TOut));
            putComponent(c);
            progress.Completed();
          }
        });
        this->SetLastExecutionPath(ExecutionPath::GPU);
      }
      else
      {
        std::vector<TC> coefficients(static_cast<std::size_t>(inputCount));
        for (unsigned int c = 0; c < components; ++c)
        {
          takeComponent(c);
          std::transform(plane.begin(), plane.end(), coefficients.begin(), [](TIn v) { return static_cast<TC>(v); });
          progress.Completed();
          if (!m_InputIsCoefficients)
          {
            cif::PrefilterOnHost(coefficients.data(),
                                 shape,
                                 poles,
                                 cif::BoundaryMode::Mirror,
                                 MakeParallelFor(this->GetMultiThreader()),
                                 progress.HostCallback());
          }
          CubicResampleDetail::ResampleOnHost<D>(this,
                                                 coefficients.data(),
                                                 g,
                                                 slabs,
                                                 chain.HostChain(),
                                                 mapped.empty() ? nullptr : mapped.data(),
                                                 linearRows,
                                                 defaultOf(c),
                                                 outPlane.data(),
                                                 progress.HostCallback());
          putComponent(c);
          progress.Completed();
        }
        this->SetLastExecutionPath(ExecutionPath::CPU);
      }
    }
    catch (...)
    {
      output->Initialize(); // no half-resampled image is left behind
      throw;
    }
  }
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
std::vector<int>
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  DevicesForThisUpdate() const
{
  std::vector<int> devices;
  CIF_ITK_TRY_CUDA([&] { devices = this->DevicesFromSettings(); });
  return devices;
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  ResampleOnSeveralDevices(const std::vector<int> &                   devices,
                           const ScalarJob &                          job,
                           const CudaTransformChain<ImageDimension> & chain,
                           const std::vector<double> &                mapped,
                           FilterStageProgress &                      progress)
{
  if constexpr (TypesSupported)
  {
    // Each device uploads the chain's coefficients for itself (DeviceChain()'s are on
    // this thread's device only).
    CIF_ITK_TRY_CUDA(
      [&] { this->SpreadOverDevices(devices, job, chain.HostChain(), chain.IsDeviceEvaluable(), mapped); });
    // The devices report no progress of their own (ITK's events belong to this
    // thread): every stage is done now.
    for (unsigned int stage = 0;
         stage < CubicResampleDetail::ResampleStages(ImageDimension, !m_InputIsCoefficients, job.slabs, true);
         ++stage)
    {
      progress.Completed();
    }
    this->SetLastExecutionPath(ExecutionPath::GPU);
  }
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  SpreadOverDevices(const std::vector<int> &    devices,
                    const ScalarJob &           job,
                    const cif::TransformChain & hostChain,
                    bool                        chainOnDevice,
                    const std::vector<double> & mapped)
{
  if constexpr (TypesSupported)
  {
    constexpr unsigned int D = ImageDimension;
    using TC = CoefficientType;
    using TIn = InputComponentType;
    using TOut = OutputComponentType;
    const cif::ResampleGeometry & g = job.g;
    const cif::ResampleSlabs &    slabs = job.slabs;
    const cif::BufferShape &      shape = job.shape;
    const cif::SplinePoles &      poles = job.poles;
    const bool                    linearRows = job.linearRows;
    const TOut                    defaultValue = job.defaultValue;
    const std::int64_t            inputCount = shape.ScalarCount();
    const auto *                  input = reinterpret_cast<const TIn *>(this->GetInput()->GetBufferPointer());
    auto *                        output = reinterpret_cast<TOut *>(this->GetOutput()->GetBufferPointer());
    // Device k resamples its share of the slabs (cif::ShareOfSlabs): the bits of one device.
    const std::int64_t     n = std::min<std::int64_t>(static_cast<std::int64_t>(devices.size()), slabs.count);
    const std::vector<int> used(devices.begin(), devices.begin() + n);
    constexpr bool         sameType = std::is_same_v<TIn, TC>;
    const std::size_t      outputBytesPerVoxel = (mapped.empty() ? 0 : D * sizeof(double)) + sizeof(TOut);
    const auto             Describe = [&](std::int64_t k, std::int64_t count) {
      std::ostringstream what;
      what << "cubic resampling of a " << inputCount << "-voxel image into " << count << " voxels on device "
           << devices[static_cast<std::size_t>(k)];
      return what.str();
    };

    // Device k's share of the output, from the input's coefficients on it over
    // \a inputGrid (the whole input, or the planes the share reads).
    const auto ResampleShare = [&](std::int64_t k, const TC * coefficients, const cif::CoefficientGrid & inputGrid) {
      cif::SlabShare share = cif::ShareOfSlabs(g, slabs, k, n);
      share.geometry.input = inputGrid;
      const std::int64_t             first = share.firstVoxel;
      const std::int64_t             count = share.geometry.OutputCount();
      std::vector<cif::DeviceBuffer> chainBuffers;
      const cif::TransformChain      deviceChain =
        chainOnDevice ? CudaTransformChain<D>::UploadToCurrentDevice(hostChain, chainBuffers) : hostChain;
      cif::DeviceBuffer mappedOnDevice;
      if (!mapped.empty())
      {
        mappedOnDevice.Allocate(static_cast<std::size_t>(count) * D * sizeof(double));
        mappedOnDevice.Upload(mapped.data() + D * first, static_cast<std::size_t>(count) * D * sizeof(double));
      }
      // The share's slabs, each downloaded while the next computes (as on one device).
      cif::DeviceBuffer       out(static_cast<std::size_t>(count) * sizeof(TOut));
      cif::OverlappedDownload download(output + first, out.As<TOut>(), static_cast<std::size_t>(count) * sizeof(TOut));
      cif::ResampleOnDevice<static_cast<int>(D), TC, TOut>(
        coefficients,
        share.geometry,
        deviceChain,
        mappedOnDevice.As<const double>(),
        linearRows,
        defaultValue,
        out.As<TOut>(),
        share.slabs,
        cif::DownloadEachSlab(download, share.geometry, share.slabs, sizeof(TOut), {}));
      download.Finish();
    };

    // The input's shares (device k uploads elements [ShareStart(k), ShareStart(k + 1))
    // and reads the others' from their devices), unless CIF_DEVICE_INPUT_SHARES=0:
    // then every device uploads the whole input itself.
    const char * sharesSetting = std::getenv("CIF_DEVICE_INPUT_SHARES");
    const bool   exchangeShares = !(sharesSetting && std::string(sharesSetting) == "0");
    // CIF_SPREAD_FEED_SLABS=1: through a linear transform, each device's slabs are
    // fed their planes while the earlier slabs compute (cifSpreadResample.h) instead
    // of every plane being gathered first. Opt-in: on two H100s it was as fast with a
    // pinned output and slower with a fresh one (Resample README, 2026-11-28).
    const char * feedSetting = std::getenv("CIF_SPREAD_FEED_SLABS");
    const bool   feedSlabs = feedSetting && std::string(feedSetting) == "1";
    // One upload of the host input (pinned once it has gone up a few times, as on one
    // device; the registration is portable, so every device copies at the bus's rate).
    NoteHostInputUpload(this->GetInput()->GetPixelContainer());

    // Samples of the coefficients' type: the prefilter itself spreads
    // (cifSpreadPrefilter.h: each device filters its planes, then its rows along the
    // slowest axis, then gathers the whole result), where every device holds the
    // whole coefficients, its share of the prefilter and its share of the output.
    if constexpr (sameType)
    {
      const cif::SpreadPrefilterPlan plan = cif::PlanSpreadPrefilter(shape, static_cast<int>(n), 1);
      const std::int64_t             plane = inputCount / shape.size[D - 1];
      // Through a linear transform a device reads only the planes its share's slabs
      // map into (cifSpreadResample.h), gathered before its first slab, or with
      // CIF_SPREAD_FEED_SLABS=1 fed to each slab while the earlier slabs compute.
      // Otherwise every device gathers every plane.
      std::vector<cif::SpreadShareSlabs> shares(static_cast<std::size_t>(n));
      for (std::int64_t k = 0; k < n; ++k)
      {
        auto & s = shares[static_cast<std::size_t>(k)];
        if (linearRows)
        {
          s = cif::PlanSpreadShare<static_cast<int>(D)>(g, slabs, k, n, hostChain);
        }
        else
        {
          s.share = cif::ShareOfSlabs(g, slabs, k, n);
          s.wanted = { 0, shape.size[D - 1] };
        }
      }
      // A device's memory on this path: the coefficients its share reads, its share
      // of the prefilter's work areas, and its share of the output.
      const auto MemoryNeeded = [&](std::int64_t k) {
        const cif::SpreadShareSlabs & s = shares[static_cast<std::size_t>(k)];
        return static_cast<std::size_t>((s.wanted.end - s.wanted.first) * plane +
                                        cif::LargestSpreadShareScalars(shape, plan)) *
                 sizeof(TC) +
               static_cast<std::size_t>(s.share.geometry.OutputCount()) * outputBytesPerVoxel;
      };
      std::size_t largestNeed = 0;
      for (std::int64_t k = 0; k < n; ++k)
      {
        largestNeed = std::max(largestNeed, MemoryNeeded(k));
      }
      if (!m_InputIsCoefficients && exchangeShares && plan.Devices() == n &&
          largestNeed <= cif::GetDeviceMemoryBudget(true))
      {
        std::vector<cif::DeviceBuffer> read(static_cast<std::size_t>(n)); // the planes each share reads
        std::vector<TC *>              readPointers(static_cast<std::size_t>(n));
        std::vector<cif::PlaneRange>   wanted;
        std::vector<std::vector<std::vector<cif::PlaneRange>>> pieces;
        for (const cif::SpreadShareSlabs & s : shares)
        {
          wanted.push_back(s.wanted);
          pieces.push_back(s.pieces);
        }
        cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
          const auto index = static_cast<std::size_t>(k);
          cif::RequireDeviceMemory(MemoryNeeded(k), Describe(k, shares[index].share.geometry.OutputCount()));
          read[index].Allocate(static_cast<std::size_t>((wanted[index].end - wanted[index].first) * plane) *
                               sizeof(TC));
          readPointers[index] = read[index].As<TC>();
        });
        std::vector<cif::DeviceSpreadExecutor<TC>> executors;
        executors.reserve(static_cast<std::size_t>(n));
        for (std::int64_t k = 0; k < n; ++k)
        {
          executors.emplace_back(devices[static_cast<std::size_t>(k)],
                                 poles,
                                 cif::BoundaryMode::Mirror,
                                 "a share of the prefilter of a " + std::to_string(inputCount) + "-voxel image");
        }
        const auto onDeviceThreads = [&used](const auto & body) { cif::RunOnDeviceThreads(used, nullptr, body); };
        if (linearRows && feedSlabs)
        {
          // Two threads a device: its planes' gathering, and its slabs.
          std::vector<int> workers(used);
          workers.insert(workers.end(), used.begin(), used.end());
          const auto onWorkerThreads = [&workers](const auto & body) {
            cif::RunOnDeviceThreads(workers, nullptr, body);
          };
          cif::RunSpreadPrefilterFeedingEveryDevice(
            reinterpret_cast<const TC *>(input),
            shape,
            plan,
            executors,
            onDeviceThreads,
            onWorkerThreads,
            readPointers,
            wanted,
            pieces,
            [&](std::int64_t k, const auto & waitForSlab) {
              const auto                     index = static_cast<std::size_t>(k);
              const cif::SpreadShareSlabs &  s = shares[index];
              const std::int64_t             count = s.share.geometry.OutputCount();
              std::vector<cif::DeviceBuffer> chainBuffers;
              const cif::TransformChain      deviceChain =
                CudaTransformChain<D>::UploadToCurrentDevice(hostChain, chainBuffers);
              // The share's slabs, each downloaded while the next computes.
              cif::DeviceBuffer       out(static_cast<std::size_t>(count) * sizeof(TOut));
              cif::OverlappedDownload download(
                output + s.share.firstVoxel, out.As<TOut>(), static_cast<std::size_t>(count) * sizeof(TOut));
              cif::ResampleSpreadShare<static_cast<int>(D), TC, TOut>(
                s,
                read[index].As<const TC>(),
                plane,
                deviceChain,
                defaultValue,
                out.As<TOut>(),
                waitForSlab,
                cif::DownloadEachSlab(download, s.share.geometry, s.share.slabs, sizeof(TOut), {}));
              download.Finish();
              read[index].Release(); // on its device's thread, after its kernels
            });
          return;
        }
        cif::RunSpreadPrefilterOntoEveryDevice(
          reinterpret_cast<const TC *>(input), shape, plan, executors, onDeviceThreads, readPointers, {}, wanted);
        cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
          // The share against the planes gathered (all of them, or the union of its
          // slabs' planes: every support lies in it, its edges are the input's where
          // supports reach them).
          cif::CoefficientGrid grid = g.input;
          grid.start[D - 1] += wanted[static_cast<std::size_t>(k)].first;
          grid.size[D - 1] = wanted[static_cast<std::size_t>(k)].end - wanted[static_cast<std::size_t>(k)].first;
          ResampleShare(k, read[static_cast<std::size_t>(k)].As<const TC>(), grid);
          read[static_cast<std::size_t>(k)].Release(); // on its device's thread
        });
        return;
      }
    }

    // Otherwise every device prefilters the whole input itself.
    const auto                     ShareStart = [&](std::int64_t k) { return inputCount * k / n; };
    std::vector<cif::DeviceBuffer> inputOnDevices(static_cast<std::size_t>(n));
    cif::WorkerRendezvous          rendezvous(static_cast<int>(n));
    cif::RunOnDeviceThreads(used, &rendezvous, [&](std::int64_t k) {
      const std::int64_t count = cif::ShareOfSlabs(g, slabs, k, n).geometry.OutputCount();
      cif::RequireDeviceMemory(static_cast<std::size_t>(inputCount) * (sizeof(TC) + (sameType ? 0 : sizeof(TIn))) +
                                 static_cast<std::size_t>(count) * outputBytesPerVoxel,
                               Describe(k, count));
      // The input as uploaded (for a TIn of the coefficients' type, the coefficients
      // themselves); freed by the calling thread once every device is done, since
      // the other devices read shares of it.
      cif::DeviceBuffer & inputBuffer = inputOnDevices[static_cast<std::size_t>(k)];
      inputBuffer.Allocate(static_cast<std::size_t>(inputCount) * sizeof(TIn));
      cif::DeviceBuffer converted(sameType ? 0 : static_cast<std::size_t>(inputCount) * sizeof(TC));
      TIn *             inputOnThisDevice = inputBuffer.As<TIn>();
      TC *              coefficients = sameType ? inputBuffer.As<TC>() : converted.As<TC>();
      if (exchangeShares)
      {
        // Each device uploads its share of the input over its own bus; the shares
        // then travel between the devices, so that every device holds the whole
        // input while the host sent it once.
        const std::int64_t mine = ShareStart(k), mineEnd = ShareStart(k + 1);
        cif::CopyHostToDevice(
          inputOnThisDevice + mine, input + mine, static_cast<std::size_t>(mineEnd - mine) * sizeof(TIn));
        if (!rendezvous.ArriveAndWait()) // every share on its device
        {
          return; // another device failed: its error is reported
        }
        for (std::int64_t j = 0; j < n; ++j)
        {
          if (j != k)
          {
            cif::CopyBetweenDevices(inputOnThisDevice + ShareStart(j),
                                    devices[static_cast<std::size_t>(k)],
                                    inputOnDevices[static_cast<std::size_t>(j)].As<const TIn>() + ShareStart(j),
                                    devices[static_cast<std::size_t>(j)],
                                    static_cast<std::size_t>(ShareStart(j + 1) - ShareStart(j)) * sizeof(TIn));
          }
        }
        cif::Synchronize();
        if (!rendezvous.ArriveAndWait()) // every device has read the others' shares: they may change now
        {
          return;
        }
      }
      else
      {
        cif::CopyHostToDevice(inputOnThisDevice, input, static_cast<std::size_t>(inputCount) * sizeof(TIn));
      }
      if constexpr (!sameType)
      {
        cif::ConvertOnDevice<TIn, TC>(inputOnThisDevice, coefficients, inputCount);
      }
      if (!m_InputIsCoefficients)
      {
        cif::PrefilterOnDevice<TC>(coefficients, shape, poles, cif::BoundaryMode::Mirror, {});
      }
      ResampleShare(k, coefficients, g.input);
    });
  }
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::PrintSelf(
  std::ostream & os,
  Indent         indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "InputIsCoefficients: " << (m_InputIsCoefficients ? "On" : "Off") << std::endl;
  os << indent << "UseTextureInterpolation: " << (m_UseTextureInterpolation ? "On" : "Off") << std::endl;
  os << indent << "TextureHalfFloat: " << (m_TextureHalfFloat ? "On" : "Off") << std::endl;
  os << indent << "MirrorPaddedCoefficients: " << (m_MirrorPaddedCoefficients ? "On" : "Off") << std::endl;
  os << indent << "Cached texture (bytes): " << m_TextureCache.texture.Bytes() << std::endl;
  os << indent << "CubicBSplinePerComponent: " << (m_CubicBSplinePerComponent ? "On" : "Off") << std::endl;
  os << indent << "MinimumVoxelsPerSlab: " << m_MinimumVoxelsPerSlab << std::endl;
}

} // namespace itk

#endif
