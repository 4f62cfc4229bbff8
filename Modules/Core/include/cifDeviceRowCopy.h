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
CopyRowsBetweenDevices(void * destination, int destinationDevice, std::size_t destinationPitch, const void * source,
                       int sourceDevice, std::size_t sourcePitch, std::size_t rowBytes, std::size_t rows);
} // namespace cif

#endif
