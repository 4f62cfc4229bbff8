#ifndef cifBSplinePrefilterDevice_h
#define cifBSplinePrefilterDevice_h

#include "CudaImageFiltersExport.h"
#include "cifBSplinePrefilterMath.h"

namespace cif
{
/** The GPU path of the prefilter: every axis of a device buffer of \a shape, in
 * place, on the default stream (asynchronous; errors of the launch are thrown as
 * CudaError). T is float or double. Lines that fit in shared memory are filtered in
 * tiles of neighbouring lines, each line split into chunks swept in parallel and
 * joined by carrying the recursion's state between chunks; longer lines fall back to
 * one thread per line in global memory. */
template <typename T>
CudaImageFilters_EXPORT void
PrefilterOnDevice(T * deviceData, const BufferShape & shape, const SplinePoles & poles, BoundaryMode mode);

/** out[i] = (T) in[i] on the device, for \a count scalars (input pixel types that
 * are not the coefficient type). */
template <typename TIn, typename T>
CudaImageFilters_EXPORT void
ConvertOnDevice(const TIn * deviceIn, T * deviceOut, std::int64_t count);
} // namespace cif

#endif
