// Device entry points of a build without the CUDA toolkit. The ITK filters never
// call them there (cif::IsGPUAvailable() is false); they exist so the library links.
#include "cifCudaRuntime.h"
#include "cifResampleDevice.h"
#include "cifScalarTypes.h"

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

template <int D, typename TCoefficient, typename TOut>
void
ResampleOnDevice(const TCoefficient *, const ResampleGeometry &, const TransformChain &, const double *, bool, TOut,
                 TOut *)
{
  ThrowNoCuda("ResampleOnDevice");
}
template <int D, typename TOut>
void
DisplacementFieldOnDevice(const ResampleGeometry &, const TransformChain &, TOut *)
{
  ThrowNoCuda("DisplacementFieldOnDevice");
}
template <int D, typename TCoefficient>
void
EvaluatePointsOnDevice(const TCoefficient *, const CoefficientGrid &, const double *, std::int64_t, double *, double *)
{
  ThrowNoCuda("EvaluatePointsOnDevice");
}

CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_RESAMPLE)
template void DisplacementFieldOnDevice<2, float>(const ResampleGeometry &, const TransformChain &, float *);
template void DisplacementFieldOnDevice<2, double>(const ResampleGeometry &, const TransformChain &, double *);
template void DisplacementFieldOnDevice<3, float>(const ResampleGeometry &, const TransformChain &, float *);
template void DisplacementFieldOnDevice<3, double>(const ResampleGeometry &, const TransformChain &, double *);
template void EvaluatePointsOnDevice<2, float>(const float *, const CoefficientGrid &, const double *, std::int64_t,
                                               double *, double *);
template void EvaluatePointsOnDevice<2, double>(const double *, const CoefficientGrid &, const double *,
                                                std::int64_t, double *, double *);
template void EvaluatePointsOnDevice<3, float>(const float *, const CoefficientGrid &, const double *, std::int64_t,
                                               double *, double *);
template void EvaluatePointsOnDevice<3, double>(const double *, const CoefficientGrid &, const double *,
                                                std::int64_t, double *, double *);
} // namespace cif
