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
// What a GPU metric hands its evaluator from the ITK metric's state, and an image as the metric math reads it.
#ifndef itkImageMetricv4State_h
#define itkImageMetricv4State_h

#include "cifImageMetricMath.h"
#include "itkCudaGeometry.h"

#include <cstdint>

namespace itk
{
/** What a GPU metric hands its scene from the ITK metric's protected state (one
 * place that knows the v4 metric's members; filled by the metric itself). */
template <typename TMetric>
struct ImageMetricv4State
{
  using FixedImageType = typename TMetric::FixedImageType;
  using MovingImageType = typename TMetric::MovingImageType;
  using VirtualImageType = typename TMetric::VirtualImageType;
  using MovingGradientImageType = typename TMetric::MovingImageGradientImageType;

  const FixedImageType *                           fixedImage = nullptr;
  const MovingImageType *                          movingImage = nullptr;
  const VirtualImageType *                         virtualImage = nullptr;
  typename VirtualImageType::RegionType            virtualRegion;
  const typename TMetric::VirtualPointSetType *    sampledPoints = nullptr; ///< null: dense
  const typename TMetric::FixedTransformType *     fixedTransform = nullptr;
  const typename TMetric::FixedInterpolatorType *  fixedInterpolator = nullptr;
  const typename TMetric::MovingInterpolatorType * movingInterpolator = nullptr;
  const typename TMetric::FixedImageMaskType *     fixedMask = nullptr;
  const typename TMetric::MovingImageMaskType *    movingMask = nullptr;
  const MovingGradientImageType *                  movingGradientImage = nullptr; ///< the filter's output
  /** The same gradient, kept on the device by the GPU gradient filter (D doubles a
   * pixel, interleaved), whose host output is then not filled: the GPU path takes it
   * from there. Null: the host image holds it. */
  const double * movingGradientOnDevice = nullptr;
  bool           gradientFromDefaultCalculator = false;
  bool           needsFixedGradient = false;
  bool           floatingPointCorrection = false;
};

/** \a image's buffer grid and geometry as the metric math reads it, over \a data (its
 * buffer, or a converted copy of it on the same grid). */
template <typename TImage, typename TData>
cif::MetricImage<TData>
MetricImageOf(const TImage * image, const TData * data)
{
  constexpr unsigned int  D = TImage::ImageDimension;
  cif::MetricImage<TData> m;
  m.data = data;
  const auto region = image->GetBufferedRegion();
  for (unsigned int a = 0; a < D; ++a)
  {
    m.SetBufferGrid(static_cast<int>(a), region.GetIndex()[a], static_cast<std::int64_t>(region.GetSize()[a]));
    m.origin[a] = image->GetOrigin()[a];
  }
  PointToIndexMatrix<D>(image, m.pointToIndex);
  return m;
}
} // namespace itk

#endif
