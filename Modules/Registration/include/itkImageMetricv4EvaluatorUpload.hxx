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
// ImageMetricv4Evaluator's upload: the host scene, gradient and transform sent to the device (GPU path).
#ifndef itkImageMetricv4EvaluatorUpload_hxx
#define itkImageMetricv4EvaluatorUpload_hxx

#include "cifBSplinePrefilterDevice.h" // ConvertOnDevice
#include "cifCudaRuntime.h"
#include "cifDeviceBuffer.h"
#include "cifDeviceMemoryLimit.h"
#include "cifMetricSumsDevice.h"
#include "itkImageMetricv4Evaluator.h"
#include "itkImageMetricv4State.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace itk
{
template <typename TMetric>
template <typename T>
inline const T *
ImageMetricv4Evaluator<TMetric>::UploadArray(const T * host, std::size_t count)
{
  if (host == nullptr)
  {
    return nullptr;
  }
  m_DeviceBuffers.emplace_back(count * sizeof(T) > 0 ? count * sizeof(T) : 1);
  m_DeviceBuffers.back().Upload(host, count * sizeof(T));
  return m_DeviceBuffers.back().template As<const T>();
}

template <typename TMetric>
inline void
ImageMetricv4Evaluator<TMetric>::Upload(MultiThreaderBase * threader)
{
  m_DeviceBuffers.clear();
  m_DeviceScene = m_HostScene;
  cif::MetricScene<ValueType> &       d = m_DeviceScene;
  const cif::MetricScene<ValueType> & h = m_HostScene;
  d.domain.points = this->UploadArray(h.domain.points, m_Points.size());
  d.fixed.data = this->UploadArray(h.fixed.data, CountOf(h.fixed));
  d.fixedMask.data = this->UploadArray(h.fixedMask.data, CountOf(h.fixedMask));
  d.movingMask.data = this->UploadArray(h.movingMask.data, CountOf(h.movingMask));
  d.moving.image.data = this->UploadArray(h.moving.image.data, CountOf(h.moving.image));
  d.moving.coefficients = this->UploadArray(h.moving.coefficients, CountOf(h.moving.image));
  if (m_GradientImage != nullptr)
  {
    d.moving.gradient =
      MetricImageOf(m_GradientImage,
                    m_GradientOnDevice != nullptr ? this->ConvertGradientOnDevice() : this->UploadGradient(threader));
    d.moving.gradientOnImageGrid = cif::SameBufferGrid<D>(d.moving.image, d.moving.gradient);
    if (d.moving.gradientOnImageGrid && d.moving.coefficients == nullptr)
    {
      this->InterleaveValueAndGradient();
    }
  }
}

template <typename TMetric>
inline void
ImageMetricv4Evaluator<TMetric>::InterleaveValueAndGradient()
{
  cif::MetricScene<ValueType> & d = m_DeviceScene;
  const std::size_t             count = CountOf(m_HostScene.moving.image);
  const std::size_t             bytes = std::max<std::size_t>(1, 4 * count * sizeof(ValueType));
  if (bytes > cif::GetDeviceMemoryBudget(true))
  {
    return;
  }
  try
  {
    m_DeviceBuffers.emplace_back(bytes);
  }
  catch (const cif::CudaOutOfMemory &)
  {
    return;
  }
  auto * valueAndGradient = m_DeviceBuffers.back().template As<ValueType>();
  cif::InterleaveValueAndGradientOnDevice<ValueType>(
    d.moving.image.data, d.moving.gradient.data, D, static_cast<std::int64_t>(count), valueAndGradient);
  d.moving.valueAndGradient = valueAndGradient;
}

template <typename TMetric>
inline auto
ImageMetricv4Evaluator<TMetric>::ConvertGradientOnDevice() -> const ValueType *
{
  const std::int64_t count = static_cast<std::int64_t>(m_GradientImage->GetBufferedRegion().GetNumberOfPixels()) * D;
  m_DeviceBuffers.emplace_back(std::max<std::size_t>(1, static_cast<std::size_t>(count) * sizeof(ValueType)));
  auto * device = m_DeviceBuffers.back().template As<ValueType>();
  cif::ConvertOnDevice<double, ValueType>(m_GradientOnDevice, device, count);
  return device;
}

template <typename TMetric>
inline auto
ImageMetricv4Evaluator<TMetric>::UploadGradient(MultiThreaderBase * threader) -> const ValueType *
{
  const std::int64_t     count = static_cast<std::int64_t>(m_GradientImage->GetBufferedRegion().GetNumberOfPixels());
  constexpr std::int64_t piece = std::int64_t(1) << 20;
  m_DeviceBuffers.emplace_back(std::max<std::size_t>(1, static_cast<std::size_t>(count * D) * sizeof(ValueType)));
  auto *                 device = m_DeviceBuffers.back().template As<ValueType>();
  std::vector<ValueType> staging(static_cast<std::size_t>(std::min(count, piece) * D));
  for (std::int64_t begin = 0; begin < count; begin += piece)
  {
    const std::int64_t end = std::min(count, begin + piece);
    ConvertGradient(threader, begin, end, staging.data());
    cif::CopyHostToDevice(
      device + begin * D, staging.data(), static_cast<std::size_t>((end - begin) * D) * sizeof(ValueType));
  }
  return device;
}

template <typename TMetric>
inline const cif::MetricMovingTransform &
ImageMetricv4Evaluator<TMetric>::SentDeviceTransform()
{
  m_CoefficientUpload.Send();
  return m_DeviceTransform;
}

template <typename TMetric>
template <typename TPass>
inline void
ImageMetricv4Evaluator<TMetric>::WithArrivingCoefficients(TPass && pass)
{
  m_Workspace.arrivingCoefficients = &m_CoefficientUpload;
  try
  {
    pass(static_cast<const cif::MetricMovingTransform &>(m_DeviceTransform));
  }
  catch (...)
  {
    m_Workspace.arrivingCoefficients = nullptr;
    try
    {
      m_CoefficientUpload.Send();
    }
    catch (...)
    {
      // the pass's own error is the one to report
    }
    throw;
  }
  m_Workspace.arrivingCoefficients = nullptr;
  m_CoefficientUpload.Send(); // nothing left where the pass sent them
}
} // namespace itk

#endif
