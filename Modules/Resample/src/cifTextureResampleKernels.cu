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
// Texture-accelerated cubic resampling: the 2^D linear-fetch evaluation of Sigg and
// Hadwiger (GPU Gems 2, chapter 20).
// Per axis the four cubic weights w0..w3 of the support s..s+3 fold into two linear
// fetches: g0 = w0 + w1 at s + w1/g0 and g1 = w2 + w3 at s + 2 + w3/g1 (in texels),
// so the hardware's linear filter does the rest. Geometry, transforms and the inside
// test are those of the exact mode (cifResampleMath.h).
#include "cifCudaCheck.cuh"
#include "cifGridStride.cuh"
#include "cifDeviceBuffer.h"
#include "cifResampleDevice.h"
#include "cifTextureResampleDevice.h"
#include "cifScalarOutput.cuh"
#include "cifScalarTypes.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

namespace cif
{
namespace
{
constexpr int kThreads = 256;
constexpr int kPad = 2; // mirrored samples on each side: the support reaches 2 past an edge

unsigned int
BlocksFor(std::int64_t count)
{
  return GridStrideBlocks(count, kThreads);
}

/** The coefficients with kPad mirrored samples around every used axis, times
 * \a scale, as T (float or __half). */
template <int D, typename T>
__global__ void
PadWithMirror(const float * in, CoefficientGrid grid, float scale, T * out, std::int64_t outCount)
{
  const std::int64_t w = grid.size[0] + 2 * kPad;
  const std::int64_t h = D > 1 ? grid.size[1] + 2 * kPad : 1;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < outCount;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    const std::int64_t p[3] = { i % w, (i / w) % h, i / (w * h) };
    std::int64_t       offset = 0, stride = 1;
    for (int a = 0; a < D; ++a)
    {
      offset += MirroredOffset(grid.start[a] + p[a] - kPad, grid.start[a], grid.size[a]) * stride;
      stride *= grid.size[a];
    }
    if constexpr (std::is_same_v<T, __half>)
    {
      out[i] = __float2half_rn(in[offset] * scale);
    }
    else
    {
      out[i] = in[offset];
    }
  }
}

/** The largest |coefficient| as the bits of a float (non-negative floats order as
 * their bits; a NaN's bits exceed every finite value's and infinity's). */
__global__ void
MaxAbsBits(const float * in, std::int64_t count, unsigned int * result)
{
  unsigned int m = 0;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    m = max(m, __float_as_uint(fabsf(in[i])));
  }
  for (int offset = 16; offset > 0; offset /= 2)
  {
    m = max(m, __shfl_down_sync(0xffffffffu, m, offset));
  }
  if ((threadIdx.x & 31) == 0)
  {
    atomicMax(result, m);
  }
}

/** The power of two that takes the largest |coefficient| \a maxAbs into
 * [2^14, 2^15): finite in half (65504) with room for the linear filter, and every
 * coefficient above 2^-29 of the largest stays a normal half. 1 for zero, NaN or
 * infinity (those propagate as in float). */
float
HalfScaleFor(float maxAbs)
{
  if (!(maxAbs > 0.0f) || !std::isfinite(maxAbs))
  {
    return 1.0f;
  }
  int exponent = 0;
  std::frexp(maxAbs, &exponent); // maxAbs = m 2^exponent, m in [0.5, 1)
  return std::ldexp(1.0f, std::clamp(15 - exponent, -126, 127));
}

std::int64_t
PaddedCount(int dimension, const CoefficientGrid & grid)
{
  std::int64_t count = 1;
  for (int a = 0; a < dimension; ++a)
  {
    count *= grid.size[a] + 2 * kPad;
  }
  return count;
}

/** Fetch positions (texel coordinates, centres at +0.5) and weights of one axis. */
__device__ __forceinline__ void
FoldAxis(double x, std::int64_t start, float position[2], float weight[2])
{
  const std::int64_t s = CubicSupportStart(x);
  float              w[4];
  CubicWeights<float>(x, s, w);
  const float base = static_cast<float>(s - start + kPad) + 0.5f;
  weight[0] = w[0] + w[1];
  weight[1] = w[2] + w[3];
  position[0] = base + w[1] / weight[0];
  position[1] = base + 2.0f + w[3] / weight[1];
}

template <int D>
__device__ __forceinline__ float
TexturedCubic(cudaTextureObject_t texture, const CoefficientGrid & grid, const double x[3])
{
  float p[3][2], g[3][2];
  for (int a = 0; a < D; ++a)
  {
    FoldAxis(x[a], grid.start[a], p[a], g[a]);
  }
  if constexpr (D == 2)
  {
    return g[1][0] *
             (g[0][0] * tex2D<float>(texture, p[0][0], p[1][0]) + g[0][1] * tex2D<float>(texture, p[0][1], p[1][0])) +
           g[1][1] *
             (g[0][0] * tex2D<float>(texture, p[0][0], p[1][1]) + g[0][1] * tex2D<float>(texture, p[0][1], p[1][1]));
  }
  else
  {
    float value = 0.0f;
    for (int k = 0; k < 2; ++k)
    {
      float plane = 0.0f;
      for (int j = 0; j < 2; ++j)
      {
        plane += g[1][j] * (g[0][0] * tex3D<float>(texture, p[0][0], p[1][j], p[2][k]) +
                            g[0][1] * tex3D<float>(texture, p[0][1], p[1][j], p[2][k]));
      }
      value += g[2][k] * plane;
    }
    return value;
  }
}

/** kRows: linear transforms, every voxel from its row's endpoints (the common case,
 * compiled apart so that the transform chain's registers do not weigh on it). */
template <int D, bool kRows>
__global__ void
TexturedResampleKernel(cudaTextureObject_t texture,
                       float               scale,
                       ResampleGeometry    geometry,
                       TransformChain      chain,
                       const double *      mappedPoints,
                       const double *      rowEndpoints,
                       ScalarOutput        output)
{
  const std::int64_t count = geometry.OutputCount();
  const std::int64_t width = geometry.outputSize[0];
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    double x[kMaxDimension] = { 0, 0, 0, 0 };
    if constexpr (kRows)
    {
      const std::int64_t row = i / width;
      const double *     e = rowEndpoints + 2 * kMaxDimension * row;
      ContinuousIndexOnRow<D>(geometry, e, e + kMaxDimension, i - row * width, x);
    }
    else
    {
      double q[kMaxDimension] = { 0, 0, 0, 0 };
      if (mappedPoints)
      {
        for (int a = 0; a < D; ++a)
        {
          q[a] = mappedPoints[D * i + a];
        }
      }
      else
      {
        double p[kMaxDimension];
        OutputPoint<D>(geometry, i, p);
        ApplyTransformChain<D>(chain, p, q);
      }
      InputContinuousIndex<D>(geometry, q, x);
    }
    if (InsideBuffer<D>(x, geometry.input))
    {
      output.Store(i, scale * TexturedCubic<D>(texture, geometry.input, x));
    }
    else
    {
      output.StoreDefault(i);
    }
  }
}

} // namespace

std::size_t
CoefficientTexture::BuildBytes(int dimension, const CoefficientGrid & grid, TextureTexels texels)
{
  const std::size_t texel = texels == TextureTexels::Half ? sizeof(__half) : sizeof(float);
  return 2 * static_cast<std::size_t>(PaddedCount(dimension, grid)) * texel;
}

void
CoefficientTexture::Build(int dimension, const float * coefficients, const CoefficientGrid & grid, TextureTexels texels)
{
  if (dimension != 2 && dimension != 3)
  {
    throw CudaError("CoefficientTexture::Build: 2 or 3 axes, not " + std::to_string(dimension));
  }
  this->Release();
  try
  {
    CIF_CUDA_CHECK(cudaGetDevice(&m_Device));
    m_Dimension = dimension;
    m_Texels = texels;
    m_Grid = grid;
    const bool        half = texels == TextureTexels::Half;
    const std::size_t texel = half ? sizeof(__half) : sizeof(float);
    const std::size_t w = grid.size[0] + 2 * kPad, h = grid.size[1] + 2 * kPad,
                      d = dimension > 2 ? grid.size[2] + 2 * kPad : 1;
    const std::int64_t count = PaddedCount(dimension, grid);
    float              scale = 1.0f;
    if (half)
    {
      // Half's largest value is 65504: a volume of 16-bit data has coefficients
      // beyond it, which would become infinities. One read of the coefficients
      // finds the power of two that keeps them finite.
      std::int64_t input = 1;
      for (int a = 0; a < dimension; ++a)
      {
        input *= grid.size[a];
      }
      DeviceBuffer maxBits(sizeof(unsigned int));
      CIF_CUDA_CHECK(cudaMemsetAsync(maxBits.Data(), 0, sizeof(unsigned int), cudaStreamPerThread));
      MaxAbsBits<<<BlocksFor(input), kThreads>>>(coefficients, input, maxBits.As<unsigned int>());
      CIF_CUDA_CHECK_LAUNCH();
      unsigned int bits = 0;
      maxBits.Download(&bits, sizeof(bits));
      float maxAbs = 0.0f;
      std::memcpy(&maxAbs, &bits, sizeof(maxAbs));
      scale = HalfScaleFor(maxAbs);
    }
    m_Scale = 1.0f / scale; // a power of two: exact
    DeviceBuffer padded(count * texel);
    if (half)
    {
      dimension == 2 ? PadWithMirror<2, __half>
        <<<BlocksFor(count), kThreads>>>(coefficients, grid, scale, padded.As<__half>(), count)
                     : PadWithMirror<3, __half>
        <<<BlocksFor(count), kThreads>>>(coefficients, grid, scale, padded.As<__half>(), count);
    }
    else
    {
      dimension == 2
        ? PadWithMirror<2, float><<<BlocksFor(count), kThreads>>>(coefficients, grid, scale, padded.As<float>(), count)
        : PadWithMirror<3, float><<<BlocksFor(count), kThreads>>>(coefficients, grid, scale, padded.As<float>(), count);
    }
    CIF_CUDA_CHECK_LAUNCH();
    const cudaChannelFormatDesc channel =
      half ? cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat) : cudaCreateChannelDesc<float>();
    cudaArray_t array = nullptr;
    CIF_CUDA_CHECK(cudaMalloc3DArray(&array, &channel, make_cudaExtent(w, h, dimension > 2 ? d : 0)));
    m_Array = array;
    m_Bytes = count * texel;
    cudaMemcpy3DParms copy{};
    copy.srcPtr = make_cudaPitchedPtr(padded.Data(), w * texel, w, h);
    copy.dstArray = array;
    copy.extent = make_cudaExtent(w, h, d);
    copy.kind = cudaMemcpyDeviceToDevice;
    CIF_CUDA_CHECK(cudaMemcpy3DAsync(&copy, cudaStreamPerThread));
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaTextureDesc texture{};
    texture.addressMode[0] = texture.addressMode[1] = texture.addressMode[2] = cudaAddressModeClamp;
    texture.filterMode = cudaFilterModeLinear;
    texture.readMode = cudaReadModeElementType; // half texels are read as float
    texture.normalizedCoords = 0;
    cudaTextureObject_t object = 0;
    CIF_CUDA_CHECK(cudaCreateTextureObject(&object, &resource, &texture, nullptr));
    m_Texture = object;
    // Complete before return: the padded copy is released here, and the filter that
    // keeps the texture may be updated next from another host thread (another
    // per-thread stream).
    CIF_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  }
  catch (...)
  {
    this->Release();
    throw;
  }
}

void
CoefficientTexture::Release() noexcept
{
  if (m_Texture)
  {
    cudaDestroyTextureObject(m_Texture);
  }
  if (m_Array)
  {
    cudaFreeArray(static_cast<cudaArray_t>(m_Array));
  }
  m_Texture = 0;
  m_Array = nullptr;
  m_Device = -1;
  m_Dimension = 0;
  m_Bytes = 0;
  m_Scale = 1.0f;
}

CoefficientTexture::~CoefficientTexture() { this->Release(); }

CoefficientTexture::CoefficientTexture(CoefficientTexture && other) noexcept { *this = std::move(other); }

CoefficientTexture &
CoefficientTexture::operator=(CoefficientTexture && other) noexcept
{
  if (this != &other)
  {
    this->Release();
    m_Array = other.m_Array;
    m_Texture = other.m_Texture;
    m_Device = other.m_Device;
    m_Dimension = other.m_Dimension;
    m_Texels = other.m_Texels;
    m_Grid = other.m_Grid;
    m_Bytes = other.m_Bytes;
    m_Scale = other.m_Scale;
    other.m_Array = nullptr;
    other.m_Texture = 0;
    other.Release();
  }
  return *this;
}

bool
CoefficientTexture::OnCurrentDevice() const
{
  int device = -1;
  return m_Texture != 0 && cudaGetDevice(&device) == cudaSuccess && device == m_Device;
}

template <int D, typename TOut>
void
ResampleWithTextureOnDevice(const CoefficientTexture & texture,
                            const ResampleGeometry &   geometry,
                            const TransformChain &     chain,
                            const double *             mappedPoints,
                            bool                       linearRows,
                            TOut                       defaultValue,
                            TOut *                     output)
{
  bool matches = !texture.Empty() && texture.Dimension() == D;
  for (int a = 0; a < D && matches; ++a)
  {
    matches = texture.Grid().size[a] == geometry.input.size[a] && texture.Grid().start[a] == geometry.input.start[a];
  }
  if (!matches)
  {
    throw CudaError("ResampleWithTextureOnDevice: the texture was not built for this input grid");
  }
  const std::int64_t count = geometry.OutputCount();
  if (count == 0)
  {
    return;
  }
  DeviceBuffer endpoints;
  if (linearRows && mappedPoints == nullptr)
  {
    const std::int64_t rows = geometry.OutputRows();
    endpoints.Allocate(static_cast<std::size_t>(rows) * 2 * kMaxDimension * sizeof(double));
    RowEndpointsOnDevice<D>(geometry, chain, endpoints.As<double>());
  }
  // one kernel for every output type: the conversion is ScalarOutput's
  const ScalarOutput typedOutput = ScalarOutput::Of(output, defaultValue);
  if (endpoints.Data())
  {
    TexturedResampleKernel<D, true><<<BlocksFor(count), kThreads>>>(
      texture.Object(), texture.Scale(), geometry, chain, nullptr, endpoints.As<const double>(), typedOutput);
  }
  else
  {
    TexturedResampleKernel<D, false><<<BlocksFor(count), kThreads>>>(
      texture.Object(), texture.Scale(), geometry, chain, mappedPoints, nullptr, typedOutput);
  }
  CIF_CUDA_CHECK_LAUNCH();
  CIF_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread)); // endpoints are released on return
}

CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_TEXTURED)
} // namespace cif
