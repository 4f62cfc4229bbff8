// Directional filter bank entry point of a build without the CUDA toolkit (never
// called there: the filters take the CPU path when no device is usable).
#include "cifCudaRuntime.h"
#include "cifDirectionalFilterBankDevice.h"

namespace cif
{
template <typename T>
void
RunDFBOpsOnDevice(const DFBOp *, std::size_t, T * const *, const T *)
{
  throw CudaError("RunDFBOpsOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
CIF_INSTANTIATE_DFB(float)
CIF_INSTANTIATE_DFB(double)
} // namespace cif
