// CUDA kernel of batched cubic B-spline evaluation at physical points: one thread per
// point, grid-stride loop, the per-point arithmetic of cifImageFrame.h (shared with
// the CPU path).
#include "cifCudaCheck.cuh"
#include "cifGridStride.cuh"
#include "cifPointEvaluationDevice.h"


namespace cif
{
namespace
{
constexpr int kThreads = 256;

template <int D, typename TCoefficient>
__global__ void
EvaluatePhysicalPointsKernel(const TCoefficient * __restrict__ coefficients, CoefficientGrid grid, ImageFrame frame,
                             const double * __restrict__ points, std::int64_t count, double * __restrict__ values,
                             double * __restrict__ gradients)
{
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    double point[D];
    for (int a = 0; a < D; ++a)
    {
      point[a] = points[D * i + a];
    }
    double gradient[D];
    values[i] = EvaluateCubicAtPhysicalPoint<D>(coefficients, grid, frame, point, gradients ? gradient : nullptr);
    if (gradients)
    {
      for (int a = 0; a < D; ++a)
      {
        gradients[D * i + a] = gradient[a];
      }
    }
  }
}
} // namespace

template <int D, typename TCoefficient>
void
EvaluatePhysicalPointsOnDevice(const TCoefficient * coefficients, const CoefficientGrid & grid,
                               const ImageFrame & frame, const double * points, std::int64_t count, double * values,
                               double * gradients)
{
  if (count == 0)
  {
    return;
  }
  EvaluatePhysicalPointsKernel<D, TCoefficient>
    <<<GridStrideBlocks(count, kThreads), kThreads>>>(coefficients, grid, frame, points, count, values, gradients);
  CIF_CUDA_CHECK_LAUNCH();
}

CIF_INSTANTIATE_PHYSICAL_POINTS(2)
CIF_INSTANTIATE_PHYSICAL_POINTS(3)
CIF_INSTANTIATE_PHYSICAL_POINTS(4)
} // namespace cif
