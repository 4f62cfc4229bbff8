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
// GPU kernels of the cubic (and order 2-5) B-spline prefilter.
//
// One pass per axis, in place. A block takes a tile of LANES neighbouring lines of
// the axis into shared memory (one global read and one global write per sample: the
// memory floor of a separable pass), with the gain folded into the load. Inside the
// tile each line is cut into CHUNKS pieces swept by different threads: every piece
// is swept from a zero state, then the true state at each piece's end is carried
// along the line (a first-order recursion: the state that enters a piece decays as
// z^k through it) and added back. Starting values use the shared 1-D math of
// cifBSplinePrefilterMath.h, so the tile path, the global fallback and the CPU path
// compute the same thing.
#include "cifBSplinePrefilterDevice.h"
#include "cifPrefilterTile.cuh"
#include "cifScalarTypes.h"
#include "cifCudaCheck.cuh"
#include "cifSharedMemoryOptIn.cuh"
#include "cifDeviceBuffer.h"

#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <type_traits>

namespace cif
{
namespace
{
using namespace prefiltertile;

/** T is the type in global memory, TC the type of the tile and of the sweeps: T for
 * the module's own filters; double for float data when a caller needs each line
 * computed in double and stored as float after each axis (VTK's
 * vtkImageBSplineCoefficients with float output). The lines are read from \a source
 * as \a axis lays them out and written to \a data as \a into does: the same lines,
 * where the first pass reads dense samples into a padded layout (BufferLayout). */
template <typename T, typename TC, int LANES>
__global__ void
__launch_bounds__(kThreadsPerBlock<LANES>, (kMinBlocksPerSM<TC, LANES>)) PrefilterAxisTiled(const T *    source,
                                                                                            T *          data,
                                                                                            AxisLines    axis,
                                                                                            AxisLines    into,
                                                                                            SplinePoles  poles,
                                                                                            BoundaryMode mode,
                                                                                            int          chunkLength)
{
  constexpr int     THREADS = kThreadsPerBlock<LANES>;
  constexpr int     WARPS = THREADS / 32;
  constexpr int     pitch = LANES + 1; // odd pitch: no bank conflicts along either direction
  extern __shared__ __align__(16) unsigned char sharedBytes[];
  const int                                     n = static_cast<int>(axis.length);
  TC *                                          tile = reinterpret_cast<TC *>(sharedBytes);
  TC *                                          carry = tile + n * pitch; // [kChunks][LANES]
  __shared__ std::int64_t laneStart[LANES];
  __shared__ std::int64_t laneStartInto[LANES];

  const int          lane = threadIdx.x % LANES;
  const int          chunk = threadIdx.x / LANES;
  const std::int64_t firstLine = static_cast<std::int64_t>(blockIdx.x) * LANES;
  const int          lanesHere = static_cast<int>(axis.count - firstLine < LANES ? axis.count - firstLine : LANES);
  if (threadIdx.x < LANES)
  {
    laneStart[threadIdx.x] = threadIdx.x < lanesHere ? axis.Start(firstLine + threadIdx.x) : 0;
    laneStartInto[threadIdx.x] = threadIdx.x < lanesHere ? into.Start(firstLine + threadIdx.x) : 0;
  }
  __syncthreads();

  // Coalesced load with the gain folded in. Contiguous samples (the first axis): a
  // warp reads along one line. Otherwise neighbouring lines are neighbouring
  // addresses and a warp reads across lines. No division per element, and the
  // unrolled loops keep many loads in flight.
  const TC   gain = static_cast<TC>(poles.gain);
  const bool alongLine = axis.stride == 1 && into.stride == 1;
  const int  warp = threadIdx.x / 32, laneOfWarp = threadIdx.x % 32;
  if (alongLine)
  {
    for (int l = warp; l < LANES; l += WARPS)
    {
      const T *  line = source + laneStart[l];
      const bool present = l < lanesHere;
#pragma unroll 8
      for (int k = laneOfWarp; k < n; k += 32)
      {
        tile[k * pitch + l] = present ? gain * static_cast<TC>(line[k]) : TC(0);
      }
    }
  }
  else
  {
    constexpr int ROWS = kChunks; // sample rows loaded per step
    const bool    present = lane < lanesHere;
    const T *     line = source + laneStart[lane];
#pragma unroll 8
    for (int k = chunk; k < n; k += ROWS)
    {
      tile[k * pitch + lane] = present ? gain * static_cast<TC>(line[k * axis.stride]) : TC(0);
    }
  }

  // Each pole: a causal and an anticausal sweep. Each sweep runs in two rounds over
  // the chunks of a line: a read-only round from a zero state gives each chunk's
  // outgoing state; then every thread folds the outgoing states of the chunks before
  // its own into its true entering state (a state decays as z^length across a
  // chunk) and sweeps its chunk again from there, writing the result.
  const int            begin = chunk * chunkLength;
  const int            end = min(begin + chunkLength, n);
  const int            lastChunk = (n - 1) / chunkLength;
  const TileColumn<TC> column{ tile + lane, pitch };
  for (int p = 0; p < poles.count; ++p)
  {
    const double z = poles.pole[p];
    const TC     zt = static_cast<TC>(z);
    const TC     zFull = static_cast<TC>(pow(z, static_cast<double>(chunkLength)));
    __syncthreads(); // tile loaded, or the previous pole finished

    // --- causal: c+[k] = x[k] + z c+[k-1]
    TC start = 0;
    if (chunk == 0)
    {
      start = static_cast<TC>(CausalInitialValue(column, n, z, poles.horizon[p], mode));
    }
    if (begin < end)
    {
      // outgoing state from a zero (chunk 0: true) start
      carry[chunk * LANES + lane] = SweepCausal<false>(column, begin, end, zt, chunk == 0 ? start : column[begin]);
    }
    __syncthreads();
    if (begin < end)
    {
      // True state leaving chunk c-1: fold the outgoing states of chunks 0..c-1,
      // each full chunk decaying the state before it by z^chunkLength.
      TC entering = 0;
      for (int c = 0; c < chunk; ++c)
      {
        entering = FoldChunk(carry[c * LANES + lane], zFull, entering);
      }
      const TC y = chunk == 0 ? start : column[begin] + zt * entering;
      column[begin] = y;
      SweepCausal<true>(column, begin, end, zt, y);
    }
    __syncthreads();

    // --- anticausal: c[k] = z (c[k+1] - c+[k])
    if (chunk == lastChunk)
    {
      start = static_cast<TC>(AnticausalInitialValue(column, n, z, poles.horizon[p], mode));
    }
    if (begin < end)
    {
      // outgoing (leftward) state from a zero start
      carry[chunk * LANES + lane] =
        SweepAnticausal<false>(column, begin, end, zt, chunk == lastChunk ? start : -zt * column[end - 1]);
    }
    __syncthreads();
    if (begin < end)
    {
      // True value at the start of chunk c+1, folded from the last chunk down.
      TC entering = 0;
      for (int c = lastChunk; c > chunk; --c)
      {
        entering = FoldChunk(carry[c * LANES + lane], zFull, entering);
      }
      const TC y = chunk == lastChunk ? start : zt * (entering - column[end - 1]);
      column[end - 1] = y;
      SweepAnticausal<true>(column, begin, end, zt, y);
    }
  }
  __syncthreads();

  if (alongLine)
  {
    for (int l = warp; l < lanesHere; l += WARPS)
    {
      T * line = data + laneStartInto[l];
#pragma unroll 8
      for (int k = laneOfWarp; k < n; k += 32)
      {
        line[k] = static_cast<T>(tile[k * pitch + l]);
      }
    }
  }
  else if (lane < lanesHere)
  {
    constexpr int ROWS = kChunks;
    T *           line = data + laneStartInto[lane];
#pragma unroll 8
    for (int k = chunk; k < n; k += ROWS)
    {
      line[k * into.stride] = static_cast<T>(tile[k * pitch + lane]);
    }
  }
}

/** Lines too long for a tile: one thread per line, straight in global memory. */
template <typename T>
__global__ void
PrefilterAxisGlobal(T * data, AxisLines axis, SplinePoles poles, BoundaryMode mode)
{
  const std::int64_t line = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (line >= axis.count)
  {
    return;
  }
  StridedLine<T> c{ data + axis.Start(line), axis.stride };
  PrefilterLine<T>(c, axis.length, poles, mode);
}

/** The tiled pass in tiles of LANES lines (PrefilterTileLanes chose them: they fit). */
template <typename T, typename TC, int LANES>
void
LaunchTiled(const T *           source,
            T *                 data,
            const AxisLines &   axis,
            const AxisLines &   into,
            const SplinePoles & poles,
            BoundaryMode        mode)
{
  const int  chunkLength = static_cast<int>(PrefilterChunkLength(axis.length));
  const auto bytes = PrefilterTileBytes(sizeof(TC), LANES, axis.length);
  AllowSharedMemory(PrefilterAxisTiled<T, TC, LANES>, bytes, "the prefilter's tiled pass");
  const std::int64_t blocks = (axis.count + LANES - 1) / LANES;
  PrefilterAxisTiled<T, TC, LANES><<<static_cast<unsigned int>(blocks), kThreadsPerBlock<LANES>, bytes>>>(
    source, data, axis, into, poles, mode, chunkLength);
  CIF_CUDA_CHECK_LAUNCH();
}

/** The tiled pass over \a axis where its lines fit a tile (false: they do not). */
template <typename T, typename TC>
bool
TryTiled(const T *           source,
         T *                 data,
         const AxisLines &   axis,
         const AxisLines &   into,
         const SplinePoles & poles,
         BoundaryMode        mode)
{
  switch (PrefilterTileLanes(sizeof(TC), axis.length, WidestTile()))
  {
    case 32:
      LaunchTiled<T, TC, 32>(source, data, axis, into, poles, mode);
      return true;
    case 16:
      LaunchTiled<T, TC, 16>(source, data, axis, into, poles, mode);
      return true;
    case 8:
      LaunchTiled<T, TC, 8>(source, data, axis, into, poles, mode);
      return true;
    default:
      return false;
  }
}

template <typename TIn, typename T>
__global__ void
ConvertKernel(const TIn * in, T * out, std::int64_t count)
{
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    out[i] = static_cast<T>(in[i]);
  }
}

/** One axis of lines too long for a tile: one thread per line in global memory. With
 * TC wider than T (float data computed in double), the axis is widened into a
 * scratch buffer first, so that every line is still swept and stored in TC. */
template <typename T, typename TC>
void
PrefilterAxisInGlobalMemory(T *                 deviceData,
                            const BufferShape & shape,
                            const AxisLines &   lines,
                            const SplinePoles & poles,
                            BoundaryMode        mode)
{
  const int          threads = 128;
  const std::int64_t blocks = (lines.count + threads - 1) / threads;
  if constexpr (std::is_same_v<T, TC>)
  {
    PrefilterAxisGlobal<T><<<static_cast<unsigned int>(blocks), threads>>>(deviceData, lines, poles, mode);
    CIF_CUDA_CHECK_LAUNCH();
  }
  else
  {
    const std::int64_t count = shape.ScalarCount();
    DeviceBuffer       wide(static_cast<std::size_t>(count) * sizeof(TC));
    ConvertOnDevice<T, TC>(deviceData, wide.As<TC>(), count);
    PrefilterAxisGlobal<TC><<<static_cast<unsigned int>(blocks), threads>>>(wide.As<TC>(), lines, poles, mode);
    CIF_CUDA_CHECK_LAUNCH();
    ConvertOnDevice<TC, T>(wide.As<TC>(), deviceData, count);
  }
}

/** The scalars of a dense one-component buffer, \a source, into \a data as \a rows
 * (its lines along the first axis, in another layout) lays them out. */
template <typename T>
__global__ void
CopyIntoLayoutKernel(const T * source, AxisLines rows, T * data)
{
  const std::int64_t count = rows.count * rows.length;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    data[rows.Start(i / rows.length) + (i % rows.length) * rows.stride] = source[i];
  }
}

/** Every axis: T in global memory, TC in the tiles and the sweeps; \a deviceData at
 * \a layout (dense, or with room between lines for one-component buffers), and
 * \a source, where it is not \a deviceData, dense. */
template <typename T, typename TC>
void
PrefilterAxes(const T *             source,
              T *                   deviceData,
              const BufferLayout &  layout,
              const BufferShape &   shape,
              const SplinePoles &   poles,
              BoundaryMode          mode,
              const StageCallback & afterAxis,
              int                   axisEnd)
{
  const bool dense = IsDenseLayout(shape, layout);
  if (!dense && (shape.components != 1 || !std::is_same_v<T, TC>))
  {
    throw CudaError("the B-spline prefilter: a padded layout takes one-component buffers computed in their own type");
  }
  // The first axis filtered reads from source, the others in place. A tile reads its
  // whole tile before it writes, so source == deviceData is the in-place filter.
  const T *  from = source;
  const auto copyFromSource = [&] {
    if (from == deviceData)
    {
      return;
    }
    if (dense)
    {
      CIF_CUDA_CHECK(cudaMemcpyAsync(
        deviceData, from, static_cast<std::size_t>(shape.ScalarCount()) * sizeof(T), cudaMemcpyDeviceToDevice, 0));
    }
    else if (shape.ScalarCount() > 0)
    {
      const int          threads = 256;
      const std::int64_t blocks = std::min<std::int64_t>((shape.ScalarCount() + threads - 1) / threads, 65536);
      CopyIntoLayoutKernel<T>
        <<<static_cast<unsigned int>(blocks), threads>>>(from, MakeAxisLines(shape, 0, layout), deviceData);
      CIF_CUDA_CHECK_LAUNCH();
    }
    from = deviceData;
  };
  // The lines of an axis where the pass reads them: a distinct source is dense.
  const auto readLines = [&](int axis) {
    return from == deviceData ? MakeAxisLines(shape, axis, layout) : MakeAxisLines(shape, axis);
  };
  const auto filtered = [&](const AxisLines & lines) {
    return poles.count > 0 && lines.length >= 2 && lines.count > 0;
  };
  bool anyFiltered = false;
  for (int axis = 0; axis < axisEnd; ++axis)
  {
    anyFiltered = anyFiltered || filtered(MakeAxisLines(shape, axis, layout));
  }
  if (!anyFiltered)
  {
    copyFromSource(); // nothing to filter: the coefficients are the samples (before any axis is reported)
  }
  for (int axis = 0; axis < axisEnd; ++axis)
  {
    const AxisLines lines = MakeAxisLines(shape, axis, layout);
    if (!filtered(lines))
    {
      StageDone(afterAxis);
      continue;
    }
    const AxisLines read = readLines(axis);
    if (TryTiled<T, TC>(from, deviceData, read, lines, poles, mode))
    {
      from = deviceData;
      StageDone(afterAxis);
      continue;
    }
    copyFromSource();
    PrefilterAxisInGlobalMemory<T, TC>(deviceData, shape, lines, poles, mode);
    StageDone(afterAxis);
  }
}
} // namespace

template <typename T>
void
PrefilterOnDevice(const T *             source,
                  T *                   deviceData,
                  const BufferShape &   shape,
                  const SplinePoles &   poles,
                  BoundaryMode          mode,
                  const StageCallback & afterAxis)
{
  PrefilterAxes<T, T>(source, deviceData, DenseLayout(shape), shape, poles, mode, afterAxis, shape.dimension);
}

template <typename T>
void
PrefilterIntoLayoutOnDevice(const T *             source,
                            T *                   deviceData,
                            const BufferLayout &  layout,
                            const BufferShape &   shape,
                            const SplinePoles &   poles,
                            BoundaryMode          mode,
                            const StageCallback & afterAxis)
{
  PrefilterAxes<T, T>(source, deviceData, layout, shape, poles, mode, afterAxis, shape.dimension);
}

void
PrefilterOnDeviceInDouble(const float *         source,
                          float *               deviceData,
                          const BufferShape &   shape,
                          const SplinePoles &   poles,
                          BoundaryMode          mode,
                          const StageCallback & afterAxis)
{
  PrefilterAxes<float, double>(source, deviceData, DenseLayout(shape), shape, poles, mode, afterAxis, shape.dimension);
}

template <typename T>
void
PrefilterOnDevice(T *                   deviceData,
                  const BufferShape &   shape,
                  const SplinePoles &   poles,
                  BoundaryMode          mode,
                  const StageCallback & afterAxis)
{
  PrefilterOnDevice<T>(deviceData, deviceData, shape, poles, mode, afterAxis);
}

template <typename T>
void
PrefilterLeadingAxesOnDevice(T *                   deviceData,
                             const BufferShape &   shape,
                             int                   axisEnd,
                             const SplinePoles &   poles,
                             BoundaryMode          mode,
                             const StageCallback & afterAxis)
{
  PrefilterAxes<T, T>(
    deviceData, deviceData, DenseLayout(shape), shape, poles, mode, afterAxis, std::min(axisEnd, shape.dimension));
}

template <typename TIn, typename T>
void
ConvertOnDevice(const TIn * deviceIn, T * deviceOut, std::int64_t count)
{
  if (count <= 0)
  {
    return;
  }
  const int          threads = 256;
  const std::int64_t blocks = std::min<std::int64_t>((count + threads - 1) / threads, 65536);
  ConvertKernel<TIn, T><<<static_cast<unsigned int>(blocks), threads>>>(deviceIn, deviceOut, count);
  CIF_CUDA_CHECK_LAUNCH();
}

CIF_INSTANTIATE_PREFILTER(float)
CIF_INSTANTIATE_PREFILTER(double)

CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_CONVERT)

} // namespace cif
