// Texture-mode entry point of a build without the CUDA toolkit (never called there).
#include "cifCudaRuntime.h"
#include "cifTextureResampleDevice.h"
#include "cifScalarTypes.h"

namespace cif
{
template <int D, typename TOut>
void
ResampleWithTexturesOnDevice(const float *, const ResampleGeometry &, const TransformChain &, const double *, bool,
                             TOut, TOut *)
{
  throw CudaError("ResampleWithTexturesOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_TEXTURED)
} // namespace cif
