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
#ifndef cifResampleDevice_h
#define cifResampleDevice_h

#include "CudaImageFiltersExport.h"
#include "cifScalarTypes.h"
#include "cifResampleMath.h"
#include "cifResampleSlabs.h"
#include "cifStageCallback.h"

namespace cif
{
/** Resamples cubic B-spline \a coefficients (device) into \a output (device), one
 * thread per output voxel: exact mode, ITK's arithmetic in double. With
 * \a mappedPoints (device, D doubles per output voxel) the transformed points come
 * from there instead of \a chain. With \a linearRows (a chain that is linear, as
 * ResampleImageFilter decides it) the continuous index of a voxel is interpolated
 * between its row's endpoints, as ITK's linear path does. D = 2, 3 or 4.
 * With \a slabs (PlanResampleSlabs) the output is computed slab by slab, one launch
 * each, the same kernel for all of them (the same bits as one piece), and
 * \a afterSlab is called after each slab is queued (not waited for). */
template <int D, typename TCoefficient, typename TOut>
CudaImageFilters_EXPORT void
ResampleOnDevice(const TCoefficient *     coefficients,
                 const ResampleGeometry & geometry,
                 const TransformChain &   chain,
                 const double *           mappedPoints,
                 bool                     linearRows,
                 TOut                     defaultValue,
                 TOut *                   output,
                 const ResampleSlabs &    slabs = {},
                 const StageCallback &    afterSlab = {});

/** The halo of mirror-padded coefficients on the device (cifMirrorPadding.h):
 * \a padded holds MirrorPaddedCount<D>(grid) samples whose interior is written
 * (PrefilterIntoLayoutOnDevice at MirrorPaddedLayout<D>(grid)); each halo sample gets
 * the interior sample ITK's mirror reads there. Asynchronous, on the default stream.
 * D = 2, 3 or 4; T float or double. */
template <int D, typename T>
CudaImageFilters_EXPORT void
FillMirrorHaloOnDevice(T * padded, const CoefficientGrid & grid);

/** The input continuous indices at both ends of every output row (2 kMaxDimension
 * doubles per row into \a endpoints, device: start, then end) for a linear
 * \a chain: what ResampleImageFilter's linear path interpolates between (see
 * RowEndpoints). */
template <int D>
CudaImageFilters_EXPORT void
RowEndpointsOnDevice(const ResampleGeometry & geometry, const TransformChain & chain, double * endpoints);

/** Dense displacement field T(p) - p over the output grid of \a geometry (D
 * components per voxel, interleaved), as itk::TransformToDisplacementFieldFilter.
 * \a slabs and \a afterSlab as for ResampleOnDevice. */
template <int D, typename TOut>
CudaImageFilters_EXPORT void
DisplacementFieldOnDevice(const ResampleGeometry & geometry,
                          const TransformChain &   chain,
                          TOut *                   field,
                          const ResampleSlabs &    slabs = {},
                          const StageCallback &    afterSlab = {});

/** The explicit instantiations, for the CUDA source and its no-CUDA twin alike:
 * CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_RESAMPLE). */
#define CIF_INSTANTIATE_RESAMPLE(TO)         \
  CIF_INSTANTIATE_RESAMPLE_DC(2, float, TO)  \
  CIF_INSTANTIATE_RESAMPLE_DC(2, double, TO) \
  CIF_INSTANTIATE_RESAMPLE_DC(3, float, TO)  \
  CIF_INSTANTIATE_RESAMPLE_DC(3, double, TO) \
  CIF_INSTANTIATE_RESAMPLE_DC(4, float, TO)  \
  CIF_INSTANTIATE_RESAMPLE_DC(4, double, TO)
#define CIF_INSTANTIATE_RESAMPLE_DC(D, TC, TO)                        \
  template void ResampleOnDevice<D, TC, TO>(const TC *,               \
                                            const ResampleGeometry &, \
                                            const TransformChain &,   \
                                            const double *,           \
                                            bool,                     \
                                            TO,                       \
                                            TO *,                     \
                                            const ResampleSlabs &,    \
                                            const StageCallback &);
/** The halo instantiations (D = 2, 3, 4; float and double). */
#define CIF_INSTANTIATE_MIRROR_HALO                                                   \
  template void FillMirrorHaloOnDevice<2, float>(float *, const CoefficientGrid &);   \
  template void FillMirrorHaloOnDevice<3, float>(float *, const CoefficientGrid &);   \
  template void FillMirrorHaloOnDevice<4, float>(float *, const CoefficientGrid &);   \
  template void FillMirrorHaloOnDevice<2, double>(double *, const CoefficientGrid &); \
  template void FillMirrorHaloOnDevice<3, double>(double *, const CoefficientGrid &); \
  template void FillMirrorHaloOnDevice<4, double>(double *, const CoefficientGrid &);
/** The row-endpoint and displacement-field instantiations (2-D, 3-D; float and double). */
#define CIF_INSTANTIATE_FIELD(D)                                                                              \
  template void RowEndpointsOnDevice<D>(const ResampleGeometry &, const TransformChain &, double *);          \
  template void DisplacementFieldOnDevice<D, float>(                                                          \
    const ResampleGeometry &, const TransformChain &, float *, const ResampleSlabs &, const StageCallback &); \
  template void DisplacementFieldOnDevice<D, double>(                                                         \
    const ResampleGeometry &, const TransformChain &, double *, const ResampleSlabs &, const StageCallback &);

} // namespace cif

#endif
