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
#ifndef cifBSplinePrefilterDevice_h
#define cifBSplinePrefilterDevice_h

#include "CudaImageFiltersExport.h"
#include "cifScalarTypes.h"
#include "cifBSplinePrefilterMath.h"
#include "cifStageCallback.h"

namespace cif
{
/** The GPU path of the prefilter: every axis of a device buffer of \a shape, in
 * place, on the default stream (asynchronous; errors of the launch are thrown as
 * CudaError). T is float or double. Lines that fit in shared memory are filtered in
 * tiles of neighbouring lines, each line split into chunks swept in parallel and
 * joined by carrying the recursion's state between chunks; longer lines fall back to
 * one thread per line in global memory. \a afterAxis is called once per axis of
 * \a shape, after that axis's pass is queued (not waited for: the callback decides
 * whether to synchronize), also where an axis needs no pass. */
template <typename T>
CudaImageFilters_EXPORT void
PrefilterOnDevice(T *                   deviceData,
                  const BufferShape &   shape,
                  const SplinePoles &   poles,
                  BoundaryMode          mode,
                  const StageCallback & afterAxis = {});

/** The prefilter out of place: the coefficients of the samples in \a source (device,
 * left untouched) into \a deviceData. The first axis reads from \a source, so this
 * costs no more than filtering in place (no copy of the samples first). \a afterAxis
 * as above. */
template <typename T>
CudaImageFilters_EXPORT void
PrefilterOnDevice(const T *             source,
                  T *                   deviceData,
                  const BufferShape &   shape,
                  const SplinePoles &   poles,
                  BoundaryMode          mode,
                  const StageCallback & afterAxis = {});

/** The prefilter out of place into a buffer of another layout: the coefficients of
 * the dense samples in \a source (device, left untouched) into \a deviceData at
 * \a layout (BufferLayout: a one-component buffer with room around its samples, such
 * as the resampler's mirror-padded coefficients, cifMirrorPadding.h). The same
 * passes and bits as PrefilterOnDevice; only the layout's samples are written. */
template <typename T>
CudaImageFilters_EXPORT void
PrefilterIntoLayoutOnDevice(const T *             source,
                            T *                   deviceData,
                            const BufferLayout &  layout,
                            const BufferShape &   shape,
                            const SplinePoles &   poles,
                            BoundaryMode          mode,
                            const StageCallback & afterAxis = {});

/** The passes along axes [0, \a axisEnd) of \a shape only, in place: the prefilter
 * of a volume larger than the device runs them on slabs of its slowest axis, and
 * the slowest axis's pass on slabs of another axis (cifSlabbedPrefilter.h). Each
 * line is filtered exactly as PrefilterOnDevice filters it (the kernels' choices
 * depend on the line's length, never on how many lines there are), so slabs give
 * the bits of one piece. \a afterAxis: once per axis below \a axisEnd. */
template <typename T>
CudaImageFilters_EXPORT void
PrefilterLeadingAxesOnDevice(T *                   deviceData,
                             const BufferShape &   shape,
                             int                   axisEnd,
                             const SplinePoles &   poles,
                             BoundaryMode          mode,
                             const StageCallback & afterAxis = {});

/** The explicit instantiations of both overloads (T float, double), for the CUDA
 * source and its no-CUDA twin alike. */
#define CIF_INSTANTIATE_PREFILTER(T)                                                                \
  template void PrefilterOnDevice<T>(                                                               \
    T *, const BufferShape &, const SplinePoles &, BoundaryMode, const StageCallback &);            \
  template void PrefilterOnDevice<T>(                                                               \
    const T *, T *, const BufferShape &, const SplinePoles &, BoundaryMode, const StageCallback &); \
  template void PrefilterLeadingAxesOnDevice<T>(                                                    \
    T *, const BufferShape &, int, const SplinePoles &, BoundaryMode, const StageCallback &);       \
  template void PrefilterIntoLayoutOnDevice<T>(const T *,                                           \
                                               T *,                                                 \
                                               const BufferLayout &,                                \
                                               const BufferShape &,                                 \
                                               const SplinePoles &,                                 \
                                               BoundaryMode,                                        \
                                               const StageCallback &);

/** The prefilter of float samples with every line computed in double and stored as
 * float after each axis: what VTK's vtkImageBSplineCoefficients does for float
 * output (the float sweeps of PrefilterOnDevice<float> differ from it by up to
 * 2e-6 of the data's range; this by one float rounding per axis). Same tiles, with
 * double in shared memory. \a source may equal \a deviceData (in place). */
CudaImageFilters_EXPORT void
PrefilterOnDeviceInDouble(const float *         source,
                          float *               deviceData,
                          const BufferShape &   shape,
                          const SplinePoles &   poles,
                          BoundaryMode          mode,
                          const StageCallback & afterAxis = {});

/** out[i] = (T) in[i] on the device, for \a count scalars (input pixel types that
 * are not the coefficient type). */
template <typename TIn, typename T>
CudaImageFilters_EXPORT void
ConvertOnDevice(const TIn * deviceIn, T * deviceOut, std::int64_t count);
/** The explicit instantiations, for the CUDA source and its no-CUDA twin alike:
 * CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_CONVERT). */
#define CIF_INSTANTIATE_CONVERT(TIn)                                             \
  template void ConvertOnDevice<TIn, float>(const TIn *, float *, std::int64_t); \
  template void ConvertOnDevice<TIn, double>(const TIn *, double *, std::int64_t);

} // namespace cif

#endif
