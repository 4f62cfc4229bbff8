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
#ifndef cifDeviceRowCopy_h
#define cifDeviceRowCopy_h

#include "CudaImageFiltersExport.h"

#include <cstddef>

/** \file cifDeviceRowCopy.h
 * Strided copies between devices (plain C++, no CUDA header). */
namespace cif
{
/** CopyBetweenDevices (cifDeviceBuffer.h) of \a rows rows of \a rowBytes each: row r
 * from \a source + r * \a sourcePitch to \a destination + r * \a destinationPitch
 * (bytes), queued on the calling thread's default stream of its current device. One
 * strided copy (cudaMemcpy3DPeerAsync; cudaMemcpy2DAsync on one device) instead of a
 * call per row; a call per row where a pitch passes 2^31 - 1 bytes. The spread
 * prefilter's exchange between its passes gathers a chunk of every plane with it
 * (cifSpreadPrefilter.h). */
CudaImageFilters_EXPORT void
CopyRowsBetweenDevices(void *       destination,
                       int          destinationDevice,
                       std::size_t  destinationPitch,
                       const void * source,
                       int          sourceDevice,
                       std::size_t  sourcePitch,
                       std::size_t  rowBytes,
                       std::size_t  rows);
} // namespace cif

#endif
