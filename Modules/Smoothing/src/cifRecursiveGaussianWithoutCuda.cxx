// Device entry points of a build without the CUDA toolkit. The ITK filters never
// call them there (cif::IsGPUAvailable() is false); they exist so the library links.
#include "cifCudaRuntime.h"
#include "cifRecursiveGaussianDevice.h"

namespace cif
{
template <typename TSrc>
void
RecursiveGaussianPassOnDevice(const TSrc *, double *, const GaussianShape &, int, const RecursiveGaussianCoefficients &,
                              const GaussianPassOutput &)
{
  throw CudaError("RecursiveGaussianPassOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
template <typename T>
void
ConvertFromDoubleOnDevice(const double *, T *, std::int64_t)
{
  throw CudaError("ConvertFromDoubleOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
void
RotateCovariantOnDevice(double *, std::int64_t, int, const double *)
{
  throw CudaError("RotateCovariantOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

CIF_INSTANTIATE_RECURSIVE_GAUSSIAN(float)
CIF_INSTANTIATE_RECURSIVE_GAUSSIAN(double)
} // namespace cif
