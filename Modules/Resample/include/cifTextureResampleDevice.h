#ifndef cifTextureResampleDevice_h
#define cifTextureResampleDevice_h

#include "CudaImageFiltersExport.h"
#include "cifScalarTypes.h"
#include "cifResampleMath.h"

namespace cif
{
/** Texture-accelerated cubic resampling (seed 002, Ruijters et al.): each output
 * voxel is 2^D hardware linearly filtered fetches instead of 4^D exact terms. The
 * texture unit interpolates with weights of about 8 fractional bits, so results
 * differ from the exact mode by an error Modules/Resample/README.md measures; opt-in only. The
 * coefficients (float, device) are copied once into a texture array padded by two
 * samples of ITK's mirror on every side, so borders mirror as in exact mode.
 * Arguments as ResampleOnDevice. */
template <int D, typename TOut>
CudaImageFilters_EXPORT void
ResampleWithTexturesOnDevice(const float * coefficients, const ResampleGeometry & geometry,
                             const TransformChain & chain, const double * mappedPoints, bool linearRows,
                             TOut defaultValue, TOut * output);
/** The explicit instantiations, for the CUDA source and its no-CUDA twin alike:
 * CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_TEXTURED). */
#define CIF_INSTANTIATE_TEXTURED(TO)                                                                                 \
  template void ResampleWithTexturesOnDevice<2, TO>(                                                                 \
    const float *, const ResampleGeometry &, const TransformChain &, const double *, bool, TO, TO *);                \
  template void ResampleWithTexturesOnDevice<3, TO>(                                                                 \
    const float *, const ResampleGeometry &, const TransformChain &, const double *, bool, TO, TO *);

} // namespace cif

#endif
