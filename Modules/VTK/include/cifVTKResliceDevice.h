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
#ifndef cifVTKResliceDevice_h
#define cifVTKResliceDevice_h

#include "CudaImageFiltersVTKExport.h"
#include "cifVTKResliceJob.h"

/** \file cifVTKResliceDevice.h
 * The GPU path of vtkCudaImageReslice: one thread per output voxel, each running
 * ResliceVoxel (cifVTKResliceMath.h), the same code as the CPU path. */
namespace cif
{
namespace vtkmath
{
/** Runs \a job on the current device, on the default stream (asynchronous; launch
 * errors are thrown as CudaError). job.input, job.output, job.points and the grids of
 * B-spline stages are device pointers. */
CudaImageFiltersVTK_EXPORT void
ResliceOnDevice(const ResliceJob & job);
} // namespace vtkmath
} // namespace cif

#endif
