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
#ifndef cifSpreadResample_h
#define cifSpreadResample_h

#include "cifResampleDevice.h"
#include "cifResampleSlabs.h"
#include "cifSpreadPrefilter.h"

#include <algorithm>
#include <vector>

/** \file cifSpreadResample.h
 * One device's share of a resampling spread over several devices through a linear
 * transform, fed slab by slab by the spread prefilter
 * (RunSpreadPrefilterFeedingEveryDevice): each slab of the share is evaluated against
 * the planes it reads (InputPlanesOfRegion, the bits of the whole grid, as in the
 * slabbed path), and is launched as soon as those planes are on the device, so the
 * planes' gathering from the other devices runs while the earlier slabs compute.
 * PlanSpreadShare serves the filter, which gathers a share's planes before its first
 * slab (the fed form was slower with a fresh output: commit 18b0d08); the fed form
 * stays for LargeDataBenchmark's device-resident rows. */
namespace cif
{
/** Device k's share of a spread resampling and the planes it reads, slab by slab. */
struct SpreadShareSlabs
{
  SlabShare                            share;
  PlaneRange                           wanted; ///< every plane the share reads (relative to the input's first)
  std::vector<CoefficientGrid>         boxes;  ///< per slab: the planes it reads, as its grid
  std::vector<std::vector<PlaneRange>> pieces; ///< per slab: the planes no earlier slab read
};

/** Device \a k's share of \a g cut as \a slabs, over \a n devices, through the linear
 * \a chain (host form). A slab's planes are an interval, and so is the union of any
 * run of consecutive slabs' (adjacent slabs share their boundary's image), so each
 * slab adds at most one run below and one above what the slabs before it read. */
template <int D>
inline SpreadShareSlabs
PlanSpreadShare(const ResampleGeometry & g,
                const ResampleSlabs &    slabs,
                std::int64_t             k,
                std::int64_t             n,
                const TransformChain &   chain)
{
  SpreadShareSlabs s;
  s.share = ShareOfSlabs(g, slabs, k, n);
  const std::int64_t offset = g.input.start[D - 1];
  std::int64_t       low = 0, high = 0; // planes read so far: [low, high)
  for (std::int64_t slab = 0; slab < s.share.slabs.count; ++slab)
  {
    const CoefficientGrid   box = InputPlanesOfRegion<D>(SlabGeometry(s.share.geometry, s.share.slabs, slab), chain);
    const std::int64_t      first = box.start[D - 1] - offset, end = first + box.size[D - 1];
    std::vector<PlaneRange> piece;
    if (slab == 0)
    {
      piece.push_back({ first, end });
      low = first;
      high = end;
    }
    else
    {
      if (first < low)
      {
        piece.push_back({ first, low });
        low = first;
      }
      if (end > high)
      {
        piece.push_back({ high, end });
        high = end;
      }
    }
    s.boxes.push_back(box);
    s.pieces.push_back(piece);
  }
  s.wanted = { low, high };
  return s;
}

/** Resamples \a s's share into \a output (device, the share's voxels) from \a planes
 * (device: planes s.wanted of the coefficients, \a planeScalars each), slab by slab:
 * \a waitForSlab(slab) before each slab's launch, \a afterSlab after it (as
 * ResampleOnDevice's). */
template <int D, typename TC, typename TOut, typename TWait>
void
ResampleSpreadShare(const SpreadShareSlabs & s,
                    const TC *               planes,
                    std::int64_t             planeScalars,
                    const TransformChain &   deviceChain,
                    TOut                     defaultValue,
                    TOut *                   output,
                    TWait &&                 waitForSlab,
                    const StageCallback &    afterSlab = {})
{
  for (std::int64_t slab = 0; slab < s.share.slabs.count; ++slab)
  {
    waitForSlab(static_cast<std::size_t>(slab));
    ResampleGeometry gs = SlabGeometry(s.share.geometry, s.share.slabs, slab);
    gs.input = s.boxes[static_cast<std::size_t>(slab)];
    const std::int64_t firstPlane = gs.input.start[D - 1] - s.share.geometry.input.start[D - 1];
    ResampleOnDevice<D, TC, TOut>(planes + (firstPlane - s.wanted.first) * planeScalars,
                                  gs,
                                  deviceChain,
                                  nullptr,
                                  true,
                                  defaultValue,
                                  output + SlabFirstVoxel(s.share.slabs, slab),
                                  ResampleSlabs{},
                                  afterSlab);
  }
}
} // namespace cif

#endif
