// The device entry point of point evaluation in a build without the CUDA toolkit. The
// ITK evaluator never calls it there (cif::IsGPUAvailable() is false); it exists so
// the library links.
#include "cifCudaRuntime.h"
#include "cifPointEvaluationDevice.h"

namespace cif
{
template <int D, typename TCoefficient>
void
EvaluatePhysicalPointsOnDevice(const TCoefficient *, const CoefficientGrid &, const ImageFrame &, const double *,
                               std::int64_t, double *, double *, PointOrder, const OutsideRule &)
{
  throw CudaError("EvaluatePhysicalPointsOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

CIF_FOR_EACH_POINT_DIMENSION(CIF_INSTANTIATE_PHYSICAL_POINTS)
} // namespace cif
