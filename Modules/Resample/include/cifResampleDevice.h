#ifndef cifResampleDevice_h
#define cifResampleDevice_h

#include "CudaImageFiltersExport.h"
#include "cifScalarTypes.h"
#include "cifResampleMath.h"

namespace cif
{
/** Resamples cubic B-spline \a coefficients (device) into \a output (device), one
 * thread per output voxel: exact mode, ITK's arithmetic in double. With
 * \a mappedPoints (device, D doubles per output voxel) the transformed points come
 * from there instead of \a chain. With \a linearRows (a chain that is linear, as
 * ResampleImageFilter decides it) the continuous index of a voxel is interpolated
 * between its row's endpoints, as ITK's linear path does. D = 2, 3 or 4. */
template <int D, typename TCoefficient, typename TOut>
CudaImageFilters_EXPORT void
ResampleOnDevice(const TCoefficient * coefficients, const ResampleGeometry & geometry, const TransformChain & chain,
                 const double * mappedPoints, bool linearRows, TOut defaultValue, TOut * output);

/** The input continuous indices at both ends of every output row (2 kMaxDimension
 * doubles per row into \a endpoints, device: start, then end) for a linear
 * \a chain: what ResampleImageFilter's linear path interpolates between (see
 * RowEndpoints). */
template <int D>
CudaImageFilters_EXPORT void
RowEndpointsOnDevice(const ResampleGeometry & geometry, const TransformChain & chain, double * endpoints);

/** Dense displacement field T(p) - p over the output grid of \a geometry (D
 * components per voxel, interleaved), as itk::TransformToDisplacementFieldFilter. */
template <int D, typename TOut>
CudaImageFilters_EXPORT void
DisplacementFieldOnDevice(const ResampleGeometry & geometry, const TransformChain & chain, TOut * field);

/** The explicit instantiations, for the CUDA source and its no-CUDA twin alike:
 * CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_RESAMPLE). */
#define CIF_INSTANTIATE_RESAMPLE(TO)                                                                                 \
  template void ResampleOnDevice<2, float, TO>(                                                                      \
    const float *, const ResampleGeometry &, const TransformChain &, const double *, bool, TO, TO *);                \
  template void ResampleOnDevice<2, double, TO>(                                                                     \
    const double *, const ResampleGeometry &, const TransformChain &, const double *, bool, TO, TO *);               \
  template void ResampleOnDevice<3, float, TO>(                                                                      \
    const float *, const ResampleGeometry &, const TransformChain &, const double *, bool, TO, TO *);                \
  template void ResampleOnDevice<3, double, TO>(                                                                     \
    const double *, const ResampleGeometry &, const TransformChain &, const double *, bool, TO, TO *);               \
  template void ResampleOnDevice<4, float, TO>(                                                                      \
    const float *, const ResampleGeometry &, const TransformChain &, const double *, bool, TO, TO *);                \
  template void ResampleOnDevice<4, double, TO>(                                                                     \
    const double *, const ResampleGeometry &, const TransformChain &, const double *, bool, TO, TO *);
/** The row-endpoint and displacement-field instantiations (2-D, 3-D; float and double). */
#define CIF_INSTANTIATE_FIELD(D)                                                                          \
  template void RowEndpointsOnDevice<D>(const ResampleGeometry &, const TransformChain &, double *);                \
  template void DisplacementFieldOnDevice<D, float>(const ResampleGeometry &, const TransformChain &, float *);      \
  template void DisplacementFieldOnDevice<D, double>(const ResampleGeometry &, const TransformChain &, double *);

} // namespace cif

#endif
