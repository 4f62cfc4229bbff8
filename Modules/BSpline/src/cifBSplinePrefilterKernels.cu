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
#include "cifCudaCheck.cuh"

#include <algorithm>
#include <cstdint>

namespace cif
{
namespace
{
constexpr int kThreadsPerBlock = 256;
constexpr int kMaxTileBytes = 100 * 1024; // three blocks of float 512-lines per SM

/** One line of a tile in shared memory (samples pitch apart). */
template <typename T>
struct TileColumn
{
  T * base;
  int pitch;
  __device__ T & operator[](std::int64_t k) const { return base[k * pitch]; }
};

template <typename T, int LANES>
__global__ void __launch_bounds__(kThreadsPerBlock)
  PrefilterAxisTiled(T * data, AxisLines axis, SplinePoles poles, BoundaryMode mode, int chunkLength)
{
  constexpr int CHUNKS = kThreadsPerBlock / LANES;
  constexpr int pitch = LANES + 1; // odd pitch: no bank conflicts loading along either direction
  extern __shared__ __align__(16) unsigned char sharedBytes[];
  const int n = static_cast<int>(axis.length);
  T *       tile = reinterpret_cast<T *>(sharedBytes);
  T *       carry = tile + n * pitch;        // [CHUNKS][LANES]
  T *       zPower = carry + CHUNKS * LANES; // z^0 .. z^chunkLength of the current pole
  __shared__ std::int64_t laneStart[LANES];

  const int          lane = threadIdx.x % LANES;
  const int          chunk = threadIdx.x / LANES;
  const std::int64_t firstLine = static_cast<std::int64_t>(blockIdx.x) * LANES;
  const int          lanesHere = static_cast<int>(axis.count - firstLine < LANES ? axis.count - firstLine : LANES);
  if (threadIdx.x < LANES)
  {
    laneStart[threadIdx.x] = threadIdx.x < lanesHere ? axis.Start(firstLine + threadIdx.x) : 0;
  }
  __syncthreads();

  // Coalesced load: along the line when samples are contiguous, across lines otherwise.
  const bool alongLine = axis.stride == 1;
  const int  elements = n * LANES;
  const T    gain = static_cast<T>(poles.gain);
  for (int e = threadIdx.x; e < elements; e += kThreadsPerBlock)
  {
    const int l = alongLine ? e / n : e % LANES;
    const int k = alongLine ? e % n : e / LANES;
    tile[k * pitch + l] = l < lanesHere ? gain * data[laneStart[l] + k * axis.stride] : T(0);
  }

  const int           begin = chunk * chunkLength;
  const int           end = min(begin + chunkLength, n);
  const int           lastChunk = (n - 1) / chunkLength;
  const TileColumn<T> column{ tile + lane, pitch };
  for (int p = 0; p < poles.count; ++p)
  {
    const double z = poles.pole[p];
    const T      zt = static_cast<T>(z);
    for (int j = threadIdx.x; j <= chunkLength; j += kThreadsPerBlock)
    {
      zPower[j] = static_cast<T>(pow(z, static_cast<double>(j)));
    }
    __syncthreads(); // tile loaded (or previous pole finished), powers ready

    // Causal sweep. The starting value reads samples of later chunks: take it first.
    T y = 0;
    if (chunk == 0)
    {
      y = static_cast<T>(CausalInitialValue(column, n, z, poles.horizon[p], mode));
    }
    __syncthreads();
    if (begin < end)
    {
      y = chunk == 0 ? y : column[begin];
      column[begin] = y;
      for (int k = begin + 1; k < end; ++k)
      {
        y = column[k] + zt * y;
        column[k] = y;
      }
    }
    carry[chunk * LANES + lane] = y;
    __syncthreads();
    if (chunk == 0) // true causal state at the end of every chunk
    {
      T state = carry[lane];
      for (int c = 1; c <= lastChunk; ++c)
      {
        const int length = min(chunkLength, n - c * chunkLength);
        state = carry[c * LANES + lane] + zPower[length] * state;
        carry[c * LANES + lane] = state;
      }
    }
    __syncthreads();
    if (chunk > 0 && begin < end)
    {
      const T entering = carry[(chunk - 1) * LANES + lane];
      for (int k = begin; k < end; ++k)
      {
        column[k] += zPower[k - begin + 1] * entering;
      }
    }
    __syncthreads();

    // Anticausal sweep, mirrored: local sweeps from each chunk's end, then carry back.
    y = 0;
    if (chunk == lastChunk)
    {
      y = static_cast<T>(AnticausalInitialValue(column, n, z, poles.horizon[p], mode));
    }
    __syncthreads();
    if (begin < end)
    {
      y = chunk == lastChunk ? y : -zt * column[end - 1];
      column[end - 1] = y;
      for (int k = end - 2; k >= begin; --k)
      {
        y = zt * (y - column[k]);
        column[k] = y;
      }
    }
    carry[chunk * LANES + lane] = y;
    __syncthreads();
    if (chunk == 0) // true anticausal value at the start of every chunk
    {
      T state = carry[lastChunk * LANES + lane];
      for (int c = lastChunk - 1; c >= 0; --c)
      {
        state = carry[c * LANES + lane] + zPower[chunkLength] * state;
        carry[c * LANES + lane] = state;
      }
    }
    __syncthreads();
    if (chunk < lastChunk && begin < end)
    {
      const T entering = carry[(chunk + 1) * LANES + lane];
      for (int k = begin; k < end; ++k)
      {
        column[k] += zPower[end - k] * entering;
      }
    }
    __syncthreads();
  }

  for (int e = threadIdx.x; e < elements; e += kThreadsPerBlock)
  {
    const int l = alongLine ? e / n : e % LANES;
    const int k = alongLine ? e % n : e / LANES;
    if (l < lanesHere)
    {
      data[laneStart[l] + k * axis.stride] = tile[k * pitch + l];
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

template <typename T>
std::size_t
TileBytes(int lanes, std::int64_t n, int chunkLength)
{
  return sizeof(T) *
         (static_cast<std::size_t>(n) * (lanes + 1) + kThreadsPerBlock + static_cast<std::size_t>(chunkLength) + 1);
}

template <typename T, int LANES>
bool
TryTiled(T * data, const AxisLines & axis, const SplinePoles & poles, BoundaryMode mode)
{
  constexpr int chunks = kThreadsPerBlock / LANES;
  const int     chunkLength = static_cast<int>((axis.length + chunks - 1) / chunks);
  const auto    bytes = TileBytes<T>(LANES, axis.length, chunkLength);
  if (bytes > static_cast<std::size_t>(kMaxTileBytes))
  {
    return false;
  }
  static const bool configured = [] {
    CIF_CUDA_CHECK(cudaFuncSetAttribute(
      PrefilterAxisTiled<T, LANES>, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxTileBytes));
    return true;
  }();
  (void)configured;
  const std::int64_t blocks = (axis.count + LANES - 1) / LANES;
  PrefilterAxisTiled<T, LANES>
    <<<static_cast<unsigned int>(blocks), kThreadsPerBlock, bytes>>>(data, axis, poles, mode, chunkLength);
  CIF_CUDA_CHECK_LAUNCH();
  return true;
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
} // namespace

template <typename T>
void
PrefilterOnDevice(T * deviceData, const BufferShape & shape, const SplinePoles & poles, BoundaryMode mode)
{
  if (poles.count == 0)
  {
    return;
  }
  for (int axis = 0; axis < shape.dimension; ++axis)
  {
    const AxisLines lines = MakeAxisLines(shape, axis);
    if (lines.length < 2 || lines.count == 0)
    {
      continue;
    }
    if (TryTiled<T, 32>(deviceData, lines, poles, mode) || TryTiled<T, 16>(deviceData, lines, poles, mode) ||
        TryTiled<T, 8>(deviceData, lines, poles, mode))
    {
      continue;
    }
    const int          threads = 128;
    const std::int64_t blocks = (lines.count + threads - 1) / threads;
    PrefilterAxisGlobal<T><<<static_cast<unsigned int>(blocks), threads>>>(deviceData, lines, poles, mode);
    CIF_CUDA_CHECK_LAUNCH();
  }
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

template void PrefilterOnDevice<float>(float *, const BufferShape &, const SplinePoles &, BoundaryMode);
template void PrefilterOnDevice<double>(double *, const BufferShape &, const SplinePoles &, BoundaryMode);

#define CIF_INSTANTIATE_CONVERT(TIn)                                                                                 \
  template void ConvertOnDevice<TIn, float>(const TIn *, float *, std::int64_t);                                     \
  template void ConvertOnDevice<TIn, double>(const TIn *, double *, std::int64_t)
CIF_INSTANTIATE_CONVERT(std::uint8_t);
CIF_INSTANTIATE_CONVERT(std::int8_t);
CIF_INSTANTIATE_CONVERT(std::uint16_t);
CIF_INSTANTIATE_CONVERT(std::int16_t);
CIF_INSTANTIATE_CONVERT(std::uint32_t);
CIF_INSTANTIATE_CONVERT(std::int32_t);
CIF_INSTANTIATE_CONVERT(float);
CIF_INSTANTIATE_CONVERT(double);
#undef CIF_INSTANTIATE_CONVERT

} // namespace cif
