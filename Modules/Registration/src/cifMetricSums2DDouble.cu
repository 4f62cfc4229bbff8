// The metrics' sums on the device for 2-D double images (cifMetricSumsKernels.cuh): a
// CUDA module of its own, loaded only by registrations of this image type.
#include "cifMetricSumsKernels.cuh"

namespace cif
{
CIF_INSTANTIATE_METRIC_SUMS_ON_DEVICE(2, double)
} // namespace cif
