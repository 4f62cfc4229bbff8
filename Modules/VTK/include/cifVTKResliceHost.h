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
  const auto         rows = [&](auto voxel) {
    parallelFor(voxels / nx, [&job, nx, voxel](std::int64_t row) {
      for (std::int64_t v = row * nx; v < (row + 1) * nx; ++v)
      {
        voxel(job, v);
      }
    });
  };
  const auto withSource = [&](auto input) {
    using TIn = decltype(input);
    switch (job.source)
    {
      case PointSource::Matrix:
        rows(ResliceVoxel<TIn, PointSource::Matrix>);
        break;
      case PointSource::Stages:
        rows(ResliceVoxel<TIn, PointSource::Stages>);
        break;
      case PointSource::Given:
        rows(ResliceVoxel<TIn, PointSource::Given>);
        break;
    }
  };
  if (job.inputIsDouble)
  {
    withSource(double{});
  }
  else
  {
    withSource(float{});
  }
}
} // namespace vtkmath
} // namespace cif

#endif
