// Texture-mode entry point of a build without the CUDA toolkit (never called there).
#include "cifCudaRuntime.h"
#include "cifTextureResampleDevice.h"

namespace cif
{
template <int D, typename TOut>
void
ResampleWithTexturesOnDevice(const float *, const ResampleGeometry &, const TransformChain &, const double *, bool,
                             TOut, TOut *)
{
  throw CudaError("ResampleWithTexturesOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
#define CIF_INSTANTIATE_TEXTURED(D, TO)                                                                              \
  template void ResampleWithTexturesOnDevice<D, TO>(                                                                 \
    const float *, const ResampleGeometry &, const TransformChain &, const double *, bool, TO, TO *)
#define CIF_INSTANTIATE_TEXTURED_OUTPUTS(D)                                                                          \
  CIF_INSTANTIATE_TEXTURED(D, std::uint8_t);                                                                         \
  CIF_INSTANTIATE_TEXTURED(D, std::int8_t);                                                                          \
  CIF_INSTANTIATE_TEXTURED(D, std::uint16_t);                                                                        \
  CIF_INSTANTIATE_TEXTURED(D, std::int16_t);                                                                         \
  CIF_INSTANTIATE_TEXTURED(D, std::uint32_t);                                                                        \
  CIF_INSTANTIATE_TEXTURED(D, std::int32_t);                                                                         \
  CIF_INSTANTIATE_TEXTURED(D, float);                                                                                \
  CIF_INSTANTIATE_TEXTURED(D, double)
CIF_INSTANTIATE_TEXTURED_OUTPUTS(2);
CIF_INSTANTIATE_TEXTURED_OUTPUTS(3);
} // namespace cif
