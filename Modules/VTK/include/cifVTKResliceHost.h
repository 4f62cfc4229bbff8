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
#ifndef cifVTKResliceHost_h
#define cifVTKResliceHost_h

#include "cifVTKResliceMath.h"

#include <cstdint>

/** \file cifVTKResliceHost.h
 * The CPU path of vtkCudaImageReslice: ResliceVoxelAt (the device's code) over every
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
  // (j, k) once per row, as the device's grid gives them, not divided out of every
  // voxel's number.
  const std::int64_t nx = job.OutputSize(0), ny = job.OutputSize(1);
  const auto         rows = [&](auto voxelAt) {
    parallelFor(voxels / nx, [&job, nx, ny, voxelAt](std::int64_t row) {
      const int j = job.outputExtent[2] + static_cast<int>(row % ny);
      const int k = job.outputExtent[4] + static_cast<int>(row / ny);
      for (std::int64_t x = 0; x < nx; ++x)
      {
        voxelAt(job, job.outputExtent[0] + static_cast<int>(x), j, k, row * nx + x);
      }
    });
  };
  const auto withSource = [&](auto input) {
    using TIn = decltype(input);
    switch (job.source)
    {
      case PointSource::Matrix:
        rows(ResliceVoxelAt<TIn, PointSource::Matrix>);
        break;
      case PointSource::Stages:
        rows(ResliceVoxelAt<TIn, PointSource::Stages>);
        break;
      case PointSource::Given:
        rows(ResliceVoxelAt<TIn, PointSource::Given>);
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
