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
#ifndef cifPrefilterTileSize_h
#define cifPrefilterTileSize_h

#include "cifBSplinePrefilterMath.h"

#include <cstddef>
#include <cstdint>

/** \file cifPrefilterTileSize.h
 * The size arithmetic of the prefilter's tiled pass (a block holds a tile of lines
 * in shared memory, each line cut into kPrefilterChunksPerLine chunks), written once
 * for the kernels' launchers (src/cifPrefilterTile.cuh) and the host's checks of
 * which cuts can be chained (cifChainedAxisPass.h), so that both choose alike. */
namespace cif
{
/** Samples per chunk of lines of \a n samples. */
inline std::int64_t
PrefilterChunkLength(std::int64_t n)
{
  return (n + kPrefilterChunksPerLine - 1) / kPrefilterChunksPerLine;
}

/** Shared memory of a tile of \a lanes lines of \a n scalars of \a scalarBytes, with
 * its chunks' carries. */
inline std::size_t
PrefilterTileBytes(std::size_t scalarBytes, int lanes, std::int64_t n)
{
  return scalarBytes * (static_cast<std::size_t>(n) * static_cast<std::size_t>(lanes + 1) +
                        static_cast<std::size_t>(lanes) * kPrefilterChunksPerLine);
}

/** Lines per tile for lines of \a n scalars: the widest of 32, 16 and 8 (at most
 * \a widest) whose tile fits kPrefilterMaxTileBytes; 0 where none does (such lines
 * take the untiled pass). */
inline int
PrefilterTileLanes(std::size_t scalarBytes, std::int64_t n, int widest = 32)
{
  for (const int lanes : { 32, 16, 8 })
  {
    if (lanes <= widest &&
        PrefilterTileBytes(scalarBytes, lanes, n) <= static_cast<std::size_t>(kPrefilterMaxTileBytes))
    {
      return lanes;
    }
  }
  return 0;
}
} // namespace cif

#endif
