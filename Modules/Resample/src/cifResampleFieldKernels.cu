// Displacement fields and row endpoints (2-D, 3-D) from cifResampleKernels.cuh: a
// translation unit (and CUDA module) of their own, apart from the resampling kernels
// of each output type.
#include "cifResampleKernels.cuh"

namespace cif
{
CIF_INSTANTIATE_FIELD(2)
CIF_INSTANTIATE_FIELD(3)
} // namespace cif
