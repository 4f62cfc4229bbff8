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
// CubicResampleGPUImageFilter's paths in one piece: texture, exact on one device, exact on the CPU.
#ifndef itkCubicResampleGPUImageFilterOnePiece_hxx
#define itkCubicResampleGPUImageFilterOnePiece_hxx

#include "cifBSplinePrefilterDevice.h"
#include "cifDeviceBuffer.h"
#include "cifDeviceMemoryLimit.h"
#include "cifMirrorPadding.h"
#include "cifResampleDevice.h"
#include "cifResampleSlabs.h"
#include "cifTextureResampleDevice.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkCubicResampleGPUImageFilterDetail.hxx"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaHostInputRegistration.h"
#include "itkFilterStageProgress.h"

#include <sstream>
#include <vector>

namespace itk
{
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
} // namespace itk

#endif
