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
// CubicResampleGPUImageFilter's caches: the coefficients kept between pieces, the texture between updates.
#ifndef itkCubicResampleGPUImageFilterCaches_hxx
#define itkCubicResampleGPUImageFilterCaches_hxx

#include "cifBSplinePrefilterHost.h"
#include "cifDeviceMemoryLimit.h"
#include "cifHostWorkArea.h"
#include "cifSlabbedPrefilter.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkCubicResampleGPUImageFilterDetail.hxx"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaParallelFor.h"
#include "itkFilterStageProgress.h"

#include <sstream>

namespace itk
{
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
} // namespace itk

#endif
