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
template <typename TIn>
__global__ void
ResliceKernel(const ResliceJob job)
{
  const std::int64_t voxels = job.OutputVoxels();
  for (std::int64_t v = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; v < voxels;
       v += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    ResliceVoxel<TIn>(job, v);
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
  if (job.inputIsDouble)
  {
    ResliceKernel<double><<<blocks, threads>>>(job);
  }
  else
  {
    ResliceKernel<float><<<blocks, threads>>>(job);
  }
  CIF_CUDA_CHECK_LAUNCH();
}
} // namespace vtkmath
} // namespace cif
