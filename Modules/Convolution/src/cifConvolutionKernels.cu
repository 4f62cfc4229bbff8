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
// CUDA kernels of the convolution and the zoom. The arithmetic (index clamping, the
// order of the sums, the zoom's sampling) comes from cifConvolutionMath.h and
// cifZoomMath.h, which the CPU path runs as well.
#include "cifConvolutionDevice.h"
#include "cifSharedMemoryOptIn.cuh"

// CIF_KERNEL_EMULATION: the unit tests compile this file on the host with their own
// CUDA stand-ins (one host thread per CUDA thread, a barrier per __syncthreads), so
// that CI, which has no GPU, runs these kernels' indexing and sums against the CPU
// path (Testing/Unit/cifKernelEmulationTest.cxx).
#ifndef CIF_KERNEL_EMULATION
#  include "cifCudaCheck.cuh"
#  include "cifLaunchBounds.cuh"
#  define CIF_LAUNCH(kernel, ...) kernel<<<__VA_ARGS__>>>
#  define CIF_DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#  define CIF_LAUNCH_BOUNDS(threads, blocksPerSM) __launch_bounds__(threads, cif::MinBlocksPerSM(threads, blocksPerSM))
#else
#  define CIF_LAUNCH_BOUNDS(threads, blocksPerSM)
#endif

namespace cif
{
namespace
{
constexpr int GeneralTileX = 32; // threads along x: one output column each
constexpr int GeneralThreadsY = 4;
constexpr int GeneralOutputs = 16; // outputs per thread, down its column
constexpr int GeneralTileY = GeneralThreadsY * GeneralOutputs;

constexpr int SeparableTileX = 32; // 32 x 64 outputs per block
constexpr int SeparableThreadsY = 8;
constexpr int SeparableOutputs = 8; // per thread, in each pass
constexpr int SeparableTileY = SeparableThreadsY * SeparableOutputs;
constexpr int SeparableRowPitch = SeparableTileX + 1; // the row pass's shared rows: 33 floats, no bank conflicts

/** Taps padded with zeros to a multiple of 4 (one float4 of weights per step). */
constexpr __host__ __device__ int
SeparablePadded(int k)
{
  return (k + 3) / 4 * 4;
}

/** CUDA's limit on gridDim.y and gridDim.z. The 3-D launches below run as batches of
 * at most this many blocks along y and z, each batch told where it starts, so that a
 * volume with more than 65535 slices (or rows of tiles) times planes needs no special
 * case. The unit tests emulating these kernels set a tiny limit to run the batches. */
#ifndef CIF_MAX_GRID_YZ
#  define CIF_MAX_GRID_YZ 65535
#endif
constexpr std::int64_t kMaxGridYZ = CIF_MAX_GRID_YZ;

/** Calls launch(grid, firstBlockY, firstBlockZ) for batches of a grid of blocksX x
 * blocksY x blocksZ blocks that respect kMaxGridYZ. gridDim.x takes 2^31 - 1 blocks:
 * more than any image this module can hold. */
template <typename TLaunch>
void
LaunchInGridBatches(std::int64_t blocksX, std::int64_t blocksY, std::int64_t blocksZ, TLaunch && launch)
{
  for (std::int64_t z0 = 0; z0 < blocksZ; z0 += kMaxGridYZ)
  {
    for (std::int64_t y0 = 0; y0 < blocksY; y0 += kMaxGridYZ)
    {
      const dim3 grid(static_cast<unsigned int>(blocksX),
                      static_cast<unsigned int>(blocksY - y0 < kMaxGridYZ ? blocksY - y0 : kMaxGridYZ),
                      static_cast<unsigned int>(blocksZ - z0 < kMaxGridYZ ? blocksZ - z0 : kMaxGridYZ));
      launch(grid, y0, z0);
    }
  }
}

__global__ void
GeneralKernel(const float * __restrict__ in,
              ConvolutionGeometry g,
              const float * __restrict__ packed,
              float * __restrict__ out,
              std::int64_t firstBlockY,
              std::int64_t firstBlockZ)
{
  CIF_DYNAMIC_SHARED(float4, sharedRaw);
  const int kx = g.kernelSize[0], column = PaddedColumn(g.kernelSize[1]);
  float *   weights = reinterpret_cast<float *>(sharedRaw); // [kx][column] of the current kernel slice
  float *   tile = weights + kx * column;
  const int width = GeneralTileX + kx - 1;
  const int rows = GeneralTileY + column - 1;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * GeneralTileX + tx;
  // 64-bit block numbers: the launch runs in batches of 65535 along y and z.
  const std::int64_t blockZ = firstBlockZ + blockIdx.z;
  const std::int64_t oz = blockZ % g.outSize[2];
  const std::int64_t plane = blockZ / g.outSize[2];
  const std::int64_t ox0 = std::int64_t(blockIdx.x) * GeneralTileX;
  const std::int64_t oy0 = (firstBlockY + blockIdx.y) * GeneralTileY;
  const float *      source = in + plane * g.InVolume();

  double sum[GeneralOutputs];
  CIF_UNROLL
  for (int p = 0; p < GeneralOutputs; ++p)
  {
    sum[p] = 0.0;
  }
  for (int kz = 0; kz < g.kernelSize[2]; ++kz)
  {
    const float * slice = source + g.InputIndex(2, oz, kz) * g.inSize[0] * g.inSize[1];
    for (int i = tid; i < kx * column; i += GeneralTileX * GeneralThreadsY)
    {
      weights[i] = packed[std::int64_t(kz) * kx * column + i];
    }
    // Tile row r holds input row clamp(oy0 + r + offset - radius); rows past the
    // kernel's own (the zero-weight padding) are loaded clamped as well.
    for (int i = tid; i < rows * width; i += GeneralTileX * GeneralThreadsY)
    {
      const int r = i / width, c = i - r * width;
      tile[i] = slice[g.InputIndex(1, oy0 + r, 0) * g.inSize[0] + g.InputIndex(0, ox0 + c, 0)];
    }
    __syncthreads();
    for (int k = 0; k < kx; ++k)
    {
      float partial[GeneralOutputs];
      CIF_UNROLL
      for (int p = 0; p < GeneralOutputs; ++p)
      {
        partial[p] = 0.0f;
      }
      const float * w = weights + k * column;
      for (int chunk = 0; chunk < column; chunk += GeneralKernelPad)
      {
        // A window of 23 rows serves 16 outputs x 8 kernel rows.
        float v[GeneralOutputs + GeneralKernelPad - 1];
        CIF_UNROLL
        for (int i = 0; i < GeneralOutputs + GeneralKernelPad - 1; ++i)
        {
          v[i] = tile[(ty * GeneralOutputs + chunk + i) * width + tx + k];
        }
        const float4 w0 = *reinterpret_cast<const float4 *>(w + chunk);
        const float4 w1 = *reinterpret_cast<const float4 *>(w + chunk + 4);
        const float  wq[GeneralKernelPad] = { w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w };
        CIF_UNROLL
        for (int p = 0; p < GeneralOutputs; ++p)
        {
          CIF_UNROLL
          for (int q = 0; q < GeneralKernelPad; ++q)
          {
            partial[p] += wq[q] * v[p + q];
          }
        }
      }
      CIF_UNROLL
      for (int p = 0; p < GeneralOutputs; ++p)
      {
        sum[p] += static_cast<double>(partial[p]);
      }
    }
    __syncthreads();
  }
  const std::int64_t ox = ox0 + tx;
  if (ox >= g.outSize[0])
  {
    return;
  }
  float * target = out + plane * g.OutVolume() + oz * g.outSize[0] * g.outSize[1];
  CIF_UNROLL
  for (int p = 0; p < GeneralOutputs; ++p)
  {
    const std::int64_t oy = oy0 + ty * GeneralOutputs + p;
    if (oy < g.outSize[1])
    {
      target[oy * g.outSize[0] + ox] = static_cast<float>(sum[p]);
    }
  }
}

/** Both in-plane passes of a separable kernel on a 32 x 64 output tile, all through
 * shared memory: the input tile is read once, the row pass writes its result to
 * shared memory, the column pass reads it. In both passes a thread computes 8
 * outputs from a window of 11 samples per 4 taps (the taps padded with zeros to a
 * multiple of 4 and read as one float4 broadcast), so shared-memory traffic is about
 * a third of a load per multiply-add.
 * In the row pass the lanes of a warp take consecutive rows: the tile's odd width
 * and the row pass's width of 33 keep them on distinct banks. \a slices output
 * slices per plane; with \a throughScratch every input slice is filtered (the z pass
 * follows), else output slice s reads input slice clamp(s + offset).
 * \a Padded is the padded tap count of both axes when it is known at compile time (0:
 * read from the geometry). With run-time counts the kernel was bound by instruction
 * issue (index arithmetic), not by memory: a compile-time count unrolls the tap loops
 * completely (the windows of consecutive 4-tap steps share their loads, the tile's
 * shape is constant, so the row pass's division by the row count is a multiplication),
 * which takes away most of the instructions that are not multiply-adds. The sums are
 * the same either way.
 * \a BlocksPerSM caps the registers so that many blocks share an SM: their loads and
 * barriers overlap the others' arithmetic (see ConvolveSeparableOnDevice). */
template <int Padded, int BlocksPerSM>
__global__ void
CIF_LAUNCH_BOUNDS(SeparableTileX * SeparableThreadsY, BlocksPerSM)
  SeparablePlaneKernel(const float * __restrict__ in,
                       ConvolutionGeometry g,
                       const float * __restrict__ factors,
                       float * __restrict__ out,
                       std::int64_t slices,
                       bool         throughScratch,
                       std::int64_t firstBlockY,
                       std::int64_t firstBlockZ)
{
  CIF_DYNAMIC_SHARED(float4, sharedRaw);
  const int     kx = g.kernelSize[0], ky = g.kernelSize[1];
  const int     kxp = Padded > 0 ? Padded : SeparablePadded(kx);
  const int     kyp = Padded > 0 ? Padded : SeparablePadded(ky);
  const int     width = SeparableTileX + kxp - 1; // odd
  const int     rows = SeparableTileY + kyp - 1;
  float *       wx = reinterpret_cast<float *>(sharedRaw);
  float *       wy = wx + kxp;
  float *       tile = wy + kyp;               // [rows][width] input
  float *       rowPass = tile + rows * width; // [rows][SeparableRowPitch]
  const int     tx = threadIdx.x, ty = threadIdx.y, tid = ty * SeparableTileX + tx;
  constexpr int threads = SeparableTileX * SeparableThreadsY;
  // 64-bit block numbers: the launch runs in batches of 65535 along y and z, and
  // slices * planes may pass 2^31.
  const std::int64_t blockZ = firstBlockZ + blockIdx.z;
  const std::int64_t s = blockZ % slices;
  const std::int64_t plane = blockZ / slices;
  const std::int64_t iz = throughScratch ? s : g.InputIndex(2, s, g.kernelSize[2] / 2);
  const std::int64_t ox0 = std::int64_t(blockIdx.x) * SeparableTileX;
  const std::int64_t oy0 = (firstBlockY + blockIdx.y) * SeparableTileY;
  const float *      slice = in + plane * g.InVolume() + iz * g.inSize[0] * g.inSize[1];

  for (int i = tid; i < kxp; i += threads)
  {
    wx[i] = i < kx ? factors[i] : 0.0f;
  }
  for (int i = tid; i < kyp; i += threads)
  {
    wy[i] = i < ky ? factors[kx + i] : 0.0f;
  }
  // The input tile, a row per warp. Tile sample (r, c) is input (clamp(y0 + r),
  // clamp(x0 + c)); a tile that lies inside the input (most of them) needs no clamp.
  // With a compile-time tile shape a thread issues all its loads (15 x 15 taps: ten
  // rows of two) before it stores any: a load and its store per row, in turn, waited
  // out the memory's latency ten times over.
  const auto loadTile = [&](auto rowStart, auto inputColumn) {
    if constexpr (Padded > 0)
    {
      constexpr int rowPasses = (SeparableTileY + Padded - 1 + SeparableThreadsY - 1) / SeparableThreadsY;
      constexpr int columnPasses = (SeparableTileX + Padded - 1 + SeparableTileX - 1) / SeparableTileX;
      float         v[rowPasses][columnPasses];
      CIF_UNROLL
      for (int i = 0; i < rowPasses; ++i)
      {
        CIF_UNROLL
        for (int j = 0; j < columnPasses; ++j)
        {
          const int r = ty + i * SeparableThreadsY, c = tx + j * SeparableTileX;
          v[i][j] = r < rows && c < width ? rowStart(r)[inputColumn(c)] : 0.0f;
        }
      }
      CIF_UNROLL
      for (int i = 0; i < rowPasses; ++i)
      {
        CIF_UNROLL
        for (int j = 0; j < columnPasses; ++j)
        {
          const int r = ty + i * SeparableThreadsY, c = tx + j * SeparableTileX;
          if (r < rows && c < width)
          {
            tile[r * width + c] = v[i][j];
          }
        }
      }
    }
    else
    {
      for (int r = ty; r < rows; r += SeparableThreadsY)
      {
        const float * sourceRow = rowStart(r);
        for (int c = tx; c < width; c += SeparableTileX)
        {
          tile[r * width + c] = sourceRow[inputColumn(c)];
        }
      }
    }
  };
  const std::int64_t x0 = ox0 + g.outOffset[0] - kx / 2, y0 = oy0 + g.outOffset[1] - ky / 2;
  if (x0 >= 0 && x0 + width <= g.inSize[0] && y0 >= 0 && y0 + rows <= g.inSize[1])
  {
    const float * corner = slice + y0 * g.inSize[0] + x0;
    loadTile([&](int r) { return corner + r * g.inSize[0]; }, [](int c) { return c; });
  }
  else
  {
    loadTile([&](int r) { return slice + g.InputIndex(1, oy0 + r, 0) * g.inSize[0]; },
             [&](int c) { return g.InputIndex(0, ox0 + c, 0); });
  }
  __syncthreads();

  // Row pass: work item = (row, group of 8 outputs), rows fastest across the lanes.
  constexpr int groups = SeparableTileX / SeparableOutputs;
  for (int item = tid; item < rows * groups; item += threads)
  {
    const int     r = item % rows, c0 = (item / rows) * SeparableOutputs;
    const float * source = tile + r * width + c0;
    float         sum[SeparableOutputs];
    CIF_UNROLL
    for (int p = 0; p < SeparableOutputs; ++p)
    {
      sum[p] = 0.0f;
    }
    for (int c = 0; c < kxp; c += 4)
    {
      float v[SeparableOutputs + 3];
      CIF_UNROLL
      for (int i = 0; i < SeparableOutputs + 3; ++i)
      {
        v[i] = source[c + i];
      }
      const float4 w4 = *reinterpret_cast<const float4 *>(wx + c);
      const float  w[4] = { w4.x, w4.y, w4.z, w4.w };
      CIF_UNROLL
      for (int p = 0; p < SeparableOutputs; ++p)
      {
        CIF_UNROLL
        for (int q = 0; q < 4; ++q)
        {
          sum[p] += w[q] * v[p + q];
        }
      }
    }
    CIF_UNROLL
    for (int p = 0; p < SeparableOutputs; ++p)
    {
      rowPass[r * SeparableRowPitch + c0 + p] = sum[p];
    }
  }
  __syncthreads();

  // Column pass: 8 outputs down the thread's column.
  const std::int64_t ox = ox0 + tx;
  if (ox >= g.outSize[0])
  {
    return;
  }
  const int t0 = ty * SeparableOutputs;
  float     sum[SeparableOutputs];
  CIF_UNROLL
  for (int p = 0; p < SeparableOutputs; ++p)
  {
    sum[p] = 0.0f;
  }
  for (int c = 0; c < kyp; c += 4)
  {
    float v[SeparableOutputs + 3];
    CIF_UNROLL
    for (int i = 0; i < SeparableOutputs + 3; ++i)
    {
      v[i] = rowPass[(t0 + c + i) * SeparableRowPitch + tx];
    }
    const float4 w4 = *reinterpret_cast<const float4 *>(wy + c);
    const float  w[4] = { w4.x, w4.y, w4.z, w4.w };
    CIF_UNROLL
    for (int p = 0; p < SeparableOutputs; ++p)
    {
      CIF_UNROLL
      for (int q = 0; q < 4; ++q)
      {
        sum[p] += w[q] * v[p + q];
      }
    }
  }
  // One 64-bit address for the thread's column, then a row's stride per output.
  const std::int64_t oy = oy0 + t0;
  const std::int64_t below = g.outSize[1] - oy; // outputs of the column inside the image
  float *            target = out + ((std::int64_t(plane) * slices + s) * g.outSize[1] + oy) * g.outSize[0] + ox;
  CIF_UNROLL
  for (int p = 0; p < SeparableOutputs; ++p)
  {
    if (p < below)
    {
      *target = sum[p];
    }
    target += g.outSize[0];
  }
}

__global__ void
SeparableZKernel(const float * __restrict__ xy,
                 ConvolutionGeometry g,
                 const float * __restrict__ wz,
                 float * __restrict__ out)
{
  const std::int64_t slab = g.outSize[0] * g.outSize[1];
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= slab * g.outSize[2] * g.planes)
  {
    return;
  }
  const std::int64_t inSlab = i % slab;
  const std::int64_t oz = (i / slab) % g.outSize[2];
  const std::int64_t plane = i / (slab * g.outSize[2]);
  const float *      source = xy + plane * g.inSize[2] * slab + inSlab;
  float              sum = 0;
  for (int k = 0; k < g.kernelSize[2]; ++k)
  {
    sum += __ldg(wz + k) * source[g.InputIndex(2, oz, k) * slab];
  }
  out[i] = sum;
}

template <typename T>
__global__ void
ToPlanarKernel(const T * __restrict__ interleaved, std::int64_t pixels, int components, float * __restrict__ planar)
{
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < pixels)
  {
    for (int c = 0; c < components; ++c)
    {
      planar[c * pixels + i] = static_cast<float>(interleaved[i * components + c]);
    }
  }
}

template <typename T>
__global__ void
FromPlanarKernel(const float * __restrict__ planar, std::int64_t pixels, int components, T * __restrict__ interleaved)
{
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < pixels)
  {
    for (int c = 0; c < components; ++c)
    {
      interleaved[i * components + c] = CastComponent<T>(planar[c * pixels + i]);
    }
  }
}

__global__ void
ZoomKernel(const float * __restrict__ region,
           ZoomGeometry g,
           float * __restrict__ canvas,
           std::int64_t firstBlockY,
           std::int64_t firstBlockZ)
{
  const std::int64_t cx = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t cy = (firstBlockY + blockIdx.y) * blockDim.y + threadIdx.y;
  if (cx >= g.canvasSize[0] || cy >= g.canvasSize[1])
  {
    return;
  }
  const std::int64_t plane = firstBlockZ + blockIdx.z;
  canvas[plane * g.CanvasCount() + cy * g.canvasSize[0] + cx] =
    ZoomSample(region + plane * g.regionSize[0] * g.regionSize[1], g, cx, cy);
}

unsigned int
Blocks(std::int64_t count, int perBlock)
{
  return static_cast<unsigned int>((count + perBlock - 1) / perBlock);
}
/** Bytes of shared memory a SeparablePlaneKernel block takes. */
std::size_t
SeparableSharedBytes(const ConvolutionGeometry & g)
{
  const int         kxp = SeparablePadded(g.kernelSize[0]), kyp = SeparablePadded(g.kernelSize[1]);
  const std::size_t rows = SeparableTileY + kyp - 1;
  return sizeof(float) * (std::size_t(kxp + kyp) + rows * (SeparableTileX + kxp - 1) + rows * SeparableRowPitch);
}

template <int Padded, int BlocksPerSM>
void
LaunchSeparablePlane(const float *               in,
                     const ConvolutionGeometry & g,
                     const float *               packedFactors,
                     float *                     out,
                     std::int64_t                slices,
                     bool                        throughScratch)
{
  const auto        kernel = SeparablePlaneKernel<Padded, BlocksPerSM>;
  const std::size_t bytes = SeparableSharedBytes(g);
  AllowSharedMemory(kernel, bytes, "separable convolution");
  LaunchInGridBatches(Blocks(g.outSize[0], SeparableTileX),
                      Blocks(g.outSize[1], SeparableTileY),
                      slices * g.planes,
                      [&](dim3 grid, std::int64_t firstBlockY, std::int64_t firstBlockZ) {
                        CIF_LAUNCH(kernel, grid, dim3(SeparableTileX, SeparableThreadsY), bytes)(
                          in, g, packedFactors, out, slices, throughScratch, firstBlockY, firstBlockZ);
                        CIF_CUDA_CHECK_LAUNCH();
                      });
}
} // namespace

void
ConvolveGeneralOnDevice(const float * in, const ConvolutionGeometry & g, const float * packedWeights, float * out)
{
  if (g.OutVolume() == 0 || g.planes == 0)
  {
    return;
  }
  const int         column = PaddedColumn(g.kernelSize[1]);
  const std::size_t bytes =
    sizeof(float) * (std::size_t(g.kernelSize[0]) * column +
                     std::size_t(GeneralTileY + column - 1) * (GeneralTileX + g.kernelSize[0] - 1));
  AllowSharedMemory(GeneralKernel, bytes, "general convolution");
  LaunchInGridBatches(Blocks(g.outSize[0], GeneralTileX),
                      Blocks(g.outSize[1], GeneralTileY),
                      g.outSize[2] * g.planes,
                      [&](dim3 grid, std::int64_t firstBlockY, std::int64_t firstBlockZ) {
                        CIF_LAUNCH(GeneralKernel, grid, dim3(GeneralTileX, GeneralThreadsY), bytes)(
                          in, g, packedWeights, out, firstBlockY, firstBlockZ);
                        CIF_CUDA_CHECK_LAUNCH();
                      });
}

void
ConvolveSeparableOnDevice(const float *               in,
                          const ConvolutionGeometry & g,
                          const float *               packedFactors,
                          float *                     out,
                          float *                     scratch)
{
  if (g.OutVolume() == 0 || g.planes == 0)
  {
    return;
  }
  const bool         threeD = g.kernelSize[2] > 1 || g.inSize[2] != g.outSize[2] || g.outOffset[2] != 0;
  const std::int64_t slices = threeD ? g.inSize[2] : g.outSize[2];
  if (threeD && scratch == nullptr)
  {
    throw CudaError("separable convolution along z needs a scratch buffer");
  }
  const int kx = g.kernelSize[0], ky = g.kernelSize[1];
  float *   target = threeD ? scratch : out;
  // Kernels of up to 15 x 15 taps (square ones, mostly) have a compiled tile shape and
  // 32 registers, for 8 blocks an SM. Larger ones run the generic kernel: capped at 40
  // registers (6 blocks) where 6 tiles fit in an SM's shared memory (228 KiB on an
  // H100: up to 31 taps), uncapped where they do not (it is then faster, 4.0 against
  // 4.4 ms for a 127-tap Gaussian at 4096^2 RGB).
  constexpr std::size_t sharedPerSM = 228 * 1024, reservedPerBlock = 1024;
  switch (SeparablePadded(kx) == SeparablePadded(ky) ? SeparablePadded(kx) : 0)
  {
    case 4:
      LaunchSeparablePlane<4, 8>(in, g, packedFactors, target, slices, threeD);
      break;
    case 8:
      LaunchSeparablePlane<8, 8>(in, g, packedFactors, target, slices, threeD);
      break;
    case 12:
      LaunchSeparablePlane<12, 8>(in, g, packedFactors, target, slices, threeD);
      break;
    case 16:
      LaunchSeparablePlane<16, 8>(in, g, packedFactors, target, slices, threeD);
      break;
    default:
      if (6 * (SeparableSharedBytes(g) + reservedPerBlock) <= sharedPerSM)
      {
        LaunchSeparablePlane<0, 6>(in, g, packedFactors, target, slices, threeD);
      }
      else
      {
        LaunchSeparablePlane<0, 1>(in, g, packedFactors, target, slices, threeD);
      }
  }
  if (threeD)
  {
    const std::int64_t count = g.OutVolume() * g.planes;
    CIF_LAUNCH(SeparableZKernel, Blocks(count, 256), 256)(scratch, g, packedFactors + kx + ky, out);
    CIF_CUDA_CHECK_LAUNCH();
  }
}

template <typename T>
void
ToPlanarOnDevice(const T * interleaved, std::int64_t pixels, int components, float * planar)
{
  if (pixels > 0)
  {
    CIF_LAUNCH(ToPlanarKernel<T>, Blocks(pixels, 256), 256)(interleaved, pixels, components, planar);
    CIF_CUDA_CHECK_LAUNCH();
  }
}

template <typename T>
void
FromPlanarOnDevice(const float * planar, std::int64_t pixels, int components, T * interleaved)
{
  if (pixels > 0)
  {
    CIF_LAUNCH(FromPlanarKernel<T>, Blocks(pixels, 256), 256)(planar, pixels, components, interleaved);
    CIF_CUDA_CHECK_LAUNCH();
  }
}

void
ZoomOnDevice(const float * region, const ZoomGeometry & g, float * canvas)
{
  if (g.CanvasCount() == 0 || g.planes == 0)
  {
    return;
  }
  const dim3 block(32, 8);
  LaunchInGridBatches(Blocks(g.canvasSize[0], 32),
                      Blocks(g.canvasSize[1], 8),
                      g.planes,
                      [&](dim3 grid, std::int64_t firstBlockY, std::int64_t firstBlockZ) {
                        CIF_LAUNCH(ZoomKernel, grid, block)(region, g, canvas, firstBlockY, firstBlockZ);
                        CIF_CUDA_CHECK_LAUNCH();
                      });
}

CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_PLANAR)
} // namespace cif
