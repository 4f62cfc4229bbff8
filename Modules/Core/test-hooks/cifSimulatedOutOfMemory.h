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
#ifndef cifSimulatedOutOfMemory_h
#define cifSimulatedOutOfMemory_h

#include "CudaImageFiltersExport.h"

#include <cstddef>

/** \file cifSimulatedOutOfMemory.h
 * For the tests of memory pressure: device allocations that fail although the driver
 * reports the memory free, as they do on a real device (the driver reserves memory
 * when a kernel first runs, and allocates in granules). A test hook: not installed
 * with the library's headers. Plain C++, no CUDA header. */
namespace cif
{
/** Every device allocation (DeviceBuffer) of more than \a bytes then fails as one
 * the driver cannot serve (CudaOutOfMemory), before the driver is asked;
 * 0 (the default) turns it off. Slab plans do not see it, unlike
 * SetDeviceMemoryLimit: it stands for free memory that cannot be allocated, which is
 * what the planners' retry (PlanAndReserve, cifSlabReservation.h) is for.
 * Process-wide. */
CudaImageFilters_EXPORT void
SimulateAllocationFailuresAbove(std::size_t bytes);

/** The value of the last SimulateAllocationFailuresAbove (0: none). */
CudaImageFilters_EXPORT std::size_t
                        GetSimulatedAllocationCeiling();
} // namespace cif

#endif
