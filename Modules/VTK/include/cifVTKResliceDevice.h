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
