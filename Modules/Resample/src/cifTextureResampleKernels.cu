// Texture-accelerated cubic resampling: the 2^D linear-fetch evaluation of seed 002.
// Per axis the four cubic weights w0..w3 of the support s..s+3 fold into two linear
// fetches: g0 = w0 + w1 at s + w1/g0 and g1 = w2 + w3 at s + 2 + w3/g1 (in texels),
// so the hardware's linear filter does the rest. Geometry, transforms and the inside
// test are those of the exact mode (cifResampleMath.h).
#include "cifCudaCheck.cuh"
#include "cifGridStride.cuh"
#include "cifDeviceBuffer.h"
#include "cifResampleDevice.h"
#include "cifTextureResampleDevice.h"
#include "cifScalarTypes.h"

#include <algorithm>

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

/** The coefficients with kPad mirrored samples around every used axis. */
template <int D>
__global__ void
PadWithMirror(const float * in, CoefficientGrid grid, float * out, std::int64_t outCount)
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
    out[i] = in[offset];
  }
}

/** Owns a CUDA array holding the padded coefficients and a linear-filtering texture on it. */
class CoefficientTexture
{
public:
  template <int D>
  static CoefficientTexture
  Make(const float * coefficients, const CoefficientGrid & grid)
  {
    CoefficientTexture t;
    const std::size_t  w = grid.size[0] + 2 * kPad, h = D > 1 ? grid.size[1] + 2 * kPad : 1,
                      d = D > 2 ? grid.size[2] + 2 * kPad : 1;
    DeviceBuffer padded(w * h * d * sizeof(float));
    PadWithMirror<D><<<BlocksFor(w * h * d), kThreads>>>(coefficients, grid, padded.As<float>(), w * h * d);
    CIF_CUDA_CHECK_LAUNCH();
    const cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
    CIF_CUDA_CHECK(cudaMalloc3DArray(&t.m_Array, &channel, make_cudaExtent(w, h, D > 2 ? d : 0)));
    cudaMemcpy3DParms copy{};
    copy.srcPtr = make_cudaPitchedPtr(padded.Data(), w * sizeof(float), w, h);
    copy.dstArray = t.m_Array;
    copy.extent = make_cudaExtent(w, h, d);
    copy.kind = cudaMemcpyDeviceToDevice;
    CIF_CUDA_CHECK(cudaMemcpy3D(&copy));
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = t.m_Array;
    cudaTextureDesc texture{};
    texture.addressMode[0] = texture.addressMode[1] = texture.addressMode[2] = cudaAddressModeClamp;
    texture.filterMode = cudaFilterModeLinear;
    texture.readMode = cudaReadModeElementType;
    texture.normalizedCoords = 0;
    CIF_CUDA_CHECK(cudaCreateTextureObject(&t.m_Texture, &resource, &texture, nullptr));
    CIF_CUDA_CHECK(cudaStreamSynchronize(0)); // the padded copy is freed on return
    return t;
  }
  CoefficientTexture() = default;
  CoefficientTexture(CoefficientTexture && o) noexcept
    : m_Array(o.m_Array)
    , m_Texture(o.m_Texture)
  {
    o.m_Array = nullptr;
    o.m_Texture = 0;
  }
  CoefficientTexture(const CoefficientTexture &) = delete;
  CoefficientTexture &
  operator=(const CoefficientTexture &) = delete;
  CoefficientTexture &
  operator=(CoefficientTexture &&) = delete;
  ~CoefficientTexture()
  {
    if (m_Texture)
    {
      cudaDestroyTextureObject(m_Texture);
    }
    if (m_Array)
    {
      cudaFreeArray(m_Array);
    }
  }
  cudaTextureObject_t
  Object() const
  {
    return m_Texture;
  }

private:
  cudaArray_t         m_Array = nullptr;
  cudaTextureObject_t m_Texture = 0;
};

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
    return g[1][0] * (g[0][0] * tex2D<float>(texture, p[0][0], p[1][0]) + g[0][1] * tex2D<float>(texture, p[0][1], p[1][0])) +
           g[1][1] * (g[0][0] * tex2D<float>(texture, p[0][0], p[1][1]) + g[0][1] * tex2D<float>(texture, p[0][1], p[1][1]));
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

template <int D, typename TOut>
__global__ void
TexturedResampleKernel(cudaTextureObject_t texture, ResampleGeometry geometry, TransformChain chain,
                       const double * mappedPoints, const double * rowEndpoints, TOut defaultValue, TOut * output)
{
  const std::int64_t count = geometry.OutputCount();
  const std::int64_t width = geometry.outputSize[0];
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    double x[kMaxDimension] = { 0, 0, 0, 0 };
    if (rowEndpoints)
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
    output[i] = InsideBuffer<D>(x, geometry.input)
                  ? CastWithBoundsChecking<TOut>(TexturedCubic<D>(texture, geometry.input, x))
                  : defaultValue;
  }
}

} // namespace

template <int D, typename TOut>
void
ResampleWithTexturesOnDevice(const float * coefficients, const ResampleGeometry & geometry,
                             const TransformChain & chain, const double * mappedPoints, bool linearRows,
                             TOut defaultValue, TOut * output)
{
  const std::int64_t count = geometry.OutputCount();
  if (count == 0)
  {
    return;
  }
  const CoefficientTexture texture = CoefficientTexture::Make<D>(coefficients, geometry.input);
  DeviceBuffer             endpoints;
  if (linearRows && mappedPoints == nullptr)
  {
    const std::int64_t rows = geometry.OutputRows();
    endpoints.Allocate(static_cast<std::size_t>(rows) * 2 * kMaxDimension * sizeof(double));
    RowEndpointsOnDevice<D>(geometry, chain, endpoints.As<double>());
  }
  TexturedResampleKernel<D, TOut><<<BlocksFor(count), kThreads>>>(
    texture.Object(), geometry, chain, mappedPoints, endpoints.As<const double>(), defaultValue, output);
  CIF_CUDA_CHECK_LAUNCH();
  CIF_CUDA_CHECK(cudaStreamSynchronize(0)); // texture and endpoints are released on return
}

CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_TEXTURED)
} // namespace cif
