// Device entry points of a build without the CUDA toolkit. The ITK filters never
// call them there (cif::IsGPUAvailable() is false); they exist so the library links.
#include "cifCudaRuntime.h"
#include "cifResampleDevice.h"

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

#define CIF_INSTANTIATE_RESAMPLE(D, TC, TO)                                                                          \
  template void ResampleOnDevice<D, TC, TO>(                                                                         \
    const TC *, const ResampleGeometry &, const TransformChain &, const double *, bool, TO, TO *)
#define CIF_INSTANTIATE_RESAMPLE_OUTPUTS(D, TC)                                                                      \
  CIF_INSTANTIATE_RESAMPLE(D, TC, std::uint8_t);                                                                     \
  CIF_INSTANTIATE_RESAMPLE(D, TC, std::int8_t);                                                                      \
  CIF_INSTANTIATE_RESAMPLE(D, TC, std::uint16_t);                                                                    \
  CIF_INSTANTIATE_RESAMPLE(D, TC, std::int16_t);                                                                     \
  CIF_INSTANTIATE_RESAMPLE(D, TC, std::uint32_t);                                                                    \
  CIF_INSTANTIATE_RESAMPLE(D, TC, std::int32_t);                                                                     \
  CIF_INSTANTIATE_RESAMPLE(D, TC, float);                                                                            \
  CIF_INSTANTIATE_RESAMPLE(D, TC, double)
CIF_INSTANTIATE_RESAMPLE_OUTPUTS(2, float);
CIF_INSTANTIATE_RESAMPLE_OUTPUTS(2, double);
CIF_INSTANTIATE_RESAMPLE_OUTPUTS(3, float);
CIF_INSTANTIATE_RESAMPLE_OUTPUTS(3, double);
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
