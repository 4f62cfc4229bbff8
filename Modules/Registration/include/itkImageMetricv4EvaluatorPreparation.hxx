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
// ImageMetricv4Evaluator's preparation: the ITK metric's state converted into the module's host scene.
#ifndef itkImageMetricv4EvaluatorPreparation_hxx
#define itkImageMetricv4EvaluatorPreparation_hxx

#include "itkBSplinePrefilterGPUImageFilter.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaGeometry.h"
#include "itkCudaParallelFor.h"
#include "itkImageMaskSpatialObject.h"
#include "itkImageMetricv4Evaluator.h"
#include "itkImageMetricv4State.h"
#include "itkLinearInterpolateImageFunction.h"
#include "itkMetricMovingTransformSplit.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace itk
{
template <typename TMetric>
inline void
ImageMetricv4Evaluator<TMetric>::Prepare(const StateType & state, bool onGPU, MultiThreaderBase * threader)
{
  m_Supported = false;
  m_OrderSeconds = 0.0;
  m_BindSeconds = 0.0;
  m_Workspace.readbackSeconds = 0.0;
  m_Order.reset();
  m_DeviceOrder = cif::DeviceMetricPointOrder{};
  m_HaveOrder = false;
  m_Boxes = cif::MetricCellBoxes();
  m_DeviceBoxes = cif::DeviceMetricCellBoxes();
  m_HaveBoxesKey = false;
  m_UseBoxes = false;
  if constexpr (!kTypesSupported)
  {
    (void)state;
    (void)onGPU;
    (void)threader;
    m_Reason = "the module takes 2-D and 3-D images of float or double pixels, the same type fixed and moving";
  }
  else
  {
    m_Reason.clear();
    bool converted = this->Convert(state, onGPU, threader);
    if (converted && onGPU && !this->FitsDeviceOffsets())
    {
      // An image of 2^31 voxels or more (or indices beyond 32 bits): the device
      // path's offsets are 32-bit (cifImageMetricMath.h), so the CPU path runs.
      onGPU = false;
      converted = this->Convert(state, onGPU, threader);
    }
    if (converted)
    {
      m_OnGPU = onGPU;
      if (onGPU)
      {
        CIF_ITK_TRY_CUDA([&] { this->Upload(threader); });
      }
      m_Supported = true;
    }
  }
}

template <typename TMetric>
inline void
ImageMetricv4Evaluator<TMetric>::UseSampledPoints(std::vector<double> points)
{
  if constexpr (kTypesSupported)
  {
    if (!m_Supported)
    {
      return;
    }
    this->SetPointDomain(std::move(points));
    const cif::MetricDomain & domain = m_HostScene.domain;
    m_Order.reset();
    m_HaveOrder = false;
    m_HaveBoxesKey = false;
    m_UseBoxes = false;
    if (m_OnGPU)
    {
      CIF_ITK_TRY_CUDA([&] {
        // Through pinned memory, queued without waiting (cifMetricSumsDevice.h), at
        // every evaluation.
        const std::size_t bytes = m_Points.size() * sizeof(double);
        std::copy(m_Points.begin(), m_Points.end(), static_cast<double *>(m_PointsUpload.Host(bytes)));
        m_DeviceScene.domain = domain;
        m_DeviceScene.domain.points = static_cast<const double *>(m_PointsUpload.Send(bytes));
      });
    }
  }
  else
  {
    (void)points;
  }
}

template <typename TMetric>
template <typename TMask>
inline bool
ImageMetricv4Evaluator<TMetric>::MaskOf(const TMask * mask, cif::MetricImage<std::uint8_t> & out, const char * which)
{
  out = cif::MetricImage<std::uint8_t>{};
  if (mask == nullptr)
  {
    return true;
  }
  const auto * imageMask = dynamic_cast<const ImageMaskSpatialObject<D, unsigned char> *>(mask);
  if (imageMask == nullptr || imageMask->GetImage() == nullptr)
  {
    m_Reason = std::string("the ") + which + " mask is not an ImageMaskSpatialObject of unsigned char";
    return false;
  }
  const auto * toWorld = imageMask->GetObjectToWorldTransformInverse();
  if (toWorld != nullptr)
  {
    const auto matrix = toWorld->GetMatrix();
    const auto offset = toWorld->GetOffset();
    for (unsigned int i = 0; i < D; ++i)
    {
      for (unsigned int j = 0; j < D; ++j)
      {
        if (matrix[i][j] != (i == j ? 1.0 : 0.0))
        {
          m_Reason = std::string("the ") + which + " mask is moved by an object-to-world transform";
          return false;
        }
      }
      if (offset[i] != 0.0)
      {
        m_Reason = std::string("the ") + which + " mask is moved by an object-to-world transform";
        return false;
      }
    }
  }
  out = MetricImageOf(imageMask->GetImage(), imageMask->GetImage()->GetBufferPointer());
  return true;
}

template <typename TMetric>
inline bool
ImageMetricv4Evaluator<TMetric>::FitsDeviceOffsets() const
{
  const cif::MetricScene<ValueType> & s = m_HostScene;
  bool                                fits = cif::FitsDeviceOffsets(s.fixed) && cif::FitsDeviceOffsets(s.fixedMask) &&
              cif::FitsDeviceOffsets(s.moving.image) && cif::FitsDeviceOffsets(s.movingMask);
  if (m_GradientImage != nullptr)
  {
    fits = fits && cif::FitsDeviceOffsets(MetricImageOf(m_GradientImage, static_cast<const ValueType *>(nullptr)));
  }
  return fits;
}

template <typename TMetric>
inline bool
ImageMetricv4Evaluator<TMetric>::Convert(const StateType & state, bool onGPU, MultiThreaderBase * threader)
{
  using FixedLinear = LinearInterpolateImageFunction<FixedImageType, double>;
  using MovingLinear = LinearInterpolateImageFunction<MovingImageType, double>;
  if (state.needsFixedGradient)
  {
    m_Reason = "the metric asks for the fixed image's gradient";
    return false;
  }
  if (state.floatingPointCorrection)
  {
    m_Reason = "floating-point correction is on";
    return false;
  }
  if (dynamic_cast<const FixedLinear *>(state.fixedInterpolator) == nullptr)
  {
    m_Reason = "the fixed interpolator is not ITK's LinearInterpolateImageFunction";
    return false;
  }
  const auto * cubic = dynamic_cast<const MovingCubicInterpolator *>(state.movingInterpolator);
  if (dynamic_cast<const MovingLinear *>(state.movingInterpolator) == nullptr &&
      (cubic == nullptr || cubic->GetSplineOrder() != 3))
  {
    m_Reason = "the moving interpolator is neither linear nor a cubic BSplineInterpolateImageFunction";
    return false;
  }
  if (state.movingGradientImage == nullptr && !state.gradientFromDefaultCalculator)
  {
    m_Reason = "the moving gradient comes from a calculator other than the default central differences";
    return false;
  }
  cif::MetricScene<ValueType> & scene = m_HostScene;
  scene = cif::MetricScene<ValueType>{};
  if (!MetricMovingTransformSplit<D>::AffineMapOf(state.fixedTransform, scene.fixedTransform))
  {
    m_Reason = "the fixed transform is not affine-family";
    return false;
  }
  if (!this->MaskOf(state.fixedMask, scene.fixedMask, "fixed") ||
      !this->MaskOf(state.movingMask, scene.movingMask, "moving"))
  {
    return false;
  }
  scene.fixed = MetricImageOf(state.fixedImage, state.fixedImage->GetBufferPointer());
  scene.moving.image = MetricImageOf(state.movingImage, state.movingImage->GetBufferPointer());
  for (unsigned int a = 0; a < D; ++a)
  {
    scene.moving.spacing[a] = state.movingImage->GetSpacing()[a];
  }
  m_MovingCoefficients = nullptr;
  if (cubic != nullptr)
  {
    auto prefilter = BSplinePrefilterGPUImageFilter<MovingImageType, MovingCoefficientImage>::New();
    prefilter->SetInput(state.movingImage);
    prefilter->SetUseGPU(onGPU);
    prefilter->Update();
    m_MovingCoefficients = prefilter->GetOutput();
    scene.moving.coefficients = m_MovingCoefficients->GetBufferPointer();
  }
  m_Gradient.clear();
  m_GradientImage = state.movingGradientImage;
  m_GradientOnDevice = onGPU ? state.movingGradientOnDevice : nullptr;
  if (m_GradientImage != nullptr && !onGPU)
  {
    // The CPU path reads the gradient in the pixel type; the GPU path converts it
    // piece by piece on its way to the device (Upload), without this host copy.
    const std::int64_t count = static_cast<std::int64_t>(m_GradientImage->GetBufferedRegion().GetNumberOfPixels());
    m_Gradient.resize(static_cast<std::size_t>(count * D));
    ConvertGradient(threader, 0, count, m_Gradient.data());
    scene.moving.gradient = MetricImageOf(m_GradientImage, m_Gradient.data());
    scene.moving.gradientOnImageGrid = cif::SameBufferGrid<D>(scene.moving.image, scene.moving.gradient);
  }
  // The domain: the virtual region's grid, or the sampled points.
  cif::MetricDomain & domain = scene.domain;
  m_Points.clear();
  for (unsigned int a = 0; a < 3; ++a)
  {
    m_VirtualCenter[a] = 0.0;
  }
  if (state.sampledPoints != nullptr)
  {
    const auto *        points = state.sampledPoints->GetPoints();
    std::vector<double> coordinates;
    coordinates.reserve(points->Size() * D);
    for (auto it = points->Begin(); it != points->End(); ++it)
    {
      for (unsigned int a = 0; a < D; ++a)
      {
        coordinates.push_back(it.Value()[a]);
      }
    }
    this->SetPointDomain(std::move(coordinates));
  }
  else
  {
    domain.count = static_cast<std::int64_t>(state.virtualRegion.GetNumberOfPixels());
    double index[3] = { 0, 0, 0 };
    for (unsigned int a = 0; a < D; ++a)
    {
      domain.start[a] = state.virtualRegion.GetIndex()[a];
      domain.size[a] = static_cast<std::int64_t>(state.virtualRegion.GetSize()[a]);
      domain.origin[a] = state.virtualImage->GetOrigin()[a];
      index[a] = static_cast<double>(domain.start[a]) + 0.5 * static_cast<double>(domain.size[a] - 1);
    }
    IndexToPointMatrix<D>(state.virtualImage, domain.indexToPoint);
    for (unsigned int i = 0; i < D; ++i)
    {
      m_VirtualCenter[i] = domain.origin[i];
      for (unsigned int j = 0; j < D; ++j)
      {
        m_VirtualCenter[i] += domain.indexToPoint[i][j] * index[j];
      }
    }
  }
  if (domain.count >= (std::int64_t(1) << 31)) // 32-bit point numbers; CUB's sort counts in int
  {
    m_Reason = "the domain has 2^31 points or more";
    return false;
  }
  return true;
}

template <typename TMetric>
inline void
ImageMetricv4Evaluator<TMetric>::SetPointDomain(std::vector<double> points)
{
  m_Points = std::move(points);
  cif::MetricDomain & domain = m_HostScene.domain;
  domain.points = m_Points.data();
  domain.count = static_cast<std::int64_t>(m_Points.size() / D);
  for (unsigned int a = 0; a < 3; ++a)
  {
    m_VirtualCenter[a] = 0.0;
  }
  for (std::int64_t n = 0; n < domain.count; ++n)
  {
    for (unsigned int a = 0; a < D; ++a)
    {
      m_VirtualCenter[a] += m_Points[static_cast<std::size_t>(n * D + a)];
    }
  }
  for (unsigned int a = 0; a < D; ++a)
  {
    m_VirtualCenter[a] /= domain.count > 0 ? static_cast<double>(domain.count) : 1.0;
  }
}

template <typename TMetric>
inline void
ImageMetricv4Evaluator<TMetric>::ConvertGradient(MultiThreaderBase * threader,
                                                 std::int64_t        begin,
                                                 std::int64_t        end,
                                                 ValueType *         target) const
{
  const auto *           source = m_GradientImage->GetBufferPointer();
  constexpr std::int64_t block = 65536;
  CudaParallelFor(threader, (end - begin + block - 1) / block, [&](std::int64_t b) {
    const std::int64_t last = end < begin + (b + 1) * block ? end : begin + (b + 1) * block;
    for (std::int64_t n = begin + b * block; n < last; ++n)
    {
      for (unsigned int a = 0; a < D; ++a)
      {
        target[(n - begin) * D + a] = static_cast<ValueType>(source[n][a]);
      }
    }
  });
}
} // namespace itk

#endif
