/*=========================================================================
 *
 *  Copyright the CudaImageFilters contributors
 *
 *  Licensed under the Apache License, Version 2.0 (the "License");
 *  you may not use this file except in compliance with the License.
 *  You may obtain a copy of the License at
 *
 *         https://www.apache.org/licenses/LICENSE-2.0.txt
 *
 *  Unless required by applicable law or agreed to in writing, software
 *  distributed under the License is distributed on an "AS IS" BASIS,
 *  WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 *  See the License for the specific language governing permissions and
 *  limitations under the License.
 *
 *=========================================================================*/
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

/** The s-th point of the grid stride: point i = order[s] (or s without an order),
 * its value and gradient written at the caller's position i. With an order the
 * writes scatter; measured on an H100 (64^4 table, 64^4 sorted lookups) that is
 * 1.2 ms faster than writing in sorted order and gathering back through the inverse
 * permutation, whose own scattered writes cost 1 ms. WithGradients is a template
 * argument: without it the gradient code compiles away. */
template <int D, typename TCoefficient, bool WithGradients>
__device__ __forceinline__ void
EvaluatePhysicalPoints(const TCoefficient * __restrict__ coefficients,
                       const CoefficientGrid & grid,
                       const ImageFrame &      frame,
                       const OutsideRule &     outside,
                       const double * __restrict__ points,
                       std::int64_t count,
                       const std::int32_t * __restrict__ order,
                       double * __restrict__ values,
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
    values[i] =
      EvaluateCubicAtPhysicalPoint<D>(coefficients, grid, frame, point, WithGradients ? gradient : nullptr, outside);
    if constexpr (WithGradients)
    {
      for (int a = 0; a < D; ++a)
      {
        gradients[D * i + a] = gradient[a];
      }
    }
  }
}

template <int D, typename TCoefficient, bool WithGradients>
__global__ void
EvaluatePhysicalPointsKernel(const TCoefficient * __restrict__ coefficients,
                             CoefficientGrid grid,
                             ImageFrame      frame,
                             OutsideRule     outside,
                             const double * __restrict__ points,
                             std::int64_t count,
                             const std::int32_t * __restrict__ order,
                             double * __restrict__ values,
                             double * __restrict__ gradients)
{
  EvaluatePhysicalPoints<D, TCoefficient, WithGradients>(
    coefficients, grid, frame, outside, points, count, order, values, gradients);
}

/** The same, held to 128 registers (two blocks of kThreads per SM), for points
 * visited in image order: the 4-D to 6-D sums, which ptxas otherwise gives 142-218
 * registers (one block per SM), for a few bytes of spill. Measured on an H100 with
 * sorted points: 64^4 values 5.6 -> 4.5 ms, 32^5 7.2 -> 5.3 ms, 16^6 2.9 -> 2.6 ms;
 * with points as given (scattered gathers) it was slower (32^5: 57.5 -> 66.6 ms), so
 * those keep the unbounded kernel. */
template <int D, typename TCoefficient, bool WithGradients>
__global__ void
__launch_bounds__(kThreads, 2) EvaluatePhysicalPointsKernelTwoBlocks(const TCoefficient * __restrict__ coefficients,
                                                                     CoefficientGrid grid,
                                                                     ImageFrame      frame,
                                                                     OutsideRule     outside,
                                                                     const double * __restrict__ points,
                                                                     std::int64_t count,
                                                                     const std::int32_t * __restrict__ order,
                                                                     double * __restrict__ values,
                                                                     double * __restrict__ gradients)
{
  EvaluatePhysicalPoints<D, TCoefficient, WithGradients>(
    coefficients, grid, frame, outside, points, count, order, values, gradients);
}

/** Where the two-block kernel serves sorted points: where 128 registers cost at most
 * a few bytes of spill (ptxas, sm_90: 4-D float with or without gradients, 4-D double
 * values, 5-D and 6-D float values; hundreds of bytes in the other 4-D to 6-D cases). */
template <int D, typename TCoefficient, bool WithGradients>
constexpr bool kTwoBlocksPerSM =
  (D == 4 && (sizeof(TCoefficient) == 4 || !WithGradients)) || (D > 4 && sizeof(TCoefficient) == 4 && !WithGradients);

template <int D, typename TCoefficient, bool WithGradients>
void
LaunchEvaluationKernel(const TCoefficient *    coefficients,
                       const CoefficientGrid & grid,
                       const ImageFrame &      frame,
                       const OutsideRule &     outside,
                       const double *          points,
                       std::int64_t            count,
                       const std::int32_t *    order,
                       double *                values,
                       double *                gradients)
{
  const unsigned int blocks = GridStrideBlocks(count, kThreads);
  if constexpr (kTwoBlocksPerSM<D, TCoefficient, WithGradients>)
  {
    if (order)
    {
      EvaluatePhysicalPointsKernelTwoBlocks<D, TCoefficient, WithGradients>
        <<<blocks, kThreads>>>(coefficients, grid, frame, outside, points, count, order, values, gradients);
      CIF_CUDA_CHECK_LAUNCH();
      return;
    }
  }
  EvaluatePhysicalPointsKernel<D, TCoefficient, WithGradients>
    <<<blocks, kThreads>>>(coefficients, grid, frame, outside, points, count, order, values, gradients);
  CIF_CUDA_CHECK_LAUNCH();
}

/** Points \a order[s] for s in [0, count) (every point, in that order; or as given
 * without an order): values, and gradients where \a gradients is not null. */
template <int D, typename TCoefficient>
void
LaunchEvaluation(const TCoefficient *    coefficients,
                 const CoefficientGrid & grid,
                 const ImageFrame &      frame,
                 const OutsideRule &     outside,
                 const double *          points,
                 std::int64_t            count,
                 const std::int32_t *    order,
                 double *                values,
                 double *                gradients)
{
  if (gradients)
  {
    LaunchEvaluationKernel<D, TCoefficient, true>(
      coefficients, grid, frame, outside, points, count, order, values, gradients);
  }
  else
  {
    LaunchEvaluationKernel<D, TCoefficient, false>(
      coefficients, grid, frame, outside, points, count, order, values, nullptr);
  }
}

/** The sort key of each point: the row-major offset of the buffer cell that holds its
 * continuous index (clamped to the buffer; NaN to cell 0), and the identity order. */
template <int D, typename TKey>
__global__ void
PointCellKeysKernel(CoefficientGrid grid,
                    ImageFrame      frame,
                    const double * __restrict__ points,
                    std::int32_t count,
                    TKey * __restrict__ keys,
                    std::int32_t * __restrict__ order)
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

/** PointOrder::ImageOrder: cell keys, a radix sort of (key, point index) pairs, the
 * evaluation in sorted order, each result written at the caller's position. Returns
 * false, having launched nothing, when the device memory for it (keys and indices,
 * twice: 16 bytes per point, 24 with 64-bit keys) cannot be had. */
template <int D, typename TCoefficient, typename TKey>
bool
EvaluateInImageOrder(const TCoefficient *    coefficients,
                     const CoefficientGrid & grid,
                     const ImageFrame &      frame,
                     const OutsideRule &     outside,
                     const double *          points,
                     std::int32_t            count,
                     double *                values,
                     double *                gradients)
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
  DeviceBuffer      keys, sortedKeys, identity, sortedOrder, scratch;
  try
  {
    keys.Allocate(n * sizeof(TKey));
    sortedKeys.Allocate(n * sizeof(TKey));
    identity.Allocate(n * sizeof(std::int32_t));
    sortedOrder.Allocate(n * sizeof(std::int32_t));
    scratch.Allocate(scratchBytes);
  }
  catch (const CudaOutOfMemory &)
  {
    return false;
  }
  PointCellKeysKernel<D, TKey>
    <<<blocks, kThreads>>>(grid, frame, points, count, keys.As<TKey>(), identity.As<std::int32_t>());
  CIF_CUDA_CHECK_LAUNCH();
  cub::DoubleBuffer<TKey>         keyBuffers(keys.As<TKey>(), sortedKeys.As<TKey>());
  cub::DoubleBuffer<std::int32_t> orderBuffers(identity.As<std::int32_t>(), sortedOrder.As<std::int32_t>());
  CIF_CUDA_CHECK(
    cub::DeviceRadixSort::SortPairs(scratch.Data(), scratchBytes, keyBuffers, orderBuffers, count, 0, endBit));
  LaunchEvaluation<D>(coefficients, grid, frame, outside, points, count, orderBuffers.Current(), values, gradients);
  return true; // the buffers go back to the pool in stream order, after the kernels
}
} // namespace

template <int D, typename TCoefficient>
void
EvaluatePhysicalPointsOnDevice(const TCoefficient *    coefficients,
                               const CoefficientGrid & grid,
                               const ImageFrame &      frame,
                               const double *          points,
                               std::int64_t            count,
                               double *                values,
                               double *                gradients,
                               PointOrder              order,
                               const OutsideRule &     outside)
{
  if (count == 0)
  {
    return;
  }
  if (order == PointOrder::ImageOrder && count <= std::numeric_limits<std::int32_t>::max())
  {
    const auto n = static_cast<std::int32_t>(count);
    const bool sorted = CellKeyBits(grid, D) <= 32
                          ? EvaluateInImageOrder<D, TCoefficient, std::uint32_t>(
                              coefficients, grid, frame, outside, points, n, values, gradients)
                          : EvaluateInImageOrder<D, TCoefficient, std::uint64_t>(
                              coefficients, grid, frame, outside, points, n, values, gradients);
    if (sorted)
    {
      return;
    }
    // No room to sort: the same results, with the points visited as given.
  }
  LaunchEvaluation<D>(coefficients, grid, frame, outside, points, count, nullptr, values, gradients);
}

CIF_FOR_EACH_POINT_DIMENSION(CIF_INSTANTIATE_PHYSICAL_POINTS)
} // namespace cif
