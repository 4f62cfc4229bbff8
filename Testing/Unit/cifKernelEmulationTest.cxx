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
// The CUDA kernels of the convolution and the zoom, run on the host: this file
// compiles Modules/Convolution/src/cifConvolutionKernels.cu with stand-ins for the
// CUDA built-ins (one host thread per CUDA thread, a barrier per __syncthreads,
// shared memory filled with garbage), so that CI, which has no GPU, checks the
// kernels' tiling, indexing, padding and order of summation against the CPU path.
// Both compute the same float operations in the same order; compiled without
// floating-point contraction (Convolution.cmake), the results must be identical.
#include "cifConvolutionDevice.h"
#include "cifConvolutionHost.h"
#include "cifConvolutionPlan.h"
#include "cifCudaRuntime.h"
#include "cifKernelPresets.h"
#include "cifTestHelpers.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <random>
#include <string>
#include <thread>
#include <vector>

// ----------------------------------------------------------------- CUDA stand-ins
namespace emu
{
struct dim3
{
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1)
    : x(a)
    , y(b)
    , z(c)
  {}
};
struct uint3
{
  unsigned x = 0, y = 0, z = 0;
};
struct float4
{
  float x, y, z, w;
};

/** A barrier for the threads of one block; a thread that has returned drops out. */
class Barrier
{
public:
  explicit Barrier(unsigned count)
    : m_Count(count)
  {}
  void
  Wait()
  {
    std::unique_lock<std::mutex> lock(m_Mutex);
    const unsigned long          generation = m_Generation;
    if (++m_Arrived == m_Count)
    {
      Release();
      return;
    }
    m_Condition.wait(lock, [&] { return generation != m_Generation; });
  }
  void
  Drop()
  {
    std::unique_lock<std::mutex> lock(m_Mutex);
    --m_Count;
    if (m_Arrived > 0 && m_Arrived == m_Count)
    {
      Release();
    }
  }

private:
  void
  Release()
  {
    m_Arrived = 0;
    ++m_Generation;
    m_Condition.notify_all();
  }
  std::mutex              m_Mutex;
  std::condition_variable m_Condition;
  unsigned                m_Count;
  unsigned                m_Arrived = 0;
  unsigned long           m_Generation = 0;
};

inline thread_local uint3     threadIndex, blockIndex;
inline thread_local dim3      blockDimension;
inline thread_local float4 *  shared = nullptr;
inline thread_local Barrier * barrier = nullptr;

struct Config
{
  dim3        grid;
  dim3        block;
  std::size_t bytes = 0;
};

/** kernel<<<grid, block, bytes>>>(args...): every block in turn, its threads at once. */
template <typename TKernel>
struct Launcher
{
  TKernel kernel;
  Config  config;
  template <typename... TArgs>
  void
  operator()(TArgs... args) const
  {
    const dim3     block = config.block;
    const unsigned threads = block.x * block.y * block.z;
    for (unsigned bz = 0; bz < config.grid.z; ++bz)
      for (unsigned by = 0; by < config.grid.y; ++by)
        for (unsigned bx = 0; bx < config.grid.x; ++bx)
        {
          std::vector<float4> memory(config.bytes / sizeof(float4) + 1);
          for (auto & f : memory)
          {
            f = { 1e30f, -1e30f, 1e30f, -1e30f }; // what a kernel must never read unwritten
          }
          Barrier                  b(threads);
          std::vector<std::thread> pool;
          for (unsigned t = 0; t < threads; ++t)
          {
            pool.emplace_back([&, t] {
              threadIndex = { t % block.x, (t / block.x) % block.y, t / (block.x * block.y) };
              blockIndex = { bx, by, bz };
              blockDimension = block;
              shared = memory.data();
              barrier = &b;
              kernel(args...);
              b.Drop();
            });
          }
          for (auto & thread : pool)
          {
            thread.join();
          }
        }
  }
};
template <typename TKernel>
Launcher<TKernel>
Launch(TKernel kernel, Config config)
{
  return { kernel, config };
}

enum cudaError_t
{
  cudaSuccess = 0
};
enum cudaDeviceAttr
{
  cudaDevAttrMaxSharedMemoryPerBlockOptin
};
enum cudaFuncAttribute
{
  cudaFuncAttributeMaxDynamicSharedMemorySize
};
inline cudaError_t
cudaGetDevice(int * device)
{
  *device = 0;
  return cudaSuccess;
}
inline cudaError_t
cudaDeviceGetAttribute(int * value, cudaDeviceAttr, int)
{
  *value = 232448; // an H100's/H200's opt-in shared memory per block
  return cudaSuccess;
}
template <typename T>
cudaError_t
cudaFuncSetAttribute(T, cudaFuncAttribute, int)
{
  return cudaSuccess;
}
struct cudaFuncAttributes
{
  std::size_t sharedSizeBytes = 0; // an emulated kernel's shared memory is all dynamic
};
template <typename T>
cudaError_t
cudaFuncGetAttributes(cudaFuncAttributes * attributes, T)
{
  *attributes = cudaFuncAttributes{};
  return cudaSuccess;
}
template <typename T>
T
__ldg(const T * p)
{
  return *p;
}
} // namespace emu

#define CIF_KERNEL_EMULATION 1
// Batches of 2 blocks along y and z instead of CUDA's 65535: every test below with
// more than two tiles of rows or slices x planes runs the batched launches (and
// their block offsets) that a volume of more than 65535 slices needs on the device.
#define CIF_MAX_GRID_YZ 2
#define CIF_LAUNCH(kernel, ...) ::emu::Launch(kernel, ::emu::Config{ __VA_ARGS__ })
#define CIF_DYNAMIC_SHARED(type, name) type * name = ::emu::shared
#define CIF_CUDA_CHECK(call) (void)(call)
#define CIF_CUDA_CHECK_LAUNCH() (void)0
#define __global__
#define __host__
#define __device__
#define threadIdx ::emu::threadIndex
#define blockIdx ::emu::blockIndex
#define blockDim ::emu::blockDimension
#define __syncthreads() ::emu::barrier->Wait()

// The kernels' file, in its own namespace so that its entry points do not replace
// the library's (the other tests of this binary run the real ones on a GPU).
namespace emulated
{
namespace cif
{
using namespace ::cif;
using namespace ::emu;
} // namespace cif
#include "../../Modules/Convolution/src/cifConvolutionKernels.cu"
} // namespace emulated

#undef threadIdx
#undef blockIdx
#undef blockDim
#undef __syncthreads
#undef __global__
#undef __host__
#undef __device__

// ----------------------------------------------------------------------- tests
namespace
{
using cif_test::FreshSeed;
auto serial = [](std::int64_t count, auto && body) {
  for (std::int64_t i = 0; i < count; ++i)
  {
    body(i);
  }
};

cif::ConvolutionKernel
RandomKernel(int x, int y, int z, std::mt19937 & rng)
{
  cif::ConvolutionKernel k;
  k.dimension = z > 1 ? 3 : 2;
  k.size[0] = x;
  k.size[1] = y;
  k.size[2] = z;
  std::uniform_real_distribution<double> u(-1, 1);
  for (int i = 0; i < x * y * z; ++i)
  {
    k.weights.push_back(u(rng));
  }
  return k;
}

/** The emulated kernels and the CPU path on the same random planar input. */
void
ExpectKernelsMatchCPU(const std::string &              what,
                      const cif::ConvolutionKernel &   kernel,
                      const cif::ConvolutionGeometry & g,
                      bool                             forceGeneral,
                      bool                             expectSeparable,
                      std::mt19937 &                   rng)
{
  SCOPED_TRACE(what);
  std::vector<float>                    in(static_cast<std::size_t>(g.InVolume() * g.planes));
  std::uniform_real_distribution<float> u(0, 255);
  for (float & v : in)
  {
    v = u(rng);
  }
  const cif::ConvolutionPlan plan = cif::MakeConvolutionPlan(kernel, g, forceGeneral);
  ASSERT_EQ(plan.separable, expectSeparable);
  std::vector<float> device(static_cast<std::size_t>(plan.geometry.OutVolume() * g.planes), -7.0f);
  std::vector<float> host(device.size(), -9.0f);
  std::vector<float> scratch(static_cast<std::size_t>(plan.ScratchFloats()), -5.0f);
  if (plan.separable)
  {
    emulated::cif::ConvolveSeparableOnDevice(
      in.data(), plan.geometry, plan.weights.data(), device.data(), scratch.data());
  }
  else
  {
    emulated::cif::ConvolveGeneralOnDevice(in.data(), plan.geometry, plan.weights.data(), device.data());
  }
  cif::RunConvolutionOnHost(plan, in.data(), host.data(), serial);
  for (std::size_t i = 0; i < host.size(); ++i)
  {
    ASSERT_EQ(device[i], host[i]) << "at scalar " << i << " of " << host.size();
  }
}

cif::ConvolutionGeometry
Geometry(std::int64_t nx, std::int64_t ny, std::int64_t nz, int planes)
{
  cif::ConvolutionGeometry g;
  g.inSize[0] = g.outSize[0] = nx;
  g.inSize[1] = g.outSize[1] = ny;
  g.inSize[2] = g.outSize[2] = nz;
  g.planes = planes;
  return g;
}

TEST(KernelEmulation, GeneralPathTilesMatchCPU)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  std::mt19937 rng(seed);
  // Sizes that leave partial tiles on both axes; kernels narrower and taller than a
  // tile's padding step; 3-D.
  const auto g = Geometry(75, 70, 1, 2);
  ExpectKernelsMatchCPU("random 7x5", RandomKernel(7, 5, 1, rng), g, false, false, rng);
  ExpectKernelsMatchCPU("random 3x17", RandomKernel(3, 17, 1, rng), g, false, false, rng);
  ExpectKernelsMatchCPU("emboss", cif::MakePresetKernel("emboss"), g, false, false, rng);
  ExpectKernelsMatchCPU("gaussian 15 forced general", cif::MakeGaussianKernel(15, 5.0), g, true, false, rng);
  ExpectKernelsMatchCPU("random 127x127", RandomKernel(127, 127, 1, rng), Geometry(140, 131, 1, 1), false, false, rng);
  ExpectKernelsMatchCPU("3-D random 5x3x7", RandomKernel(5, 3, 7, rng), Geometry(33, 29, 11, 2), false, false, rng);
}

TEST(KernelEmulation, SeparablePathTilesMatchCPU)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  std::mt19937 rng(seed);
  const auto   g = Geometry(75, 70, 1, 2);
  ExpectKernelsMatchCPU("gaussian 15", cif::MakeGaussianKernel(15, 5.0), g, false, true, rng);
  ExpectKernelsMatchCPU("box 3", cif::MakeBoxKernel(3), g, false, true, rng);
  ExpectKernelsMatchCPU("gaussian 127", cif::MakeGaussianKernel(127, 20.0), Geometry(140, 131, 1, 1), false, true, rng);
  cif::ConvolutionKernel product;
  product.dimension = 3;
  product.size[0] = 5;
  product.size[1] = 3;
  product.size[2] = 7;
  const auto a = RandomKernel(5, 1, 1, rng), b = RandomKernel(3, 1, 1, rng), c = RandomKernel(7, 1, 1, rng);
  for (int z = 0; z < 7; ++z)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 5; ++x)
        product.weights.push_back(a.weights[x] * b.weights[y] * c.weights[z]);
  ExpectKernelsMatchCPU("3-D 5x3x7 outer product", product, Geometry(33, 29, 11, 2), false, true, rng);
  auto zRange = Geometry(33, 29, 11, 2);
  zRange.outSize[2] = 5;
  zRange.outOffset[2] = 3;
  ExpectKernelsMatchCPU("3-D outer product, output slices 3-7", product, zRange, false, true, rng);
  auto flat = cif::MakeGaussianKernel(5, 1.0);
  flat.dimension = 3;
  ExpectKernelsMatchCPU("3-D one-slice gaussian", flat, Geometry(33, 29, 11, 1), false, true, rng);
}

TEST(KernelEmulation, GridBatchesAlongYAndZMatchCPU)
{
  // With CIF_MAX_GRID_YZ 2: 3 tiles of rows and 5 x 3 slices x planes, in batches
  // that end inside the grid on both axes.
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  std::mt19937 rng(seed);
  const auto   g = Geometry(9, 150, 5, 3);
  ExpectKernelsMatchCPU("general 3x5x3", RandomKernel(3, 5, 3, rng), g, false, false, rng);
  ExpectKernelsMatchCPU("separable gaussian 5", cif::MakeGaussianKernel(5, 1.0), g, false, true, rng);
}

TEST(KernelEmulation, OffsetsOfValidRegionsAndZoomCanvasesMatchCPU)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  std::mt19937 rng(seed);
  auto         valid = Geometry(75, 70, 1, 2);
  valid.outSize[0] = 65;
  valid.outSize[1] = 62;
  valid.outOffset[0] = 5;
  valid.outOffset[1] = 4;
  ExpectKernelsMatchCPU("VALID random 11x9", RandomKernel(11, 9, 1, rng), valid, false, false, rng);
  ExpectKernelsMatchCPU("VALID box 9", cif::MakeBoxKernel(9), valid, false, true, rng);
  auto canvas = Geometry(40, 30, 1, 3);
  canvas.outSize[0] = 50;
  canvas.outSize[1] = 45;
  canvas.outOffset[0] = -3;
  canvas.outOffset[1] = -6;
  ExpectKernelsMatchCPU("canvas gaussian 9", cif::MakeGaussianKernel(9, 2.0), canvas, false, true, rng);
  ExpectKernelsMatchCPU("canvas random 9", RandomKernel(9, 9, 1, rng), canvas, false, false, rng);
}

TEST(KernelEmulation, ZoomAndPlanarConversionMatchCPU)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  std::mt19937                          rng(seed);
  std::uniform_real_distribution<float> u(0, 1);
  for (auto mode : { cif::ZoomInterpolation::Nearest, cif::ZoomInterpolation::Linear, cif::ZoomInterpolation::Cubic })
  {
    cif::ZoomGeometry z;
    z.regionSize[0] = 50;
    z.regionSize[1] = 41;
    z.cutInRegion[0] = 3;
    z.zoom[0] = z.zoom[1] = 2.5;
    z.canvasStart[0] = -4;
    z.canvasSize[0] = 90;
    z.canvasSize[1] = 77;
    z.planes = 3;
    z.interpolation = mode;
    std::vector<float> region(50 * 41 * 3);
    for (float & v : region)
    {
      v = u(rng);
    }
    std::vector<float> device(static_cast<std::size_t>(z.CanvasCount() * 3)), host(device.size());
    emulated::cif::ZoomOnDevice(region.data(), z, device.data());
    cif::ZoomOnHost(region.data(), z, host.data(), serial);
    EXPECT_EQ(device, host) << cif::ToString(mode);
  }
  std::vector<std::uint8_t> raw(300 * 3);
  for (auto & b : raw)
  {
    b = static_cast<std::uint8_t>(rng());
  }
  std::vector<float> device(900), host(900);
  emulated::cif::ToPlanarOnDevice<std::uint8_t>(raw.data(), 300, 3, device.data());
  cif::ToPlanarOnHost(raw.data(), 300, 3, host.data(), serial);
  EXPECT_EQ(device, host);
  std::uniform_real_distribution<float> wide(-300, 600);
  for (float & v : device)
  {
    v = wide(rng);
  }
  std::vector<std::uint8_t> a(900), b(900);
  emulated::cif::FromPlanarOnDevice<std::uint8_t>(device.data(), 300, 3, a.data());
  cif::FromPlanarOnHost(device.data(), 300, 3, b.data(), serial);
  EXPECT_EQ(a, b);
}
} // namespace
