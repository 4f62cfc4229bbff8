// CUDA kernels of batched cubic B-spline evaluation at physical points: one thread per
// point, grid-stride loop, the per-point arithmetic of cifImageFrame.h (shared with
// the CPU path); with PointOrder::ImageOrder the points are first sorted by image
// cell (CUB's radix sort) and visited in that order.
#include "cifCudaCheck.cuh"
#include "cifDeviceBuffer.h"
#include "cifGridStride.cuh"
#include "cifPointEvaluationDevice.h"

#include <cub/device/device_radix_sort.cuh>

#include <cmath>
#include <cstdint>
#include <limits>

namespace cif
{
namespace
{
constexpr int kThreads = 256;

/** The s-th point of the grid stride: point order[s] (or s without an order), its
 * value and gradient written at position s (coalesced either way). */
template <int D, typename TCoefficient>
__global__ void
EvaluatePhysicalPointsKernel(const TCoefficient * __restrict__ coefficients, CoefficientGrid grid, ImageFrame frame,
                             OutsideRule outside, const double * __restrict__ points, std::int64_t count,
                             const std::int32_t * __restrict__ order, double * __restrict__ values,
                             double * __restrict__ gradients)
{
  for (std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; s < count;
       s += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    const std::int64_t i = order ? order[s] : s;
    double             point[D];
    for (int a = 0; a < D; ++a)
    {
      point[a] = points[D * i + a];
    }
    double gradient[D];
    values[s] =
      EvaluateCubicAtPhysicalPoint<D>(coefficients, grid, frame, point, gradients ? gradient : nullptr, outside);
    if (gradients)
    {
      for (int a = 0; a < D; ++a)
      {
        gradients[D * s + a] = gradient[a];
      }
    }
  }
}

/** The sort key of each point: the row-major offset of the buffer cell that holds its
 * continuous index (clamped to the buffer; NaN to cell 0), and the identity order. */
template <int D, typename TKey>
__global__ void
PointCellKeysKernel(CoefficientGrid grid, ImageFrame frame, const double * __restrict__ points, std::int32_t count,
                    TKey * __restrict__ keys, std::int32_t * __restrict__ order)
{
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    double index[ImageFrame::N];
    PhysicalPointToContinuousIndex<D>(frame, points + D * i, index);
    TKey key = 0;
    for (int a = D - 1; a >= 0; --a)
    {
      const double cell = floor(index[a]) - static_cast<double>(grid.start[a]);
      const double last = static_cast<double>(grid.size[a] - 1);
      const double clamped = cell >= 0.0 ? (cell <= last ? cell : last) : 0.0; // NaN: 0
      key = key * static_cast<TKey>(grid.size[a]) + static_cast<TKey>(clamped);
    }
    keys[i] = key;
    order[i] = static_cast<std::int32_t>(i);
  }
}

/** inverse[order[s]] = s. */
__global__ void
InversePermutationKernel(std::int32_t count, const std::int32_t * __restrict__ order, std::int32_t * __restrict__ inverse)
{
  for (std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; s < count;
       s += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    inverse[order[s]] = static_cast<std::int32_t>(s);
  }
}

/** The results back in the caller's order: point i's from sorted position
 * inverse[i]. Gathering (scattered reads, coalesced writes) rather than scattering
 * the sorted results: scattered 8- and 24-byte writes cost 3x more on the H100. */
template <int D>
__global__ void
GatherResultsKernel(std::int32_t count, const std::int32_t * __restrict__ inverse,
                    const double * __restrict__ sortedValues, const double * __restrict__ sortedGradients,
                    double * __restrict__ values, double * __restrict__ gradients)
{
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    const std::int64_t s = inverse[i];
    values[i] = sortedValues[s];
    if (gradients)
    {
      for (int a = 0; a < D; ++a)
      {
        gradients[D * i + a] = sortedGradients[D * s + a];
      }
    }
  }
}

/** Bits that hold every cell offset of \a grid (the radix sort's end bit). */
int
CellKeyBits(const CoefficientGrid & grid, int dimension)
{
  std::uint64_t cells = 1;
  for (int a = 0; a < dimension; ++a)
  {
    cells *= static_cast<std::uint64_t>(grid.size[a]);
  }
  int bits = 1;
  while (bits < 64 && (cells - 1) >> bits)
  {
    ++bits;
  }
  return bits;
}

/** PointOrder::ImageOrder: cell keys, a radix sort of (key, point) pairs, the
 * evaluation in sorted order into sorted results, then the results gathered back
 * into the caller's order. Returns false, having launched nothing, when the device
 * memory for it (about 8 (D + 3) bytes per point with gradients) cannot be had. */
template <int D, typename TCoefficient, typename TKey>
bool
EvaluateInImageOrder(const TCoefficient * coefficients, const CoefficientGrid & grid, const ImageFrame & frame,
                     const OutsideRule & outside, const double * points, std::int32_t count, double * values,
                     double * gradients)
{
  const unsigned int blocks = GridStrideBlocks(count, kThreads);
  const int          endBit = CellKeyBits(grid, D);
  std::size_t        scratchBytes = 0;
  {
    cub::DoubleBuffer<TKey>         noKeys(nullptr, nullptr);
    cub::DoubleBuffer<std::int32_t> noOrder(nullptr, nullptr);
    CIF_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, scratchBytes, noKeys, noOrder, count, 0, endBit));
  }
  const std::size_t n = static_cast<std::size_t>(count);
  DeviceBuffer      keys, sortedKeys, identity, sortedOrder, scratch, sortedValues, sortedGradients;
  try
  {
    keys.Allocate(n * sizeof(TKey));
    sortedKeys.Allocate(n * sizeof(TKey));
    identity.Allocate(n * sizeof(std::int32_t));
    sortedOrder.Allocate(n * sizeof(std::int32_t));
    scratch.Allocate(scratchBytes);
    sortedValues.Allocate(n * sizeof(double));
    sortedGradients.Allocate(gradients ? n * D * sizeof(double) : 0);
  }
  catch (const CudaOutOfMemory &)
  {
    return false;
  }
  PointCellKeysKernel<D, TKey><<<blocks, kThreads>>>(grid, frame, points, count, keys.As<TKey>(),
                                                     identity.As<std::int32_t>());
  CIF_CUDA_CHECK_LAUNCH();
  cub::DoubleBuffer<TKey>         keyBuffers(keys.As<TKey>(), sortedKeys.As<TKey>());
  cub::DoubleBuffer<std::int32_t> orderBuffers(identity.As<std::int32_t>(), sortedOrder.As<std::int32_t>());
  CIF_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch.Data(), scratchBytes, keyBuffers, orderBuffers, count, 0,
                                                 endBit));
  EvaluatePhysicalPointsKernel<D, TCoefficient><<<blocks, kThreads>>>(
    coefficients, grid, frame, outside, points, count, orderBuffers.Current(), sortedValues.As<double>(),
    gradients ? sortedGradients.As<double>() : nullptr);
  CIF_CUDA_CHECK_LAUNCH();
  // The keys are done with: their buffer (at least 4 bytes per point) holds the inverse.
  auto * inverse = reinterpret_cast<std::int32_t *>(keyBuffers.Current());
  InversePermutationKernel<<<blocks, kThreads>>>(count, orderBuffers.Current(), inverse);
  CIF_CUDA_CHECK_LAUNCH();
  GatherResultsKernel<D><<<blocks, kThreads>>>(count, inverse, sortedValues.As<const double>(),
                                               sortedGradients.As<const double>(), values, gradients);
  CIF_CUDA_CHECK_LAUNCH();
  return true; // the buffers go back to the pool in stream order, after the kernels
}
} // namespace

template <int D, typename TCoefficient>
void
EvaluatePhysicalPointsOnDevice(const TCoefficient * coefficients, const CoefficientGrid & grid,
                               const ImageFrame & frame, const double * points, std::int64_t count, double * values,
                               double * gradients, PointOrder order, const OutsideRule & outside)
{
  if (count == 0)
  {
    return;
  }
  if (order == PointOrder::ImageOrder && count <= std::numeric_limits<std::int32_t>::max())
  {
    const auto n = static_cast<std::int32_t>(count);
    const bool sorted = CellKeyBits(grid, D) <= 32
                          ? EvaluateInImageOrder<D, TCoefficient, std::uint32_t>(coefficients, grid, frame, outside,
                                                                                 points, n, values, gradients)
                          : EvaluateInImageOrder<D, TCoefficient, std::uint64_t>(coefficients, grid, frame, outside,
                                                                                 points, n, values, gradients);
    if (sorted)
    {
      return;
    }
    // No room to sort: the same results, with the points visited as given.
  }
  EvaluatePhysicalPointsKernel<D, TCoefficient><<<GridStrideBlocks(count, kThreads), kThreads>>>(
    coefficients, grid, frame, outside, points, count, nullptr, values, gradients);
  CIF_CUDA_CHECK_LAUNCH();
}

CIF_FOR_EACH_POINT_DIMENSION(CIF_INSTANTIATE_PHYSICAL_POINTS)
} // namespace cif
