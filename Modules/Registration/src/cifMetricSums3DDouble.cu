// The metrics' sums on the device for 3-D double images (cifMetricSumsKernels.cuh): a
// CUDA module of its own, loaded only by registrations of this image type.
#include "cifMetricSumsKernels.cuh"

namespace cif
{
CIF_INSTANTIATE_METRIC_SUMS_ON_DEVICE(3, double)
} // namespace cif
