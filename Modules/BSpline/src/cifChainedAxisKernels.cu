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
// The chained pass along the slowest axis (cifChainedAxisPass.h): each part filters
// its own planes in tiles, as the one-piece pass does (cifBSplinePrefilterKernels.cu:
// the same chunks, sweeps and folds from cifPrefilterTile.cuh, so the same bits), and
// takes the fold of the chunks outside it from its neighbours.
#include "cifChainedAxisPass.h"
#include "cifPrefilterTile.cuh"
#include "cifCudaCheck.cuh"
#include "cifCudaRuntime.h"
#include "cifSharedMemoryOptIn.cuh"

#include <cuda/atomic>

#include <algorithm>
#include <string>

namespace cif
{
namespace
{
using namespace prefiltertile;

/** Everything a launch needs (a kernel parameter). */
struct ChainedLaunch
{
  ChainedAxisPart    part[kMaxChainedPartsPerLaunch];
  int                parts = 0;
  std::int64_t       lines = 0;  ///< scalars of a plane: the lines of the slowest axis
  std::int64_t       groups = 0; ///< tiles of LANES lines
  int                n = 0;      ///< samples of a whole line
  int                chunkLength = 0;
  int                lastChunk = 0;
  int                longest = 0; ///< planes of the longest part: the tile's length
  SplinePoles        poles;
  BoundaryMode       mode = BoundaryMode::Mirror;
  unsigned int       epoch = 0;
  unsigned long long timeout = 0; ///< ns a block waits for a neighbour before the launch fails
  unsigned int *     ticket = nullptr;
  int *              failure = nullptr;
};

__device__ unsigned long long
GlobalNanoseconds()
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/** Thread 0 waits for \a flag to show the launch's epoch (another part's block has
 * sent its values); false where the launch has failed or the wait timed out. */
__device__ bool
AwaitFlag(unsigned int * flag, const ChainedLaunch & launch)
{
  cuda::atomic_ref<unsigned int, cuda::thread_scope_system> f(*flag);
  const unsigned long long                                  started = GlobalNanoseconds();
  while (f.load(cuda::memory_order_acquire) != launch.epoch)
  {
    if (*static_cast<volatile int *>(launch.failure) != 0 || GlobalNanoseconds() - started > launch.timeout)
    {
      atomicExch(launch.failure, 1);
      return false;
    }
    __nanosleep(100);
  }
  __threadfence();
  return true;
}

__device__ void
RaiseFlag(unsigned int * flag, unsigned int epoch)
{
  cuda::atomic_ref<unsigned int, cuda::thread_scope_system> f(*flag);
  f.store(epoch, cuda::memory_order_release);
}

/** Raises \a flags[index] (null: the part has no such neighbour) once every thread of
 * the block has written its outgoing values: a barrier, then thread 0's release at
 * system scope, which is cumulative (PTX memory model: the writers' stores precede the
 * barrier, the barrier precedes the release), so the writers need no fence of their
 * own, as in a grid-wide barrier; a system fence in each writer as well was slower
 * (figures: commit d3d0886). Called by every thread of the block (the part, and so
 * \a flags, is the block's). */
__device__ void
RaiseFlagOfBlock(unsigned int * flags, std::int64_t index, unsigned int epoch)
{
  if (flags == nullptr)
  {
    return;
  }
  __syncthreads();
  if (threadIdx.x == 0)
  {
    RaiseFlag(flags + index, epoch);
  }
}

/** A part's line in the tile, indexed as in the whole line (for the starting values:
 * the first part's causal start reads its first samples, the last part's anticausal
 * start its last two). */
template <typename T>
struct WholeLineColumn
{
  TileColumn<T> column;
  int           firstSample;
  __device__ T &
  operator[](std::int64_t k) const
  {
    return column[static_cast<int>(k) - firstSample];
  }
};

/** Persistent blocks: each takes (part, group of LANES lines) tickets in order until
 * none is left, loads the group's samples of the part into shared memory with the
 * gain, runs every pole's sweeps, waiting where a fold from a neighbour is needed
 * and sending the folds the neighbours need, and stores the group. The register
 * budget of the one-piece kernel (kMinBlocksPerSM), so that the tiles' shared memory
 * sets how many blocks an SM holds: the blocks that compute while others wait (three,
 * where nvcc's own choice of 64 registers left two and was slower; figures: commit
 * d3d0886). */
template <typename T, int LANES>
__global__ void
__launch_bounds__(kThreadsPerBlock<LANES>, (kMinBlocksPerSM<T, LANES>))
  PrefilterChainedAxis(const __grid_constant__ ChainedLaunch launch)
{
  constexpr int     pitch = LANES + 1;
  extern __shared__ __align__(16) unsigned char sharedBytes[];
  __shared__ unsigned int                       ticketShared;
  const int                                     lane = threadIdx.x % LANES;
  const int                                     chunk = threadIdx.x / LANES;
  const T                                       gain = static_cast<T>(launch.poles.gain);
  T * const                                     tile = reinterpret_cast<T *>(sharedBytes);
  T * const                                     carry = tile + launch.longest * pitch; // [kChunks][LANES]

  for (;;)
  {
    if (threadIdx.x == 0)
    {
      ticketShared = atomicAdd(launch.ticket, 1u);
    }
    __syncthreads();
    const std::int64_t ticket = ticketShared;
    __syncthreads(); // every thread has read it before thread 0 takes the next
    if (ticket >= launch.groups * launch.parts)
    {
      return;
    }
    const ChainedAxisPart & part = launch.part[ticket % launch.parts];
    const std::int64_t      group = ticket / launch.parts;
    const std::int64_t      firstLine = group * LANES;
    const int  lanesHere = static_cast<int>(min(static_cast<std::int64_t>(LANES), launch.lines - firstLine));
    const int  m = static_cast<int>(part.endPlane - part.firstPlane);
    const int  firstChunk = static_cast<int>(part.firstPlane / launch.chunkLength);
    const bool present = lane < lanesHere;
    T *        planes = static_cast<T *>(part.planes) + firstLine + lane;

#pragma unroll 8
    for (int k = chunk; k < m; k += kChunks)
    {
      tile[k * pitch + lane] = present ? gain * planes[k * launch.lines] : T(0);
    }

    // This thread's chunk: global chunk c, samples [begin, end) of the part.
    const int                c = firstChunk + chunk;
    const int                begin = chunk * launch.chunkLength;
    const int                end = min(begin + launch.chunkLength, m);
    const int                lastLocal = (m - 1) / launch.chunkLength;
    const TileColumn<T>      column{ tile + lane, pitch };
    const WholeLineColumn<T> whole{ column, static_cast<int>(part.firstPlane) };
    const std::int64_t       mailbox = firstLine + lane;
    const std::int64_t       flagStride = ChainedAxisMailbox::FlagsPerPole(launch.lines);
    for (int p = 0; p < launch.poles.count; ++p)
    {
      const double         z = launch.poles.pole[p];
      const T              zt = static_cast<T>(z);
      const T              zFull = static_cast<T>(pow(z, static_cast<double>(launch.chunkLength)));
      const std::int64_t   values = p * launch.lines + mailbox;
      unsigned int * const inFlag = part.causalInFlags ? part.causalInFlags + p * flagStride + group : nullptr;
      __syncthreads(); // tile loaded, or the previous pole finished

      // --- causal: c+[k] = x[k] + z c+[k-1]
      T start = 0;
      if (c == 0 && begin < end)
      {
        start = static_cast<T>(CausalInitialValue(whole, launch.n, z, launch.poles.horizon[p], launch.mode));
      }
      if (begin < end)
      {
        carry[chunk * LANES + lane] = SweepCausal<false>(column, begin, end, zt, c == 0 ? start : column[begin]);
      }
      if (threadIdx.x == 0 && inFlag != nullptr)
      {
        AwaitFlag(inFlag, launch);
      }
      __syncthreads();
      T y = 0;
      if (begin < end)
      {
        // The fold of chunks 0 .. firstChunk - 1 comes from the part before.
        T entering =
          part.causalIn != nullptr && present ? __ldcg(static_cast<const T *>(part.causalIn) + values) : T(0);
        for (int j = 0; j < chunk; ++j)
        {
          entering = FoldChunk(carry[j * LANES + lane], zFull, entering);
        }
        if (chunk == lastLocal && part.causalOut != nullptr && present)
        {
          static_cast<T *>(part.causalOut)[values] = FoldChunk(carry[chunk * LANES + lane], zFull, entering);
        }
        y = c == 0 ? start : column[begin] + zt * entering;
        column[begin] = y;
      }
      // The fold goes out before this part's own second sweep, so that the part after
      // runs its sweeps meanwhile (faster than raising it after; figures: d3d0886).
      RaiseFlagOfBlock(part.causalOutFlags, p * flagStride + group, launch.epoch);
      if (begin < end)
      {
        SweepCausal<true>(column, begin, end, zt, y);
      }
      __syncthreads();

      // --- anticausal: c[k] = z (c[k+1] - c+[k])
      if (c == launch.lastChunk && begin < end) // a thread past the part's chunks has no samples
      {
        start = static_cast<T>(AnticausalInitialValue(whole, launch.n, z, launch.poles.horizon[p], launch.mode));
      }
      if (begin < end)
      {
        carry[chunk * LANES + lane] =
          SweepAnticausal<false>(column, begin, end, zt, c == launch.lastChunk ? start : -zt * column[end - 1]);
      }
      if (threadIdx.x == 0 && part.anticausalInFlags != nullptr)
      {
        AwaitFlag(part.anticausalInFlags + p * flagStride + group, launch);
      }
      __syncthreads();
      if (begin < end)
      {
        // The fold of the chunks after the part comes from the part after.
        T entering =
          part.anticausalIn != nullptr && present ? __ldcg(static_cast<const T *>(part.anticausalIn) + values) : T(0);
        for (int j = lastLocal; j > chunk; --j)
        {
          entering = FoldChunk(carry[j * LANES + lane], zFull, entering);
        }
        if (chunk == 0 && part.anticausalOut != nullptr && present)
        {
          static_cast<T *>(part.anticausalOut)[values] = FoldChunk(carry[lane], zFull, entering);
        }
        y = c == launch.lastChunk ? start : zt * (entering - column[end - 1]);
        column[end - 1] = y;
      }
      RaiseFlagOfBlock(part.anticausalOutFlags, p * flagStride + group, launch.epoch);
      if (begin < end)
      {
        SweepAnticausal<true>(column, begin, end, zt, y);
      }
      __syncthreads();
    }
    __syncthreads();
    if (present)
    {
#pragma unroll 8
      for (int k = chunk; k < m; k += kChunks)
      {
        planes[k * launch.lines] = tile[k * pitch + lane];
      }
    }
    __syncthreads(); // the tile is read before the next ticket's samples overwrite it
  }
}

template <typename T, int LANES>
void
LaunchChained(ChainedLaunch & launch, int longest)
{
  const std::size_t bytes = PrefilterTileBytes(sizeof(T), LANES, longest);
  AllowSharedMemory(PrefilterChainedAxis<T, LANES>, bytes, "the prefilter's chained pass");
  int perSM = 0;
  CIF_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    &perSM, PrefilterChainedAxis<T, LANES>, kThreadsPerBlock<LANES>, bytes));
  const int sms = GetDeviceInfo().multiprocessorCount;
  launch.groups = (launch.lines + LANES - 1) / LANES;
  const std::int64_t tickets = launch.groups * launch.parts;
  const auto         blocks = static_cast<unsigned int>(std::min<std::int64_t>(tickets, std::max(perSM, 1) * sms));
  PrefilterChainedAxis<T, LANES><<<blocks, kThreadsPerBlock<LANES>, bytes>>>(launch);
  CIF_CUDA_CHECK_LAUNCH();
}
} // namespace

template <typename T>
void
PrefilterChainedAxisOnDevice(const ChainedAxisPart * parts,
                             int                     count,
                             const BufferShape &     shape,
                             const SplinePoles &     poles,
                             BoundaryMode            mode,
                             unsigned int            epoch,
                             double                  timeoutSeconds)
{
  if (count < 1 || count > kMaxChainedPartsPerLaunch)
  {
    throw CudaError("the prefilter's chained pass takes 1 to " + std::to_string(kMaxChainedPartsPerLaunch) +
                    " parts a launch, not " + std::to_string(count));
  }
  const int     D = shape.dimension;
  ChainedLaunch launch;
  launch.parts = count;
  launch.lines = shape.ScalarCount() / shape.size[D - 1];
  launch.n = static_cast<int>(shape.size[D - 1]);
  launch.chunkLength = static_cast<int>(PrefilterChunkLength(shape.size[D - 1]));
  launch.lastChunk = (launch.n - 1) / launch.chunkLength;
  launch.poles = poles;
  launch.mode = mode;
  launch.epoch = epoch;
  for (int p = 0; p < count; ++p)
  {
    launch.part[p] = parts[p];
    launch.longest = std::max(launch.longest, static_cast<int>(parts[p].endPlane - parts[p].firstPlane));
  }
  const int    longest = launch.longest;
  DeviceBuffer words(2 * sizeof(unsigned int));
  CIF_CUDA_CHECK(cudaMemsetAsync(words.Data(), 0, words.Bytes(), 0));
  launch.ticket = words.As<unsigned int>();
  launch.failure = reinterpret_cast<int *>(words.As<unsigned int>() + 1);
  launch.timeout = static_cast<unsigned long long>(timeoutSeconds * 1e9);
  // The tile CanChainSlowestAxis checked to be every part's (PrefilterTileLanes of
  // each part's length), so that every device of the chain chooses the same.
  switch (PrefilterTileLanes(sizeof(T), longest, WidestTile()))
  {
    case 32:
      LaunchChained<T, 32>(launch, longest);
      break;
    case 16:
      LaunchChained<T, 16>(launch, longest);
      break;
    default:
      LaunchChained<T, 8>(launch, longest);
      break;
  }
  int failed = 0;
  CIF_CUDA_CHECK(cudaMemcpy(&failed, launch.failure, sizeof(failed), cudaMemcpyDeviceToHost));
  if (failed != 0)
  {
    throw CudaError("the prefilter's chained pass: a neighbouring part's values did not come within " +
                    std::to_string(timeoutSeconds) + " s");
  }
}

void
ChainedAxisMailbox::Allocate(std::int64_t planeScalars, int poles, std::size_t scalarBytes)
{
  const std::size_t values = static_cast<std::size_t>(planeScalars) * static_cast<std::size_t>(poles);
  const std::size_t flags = static_cast<std::size_t>(FlagsPerPole(planeScalars)) * static_cast<std::size_t>(poles);
  m_Causal.Allocate(values * scalarBytes);
  m_Anticausal.Allocate(values * scalarBytes);
  m_CausalFlags.Allocate(flags * sizeof(unsigned int));
  m_AnticausalFlags.Allocate(flags * sizeof(unsigned int));
  CIF_CUDA_CHECK(cudaMemsetAsync(m_CausalFlags.Data(), 0, m_CausalFlags.Bytes(), 0));
  CIF_CUDA_CHECK(cudaMemsetAsync(m_AnticausalFlags.Data(), 0, m_AnticausalFlags.Bytes(), 0));
  CIF_CUDA_CHECK(cudaStreamSynchronize(0));
}

CIF_INSTANTIATE_CHAINED_AXIS(float)
CIF_INSTANTIATE_CHAINED_AXIS(double)
} // namespace cif
