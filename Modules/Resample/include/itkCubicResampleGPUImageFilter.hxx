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
// CubicResampleGPUImageFilter's choice of path; the paths and caches are in the files included below.
#ifndef itkCubicResampleGPUImageFilter_hxx
#define itkCubicResampleGPUImageFilter_hxx

#include "cifDeviceMemoryLimit.h"
#include "cifResampleSlabs.h"
#include "itkCubicResampleGPUImageFilterDetail.hxx"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaTransformChain.h"
#include "itkFilterStageProgress.h"

#include "itkCubicResampleGPUImageFilterCaches.hxx"
#include "itkCubicResampleGPUImageFilterOnePiece.hxx"
#include "itkCubicResampleGPUImageFilterSlabs.hxx"
#include "itkCubicResampleGPUImageFilterComponents.hxx"
#include "itkCubicResampleGPUImageFilterSeveralDevices.hxx"

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
