// GPU path of vtkCudaImageReslice: one thread per output voxel (grid-stride), each
// running the shared per-voxel code of cifVTKResliceMath.h. The job (index matrix,
// transform stages, bounds, background) travels as the kernel's parameter. Threads
// of a warp take neighbouring output voxels of a row, whose supports overlap in the
// input, so most coefficient reads hit the caches.
#include "cifVTKResliceDevice.h"
#include "cifVTKResliceMath.h"
#include "cifCudaCheck.cuh"
#include "cifGridStride.cuh"

namespace cif
{
namespace vtkmath
{
namespace
{
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
} // namespace

void
ResliceOnDevice(const ResliceJob & job)
{
  const std::int64_t voxels = job.OutputVoxels();
  if (voxels == 0)
  {
    return;
  }
  constexpr int      threads = 128;
  const unsigned int blocks = GridStrideBlocks(voxels, threads);
  const auto launch = [&](auto input) {
    using TIn = decltype(input);
    switch (job.source)
    {
      case PointSource::Matrix:
        ResliceKernel<TIn, PointSource::Matrix><<<blocks, threads>>>(job);
        break;
      case PointSource::Stages:
        ResliceKernel<TIn, PointSource::Stages><<<blocks, threads>>>(job);
        break;
      case PointSource::Given:
        ResliceKernel<TIn, PointSource::Given><<<blocks, threads>>>(job);
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
