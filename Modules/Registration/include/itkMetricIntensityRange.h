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
#ifndef itkMetricIntensityRange_h
#define itkMetricIntensityRange_h

#include "itkImageRegionConstIteratorWithIndex.h"
#include "itkImageScanlineConstIterator.h"
#include "itkMultiThreaderBase.h"
#include "itkNumericTraits.h"

#include <mutex>

namespace itk
{
/** \brief The smallest and largest pixel value of \a image's buffered region, or of
 * its voxels whose physical point lies inside \a mask (null: every voxel): what
 * MattesMutualInformationImageToImageMetricv4::Initialize() scans on one thread for
 * its joint histogram's ranges (at every level of a registration, over the
 * full-resolution images), here split over \a threader's work units. Minimum and
 * maximum do not depend on the order of the voxels, so the values are ITK's
 * (images without NaN; with no voxel in the mask, ITK's NumericTraits max() and
 * NonpositiveMin() stay, as in ITK). */
template <typename TImage, typename TMask>
void
MetricIntensityRange(const TImage *               image,
                     const TMask *                mask,
                     MultiThreaderBase *          threader,
                     typename TImage::PixelType & minimum,
                     typename TImage::PixelType & maximum)
{
  using Pixel = typename TImage::PixelType;
  using RegionType = typename TImage::RegionType;
  constexpr unsigned int D = TImage::ImageDimension;
  minimum = NumericTraits<Pixel>::max();
  maximum = NumericTraits<Pixel>::NonpositiveMin();
  std::mutex combine;
  threader->template ParallelizeImageRegion<D>(
    image->GetBufferedRegion(),
    [&](const RegionType & piece) {
      Pixel low = NumericTraits<Pixel>::max();
      Pixel high = NumericTraits<Pixel>::NonpositiveMin();
      if (mask != nullptr)
      {
        ImageRegionConstIteratorWithIndex<TImage> it(image, piece);
        for (; !it.IsAtEnd(); ++it)
        {
          typename TImage::PointType point;
          image->TransformIndexToPhysicalPoint(it.GetIndex(), point);
          if (mask->IsInsideInWorldSpace(point))
          {
            const Pixel value = it.Get();
            low = (low < value) ? low : value;
            high = (high > value) ? high : value;
          }
        }
      }
      else
      {
        ImageScanlineConstIterator<TImage> it(image, piece);
        for (; !it.IsAtEnd(); it.NextLine())
        {
          for (; !it.IsAtEndOfLine(); ++it)
          {
            const Pixel value = it.Get();
            low = (low < value) ? low : value;
            high = (high > value) ? high : value;
          }
        }
      }
      const std::lock_guard<std::mutex> lock(combine);
      minimum = (minimum < low) ? minimum : low;
      maximum = (maximum > high) ? maximum : high;
    },
    nullptr);
}
} // namespace itk

#endif
