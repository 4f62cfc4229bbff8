// Device entry points of a build without the CUDA toolkit. The ITK filters never
// call them there (cif::IsGPUAvailable() is false); they exist so the library links.
#include "cifConvolutionDevice.h"
#include "cifCudaRuntime.h"

namespace cif
{
namespace
{
[[noreturn]] void
ThrowNoCuda(const char * what)
{
  throw CudaError(std::string(what) + ": CudaImageFilters was built without the CUDA toolkit");
}
} // namespace

void
ConvolveGeneralOnDevice(const float *, const ConvolutionGeometry &, const float *, float *)
{
  ThrowNoCuda("ConvolveGeneralOnDevice");
}
void
ConvolveSeparableOnDevice(const float *, const ConvolutionGeometry &, const float *, float *, float *)
{
  ThrowNoCuda("ConvolveSeparableOnDevice");
}
template <typename T>
void
ToPlanarOnDevice(const T *, std::int64_t, int, float *)
{
  ThrowNoCuda("ToPlanarOnDevice");
}
template <typename T>
void
FromPlanarOnDevice(const float *, std::int64_t, int, T *)
{
  ThrowNoCuda("FromPlanarOnDevice");
}
void
ZoomOnDevice(const float *, const ZoomGeometry &, float *)
{
  ThrowNoCuda("ZoomOnDevice");
}

CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_PLANAR)
} // namespace cif
