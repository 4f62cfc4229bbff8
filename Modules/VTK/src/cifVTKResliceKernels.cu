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
// GPU path of vtkCudaImageReslice: each output voxel computed by the shared per-voxel
// code of cifVTKResliceMath.h. The job (index matrix, transform stages, bounds,
// background) travels as the kernel's parameter. Threads of a warp take neighbouring
// output voxels, whose supports overlap in the input, so most coefficient reads hit
// the caches: for one-component jobs of a unit-stride input, voxels sheared so that a
// warp reads the same few input rows (cifVTKResliceShear.h); otherwise a row's voxels
// (a thread of a one-component job takes two of them).
#include "cifVTKResliceDevice.h"
#include "cifVTKResliceMath.h"
#include "cifVTKResliceShear.h"
#include "cifCudaCheck.cuh"
#include "cifLaunchBounds.cuh"
#include "cifGridStride.cuh"

#include <type_traits>

namespace cif
{
namespace vtkmath
{
namespace
{
constexpr int kResliceThreads = 128;

/** Voxels of a row per thread in ResliceRowRunsKernel: two let their gathers overlap;
 * in VTKBenchmark's oblique reslice one was slower, three and four no faster at 256³
 * and slower at 512³ (figures: commit 852334d). */
constexpr int kVoxelsPerRun = 2;

/** Grid-stride over every output voxel: outputs whose y or z extent exceeds a grid's
 * 65535 blocks. */
template <typename TIn, PointSource S>
__global__ void
ResliceKernel(const ResliceJob job)
{
  const std::int64_t voxels = job.OutputVoxels();
  for (std::int64_t v = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; v < voxels;
       v += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    ResliceVoxel<TIn, S>(job, v);
  }
}

/** One thread per output voxel on a (x, y, z) grid of blocks along x: no division of
 * a 64-bit voxel number into (i, j, k) (about 300 instructions a voxel; the kernel is
 * bound by issued instructions, not memory), and 32-bit input offsets (TOffset) where
 * the input allows. */
template <typename TIn, PointSource S, typename TOffset>
__global__ void
__launch_bounds__(kResliceThreads, 4) ResliceRowsKernel(const ResliceJob job)
{
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (x >= job.OutputSize(0))
  {
    return;
  }
  const int          y = static_cast<int>(blockIdx.y), z = static_cast<int>(blockIdx.z);
  const std::int64_t voxel = (static_cast<std::int64_t>(z) * job.OutputSize(1) + y) * job.OutputSize(0) + x;
  ResliceVoxelAt<TIn, S, TOffset>(
    job, job.outputExtent[0] + x, job.outputExtent[2] + y, job.outputExtent[4] + z, voxel);
}

/** Component 0 of output voxel (i, j, k), number \a voxel, before its conversion to the
 * output type: ResliceVoxelAt's value for a one-component job, its steps repeated
 * here on purpose. Both built from shared helpers (the support of a voxel; a
 * component rescaled) gave the same bits but a slower kernel (figures: b54777d). */
template <typename TIn, PointSource S, typename TOffset>
__device__ double
OneComponentValue(const ResliceJob & job, int i, int j, int k, std::int64_t voxel)
{
  double p[3];
  InputPosition<S>(job, i, j, k, voxel, p);
  if (!InsideBounds(job, p))
  {
    return job.background[0];
  }
  Support<TOffset> support;
  MakeSupport(job, p, support);
  double v = InterpolateComponent<TIn>(job, support, 0);
  if (job.scalarShift != 0.0 || job.scalarScale != 1.0)
  {
    v = Mul(Add(v, job.scalarShift), job.scalarScale);
  }
  return v;
}

/** A border voxel's value (some tap needs the border mode): OneComponentValue's
 * general support. Inlined: under the sheared kernel's 56-register bound the two
 * paths spill 8 bytes, and the warps that straddle the input's faces still run faster
 * than through a call (figures: commit e7e41c4). Without the bound the two paths took
 * 125 registers. */
template <typename TIn, typename TOffset>
__device__ __forceinline__ double
BorderValue(const ResliceJob & job, double p0, double p1, double p2)
{
  const double     p[3] = { p0, p1, p2 };
  Support<TOffset> support;
  MakeSupport(job, p, support);
  return InterpolateComponent<TIn>(job, support, 0);
}

/** OneComponentValue for an input whose x increment is 1: where the whole support
 * of every voxel of the warp lies inside the input extent (most warps) its rows are
 * addressed once and their four taps load at constant offsets (InterpolateInterior;
 * about 20 % fewer instructions a voxel), other warps take the general support
 * (BorderValue). The same operations on the values, so the same bits. */
template <typename TIn, PointSource S, typename TOffset>
__device__ double
UnitStrideValue(const ResliceJob & job, int i, int j, int k, std::int64_t voxel)
{
  double p[3];
  InputPosition<S>(job, i, j, k, voxel, p);
  if (!InsideBounds(job, p))
  {
    return job.background[0];
  }
  TOffset    firstOffset;
  double     weight[3][4];
  double     v;
  const bool interior = InteriorSupport(job, p, firstOffset, weight);
  // One path per warp: where any lane that got here needs the border, every one of
  // them takes the general support (the same bits for an interior voxel), so that the
  // warp runs one interpolation instead of both in turn. At VTKBenchmark's turn 14 %
  // of the warps that interpolate at 256^3 (7 % at 512^3) hold a border voxel; voting
  // made the kernel faster (figures: commit fd41002).
  if (__all_sync(__activemask(), interior))
  {
    v = InterpolateInterior<TIn, TOffset, 1>(job, static_cast<const TIn *>(job.input) + firstOffset, weight);
  }
  else
  {
    v = BorderValue<TIn, TOffset>(job, p[0], p[1], p[2]);
  }
  if (job.scalarShift != 0.0 || job.scalarScale != 1.0)
  {
    v = Mul(Add(v, job.scalarShift), job.scalarScale);
  }
  return v;
}

/** kVoxelsPerRun voxels of a row per thread (x, x + blockDim.x, ...), every value
 * computed before any is stored, so that their gathers are in flight together (a
 * store could alias the input for the compiler, which would then keep them apart).
 * One-component jobs (ResliceVoxelAt's arithmetic, value by value). */
template <typename TIn, PointSource S, typename TOffset>
__global__ void
__launch_bounds__(kResliceThreads, 3) ResliceRowRunsKernel(const ResliceJob job)
{
  const int x0 = static_cast<int>(blockIdx.x * kVoxelsPerRun * blockDim.x + threadIdx.x);
  const int nx = static_cast<int>(job.OutputSize(0));
  if (x0 >= nx)
  {
    return;
  }
  const int          y = static_cast<int>(blockIdx.y), z = static_cast<int>(blockIdx.z);
  const std::int64_t row = (static_cast<std::int64_t>(z) * job.OutputSize(1) + y) * nx;
  const int          j = job.outputExtent[2] + y, k = job.outputExtent[4] + z;
  double             value[kVoxelsPerRun];
  CIF_UNROLL
  for (int n = 0; n < kVoxelsPerRun; ++n)
  {
    const int x = x0 + n * static_cast<int>(blockDim.x);
    if (x < nx)
    {
      value[n] = OneComponentValue<TIn, S, TOffset>(job, job.outputExtent[0] + x, j, k, row + x);
    }
  }
  CIF_UNROLL
  for (int n = 0; n < kVoxelsPerRun; ++n)
  {
    const int x = x0 + n * static_cast<int>(blockDim.x);
    if (x < nx)
    {
      Store(job.output, job.outputKind, row + x, value[n]);
    }
  }
}

/** Sheared rows (cifVTKResliceShear.h) for one-component jobs whose input has an x
 * increment of 1: lanes along output x (blockDim (32, kShearRows)), lane x of sheared
 * position q takes the output voxel ShearedVoxel gives, so that a warp's 32 voxels
 * read nearly the same input rows; each voxel through UnitStrideValue. One voxel a
 * thread, 4 rows and 56 registers (9 blocks an SM) measured fastest in VTKBenchmark's
 * oblique reslice, against two voxels a thread, 2 or 8 rows, more registers, 8 or 10
 * blocks; no single unit bounds the kernel (figures: commits dc92fbc and 70d1115). */
constexpr int kShearRows = 4;

template <typename TIn, PointSource S, typename TOffset>
__global__ void
__launch_bounds__(kShearWarpLanes * kShearRows, MinBlocksPerSM(kShearWarpLanes * kShearRows, 9))
  ResliceShearedKernel(const __grid_constant__ ResliceJob job, const ResliceShear shear)
{
  const int x = static_cast<int>(blockIdx.x) * kShearWarpLanes + static_cast<int>(threadIdx.x);
  const int nx = static_cast<int>(job.OutputSize(0)), ny = static_cast<int>(job.OutputSize(1));
  if (x >= nx)
  {
    return;
  }
  const int q = static_cast<int>(blockIdx.z) * kShearRows + static_cast<int>(threadIdx.y);
  int       y, z;
  if (!ShearedVoxel(job, shear, ShearOffset(shear, x, nx), static_cast<int>(blockIdx.y), q, y, z))
  {
    return;
  }
  const std::int64_t voxel = (static_cast<std::int64_t>(z) * ny + y) * nx + x;
  Store(job.output,
        job.outputKind,
        voxel,
        UnitStrideValue<TIn, S, TOffset>(
          job, job.outputExtent[0] + x, job.outputExtent[2] + y, job.outputExtent[4] + z, voxel));
}

/** Whether the input's offsets fit 32 bits: every scalar of the input extent. */
bool
InputFitsInt32(const ResliceJob & job)
{
  std::int64_t scalars = job.inputIncrement[2];
  scalars *= static_cast<std::int64_t>(job.inputExtent[5]) - job.inputExtent[4] + 1;
  return scalars < (std::int64_t{ 1 } << 31);
}
} // namespace

void
ResliceOnDevice(const ResliceJob & job)
{
  const std::int64_t voxels = job.OutputVoxels();
  if (voxels == 0)
  {
    return;
  }
  constexpr int      threads = kResliceThreads;
  const bool         rows = job.OutputSize(1) <= 65535 && job.OutputSize(2) <= 65535;
  const bool         narrow = InputFitsInt32(job);
  const dim3         rowGrid(static_cast<unsigned int>((job.OutputSize(0) + threads - 1) / threads),
                     static_cast<unsigned int>(job.OutputSize(1)),
                     static_cast<unsigned int>(job.OutputSize(2)));
  const unsigned int blocks = GridStrideBlocks(voxels, threads);
  const ResliceShear shear = MakeResliceShear(job);
  const bool         sheared = shear.on && narrow && job.components == 1 && job.inputIncrement[0] == 1 &&
                       job.OutputSize(shear.sheetAxis) <= 65535 &&
                       (shear.walkLength + kShearRows - 1) / kShearRows <= 65535;
  const auto launchSource = [&](auto input, auto source) {
    using TIn = decltype(input);
    constexpr PointSource S = decltype(source)::value;
    if (sheared)
    {
      const dim3 shearGrid(static_cast<unsigned int>((job.OutputSize(0) + kShearWarpLanes - 1) / kShearWarpLanes),
                           static_cast<unsigned int>(job.OutputSize(shear.sheetAxis)),
                           static_cast<unsigned int>((shear.walkLength + kShearRows - 1) / kShearRows));
      ResliceShearedKernel<TIn, S, std::int32_t><<<shearGrid, dim3(kShearWarpLanes, kShearRows)>>>(job, shear);
    }
    else if (rows && narrow && job.components == 1)
    {
      const dim3 runGrid((rowGrid.x + kVoxelsPerRun - 1) / kVoxelsPerRun, rowGrid.y, rowGrid.z);
      ResliceRowRunsKernel<TIn, S, std::int32_t><<<runGrid, threads>>>(job);
    }
    else if (rows && narrow)
    {
      ResliceRowsKernel<TIn, S, std::int32_t><<<rowGrid, threads>>>(job);
    }
    else if (rows)
    {
      ResliceRowsKernel<TIn, S, std::int64_t><<<rowGrid, threads>>>(job);
    }
    else
    {
      ResliceKernel<TIn, S><<<blocks, threads>>>(job);
    }
  };
  const auto launch = [&](auto input) {
    switch (job.source)
    {
      case PointSource::Matrix:
        launchSource(input, std::integral_constant<PointSource, PointSource::Matrix>{});
        break;
      case PointSource::Stages:
        launchSource(input, std::integral_constant<PointSource, PointSource::Stages>{});
        break;
      case PointSource::Given:
        launchSource(input, std::integral_constant<PointSource, PointSource::Given>{});
        break;
    }
  };
  if (job.inputIsDouble)
  {
    launch(double{});
  }
  else
  {
    launch(float{});
  }
  CIF_CUDA_CHECK_LAUNCH();
}
} // namespace vtkmath
} // namespace cif
