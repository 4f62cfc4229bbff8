#ifndef cifVTKResliceHost_h
#define cifVTKResliceHost_h

#include "cifVTKResliceMath.h"

#include <cstdint>

/** \file cifVTKResliceHost.h
 * The CPU path of vtkCudaImageReslice: ResliceVoxel (the device's code) over every
 * output row, rows spread over threads by \a parallelFor(count, body). */
namespace cif
{
namespace vtkmath
{
template <typename TParallelFor>
void
ResliceOnHost(const ResliceJob & job, TParallelFor && parallelFor)
{
  const std::int64_t voxels = job.OutputVoxels();
  if (voxels == 0)
  {
    return;
  }
  const std::int64_t nx = job.OutputSize(0);
  parallelFor(voxels / nx, [&job, nx](std::int64_t row) {
    for (std::int64_t v = row * nx; v < (row + 1) * nx; ++v)
    {
      if (job.inputIsDouble)
      {
        ResliceVoxel<double>(job, v);
      }
      else
      {
        ResliceVoxel<float>(job, v);
      }
    }
  });
}
} // namespace vtkmath
} // namespace cif

#endif
