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
#ifndef cifSimulatedUnsupportedGPU_h
#define cifSimulatedUnsupportedGPU_h

#include "CudaImageFiltersExport.h"

#include <string>

/** \file cifSimulatedUnsupportedGPU.h
 * For the tests of a GPU the build has no kernels for (cifCudaRuntime.h,
 * IsGPUAvailable): the availability probe made to fail as on such a GPU, so that the
 * case runs on any machine. A test hook: not installed with the library's headers.
 * Plain C++, no CUDA header. */
namespace cif
{
/** Every later probe of a device fails as on a GPU of \a architecture ("sm_61" or
 * "61", ParseArchitecture) that the build has no kernels for, whether or not a real
 * device is present; "" turns it off. The answer of IsGPUAvailable() is decided once
 * per process, so call this before anything asks it. False, changing nothing, where
 * \a architecture is neither "" nor an architecture. Process-wide. */
CudaImageFilters_EXPORT bool
SimulateUnsupportedGPU(const std::string & architecture);

/** The architecture SimulateUnsupportedGPU set, in \a major and \a minor; false where
 * none is set. */
CudaImageFilters_EXPORT bool
GetSimulatedUnsupportedGPU(int & major, int & minor);
} // namespace cif

#endif
