// The device entry point of the MeanSquares metric in a build without the CUDA
// toolkit. The ITK metric never calls it there (cif::IsGPUAvailable() is false); it
// exists so the library links.
#include "cifCudaRuntime.h"
#include "cifMeanSquaresMetricDevice.h"

namespace cif
{
template <int D, typename TValue>
MetricSums
EvaluateMeanSquaresOnDevice(const MetricScene<TValue> &, const MetricMovingTransform &, const MetricPointOrderView *,
                            const double[3], bool, MetricDeviceWorkspace &, std::vector<double> *)
{
  throw CudaError("EvaluateMeanSquaresOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

CIF_FOR_EACH_METRIC_INSTANCE(CIF_INSTANTIATE_MEAN_SQUARES_ON_DEVICE)
} // namespace cif
