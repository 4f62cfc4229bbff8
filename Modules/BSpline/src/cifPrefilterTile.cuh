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
#ifndef cifPrefilterTile_cuh
#define cifPrefilterTile_cuh

#include "cifBSplinePrefilterMath.h"
#include "cifLaunchBounds.cuh"
#include "cifPrefilterTileSize.h"
#include "cifRuntimeSettings.h"

#include <cstddef>
#include <cstdint>

/** \file cifPrefilterTile.cuh
 * The tile of the prefilter's passes, shared by the one-piece pass
 * (cifBSplinePrefilterKernels.cu) and the chained pass of a buffer cut into parts
 * (cifChainedAxisKernels.cu): both cut a line into the same chunks, which is what
 * gives them the same bits. */
namespace cif
{
namespace prefiltertile
{
/** Chunks per line: each line of a tile is swept by this many threads. */
inline constexpr int kChunks = kPrefilterChunksPerLine;
/** Threads of a block of LANES lines. */
template <int LANES>
constexpr int kThreadsPerBlock = LANES * kChunks;
/** Blocks per SM the register budget must allow (1536 float or 1024 double threads
 * per SM), so that occupancy is set by the shared memory of the tiles. TC is the type
 * the sweeps compute in. No minimum where the SM holds fewer threads (sm_75: 1024). */
template <typename TC, int LANES>
constexpr int kMinBlocksPerSM =
  MinBlocksPerSM(kThreadsPerBlock<LANES>, (sizeof(TC) == 4 ? 1536 : 1024) / kThreadsPerBlock<LANES>);

/** One line of a tile in shared memory (samples pitch apart). */
template <typename T>
struct TileColumn
{
  T * base;
  int pitch;
  // 32-bit index math: a tile holds at most a few thousand samples per line
  __device__ T &
  operator[](int k) const
  {
    return base[k * pitch];
  }
};

/** The causal sweep c+[k] = x[k] + z c+[k-1] over samples begin + 1 .. end - 1 of a
 * chunk, from the state \a y at \a begin; writes each value where kWrite (the second
 * round) and returns the state leaving the chunk (the first round's carry). */
template <bool kWrite, typename T>
__device__ T
SweepCausal(const TileColumn<T> & column, int begin, int end, T zt, T y)
{
#pragma unroll 4
  for (int k = begin + 1; k < end; ++k)
  {
    y = column[k] + zt * y;
    if constexpr (kWrite)
    {
      column[k] = y;
    }
  }
  return y;
}

/** The anticausal sweep c[k] = z (c[k+1] - c+[k]) over samples end - 2 down to
 * \a begin, from the state \a y at end - 1; as SweepCausal. */
template <bool kWrite, typename T>
__device__ T
SweepAnticausal(const TileColumn<T> & column, int begin, int end, T zt, T y)
{
#pragma unroll 4
  for (int k = end - 2; k >= begin; --k)
  {
    y = zt * (y - column[k]);
    if constexpr (kWrite)
    {
      column[k] = y;
    }
  }
  return y;
}

/** One step of the fold of the chunks' outgoing states into an entering state: a
 * whole chunk decays the state before it by z^chunkLength (\a zFull). */
template <typename T>
__device__ T
FoldChunk(T carry, T zFull, T entering)
{
  return carry + zFull * entering;
}

/** The widest tile (lines per block) to try: 32, or CIF_PREFILTER_MAX_LANES (16 or
 * 8, cifRuntimeSettings.h), a tuning knob for benchmarks on other GPUs. */
inline int
WidestTile()
{
  return GetRuntimeSettings().prefilterMaxLanes;
}

} // namespace prefiltertile
} // namespace cif

#endif
