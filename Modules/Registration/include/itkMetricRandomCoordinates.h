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
#ifndef itkMetricRandomCoordinates_h
#define itkMetricRandomCoordinates_h

#include "cifPixelRounding.h"
#include "itkImageBase.h"
#include "itkImageRegion.h"
#include "itkMacro.h"

#include <cstdint>
#include <type_traits>
#include <vector>

namespace itk
{
/** The mask test where there is no fixed mask: every point is inside, and the point
 * is not mapped to the fixed image at all. */
struct NoFixedMask
{};

/** \brief Draws \a count physical points of the virtual domain uniformly at random,
 * as elastix's RandomCoordinate sampler does: each coordinate uniform between the
 * first and the last voxel centre of \a region (continuous indices, so no point
 * leaves the buffer of an image on that grid), and, with a fixed mask, only points
 * the fixed transform maps into the mask (drawn again until they do). Each
 * coordinate is rounded to \a TCoordinate first, the coordinate type of the point
 * set that will hold it (ITK's point sets keep float), so that the point tested
 * against the mask is the point every later evaluation sees.
 *
 * \a mapToFixed (a callable: virtual point -> fixed point) and \a insideFixedMask
 * (a callable: fixed point -> bool, or null behaviour when there is no mask) come
 * from the metric. The points are appended to \a coordinates (D doubles each).
 * Throws when the mask keeps none of 1000 draws per point asked for: an empty or
 * misplaced mask is an error, not an endless loop. \a rng: a 64-bit
 * UniformRandomBitGenerator (cif::SplitMix64, std::mt19937_64).
 *
 * \a boxSize (physical units per axis; empty: none) draws the points inside a box of
 * that size instead, placed at random within \a region for this call, as elastix's
 * UseRandomSampleRegion with SampleRegionSize does (its start uniform between the
 * region's first voxel centre and the last start that keeps the box inside; an axis
 * shorter than the box is taken whole). */
template <unsigned int D, typename TCoordinate, typename TMapToFixed, typename TInsideFixedMask, typename TEngine>
void
DrawRandomVirtualCoordinates(const ImageBase<D> *        virtualImage,
                             const ImageRegion<D> &      region,
                             std::size_t                 count,
                             TEngine &                   rng,
                             const TMapToFixed &         mapToFixed,
                             const TInsideFixedMask &    insideFixedMask,
                             std::vector<double> &       coordinates,
                             const std::vector<double> & boxSize = {})
{
  // One 64-bit draw per coordinate (53 random bits; a uniform_real_distribution over
  // a 32-bit engine takes two): the draw is per evaluation, so its cost counts.
  static_assert(TEngine::max() - TEngine::min() == ~std::uint64_t(0), "a 64-bit engine");
  const auto        unit = [&rng] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  const std::size_t limit = 1000 * count;
  std::size_t       drawn = 0, kept = 0;
  double            first[D], length[D]; // continuous indices: the box's first and its length
  for (unsigned int a = 0; a < D; ++a)
  {
    first[a] = static_cast<double>(region.GetIndex()[a]);
    length[a] = static_cast<double>(region.GetSize()[a]) - 1.0;
    const double box = boxSize.empty() ? length[a] : boxSize[a] / virtualImage->GetSpacing()[a];
    if (box < length[a])
    {
      first[a] += unit() * (length[a] - box);
      length[a] = box;
    }
  }
  coordinates.reserve(coordinates.size() + count * D);
  while (kept < count)
  {
    if (drawn++ >= limit)
    {
      itkGenericExceptionMacro(<< "No random point of the virtual domain maps into the fixed image mask (" << kept
                               << " of " << count << " after " << limit << " draws)");
    }
    ContinuousIndex<double, D> index;
    for (unsigned int a = 0; a < D; ++a)
    {
      index[a] = first[a] + unit() * length[a];
    }
    typename ImageBase<D>::PointType point;
    virtualImage->TransformContinuousIndexToPhysicalPoint(index, point);
    for (unsigned int a = 0; a < D; ++a)
    {
      point[a] = cif::RoundToPixelType<TCoordinate>(point[a]);
    }
    if constexpr (!std::is_same_v<TInsideFixedMask, NoFixedMask>)
    {
      if (!insideFixedMask(mapToFixed(point)))
      {
        continue;
      }
    }
    for (unsigned int a = 0; a < D; ++a)
    {
      coordinates.push_back(point[a]);
    }
    ++kept;
  }
}
} // namespace itk

#endif
