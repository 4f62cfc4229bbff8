// Device entry points of a build without the CUDA toolkit. The ITK filters never
// call them there (cif::IsGPUAvailable() is false); they exist so the library links.
#include "cifBSplinePrefilterDevice.h"
#include "cifCudaRuntime.h"

#include <cstdint>

namespace cif
{
template <typename T>
void
PrefilterOnDevice(T *, const BufferShape &, const SplinePoles &, BoundaryMode)
{
  throw CudaError("PrefilterOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
template <typename TIn, typename T>
void
ConvertOnDevice(const TIn *, T *, std::int64_t)
{
  throw CudaError("ConvertOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

template void PrefilterOnDevice<float>(float *, const BufferShape &, const SplinePoles &, BoundaryMode);
template void PrefilterOnDevice<double>(double *, const BufferShape &, const SplinePoles &, BoundaryMode);
#define CIF_INSTANTIATE_CONVERT(TIn)                                                                                 \
  template void ConvertOnDevice<TIn, float>(const TIn *, float *, std::int64_t);                                     \
  template void ConvertOnDevice<TIn, double>(const TIn *, double *, std::int64_t)
CIF_INSTANTIATE_CONVERT(std::uint8_t);
CIF_INSTANTIATE_CONVERT(std::int8_t);
CIF_INSTANTIATE_CONVERT(std::uint16_t);
CIF_INSTANTIATE_CONVERT(std::int16_t);
CIF_INSTANTIATE_CONVERT(std::uint32_t);
CIF_INSTANTIATE_CONVERT(std::int32_t);
CIF_INSTANTIATE_CONVERT(float);
CIF_INSTANTIATE_CONVERT(double);
#undef CIF_INSTANTIATE_CONVERT
} // namespace cif
