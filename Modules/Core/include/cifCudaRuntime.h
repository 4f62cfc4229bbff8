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
#ifndef cifCudaRuntime_h
#define cifCudaRuntime_h

#include "CudaImageFiltersExport.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

/** \file cifCudaRuntime.h
 * The GPU runtime layer seen from plain C++: device query and selection and the
 * error type every CUDA failure becomes. No CUDA or ITK header is included here, so
 * both nvcc translation units and ITK code can use it. In a build without the CUDA
 * toolkit the same functions exist and report that no device is available. */
namespace cif
{

/** A failed CUDA call (or a GPU request that cannot be served). The ITK layer
 * rethrows it as itk::ExceptionObject; what() carries the CUDA error text. */
class CudaImageFilters_EXPORT CudaError : public std::runtime_error
{
public:
  explicit CudaError(const std::string & message)
    : std::runtime_error(message)
  {}
};

/** Thrown when a device allocation cannot be satisfied; what() names the sizes. */
class CudaImageFilters_EXPORT CudaOutOfMemory : public CudaError
{
public:
  using CudaError::CudaError;
};

struct DeviceInfo
{
  int         index = -1;
  std::string name;
  int         computeMajor = 0;
  int         computeMinor = 0;
  std::size_t totalMemoryBytes = 0;
  /** The driver's free memory; what this library caches for reuse is not counted
   * (cifDeviceMemoryPool.h). */
  std::size_t freeMemoryBytes = 0;
  int         multiprocessorCount = 0;
};

/** True when this library was compiled with the CUDA toolkit. */
CudaImageFilters_EXPORT bool
BuiltWithCuda();

/** Number of usable CUDA devices; 0 when there is no driver, no device, or no CUDA
 * support in this build (never throws). */
CudaImageFilters_EXPORT int
GetDeviceCount();

/** Why IsGPUAvailable() is false, in words ("" when it is true): no driver, no
 * device, or a device this build has no kernels for (its architecture and the
 * built ones named). */
CudaImageFilters_EXPORT std::string
                        GetNoDeviceReason();

/** True when the current CUDA device can run this library's kernels. The first call
 * looks for a device and, when there is one, launches an empty probe kernel on it:
 * a device whose architecture the build lacks (CMAKE_CUDA_ARCHITECTURES) is found
 * there, once, before any work, instead of as a launch failure in the middle of a
 * pipeline. When the answer is no, that call prints one line saying why and that the
 * CPU path will be used; later calls print nothing.
 * (The tests simulate such a device: cif::SimulateUnsupportedGPU, a test hook.) */
CudaImageFilters_EXPORT bool
IsGPUAvailable();

/** True when device \a index can run this library's kernels (the probe launch of
 * IsGPUAvailable, done once per device and remembered). False for a device that
 * does not exist. */
CudaImageFilters_EXPORT bool
DeviceRunsThisBuildsKernels(int index);

/** The GPU architectures this build has kernels for, as "sm_75, sm_80, ..."
 * (nvcc's __CUDA_ARCH_LIST__); "" in a build without the CUDA toolkit. A device of
 * a newer architecture may still run them by compiling their PTX at load time. */
CudaImageFilters_EXPORT std::string
                        BuiltCudaArchitectures();

/** Properties and current free memory of device \a index (the current one if -1). */
CudaImageFilters_EXPORT DeviceInfo
GetDeviceInfo(int index = -1);

/** Makes \a index the current device of the calling thread. */
CudaImageFilters_EXPORT void
SelectDevice(int index);

/** Waits for the work the calling thread queued on the current device (its default
 * stream: the library is compiled with nvcc --default-stream per-thread, so host
 * threads do not wait for each other); throws on an asynchronous error. */
CudaImageFilters_EXPORT void
Synchronize();

/** Free memory of the current device plus what this library's pool caches (one
 * cudaMemGetInfo: cheap enough for every update, unlike GetDeviceInfo). */
CudaImageFilters_EXPORT std::size_t
                        GetAvailableDeviceMemory();

/** Throws CudaOutOfMemory, naming \a what and the sizes, when \a bytes exceed the
 * free memory of the current device, or the device memory limit
 * (cifDeviceMemoryLimit.h). Called before any allocation of a large job so
 * that a job too large fails before touching its output. */
CudaImageFilters_EXPORT void
RequireDeviceMemory(std::size_t bytes, const std::string & what);

} // namespace cif

#endif
