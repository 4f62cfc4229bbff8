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
#ifndef cifDeviceMemoryLimit_h
#define cifDeviceMemoryLimit_h

#include "CudaImageFiltersExport.h"

#include <cstddef>
#include <string>

/** \file cifDeviceMemoryLimit.h
 * A cap on the device memory one filter's job may use, below what the device has:
 * for volumes larger than the device, for sharing a GPU with other work, and for
 * tests that force many slabs on small images. Filters that can work in slabs
 * (the prefilter, the resampler) plan their slabs within
 * GetDeviceMemoryBudget(); the others fail before any work with CudaOutOfMemory
 * (RequireDeviceMemory honours the cap too). Plain C++, no CUDA header. */
namespace cif
{
/** Caps the device memory a filter's job may allocate at \a bytes (0: no cap but
 * the device's free memory). Process-wide; takes precedence over the environment. */
CudaImageFilters_EXPORT void
SetDeviceMemoryLimit(std::size_t bytes);

/** The cap: the last SetDeviceMemoryLimit() value, else CIF_DEVICE_MEMORY_LIMIT
 * (cifRuntimeSettings.h: a byte count such as "16G", read once), else 0 (none). */
CudaImageFilters_EXPORT std::size_t
                        GetDeviceMemoryLimit();

/** Device memory a plan leaves free for what the driver takes when a kernel first
 * runs (its module, lazily loaded, and any growth of the local memory reservation):
 * about 15 MiB went between a plan and its allocation on an H200. */
constexpr std::size_t kDeviceLaunchHeadroomBytes = std::size_t{ 32 } << 20;

/** The bytes a job may plan for: the current device's free memory plus what this
 * library's pool caches, less kDeviceLaunchHeadroomBytes, capped by
 * GetDeviceMemoryLimit(). With \a onDevice false
 * (the CPU path, which runs the same slab plans so that CI tests them) only the cap
 * counts, and no cap means no limit (SIZE_MAX). */
CudaImageFilters_EXPORT std::size_t
                        GetDeviceMemoryBudget(bool onDevice);

/** "12.50 MiB": sizes in messages. */
CudaImageFilters_EXPORT std::string
                        FormatMiB(std::size_t bytes);
} // namespace cif

#endif
