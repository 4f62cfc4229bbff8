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
// The GPU path of the metrics' sums (cifMetricSumsDevice.h): the per-point math of
// cifImageMetricMath.h and cifMetricPointTerms.h in kernels whose sums are reduced
// in a fixed order (or, for Mattes' histogram, in integers), so that every run
// gives the same bits.
//
// Included by one source per image instance (cifMetricSums{2,3}D{Float,Double}.cu)
// and by cifMetricSumsShared.cu, which holds the entry points that do not depend on
// the instance: the driver loads a CUDA module whole at the first launch of one of
// its kernels (45-57 ms on an H100 for the four instances' kernels in one module, in
// a registration's first evaluation), so each instance is a module of its own and a
// registration loads only its image type's kernels.
#ifndef cifMetricSumsKernels_cuh
#define cifMetricSumsKernels_cuh

#include "cifCudaCheck.cuh"
#include "cifMetricSumsDevice.h"
#include "cifSharedMemoryOptIn.cuh"
#include "cifUnfusedArithmetic.h"

#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <string>

namespace cif
{
namespace
{
constexpr int          kNaturalThreads = 256;
constexpr std::int64_t kNaturalBlockPoints = 4096;
constexpr int          kWarpThreads = 32;
constexpr int          kItemThreads = 128;
constexpr int          kItemsPerBlock = kItemThreads / kWarpThreads; ///< WorkItemKernel: a warp an item
constexpr int          kSumThreads = 256;

template <int D>
constexpr int kSupportPoints = D > 2 ? 64 : (D > 1 ? 16 : 4);

struct Point3
{
  double x[3];
};

/** shared[0][k] = the sum over the block's threads of shared[t][k], for k < S, by a
 * tree whose shape depends only on the block size: at each stride s, element t < s
 * adds element t + s. The strides from 32 down run in the first warp with shuffles
 * (the same additions in the same order, without a barrier each). */
template <int S, int Threads>
__device__ void
TreeReduce(double (*shared)[S])
{
  static_assert(Threads >= 32 && (Threads & (Threads - 1)) == 0, "whole warps, a power of two");
  int stride = Threads / 2;
  for (; stride >= 32; stride /= 2)
  {
    __syncthreads();
    if (threadIdx.x < stride)
    {
      for (int k = 0; k < S; ++k)
      {
        shared[threadIdx.x][k] += shared[threadIdx.x + stride][k];
      }
    }
  }
  __syncthreads();
  if (stride > 0 && threadIdx.x < 32)
  {
    double sum[S];
    for (int k = 0; k < S; ++k)
    {
      sum[k] = threadIdx.x < 2 * stride ? shared[threadIdx.x][k] : 0.0;
    }
    for (; stride > 0; stride /= 2)
    {
      for (int k = 0; k < S; ++k)
      {
        // Lanes below the stride add the lane a stride above, as the shared steps do;
        // the other lanes' sums are not read again.
        sum[k] += __shfl_down_sync(0xffffffffU, sum[k], stride);
      }
    }
    if (threadIdx.x == 0)
    {
      for (int k = 0; k < S; ++k)
      {
        shared[0][k] = sum[k];
      }
    }
  }
  __syncthreads();
}

/** Adds a block's or warp's valid points (a whole number held in a double) to
 * \a validCount where it is given: integer additions, exact in any order. */
inline __device__ void
AddValidCount(unsigned long long * validCount, double points)
{
  if (validCount != nullptr)
  {
    atomicAdd(validCount, static_cast<unsigned long long>(points));
  }
}

/** The valid points, the term's values and, for an affine-family stage, the force's
 * moments (EvaluateMetricSumsInDomainOrderOnHost's layout): a block per 4096 points
 * in the domain's own order. */
template <int D, typename TValue, typename TTerm, bool WithDerivative>
__global__ void
__launch_bounds__(kNaturalThreads, 2) NaturalOrderKernel(const MetricScene<TValue>   scene,
                                                         const MetricMovingTransform transform,
                                                         const TTerm                 term,
                                                         const Point3                reference,
                                                         double *                    blockSums)
{
  constexpr int kValues = MetricTermValues<TTerm>::value;
  static_assert(!WithDerivative || kValues == 1, "the force's moments follow a single value");
  constexpr int     S = WithDerivative ? 2 + kAffineMoments<D> : 1 + kValues;
  __shared__ double shared[kNaturalThreads][S];
  double            local[S];
  for (int k = 0; k < S; ++k)
  {
    local[k] = 0.0;
  }
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * kNaturalBlockPoints;
  const std::int64_t end = min(first + kNaturalBlockPoints, scene.domain.count);
  for (std::int64_t n = first + threadIdx.x; n < end; n += kNaturalThreads)
  {
    double v[3];
    VirtualPointOf<D>(scene.domain, n, v);
    const MetricPointSample s = SampleMetricPoint<D>(scene, transform, v, WithDerivative);
    if (!s.valid)
    {
      continue;
    }
    double force[3], values[kValues];
    if (!ApplyMetricTerm<D>(term, s, values, force))
    {
      continue;
    }
    local[0] += 1.0;
    for (int k = 0; k < kValues; ++k)
    {
      local[1 + k] += values[k];
    }
    if constexpr (WithDerivative)
    {
      double h[3];
      PullBackThroughAfter<D>(transform, force, h);
      AddAffineMoments<D>(h, s.q, reference.x, local + 2);
    }
  }
  for (int k = 0; k < S; ++k)
  {
    shared[threadIdx.x][k] = local[k];
  }
  TreeReduce<S, kNaturalThreads>(shared);
  if (threadIdx.x < kMaxMetricSums)
  {
    blockSums[blockIdx.x * kMaxMetricSums + threadIdx.x] = threadIdx.x < S ? shared[0][threadIdx.x] : 0.0;
  }
}

/** A warp per work item of the point order, kItemsPerBlock items a block: the
 * value's sums, and the item's partials of force x weight for the 4^D control points
 * of its cell's support. A warp rather than a block: with sparse points (elastix's
 * 2048 random points over thousands of cells) an item holds one or two points, and a
 * block per item left most of its threads idle while one thread mapped its point. */
template <int D, typename TValue, typename TTerm>
__global__ void
__launch_bounds__(kItemThreads) WorkItemKernel(const MetricScene<TValue>   scene,
                                               const MetricMovingTransform transform,
                                               const TTerm                 term,
                                               const MetricPointOrderView  order,
                                               double *                    itemSums,
                                               double *                    itemPartials,
                                               unsigned long long *        validCount)
{
  constexpr int      kOutputs = kSupportPoints<D> * D;
  constexpr int      kOutputsPerLane = (kOutputs + kWarpThreads - 1) / kWarpThreads;
  __shared__ double  force[kItemThreads][D];
  __shared__ double  weight[kItemThreads][D][4];
  const int          lane = static_cast<int>(threadIdx.x) % kWarpThreads;
  const int          warpFirst = static_cast<int>(threadIdx.x) - lane; // the warp's rows of force and weight
  const std::int64_t itemIndex = static_cast<std::int64_t>(blockIdx.x) * kItemsPerBlock + threadIdx.x / kWarpThreads;
  if (itemIndex >= order.cellItemBegin[order.cellCount + 1])
  {
    return; // launched for the order's item capacity: past its count, which only the device knows
  }
  const MetricWorkItem item = order.items[itemIndex];
  const bool           gather = item.cell < order.cellCount;
  double               partial[kOutputsPerLane];
  for (int o = 0; o < kOutputsPerLane; ++o)
  {
    partial[o] = 0.0;
  }
  double count = 0.0, value = 0.0;
  for (std::int64_t base = item.begin; base < item.end; base += kWarpThreads)
  {
    const std::int64_t p = base + lane;
    double             h[3] = { 0, 0, 0 };
    double             w[3][4] = { { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 0, 0, 0 } };
    if (p < item.end)
    {
      double v[3];
      VirtualPointOf<D>(scene.domain, order.order[p], v);
      const MetricPointSample s = SampleMetricPoint<D>(scene, transform, v, true);
      double                  f[3], term_value;
      if (s.valid && term.template Apply<D>(s, term_value, f))
      {
        count += 1.0;
        value += term_value;
        std::int64_t start[3];
        if (gather && BSplineSupport<D>(transform.bspline, s.q, start, w))
        {
          PullBackThroughAfter<D>(transform, f, h);
        }
      }
    }
    for (int d = 0; d < D; ++d)
    {
      force[threadIdx.x][d] = h[d];
      for (int k = 0; k < 4; ++k)
      {
        weight[threadIdx.x][d][k] = w[d][k];
      }
    }
    __syncwarp();
    if (gather)
    {
      const std::int64_t remaining = item.end - base;
      const int          points = remaining < kWarpThreads ? static_cast<int>(remaining) : kWarpThreads;
      for (int o = 0; o < kOutputsPerLane; ++o)
      {
        const int output = lane + o * kWarpThreads;
        if (output >= kOutputs)
        {
          break;
        }
        const int slot = output / D, axis = output % D;
        const int a = slot % 4, b = (slot / 4) % 4, c = slot / 16;
        double    sum = partial[o];
        for (int j = warpFirst; j < warpFirst + points; ++j)
        {
          double wj = weight[j][0][a];
          if (D > 1)
          {
            wj *= weight[j][D > 1 ? 1 : 0][b];
          }
          if (D > 2)
          {
            wj *= weight[j][D > 2 ? 2 : 0][c];
          }
          sum += wj * force[j][axis];
        }
        partial[o] = sum;
      }
    }
    __syncwarp(); // the rows are rewritten by the next round
  }
  // The warp's sums by a fixed tree of shuffles: lane 0 ends with them.
  for (int offset = kWarpThreads / 2; offset > 0; offset /= 2)
  {
    count += __shfl_down_sync(0xffffffffu, count, offset);
    value += __shfl_down_sync(0xffffffffu, value, offset);
  }
  if (lane == 0)
  {
    itemSums[itemIndex * 2] = count;
    itemSums[itemIndex * 2 + 1] = value;
    AddValidCount(validCount, count);
  }
  for (int o = 0; o < kOutputsPerLane; ++o)
  {
    const int output = lane + o * kWarpThreads;
    if (output < kOutputs)
    {
      itemPartials[itemIndex * kOutputs + output] = gather ? partial[o] : 0.0;
    }
  }
}

/** out[k] = sum of rows[r * width + k] over r, for k < width, by one block of
 * kSumThreads threads: each thread a fixed stride of rows, then the tree. */
template <int Width>
__device__ void
SumRowsInBlock(const double * rows, std::int64_t rowCount, double * out)
{
  __shared__ double shared[kSumThreads][Width];
  double            local[Width];
  for (int k = 0; k < Width; ++k)
  {
    local[k] = 0.0;
  }
  for (std::int64_t r = threadIdx.x; r < rowCount; r += kSumThreads)
  {
    for (int k = 0; k < Width; ++k)
    {
      local[k] += rows[r * Width + k];
    }
  }
  for (int k = 0; k < Width; ++k)
  {
    shared[threadIdx.x][k] = local[k];
  }
  TreeReduce<Width, kSumThreads>(shared);
  if (threadIdx.x < Width)
  {
    out[threadIdx.x] = shared[0][threadIdx.x];
  }
}

template <int Width>
__global__ void
__launch_bounds__(kSumThreads) SumRowsKernel(const double * rows, std::int64_t rowCount, double * out)
{
  SumRowsInBlock<Width>(rows, rowCount, out);
}

/** A grid's cells per axis, by value for a kernel's parameters. */
struct CellsPerAxis
{
  std::int64_t n[3];
};

/** The end of a B-spline evaluation in one launch: block 0 sums the work items' rows
 * of (valid points, value) into \a sums (SumRowsInBlock; \a rowCountOnDevice, where
 * given, is read on the device), while the other blocks gather every control point's
 * derivative along every axis from the item partials, a thread per control point and
 * axis, each summing with GatherControlPointDerivative (the host's gather's bits) in
 * 32-bit index arithmetic (SumRowsAndGather checks that the grid fits), then divided
 * by \a validCount where it is given. The gather does not wait for block 0: the
 * valid points come from the integer count the work kernels added up (exact in any
 * order, the same double as the rows' sum). The axis varies fastest among a warp's
 * threads: a control point's D partials lie side by side in an item's, so a warp's
 * loads touch about a third of the sectors they would with the axis slowest (the
 * derivative's layout, axis then control point, is kept in the stores). */
template <int D>
__global__ void
__launch_bounds__(kSumThreads) SumRowsAndGatherKernel(const double *             rows,
                                                      std::int64_t               rowCountOnHost,
                                                      const std::int64_t *       rowCountOnDevice,
                                                      double *                   sums,
                                                      const double *             itemPartials,
                                                      const std::int64_t *       cellItemBegin,
                                                      const CellsPerAxis         cells,
                                                      const TransformStage       grid,
                                                      std::uint32_t              controlPoints,
                                                      const unsigned long long * validCount,
                                                      double *                   derivative)
{
  if (blockIdx.x == 0)
  {
    SumRowsInBlock<2>(rows, rowCountOnDevice != nullptr ? *rowCountOnDevice : rowCountOnHost, sums);
    return;
  }
  const std::uint32_t n = (blockIdx.x - 1) * kSumThreads + threadIdx.x;
  if (n >= controlPoints * static_cast<std::uint32_t>(D))
  {
    return;
  }
  const std::uint32_t k = n / static_cast<std::uint32_t>(D);
  const int           axis = static_cast<int>(n - k * static_cast<std::uint32_t>(D));
  const double        sum =
    GatherControlPointDerivative<D, std::uint32_t>(itemPartials, cellItemBegin, cells.n, grid.gridSize, k, axis);
  derivative[static_cast<std::uint32_t>(axis) * controlPoints + k] =
    validCount != nullptr ? sum / static_cast<double>(*validCount) : sum;
}

/** The valid-point count that the work kernels add to for \a scale
 * (DerivativeScale::PerValidPoint), zeroed on the launch stream; null for sums. */
unsigned long long *
ZeroedValidCount(DerivativeScale scale, MetricDeviceWorkspace & workspace)
{
  if (scale != DerivativeScale::PerValidPoint)
  {
    return nullptr;
  }
  if (workspace.validCount.Bytes() < sizeof(unsigned long long))
  {
    workspace.validCount.Allocate(sizeof(unsigned long long));
  }
  CIF_CUDA_CHECK(cudaMemsetAsync(workspace.validCount.Data(), 0, sizeof(unsigned long long), 0));
  return workspace.validCount.As<unsigned long long>();
}

/** What a cell-box pass's first kernel waits on where the workspace's caller left
 * the B-spline's coefficients to arrive while it runs (a null arrival otherwise). */
ControlPlaneArrival
ArrivingCoefficients(MetricDeviceWorkspace & workspace)
{
  return workspace.arrivingCoefficients != nullptr ? workspace.arrivingCoefficients->Arriving() : ControlPlaneArrival{};
}

/** Sends the coefficients left to arrive, after the kernel that waits for them was
 * queued (or where none was); the launch stream's later work waits for them. */
void
SendArrivingCoefficients(MetricDeviceWorkspace & workspace)
{
  if (ControlPlaneUpload * upload = workspace.arrivingCoefficients)
  {
    workspace.arrivingCoefficients = nullptr;
    upload->Send();
  }
}

/** The rows' sums into the workspace's readback (kReadbackSums) and the derivative of
 * every control point (kReadbackDerivative), divided by \a validCount where given:
 * SumRowsAndGatherKernel. */
template <int D>
void
SumRowsAndGather(const double *             rows,
                 std::int64_t               rowCountOnHost,
                 const std::int64_t *       rowCountOnDevice,
                 const double *             itemPartials,
                 const std::int64_t *       cellItemBegin,
                 const std::int64_t         cellsPerAxis[3],
                 const TransformStage &     grid,
                 const unsigned long long * validCount,
                 MetricDeviceWorkspace &    workspace)
{
  const std::int64_t controlPoints = grid.gridSize[0] * grid.gridSize[1] * grid.gridSize[2];
  const std::int64_t outputs = D * controlPoints;
  if (outputs > std::int64_t(0xffffffff) - 2 * kSumThreads)
  {
    throw CudaError("B-spline grid of " + std::to_string(controlPoints) + " control points in " + std::to_string(D) +
                    "-D: the GPU metric takes fewer than 2^32 derivative values");
  }
  const CellsPerAxis cells = { { cellsPerAxis[0], cellsPerAxis[1], cellsPerAxis[2] } };
  double *           readback = workspace.readback.As<double>();
  SumRowsAndGatherKernel<D><<<static_cast<unsigned int>(1 + (outputs + kSumThreads - 1) / kSumThreads), kSumThreads>>>(
    rows,
    rowCountOnHost,
    rowCountOnDevice,
    readback + kReadbackSums,
    itemPartials,
    cellItemBegin,
    cells,
    grid,
    static_cast<std::uint32_t>(controlPoints),
    validCount,
    readback + kReadbackDerivative);
  CIF_CUDA_CHECK_LAUNCH();
}

void
Reserve(DeviceBuffer & buffer, std::size_t bytes)
{
  if (buffer.Bytes() < bytes)
  {
    buffer.Allocate(bytes);
  }
}

/** The readback with room for \a derivativeValues derivative values; what it holds
 * is kept when it grows (a first pass may have written Mattes' summary). */
double *
ReserveReadback(MetricDeviceWorkspace & workspace, std::size_t derivativeValues)
{
  const std::size_t bytes = (kReadbackDerivative + derivativeValues) * sizeof(double);
  if (workspace.readback.Bytes() < bytes)
  {
    DeviceBuffer grown(bytes);
    if (workspace.readback.Bytes() > 0)
    {
      CIF_CUDA_CHECK(cudaMemcpyAsync(
        grown.Data(), workspace.readback.Data(), workspace.readback.Bytes(), cudaMemcpyDeviceToDevice, 0));
    }
    workspace.readback = std::move(grown);
  }
  return workspace.readback.As<double>();
}

/** The readback's first \a values doubles on the host: one copy, into pinned memory,
 * after the host work queued for the device's time. */
const double *
ReadBack(MetricDeviceWorkspace & workspace, std::size_t values)
{
  double * host = workspace.readbackHost.As<double>(values);
  if (workspace.whileTheDeviceWorks)
  {
    const std::function<void()> work = std::move(workspace.whileTheDeviceWorks);
    workspace.whileTheDeviceWorks = nullptr;
    work();
  }
  const auto start = std::chrono::steady_clock::now();
  workspace.readback.Download(host, values * sizeof(double));
  workspace.readbackSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return host;
}

/** The sums in the domain's order (NaturalOrderKernel, then its blocks' rows in
 * order) of a scene and transform whose identity stages are marked; the derivative's
 * moments only for terms of one value. */
template <int D, typename TValue, typename TTerm>
MetricSums
SumInDomainOrder(const MetricScene<TValue> &   scene,
                 const MetricMovingTransform & transform,
                 const TTerm &                 term,
                 const Point3 &                ref,
                 bool                          withDerivative,
                 MetricDeviceWorkspace &       workspace)
{
  MetricSums         sums;
  const std::int64_t blocks = (scene.domain.count + kNaturalBlockPoints - 1) / kNaturalBlockPoints;
  double *           readback = ReserveReadback(workspace, 0);
  Reserve(workspace.blockSums,
          static_cast<std::size_t>(std::max<std::int64_t>(blocks, 1)) * kMaxMetricSums * sizeof(double));
  double * blockSums = workspace.blockSums.As<double>();
  if (blocks > 0)
  {
    if constexpr (MetricTermValues<TTerm>::value == 1)
    {
      if (withDerivative)
      {
        NaturalOrderKernel<D, TValue, TTerm, true>
          <<<static_cast<unsigned int>(blocks), kNaturalThreads>>>(scene, transform, term, ref, blockSums);
      }
      else
      {
        NaturalOrderKernel<D, TValue, TTerm, false>
          <<<static_cast<unsigned int>(blocks), kNaturalThreads>>>(scene, transform, term, ref, blockSums);
      }
    }
    else
    {
      (void)withDerivative;
      NaturalOrderKernel<D, TValue, TTerm, false>
        <<<static_cast<unsigned int>(blocks), kNaturalThreads>>>(scene, transform, term, ref, blockSums);
    }
    CIF_CUDA_CHECK_LAUNCH();
  }
  SumRowsKernel<kMaxMetricSums><<<1, kSumThreads>>>(blockSums, blocks, readback + kReadbackSums);
  CIF_CUDA_CHECK_LAUNCH();
  std::copy_n(ReadBack(workspace, kReadbackDerivative) + kReadbackSums, kMaxMetricSums, sums.value);
  return sums;
}
} // namespace

template <int D, typename TValue, typename TTerm>
MetricSums
EvaluateMetricValueSumsOnDevice(const MetricScene<TValue> &   sceneIn,
                                const MetricMovingTransform & transformIn,
                                const TTerm &                 term,
                                MetricDeviceWorkspace &       workspace)
{
  MetricScene<TValue>   scene = sceneIn;
  MetricMovingTransform transform = transformIn;
  MarkIdentityStages(scene, transform);
  const Point3 ref = { { 0.0, 0.0, 0.0 } };
  return SumInDomainOrder<D>(scene, transform, term, ref, false, workspace);
}

template <int D, typename TValue, typename TTerm>
MetricSums
EvaluateMetricSumsOnDevice(const MetricScene<TValue> &   sceneIn,
                           const MetricMovingTransform & transformIn,
                           const TTerm &                 term,
                           const MetricPointOrderView *  order,
                           const double                  reference[3],
                           bool                          withDerivative,
                           DerivativeScale               scale,
                           MetricDeviceWorkspace &       workspace,
                           const double **               bsplineDerivative)
{
  MetricScene<TValue>   scene = sceneIn;
  MetricMovingTransform transform = transformIn;
  MarkIdentityStages(scene, transform);
  MetricSums   sums;
  const Point3 ref = { { reference[0], reference[1], reference[2] } };
  if (!(withDerivative && transform.kind == OptimizedStageKind::BSpline))
  {
    return SumInDomainOrder<D>(scene, transform, term, ref, withDerivative, workspace);
  }
  constexpr int          kOutputs = kSupportPoints<D> * D;
  const std::int64_t     items = order->itemCapacity; // the count itself stays on the device
  const TransformStage & grid = transform.bspline;
  const std::size_t      derivativeValues =
    static_cast<std::size_t>(D * grid.gridSize[0] * grid.gridSize[1] * grid.gridSize[2]);
  ReserveReadback(workspace, derivativeValues);
  Reserve(workspace.blockSums, static_cast<std::size_t>(std::max<std::int64_t>(items, 1)) * 2 * sizeof(double));
  Reserve(workspace.itemPartials,
          static_cast<std::size_t>(std::max<std::int64_t>(items, 1)) * kOutputs * sizeof(double));
  unsigned long long * validCount = ZeroedValidCount(scale, workspace);
  if (items > 0)
  {
    WorkItemKernel<D, TValue, TTerm>
      <<<static_cast<unsigned int>((items + kItemsPerBlock - 1) / kItemsPerBlock), kItemThreads>>>(
        scene,
        transform,
        term,
        *order,
        workspace.blockSums.As<double>(),
        workspace.itemPartials.As<double>(),
        validCount);
    CIF_CUDA_CHECK_LAUNCH();
  }
  SumRowsAndGather<D>(workspace.blockSums.As<double>(),
                      0,
                      order->cellItemBegin + order->cellCount + 1,
                      workspace.itemPartials.As<double>(),
                      order->cellItemBegin,
                      order->cellsPerAxis,
                      grid,
                      validCount,
                      workspace);
  const double * host = ReadBack(workspace, kReadbackDerivative + derivativeValues);
  std::copy_n(host + kReadbackSums, 2, sums.value);
  *bsplineDerivative = host + kReadbackDerivative;
  return sums;
}

namespace
{
constexpr int kHistogramThreads = 256;
constexpr int kMaxSharedHistogramBins = 64;

/** One point's Parzen contributions, fixed marginal and count added to an integer
 * histogram (joint, fixed marginal, valid points). */
__device__ void
AddToMattesHistogram(const MattesParzen & parzen, const MetricPointSample & s, unsigned long long * histogram)
{
  std::int64_t fixedBin, first, w[4];
  if (!MattesPointBins(parzen, s, fixedBin, first, w))
  {
    return;
  }
  const int bins = parzen.bins;
  for (int k = 0; k < 4; ++k)
  {
    atomicAdd(histogram + fixedBin * bins + first + k, static_cast<unsigned long long>(w[k]));
  }
  atomicAdd(histogram + bins * bins + fixedBin, 1ull);
  atomicAdd(histogram + bins * bins + bins, 1ull);
}

/** Mattes' joint histogram and fixed marginal, in integers: per block in shared
 * memory (or straight in global memory for more than 64 bins), then added to the
 * global sums. Integer additions give the same sums in any order. \a OnlyOutside:
 * only the points outside \a boxes' B-spline valid region (the cell-box path's rest). */
template <int D, typename TValue, bool OnlyOutside>
__global__ void
__launch_bounds__(kHistogramThreads) MattesHistogramKernel(const MetricScene<TValue>   scene,
                                                           const MetricMovingTransform transform,
                                                           const MattesParzen          parzen,
                                                           const MetricCellBoxView     boxes,
                                                           unsigned long long *        global)
{
  extern __shared__ unsigned long long shared[];
  const int                            bins = parzen.bins;
  const int                            entries = bins * bins + bins + 1; // joint, fixed marginal, valid points
  const bool                           inShared = bins <= kMaxSharedHistogramBins;
  unsigned long long *                 histogram = inShared ? shared : global;
  if (inShared)
  {
    for (int k = threadIdx.x; k < entries; k += kHistogramThreads)
    {
      shared[k] = 0;
    }
    __syncthreads();
  }
  for (std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * kHistogramThreads + threadIdx.x; n < scene.domain.count;
       n += static_cast<std::int64_t>(gridDim.x) * kHistogramThreads)
  {
    if (OnlyOutside && !OutsideCellBoxes<D>(scene.domain, boxes, n))
    {
      continue;
    }
    double v[3];
    VirtualPointOf<D>(scene.domain, n, v);
    AddToMattesHistogram(parzen, SampleMetricPoint<D>(scene, transform, v, false), histogram);
  }
  if (inShared)
  {
    __syncthreads();
    for (int k = threadIdx.x; k < entries; k += kHistogramThreads)
    {
      if (shared[k] != 0)
      {
        atomicAdd(global + k, shared[k]);
      }
    }
  }
}

/** Entries of the integer histogram: joint, fixed marginal, valid points. */
std::size_t
HistogramEntries(int bins)
{
  return static_cast<std::size_t>(bins) * bins + bins + 1;
}

/** The workspace's device histogram for \a bins, zeroed (on the launch stream). */
unsigned long long *
ZeroedDeviceHistogram(MetricDeviceWorkspace & workspace, int bins)
{
  const std::size_t bytes = HistogramEntries(bins) * sizeof(unsigned long long);
  Reserve(workspace.histogram, bytes);
  auto * global = workspace.histogram.As<unsigned long long>();
  CIF_CUDA_CHECK(cudaMemsetAsync(global, 0, bytes, 0));
  return global;
}

constexpr int kResultsThreads = 256;

/** ITK's ComputeResults (MattesValueAndRatios, cifMattesHistogram.h) from the
 * integer histogram, in one block: the joint pdf's sum (integers, exact), the moving
 * marginal (a thread per moving bin, fixed bins in the host's order), then a thread
 * per fixed bin: its row of the ratio table and of the value's sum; the rows' sums
 * added in order. Each operation rounded as on the host (no fused multiply-adds).
 * \a table: bins x bins entries, then the moving marginal and the row sums. */
__global__ void
__launch_bounds__(kResultsThreads)
  MattesResultsKernel(const unsigned long long * histogram, const MattesParzen parzen, double * table, double * summary)
{
  __shared__ long long jointSums[kResultsThreads];
  const int            bins = parzen.bins;
  const auto *         joint = reinterpret_cast<const long long *>(histogram);
  const long long *    fixedCounts = joint + bins * bins;
  const long long      validPoints = joint[bins * bins + bins];
  long long            jointSum = 0;
  for (int k = threadIdx.x; k < bins * bins; k += kResultsThreads)
  {
    jointSum += joint[k];
  }
  jointSums[threadIdx.x] = jointSum;
  for (int stride = kResultsThreads / 2; stride > 0; stride /= 2)
  {
    __syncthreads();
    if (threadIdx.x < stride)
    {
      jointSums[threadIdx.x] += jointSums[threadIdx.x + stride];
    }
  }
  __syncthreads();
  const double jointPDFSum = static_cast<double>(jointSums[0]) / parzen.fixedPointScale;
  const double normalization = 1.0 / jointPDFSum;
  double *     movingMarginal = table + bins * bins;
  double *     rowSums = movingMarginal + bins;
  for (int m = threadIdx.x; m < bins; m += kResultsThreads)
  {
    double sum = 0.0;
    for (int f = 0; f < bins; ++f)
    {
      sum =
        AddUnfused(sum, MulUnfused(static_cast<double>(joint[f * bins + m]) / parzen.fixedPointScale, normalization));
    }
    movingMarginal[m] = sum;
  }
  __syncthreads();
  constexpr double closeToZero = 2.220446049250313e-16; // std::numeric_limits<double>::epsilon()
  const double     nFactor = -1.0 / MulUnfused(parzen.movingBinSize, static_cast<double>(validPoints));
  for (int f = threadIdx.x; f < bins; f += kResultsThreads)
  {
    const double fixedMarginal = MulUnfused(static_cast<double>(fixedCounts[f]), normalization);
    const bool   fixedInside = fixedMarginal > closeToZero;
    const double logFixed = fixedInside ? log(fixedMarginal) : 0.0;
    double       rowSum = 0.0;
    for (int m = 0; m < bins; ++m)
    {
      const double p = MulUnfused(static_cast<double>(joint[f * bins + m]) / parzen.fixedPointScale, normalization);
      double       entry = 0.0;
      if (fixedInside && movingMarginal[m] > closeToZero && p > closeToZero)
      {
        const double pRatio = log(p / movingMarginal[m]);
        rowSum = AddUnfused(rowSum, MulUnfused(p, SubUnfused(pRatio, logFixed)));
        entry = MulUnfused(nFactor, pRatio);
      }
      table[f * bins + m] = entry;
    }
    rowSums[f] = rowSum;
  }
  __syncthreads();
  if (threadIdx.x == 0)
  {
    double sum = 0.0;
    for (int f = 0; f < bins; ++f)
    {
      sum += rowSums[f];
    }
    summary[0] = -sum;
    summary[1] = static_cast<double>(validPoints);
    summary[2] = jointPDFSum;
  }
}

/** The results of the histogram just built: the ratio table and the summary, on the
 * device (MattesResultsKernel). */
void
MattesResultsOnDevice(const MattesParzen & parzen, MetricDeviceWorkspace & workspace)
{
  const int bins = parzen.bins;
  Reserve(workspace.table,
          (static_cast<std::size_t>(bins) * bins + 2 * static_cast<std::size_t>(bins)) * sizeof(double));
  double * readback = ReserveReadback(workspace, 0);
  MattesResultsKernel<<<1, kResultsThreads>>>(workspace.histogram.As<unsigned long long>(),
                                              parzen,
                                              workspace.table.As<double>(),
                                              readback + kReadbackMattesSummary);
  CIF_CUDA_CHECK_LAUNCH();
}
} // namespace

template <int D, typename TValue>
void
MattesFirstPassOnDevice(const MetricScene<TValue> &   sceneIn,
                        const MetricMovingTransform & transformIn,
                        const MattesParzen &          parzen,
                        MetricDeviceWorkspace &       workspace)
{
  MetricScene<TValue>   scene = sceneIn;
  MetricMovingTransform transform = transformIn;
  MarkIdentityStages(scene, transform);
  const int            bins = parzen.bins;
  unsigned long long * global = ZeroedDeviceHistogram(workspace, bins);
  const std::int64_t   wanted = (scene.domain.count + kHistogramThreads - 1) / kHistogramThreads;
  const unsigned int   blocks =
    static_cast<unsigned int>(std::max<std::int64_t>(1, std::min<std::int64_t>(wanted, 4096)));
  const std::size_t sharedBytes =
    bins <= kMaxSharedHistogramBins ? HistogramEntries(bins) * sizeof(unsigned long long) : 0;
  MattesHistogramKernel<D, TValue, false>
    <<<blocks, kHistogramThreads, sharedBytes>>>(scene, transform, parzen, MetricCellBoxView{}, global);
  CIF_CUDA_CHECK_LAUNCH();
  MattesResultsOnDevice(parzen, workspace);
}

namespace
{
/** Each point's cell (the sort key), its number (the sorted value), and the points
 * per cell (integer atomics: the same counts in any order). */
template <int D, typename TValue>
__global__ void
PointCellKernel(const MetricScene<TValue>   scene,
                const MetricMovingTransform transform,
                std::int64_t                cellCount,
                const Point3                cellsPerAxis,
                std::uint32_t *             keys,
                std::uint32_t *             numbers,
                unsigned long long *        pointsPerCell)
{
  const std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n >= scene.domain.count)
  {
    return;
  }
  double v[3], q[3];
  VirtualPointOf<D>(scene.domain, n, v);
  ApplyAffineMap<D>(transform.before, v, q);
  const std::int64_t perAxis[3] = { static_cast<std::int64_t>(cellsPerAxis.x[0]),
                                    static_cast<std::int64_t>(cellsPerAxis.x[1]),
                                    static_cast<std::int64_t>(cellsPerAxis.x[2]) };
  const std::int64_t cell = BSplineCellOf<D>(transform.bspline, perAxis, cellCount, q);
  keys[n] = static_cast<std::uint32_t>(cell);
  numbers[n] = static_cast<std::uint32_t>(n);
  atomicAdd(pointsPerCell + cell, 1ull);
}

/** Work items per cell: its points in pieces of kMetricItemPoints. */
__global__ void
ItemsPerCellKernel(const unsigned long long * pointsPerCell, std::int64_t cells, long long * itemsPerCell)
{
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c < cells)
  {
    itemsPerCell[c] = static_cast<long long>(MetricItemsOfCell(static_cast<std::int64_t>(pointsPerCell[c])));
  }
}

/** Each cell's items from its first point (exclusive sums of the counts) and its
 * first item. */
__global__ void
FillItemsKernel(const unsigned long long * firstPoint,
                const unsigned long long * pointsPerCell,
                const long long *          firstItem,
                std::int64_t               cells,
                MetricWorkItem *           items)
{
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cells)
  {
    return;
  }
  const std::int64_t begin = static_cast<std::int64_t>(firstPoint[c]);
  WriteMetricCellItems(c, begin, begin + static_cast<std::int64_t>(pointsPerCell[c]), items, firstItem[c]);
}

unsigned int
BlocksFor(std::int64_t count, int threads)
{
  return static_cast<unsigned int>(std::max<std::int64_t>(1, (count + threads - 1) / threads));
}

/** Point sets up to this size are grouped by one block in one launch
 * (SmallPointOrderKernel): with new random points at every evaluation (elastix's
 * schedule draws 2048) the general path's nine launches, CUB's two scans and radix
 * sort among them, cost more host time than their work. */
constexpr int          kSmallOrderThreads = 1024;
constexpr int          kSmallOrderMostPointsPerThread = 8;
constexpr std::int64_t kSmallOrderMaxPoints = std::int64_t(kSmallOrderThreads) * kSmallOrderMostPointsPerThread;
constexpr int          kSmallOrderCellsPerThread = 8; ///< cells a thread scans at a time
/** Grids of more cells take the general path: the one block's scan of the cells would
 * take several rounds of binary searches. */
constexpr std::int64_t kSmallOrderMaxCells = std::int64_t(kSmallOrderThreads) * kSmallOrderCellsPerThread * 8;

/** The bits that hold the values 0 .. values - 1 (at least one). */
int
BitsToHold(std::int64_t values)
{
  int bits = 1;
  while ((std::int64_t(1) << bits) < values)
  {
    ++bits;
  }
  return bits;
}

/** The first of the \a count sorted \a cells that is not below \a cell. */
__device__ int
FirstSortedPointOf(const std::uint32_t * cells, int count, std::uint32_t cell)
{
  int low = 0, high = count;
  while (low < high)
  {
    const int middle = (low + high) / 2;
    if (cells[middle] < cell)
    {
      low = middle + 1;
    }
    else
    {
      high = middle;
    }
  }
  return low;
}

/** The general path's order, items and item table (BuildMetricPointOrderOnDevice)
 * for at most kSmallOrderThreads x kPointsPerThread points, by one block:
 *  1. each point's cell (the key) and its number (the value), in the sort's blocked
 *     arrangement, so in the numbers' order;
 *  2. one block radix sort of the cells (over \a cellBits bits) carrying the numbers:
 *     a least-significant-digit sort is stable, so the sorted pairs are the (cell,
 *     number) order of the general path's stable sort; the sorted cells are kept in
 *     shared memory;
 *  3. the items per cell (each cell's points found by binary search in the sorted
 *     cells) scanned into \a cellItemBegin (cells + 1 entries), a thread taking
 *     kSmallOrderCellsPerThread consecutive cells at a time, and each cell's items
 *     written as soon as its first is known.
 * The cells are cellCount + 1 (the last: outside the grid's valid region). */
template <int D, typename TValue, int kPointsPerThread>
__global__ void
__launch_bounds__(kSmallOrderThreads) SmallPointOrderKernel(const MetricScene<TValue>   scene,
                                                            const MetricMovingTransform transform,
                                                            std::int64_t                cellCount,
                                                            const Point3                cellsPerAxis,
                                                            int                         cellBits,
                                                            std::uint32_t *             order,
                                                            MetricWorkItem *            items,
                                                            std::int64_t *              cellItemBegin)
{
  using Sort = cub::BlockRadixSort<std::uint32_t, kSmallOrderThreads, kPointsPerThread, std::uint32_t>;
  using Scan = cub::BlockScan<long long, kSmallOrderThreads>;
  __shared__ union
  {
    typename Sort::TempStorage sort;
    std::uint32_t              cell[kSmallOrderThreads * kPointsPerThread]; // of each sorted point
  } shared;
  __shared__ typename Scan::TempStorage scanStorage;
  const std::int64_t                    count = scene.domain.count;
  const std::int64_t                    cells = cellCount + 1;
  const std::int64_t                    perAxis[3] = { static_cast<std::int64_t>(cellsPerAxis.x[0]),
                                                       static_cast<std::int64_t>(cellsPerAxis.x[1]),
                                                       static_cast<std::int64_t>(cellsPerAxis.x[2]) };

  // 1. Cells and numbers. The padding (the last cell, numbers from count on) comes
  //    after every point in the blocked arrangement, so the stable sort keeps it last.
  std::uint32_t cellOf[kPointsPerThread], number[kPointsPerThread];
  for (int i = 0; i < kPointsPerThread; ++i)
  {
    const std::int64_t n = static_cast<std::int64_t>(threadIdx.x) * kPointsPerThread + i;
    std::int64_t       cell = cellCount;
    if (n < count)
    {
      double v[3], q[3];
      VirtualPointOf<D>(scene.domain, n, v);
      ApplyAffineMap<D>(transform.before, v, q);
      cell = BSplineCellOf<D>(transform.bspline, perAxis, cellCount, q);
    }
    cellOf[i] = static_cast<std::uint32_t>(cell);
    number[i] = static_cast<std::uint32_t>(n);
  }
  // 2. The sort (blocked in, blocked out).
  Sort(shared.sort).Sort(cellOf, number, 0, cellBits);
  __syncthreads(); // the sort's storage holds the sorted cells from here
  for (int i = 0; i < kPointsPerThread; ++i)
  {
    const std::int64_t p = static_cast<std::int64_t>(threadIdx.x) * kPointsPerThread + i;
    if (p < count)
    {
      shared.cell[p] = cellOf[i];
      order[p] = number[i];
    }
  }
  __syncthreads();
  // 3. Items per cell, scanned over cells + 1 entries (the last: the item count).
  //    Here points and cells are far below 2^31 (kSmallOrderMaxPoints, kSmallOrderMaxCells).
  const int pointCount = static_cast<int>(count);
  const int cellEntries = static_cast<int>(cells) + 1;
  long long carried = 0;
  for (int base = 0; base < cellEntries; base += kSmallOrderThreads * kSmallOrderCellsPerThread)
  {
    const int first = base + static_cast<int>(threadIdx.x) * kSmallOrderCellsPerThread;
    int       bound[kSmallOrderCellsPerThread + 1]; // cell first + k's points: [bound[k], bound[k + 1])
    long long threadItems = 0;
    for (int k = 0; k <= kSmallOrderCellsPerThread; ++k)
    {
      bound[k] = first + k < cellEntries ? FirstSortedPointOf(shared.cell, pointCount, first + k) : pointCount;
    }
    for (int k = 0; k < kSmallOrderCellsPerThread; ++k)
    {
      threadItems += MetricItemsOfCell(bound[k + 1] - bound[k]);
    }
    long long item = 0, tileItems = 0;
    Scan(scanStorage).ExclusiveSum(threadItems, item, tileItems);
    item += carried;
    for (int k = 0; k < kSmallOrderCellsPerThread; ++k)
    {
      const int c = first + k;
      if (c < cellEntries)
      {
        cellItemBegin[c] = item;
      }
      item = WriteMetricCellItems(c, bound[k], bound[k + 1], items, item);
    }
    carried += tileItems;
    __syncthreads(); // the scan's storage, reused by the next tile
  }
}
} // namespace

template <int D, typename TValue>
void
BuildMetricPointOrderOnDevice(const MetricScene<TValue> &   scene,
                              const MetricMovingTransform & transform,
                              DeviceMetricPointOrder &      result)
{
  MetricPointOrderView & view = result.view;
  view = MetricPointOrderView{};
  view.cellCount = 1;
  Point3 perAxis = { { 1, 1, 1 } };
  for (int a = 0; a < 3; ++a)
  {
    view.cellsPerAxis[a] = a < D ? transform.bspline.gridSize[a] - 3 : 1;
    view.cellCount *= view.cellsPerAxis[a] > 0 ? view.cellsPerAxis[a] : 0;
    perAxis.x[a] = static_cast<double>(view.cellsPerAxis[a]);
  }
  const std::int64_t count = scene.domain.count;
  const std::int64_t cells = view.cellCount + 1; // the last: outside the valid region
  // No readback of the item count: a cell of p points holds ceil(p / kMetricItemPoints)
  // items, at most p / kMetricItemPoints + 1, so the items number at most
  // count / kMetricItemPoints + (cells holding points), which is below itemCapacity.
  const std::int64_t itemCapacity = count / kMetricItemPoints + std::min(count, cells) + 1;
  // The arrays, kept in \a result between builds (Reserve grows them only).
  Reserve(result.order, std::max<std::size_t>(1, count * sizeof(std::uint32_t)));
  Reserve(result.cellItemBegin, (cells + 1) * sizeof(std::int64_t));
  Reserve(result.items, static_cast<std::size_t>(itemCapacity) * sizeof(MetricWorkItem));
  view.order = result.order.As<const std::uint32_t>();
  view.items = result.items.As<const MetricWorkItem>();
  view.cellItemBegin = result.cellItemBegin.As<const std::int64_t>();
  view.itemCapacity = itemCapacity;
  const int cellBits = BitsToHold(cells);
  if (count <= kSmallOrderMaxPoints && cells <= kSmallOrderMaxCells)
  {
    // Two points a thread for elastix's 2048 (a quarter of the sort's work), else eight.
    if (count <= 2 * kSmallOrderThreads)
    {
      SmallPointOrderKernel<D, TValue, 2><<<1, kSmallOrderThreads>>>(scene,
                                                                     transform,
                                                                     view.cellCount,
                                                                     perAxis,
                                                                     cellBits,
                                                                     result.order.As<std::uint32_t>(),
                                                                     result.items.As<MetricWorkItem>(),
                                                                     result.cellItemBegin.As<std::int64_t>());
    }
    else
    {
      SmallPointOrderKernel<D, TValue, kSmallOrderMostPointsPerThread>
        <<<1, kSmallOrderThreads>>>(scene,
                                    transform,
                                    view.cellCount,
                                    perAxis,
                                    cellBits,
                                    result.order.As<std::uint32_t>(),
                                    result.items.As<MetricWorkItem>(),
                                    result.cellItemBegin.As<std::int64_t>());
    }
    CIF_CUDA_CHECK_LAUNCH();
    return;
  }
  // The general path: keys and numbers (twice, for the sort), counts per cell, their
  // exclusive sums (first point, first item), then the items.
  Reserve(result.pointsPerCell, cells * sizeof(unsigned long long));
  Reserve(result.firstPoint, cells * sizeof(unsigned long long));
  Reserve(result.keys, std::max<std::size_t>(1, 2 * count * sizeof(std::uint32_t)));
  Reserve(result.numbers, std::max<std::size_t>(1, count * sizeof(std::uint32_t)));
  Reserve(result.itemsPerCell, (cells + 1) * sizeof(long long));
  auto * pointsPerCell = result.pointsPerCell.As<unsigned long long>();
  CIF_CUDA_CHECK(cudaMemsetAsync(pointsPerCell, 0, cells * sizeof(unsigned long long), 0));
  std::uint32_t * keyIn = result.keys.As<std::uint32_t>();
  std::uint32_t * keyOut = keyIn + count;
  if (count > 0)
  {
    PointCellKernel<D, TValue><<<BlocksFor(count, 256), 256>>>(
      scene, transform, view.cellCount, perAxis, keyIn, result.numbers.As<std::uint32_t>(), pointsPerCell);
    CIF_CUDA_CHECK_LAUNCH();
    if (result.sortCount != count || result.sortEndBit != cellBits)
    {
      CIF_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr,
                                                     result.sortBytes,
                                                     keyIn,
                                                     keyOut,
                                                     result.numbers.As<std::uint32_t>(),
                                                     result.order.As<std::uint32_t>(),
                                                     static_cast<int>(count),
                                                     0,
                                                     cellBits));
      result.sortCount = count;
      result.sortEndBit = cellBits;
    }
    std::size_t scratchBytes = result.sortBytes;
    Reserve(result.sortScratch, std::max<std::size_t>(1, scratchBytes));
    CIF_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(result.sortScratch.Data(),
                                                   scratchBytes,
                                                   keyIn,
                                                   keyOut,
                                                   result.numbers.As<std::uint32_t>(),
                                                   result.order.As<std::uint32_t>(),
                                                   static_cast<int>(count),
                                                   0,
                                                   cellBits));
  }
  // First point and first item of every cell (exclusive sums), items per cell.
  auto * itemsPerCell = result.itemsPerCell.As<long long>();
  ItemsPerCellKernel<<<BlocksFor(cells, 256), 256>>>(pointsPerCell, cells, itemsPerCell);
  CIF_CUDA_CHECK_LAUNCH();
  CIF_CUDA_CHECK(cudaMemsetAsync(itemsPerCell + cells, 0, sizeof(long long), 0));
  if (result.scanCells != cells)
  {
    std::size_t pointBytes = 0, itemBytes = 0;
    CIF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
      nullptr, pointBytes, pointsPerCell, result.firstPoint.As<unsigned long long>(), static_cast<int>(cells)));
    CIF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
      nullptr, itemBytes, itemsPerCell, result.cellItemBegin.As<long long>(), static_cast<int>(cells + 1)));
    result.scanBytes = std::max(pointBytes, itemBytes);
    result.scanCells = cells;
  }
  Reserve(result.scanScratch, std::max<std::size_t>(1, result.scanBytes));
  std::size_t scanBytes = result.scanBytes, scanBytes2 = result.scanBytes;
  CIF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(result.scanScratch.Data(),
                                               scanBytes,
                                               pointsPerCell,
                                               result.firstPoint.As<unsigned long long>(),
                                               static_cast<int>(cells)));
  CIF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(result.scanScratch.Data(),
                                               scanBytes2,
                                               itemsPerCell,
                                               result.cellItemBegin.As<long long>(),
                                               static_cast<int>(cells + 1)));
  FillItemsKernel<<<BlocksFor(cells, 256), 256>>>(result.firstPoint.As<unsigned long long>(),
                                                  pointsPerCell,
                                                  result.cellItemBegin.As<long long>(),
                                                  cells,
                                                  result.items.As<MetricWorkItem>());
  CIF_CUDA_CHECK_LAUNCH();
}

namespace
{
constexpr int kBoxThreads = kCellBoxBlockThreads;
constexpr int kBoxMaxTileRows = kCellBoxMaxTileRows;

/** The shared state of a block that walks one cell-box work item: the cell's
 * support coefficients, its x weights, per tile row the row's displacement map, and
 * per row of a row group (CellBoxGroupRows; a tile where a kernel indexes tile by
 * tile) its domain y and z. */
template <int D>
struct CellBoxTile
{
  static constexpr int kOutputs = kSupportPoints<D> * D;
  static constexpr int kRowValues = 4 * D;
  double               coefficient[kOutputs];
  double               wx[kCellBoxMaxRow][4];
  double               rowMap[kBoxMaxTileRows][kRowValues];
  int                  rowY[kCellBoxMaxGroupRows]; ///< per row its domain y and z (CellBoxRowIndex), found once
  int                  rowZ[kCellBoxMaxGroupRows];
};

/** The arrival counter as thread 0 of a block reads it before anything else (0 for
 * the other threads, or where nothing arrives): LoadCellBox's \a arrivedEarly. */
inline __device__ unsigned int
ReadArrivalFirst(const ControlPlaneArrival & arrival)
{
  return threadIdx.x == 0 && arrival.arrived != nullptr ? ReadControlPlaneCount(arrival) : 0u;
}

/** Loads the x weights, then the cell's coefficients once their planes have arrived
 * (cifControlPlaneArrival.h; \a arrivedEarly from ReadArrivalFirst); the caller
 * synchronises. */
template <int D>
__device__ void
LoadCellBox(const MetricCellBoxView &     boxes,
            const MetricMovingTransform & transform,
            const CellBoxExtent &         e,
            const ControlPlaneArrival &   arrival,
            unsigned int                  arrivedEarly,
            CellBoxTile<D> &              tile)
{
  for (int o = threadIdx.x; o < 4 * e.rowLength; o += kBoxThreads)
  {
    tile.wx[o / 4][o % 4] = boxes.weights[0][4 * e.start[0] + o];
  }
  if (arrival.arrived != nullptr)
  {
    if (threadIdx.x == 0)
    {
      // the support's last plane along the slowest axis
      WaitForControlPlane(arrival, e.cell[D - 1] + 3, arrivedEarly);
    }
    __syncthreads();
  }
  for (int o = threadIdx.x; o < CellBoxTile<D>::kOutputs; o += kBoxThreads)
  {
    tile.coefficient[o] = CellBoxCoefficient<D>(transform.bspline, e.cell, o / D, o % D);
  }
}

/** The domain y and z of rows [first, first + rows) of the box, by the threads
 * from \a firstThread on (the caller synchronises): one division per row instead
 * of one per use. */
template <int D>
__device__ void
IndexCellBoxRows(const CellBoxExtent & e, int first, int rows, CellBoxTile<D> & tile, int firstThread = 0)
{
  for (int row = static_cast<int>(threadIdx.x) - firstThread; row >= 0 && row < rows; row += kBoxThreads - firstThread)
  {
    std::int64_t y, z;
    CellBoxRowIndex(e, first + row, y, z);
    tile.rowY[row] = static_cast<int>(y); // below the domain's size, which is below 2^31 points
    tile.rowZ[row] = static_cast<int>(z);
  }
}

/** Box extents along y up to which CellBoxKernel and CellBoxHistogramKernel keep a
 * y map (CellBoxYMapEntry) per y index of their box (CellBoxKernel's shared memory
 * then stays below the 48 KiB of a block without opting in). */
constexpr int kCellBoxYMapRows = 16;

/** The y maps of the box's y indices (e.rowsPerSlice <= kCellBoxYMapRows; the
 * caller synchronises after the coefficients' load and after this): the rows' inner
 * sums, formed once per y instead of once per row. */
template <int D>
__device__ void
MapCellBoxYs(const MetricCellBoxView & boxes,
             const CellBoxExtent &     e,
             const CellBoxTile<D> &    tile,
             double (*yMap)[kCellBoxYMapValues<D>])
{
  constexpr int kValues = kCellBoxYMapValues<D>;
  for (int o = threadIdx.x; o < e.rowsPerSlice * kValues; o += kBoxThreads)
  {
    const int y = o / kValues;
    yMap[y][o % kValues] = CellBoxYMapEntry<D>(tile.coefficient, boxes.weights[1] + 4 * (e.start[1] + y), o % kValues);
  }
}

/** The row maps of the tile's \a rows rows, whose indices IndexCellBoxRows found
 * from entry \a at on (the caller synchronises); from the y maps \a yMap of the
 * box's y indices from \a yStart on where given (MapCellBoxYs), else from the
 * coefficients: the same sums either way. */
template <int D>
__device__ void
MapCellBoxRows(const MetricCellBoxView & boxes,
               int                       rows,
               int                       at,
               CellBoxTile<D> &          tile,
               const double (*yMap)[kCellBoxYMapValues<D>] = nullptr,
               int yStart = 0)
{
  constexpr int kRowValues = CellBoxTile<D>::kRowValues;
  for (int o = threadIdx.x; o < rows * kRowValues; o += kBoxThreads)
  {
    const int      row = o / kRowValues, k = o % kRowValues;
    const double * wz = boxes.weights[2] + 4 * tile.rowZ[at + row];
    tile.rowMap[row][k] =
      yMap != nullptr
        ? CellBoxRowMapEntryFromY<D>(yMap[tile.rowY[at + row] - yStart], wz, k / D, k % D)
        : CellBoxRowMapEntry<D>(tile.coefficient, boxes.weights[1] + 4 * tile.rowY[at + row], wz, k / D, k % D);
  }
}

/** Where a thread's point lies in every tile of a work item: its tile row and its x
 * in the row (one division per item). */
struct CellBoxTilePoint
{
  int row;
  int i;
};

/** The sample of tile point \a p (the tile's rows indexed from entry \a at on). */
template <int D, typename TValue>
__device__ MetricPointSample
SampleCellBoxPoint(const MetricScene<TValue> &   scene,
                   const MetricMovingTransform & transform,
                   const CellBoxExtent &         e,
                   CellBoxTilePoint              p,
                   int                           at,
                   const CellBoxTile<D> &        tile,
                   bool                          withGradient)
{
  const int      row = p.row, i = p.i;
  const int      y = tile.rowY[at + row], z = tile.rowZ[at + row];
  DisplacedStage stage;
  for (int d = 0; d < 3; ++d)
  {
    stage.u[d] = d < D ? CellBoxDisplacement<D>(tile.rowMap[row], tile.wx[i], d) : 0.0;
  }
  const double index[3] = { static_cast<double>(scene.domain.start[0] + e.start[0] + i),
                            static_cast<double>(scene.domain.start[1] + y),
                            static_cast<double>(scene.domain.start[2] + z) };
  double       v[3];
  VirtualPointAtIndex<D>(scene.domain, index, v);
  return SampleMetricPointThrough<D>(scene, transform, stage, v, withGradient);
}

/** A block per cell-box work item: the value's sums and the item's partials of
 * force x weight for its cell's 4^D support (cifMetricCellBoxes.h: separable rows).
 * Tile by tile the points' forces contract with the x weights into the row group's
 * row forces; at the end of a group they contract with the y weights slice by slice
 * and then with the z weights into the partials (AddCellBoxGroupPartials' terms in
 * its order). */
template <int D, typename TValue, typename TTerm>
__global__ void
__launch_bounds__(kBoxThreads, 3) CellBoxKernel(const MetricScene<TValue>   scene,
                                                const MetricMovingTransform transform,
                                                const TTerm                 term,
                                                const MetricCellBoxView     boxes,
                                                const ControlPlaneArrival   arrival,
                                                double *                    itemSums,
                                                double *                    itemPartials,
                                                unsigned long long *        validCount)
{
  constexpr int kOutputs = CellBoxTile<D>::kOutputs;
  constexpr int kRowValues = CellBoxTile<D>::kRowValues;
  constexpr int kSliceValues = kCellBoxSliceValues<D>;
  constexpr int kSliceChunk = kBoxThreads * D / kSliceValues; // slices a pass holds in `force`
  __shared__ CellBoxTile<D> tile;
  __shared__ double         rowForce[kCellBoxMaxGroupRows][kRowValues];
  __shared__ double         force[kBoxThreads][D];
  __shared__ double         sums[kBoxThreads][2];
  __shared__ double         yMap[kCellBoxYMapRows][kCellBoxYMapValues<D>];
  static_assert(kOutputs < kBoxThreads, "threads beyond the partials' index the next group's rows");
  static_assert(kSliceChunk >= 1 && kSliceChunk * kSliceValues <= kBoxThreads * D, "slice entries in `force`");
  // A group's slice entries live in `force`, free between a group's last
  // contraction and the next tile's points.
  auto * const           sliceEntries = reinterpret_cast<double(*)[kSliceValues]>(&force[0][0]);
  const unsigned int     arrivedEarly = ReadArrivalFirst(arrival);
  const MetricWorkItem   item = boxes.items[blockIdx.x];
  const CellBoxExtent    e = CellBoxExtentOf(boxes, item.cell);
  const int              nx = e.rowLength;
  const int              tileRows = CellBoxTileRows(nx);
  const int              groupRows = CellBoxGroupRows(nx);
  const CellBoxTilePoint point{ static_cast<int>(threadIdx.x) / nx, static_cast<int>(threadIdx.x) % nx };
  // A work item's rows in 32 bits (a box has fewer rows than the domain points).
  const int  begin = static_cast<int>(item.begin), end = static_cast<int>(item.end);
  const int  perSlice = e.rowsPerSlice;
  const bool byY = perSlice <= kCellBoxYMapRows;
  LoadCellBox<D>(boxes, transform, e, arrival, arrivedEarly, tile);
  IndexCellBoxRows<D>(e, begin, min(end - begin, groupRows), tile);
  if (byY)
  {
    __syncthreads(); // the coefficients
    MapCellBoxYs<D>(boxes, e, tile, yMap);
  }
  double       partial = 0.0, value = 0.0;
  unsigned int count = 0; // valid points (an integer: one register fewer, the same double at the end)
  for (int group = begin; group < end; group += groupRows)
  {
    const int groupEnd = min(end, group + groupRows);
    for (int first = group; first < groupEnd; first += tileRows)
    {
      const int rows = min(groupEnd - first, tileRows);
      const int at = first - group;
      __syncthreads(); // the coefficients, y maps and rows' indices; the previous tile's points are done
      MapCellBoxRows<D>(boxes, rows, at, tile, byY ? yMap : nullptr, e.start[1]);
      __syncthreads();
      double h[3] = { 0, 0, 0 };
      if (point.row < rows)
      {
        const MetricPointSample s = SampleCellBoxPoint<D>(scene, transform, e, point, at, tile, true);
        double                  f[3], termValue;
        if (s.valid && term.template Apply<D>(s, termValue, f))
        {
          ++count;
          value += termValue;
          PullBackThroughAfter<D>(transform, f, h);
        }
      }
      for (int d = 0; d < D; ++d)
      {
        force[threadIdx.x][d] = h[d];
      }
      __syncthreads();
      // Each row's forces contracted with the x weights, x in order.
      for (int o = threadIdx.x; o < rows * kRowValues; o += kBoxThreads)
      {
        const int row = o / kRowValues, k = o % kRowValues;
        const int a = k / D, d = k % D;
        double    sum = 0.0;
#pragma unroll 4
        for (int i = 0; i < nx; ++i)
        {
          sum += tile.wx[i][a] * force[row * nx + i][d];
        }
        rowForce[at + row][k] = sum;
      }
    }
    // The group's row forces contracted with the y weights per slice, then the
    // slices' terms added to the partials in slice order, kSliceChunk slices a pass;
    // meanwhile the threads beyond the partials index the next group's rows (this
    // group's are no longer read).
    for (int chunk = group / perSlice; chunk * perSlice < groupEnd; chunk += kSliceChunk)
    {
      const int slices = min(kSliceChunk, (groupEnd - 1) / perSlice + 1 - chunk);
      __syncthreads(); // the row forces; the previous pass's terms are added
      for (int o = threadIdx.x; o < slices * kSliceValues; o += kBoxThreads)
      {
        sliceEntries[o / kSliceValues][o % kSliceValues] = CellBoxGroupSliceEntry<D>(
          boxes, e, &rowForce[0][0], group, groupEnd, chunk + o / kSliceValues, o % kSliceValues);
      }
      __syncthreads();
      if (threadIdx.x < kOutputs)
      {
        for (int j = 0; j < slices; ++j)
        {
          partial += CellBoxSliceTerm<D>(sliceEntries[j], CellBoxSliceZWeights(boxes, e, chunk + j), threadIdx.x);
        }
      }
      else if (chunk == group / perSlice && groupEnd < end)
      {
        IndexCellBoxRows<D>(e, groupEnd, min(end - groupEnd, groupRows), tile, kOutputs);
      }
    }
  }
  sums[threadIdx.x][0] = static_cast<double>(count);
  sums[threadIdx.x][1] = value;
  TreeReduce<2, kBoxThreads>(sums);
  if (threadIdx.x < 2)
  {
    itemSums[blockIdx.x * 2 + threadIdx.x] = sums[0][threadIdx.x];
  }
  if (threadIdx.x == 0)
  {
    AddValidCount(validCount, sums[0][0]);
  }
  if (threadIdx.x < kOutputs)
  {
    itemPartials[blockIdx.x * kOutputs + threadIdx.x] = partial;
  }
}

/** The points outside the B-spline's valid region (left in place by it): the
 * value's sums, a block per 4096 points in the domain's order. */
template <int D, typename TValue, typename TTerm>
__global__ void
__launch_bounds__(kNaturalThreads) OutsideCellBoxesKernel(const MetricScene<TValue>   scene,
                                                          const MetricMovingTransform transform,
                                                          const TTerm                 term,
                                                          const MetricCellBoxView     boxes,
                                                          double *                    blockSums,
                                                          unsigned long long *        validCount)
{
  __shared__ double  shared[kNaturalThreads][2];
  double             count = 0.0, value = 0.0;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * kNaturalBlockPoints;
  const std::int64_t end = min(first + kNaturalBlockPoints, scene.domain.count);
  for (std::int64_t n = first + threadIdx.x; n < end; n += kNaturalThreads)
  {
    AddOutsideCellBoxesPoint<D>(scene, transform, term, boxes, n, count, value);
  }
  shared[threadIdx.x][0] = count;
  shared[threadIdx.x][1] = value;
  TreeReduce<2, kNaturalThreads>(shared);
  if (threadIdx.x < 2)
  {
    blockSums[blockIdx.x * 2 + threadIdx.x] = shared[0][threadIdx.x];
  }
  if (threadIdx.x == 0)
  {
    AddValidCount(validCount, shared[0][0]);
  }
}
} // namespace

template <int D, typename TValue, typename TTerm>
MetricSums
EvaluateMetricSumsInCellBoxesOnDevice(const MetricScene<TValue> &   sceneIn,
                                      const MetricMovingTransform & transformIn,
                                      const TTerm &                 term,
                                      const MetricCellBoxView &     boxes,
                                      DerivativeScale               scale,
                                      MetricDeviceWorkspace &       workspace,
                                      const double **               bsplineDerivative)
{
  MetricScene<TValue>   scene = sceneIn;
  MetricMovingTransform transform = transformIn;
  MarkIdentityStages(scene, transform);
  constexpr int      kOutputs = kSupportPoints<D> * D;
  const std::int64_t items = boxes.itemCount;
  const std::int64_t outsideBlocks =
    boxes.anyOutside ? (scene.domain.count + kNaturalBlockPoints - 1) / kNaturalBlockPoints : 0;
  const std::int64_t     rows = std::max<std::int64_t>(items + outsideBlocks, 1);
  const TransformStage & grid = transform.bspline;
  const std::size_t      derivativeValues =
    static_cast<std::size_t>(D * grid.gridSize[0] * grid.gridSize[1] * grid.gridSize[2]);
  ReserveReadback(workspace, derivativeValues);
  Reserve(workspace.blockSums, static_cast<std::size_t>(rows) * 2 * sizeof(double));
  Reserve(workspace.itemPartials,
          static_cast<std::size_t>(std::max<std::int64_t>(items, 1)) * kOutputs * sizeof(double));
  double *             blockSums = workspace.blockSums.As<double>();
  unsigned long long * validCount = ZeroedValidCount(scale, workspace);
  if (items > 0)
  {
    const ControlPlaneArrival arrival = ArrivingCoefficients(workspace);
    CellBoxKernel<D, TValue, TTerm><<<static_cast<unsigned int>(items), kBoxThreads>>>(
      scene, transform, term, boxes, arrival, blockSums, workspace.itemPartials.As<double>(), validCount);
    CIF_CUDA_CHECK_LAUNCH();
  }
  SendArrivingCoefficients(workspace);
  if (outsideBlocks > 0)
  {
    OutsideCellBoxesKernel<D, TValue, TTerm><<<static_cast<unsigned int>(outsideBlocks), kNaturalThreads>>>(
      scene, transform, term, boxes, blockSums + 2 * items, validCount);
    CIF_CUDA_CHECK_LAUNCH();
  }
  SumRowsAndGather<D>(blockSums,
                      items + outsideBlocks,
                      nullptr,
                      workspace.itemPartials.As<double>(),
                      boxes.cellItemBegin,
                      boxes.cellsPerAxis,
                      grid,
                      validCount,
                      workspace);
  const double * host = ReadBack(workspace, kReadbackDerivative + derivativeValues);
  MetricSums     sums;
  std::copy_n(host + kReadbackSums, 2, sums.value);
  *bsplineDerivative = host + kReadbackDerivative;
  return sums;
}

namespace
{
/** Points a thread of CellBoxHistogramKernel takes in each tile: two halve the
 * tiles and their three barriers a point (one dense 256^3 pass 931 -> 879 us on an
 * H100; the derivative's CellBoxKernel, whose tiles hold more work between
 * barriers, measured no faster with two and keeps one). */
constexpr int kHistogramBoxPointsPerThread = 2;

/** Mattes' first pass over a cell-box work item: the points' Parzen contributions
 * added to the block's integer histogram (shared for up to 64 bins, else global). */
template <int D, typename TValue>
__global__ void
__launch_bounds__(kBoxThreads, 3) CellBoxHistogramKernel(const MetricScene<TValue>   scene,
                                                         const MetricMovingTransform transform,
                                                         const MattesParzen          parzen,
                                                         const MetricCellBoxView     boxes,
                                                         const ControlPlaneArrival   arrival,
                                                         bool                        inShared,
                                                         unsigned long long *        global)
{
  extern __shared__ unsigned long long histogramShared[];
  __shared__ CellBoxTile<D> tile;
  __shared__ double         yMap[kCellBoxYMapRows][kCellBoxYMapValues<D>];
  const int                 bins = parzen.bins;
  const int                 entries = bins * bins + bins + 1;
  unsigned long long *      histogram = inShared ? histogramShared : global;
  const unsigned int        arrivedEarly = ReadArrivalFirst(arrival);
  if (inShared)
  {
    for (int k = threadIdx.x; k < entries; k += kBoxThreads)
    {
      histogramShared[k] = 0;
    }
  }
  const MetricWorkItem item = boxes.items[blockIdx.x];
  const CellBoxExtent  e = CellBoxExtentOf(boxes, item.cell);
  const int            nx = e.rowLength;
  constexpr int        P = kHistogramBoxPointsPerThread;
  const int            tileRows = CellBoxTileRows(nx, P);
  CellBoxTilePoint     points[P]; // points threadIdx.x + j kBoxThreads of a tile
  for (int j = 0; j < P; ++j)
  {
    const int p = static_cast<int>(threadIdx.x) + j * kBoxThreads;
    points[j] = CellBoxTilePoint{ p / nx, p % nx };
  }
  const bool byY = e.rowsPerSlice <= kCellBoxYMapRows;
  LoadCellBox<D>(boxes, transform, e, arrival, arrivedEarly, tile);
  if (byY)
  {
    __syncthreads(); // the coefficients
    MapCellBoxYs<D>(boxes, e, tile, yMap);
  }
  const int begin = static_cast<int>(item.begin), end = static_cast<int>(item.end);
  for (int first = begin; first < end; first += tileRows)
  {
    const int rows = min(end - first, tileRows);
    __syncthreads();
    IndexCellBoxRows<D>(e, first, rows, tile);
    __syncthreads();
    MapCellBoxRows<D>(boxes, rows, 0, tile, byY ? yMap : nullptr, e.start[1]);
    __syncthreads();
#pragma unroll 1
    for (int j = 0; j < P; ++j)
    {
      if (points[j].row < rows)
      {
        const MetricPointSample s = SampleCellBoxPoint<D>(scene, transform, e, points[j], 0, tile, false);
        AddToMattesHistogram(parzen, s, histogram);
      }
    }
  }
  if (inShared)
  {
    __syncthreads();
    for (int k = threadIdx.x; k < entries; k += kBoxThreads)
    {
      if (histogramShared[k] != 0)
      {
        atomicAdd(global + k, histogramShared[k]);
      }
    }
  }
}
} // namespace

template <int D, typename TValue>
void
MattesFirstPassInCellBoxesOnDevice(const MetricScene<TValue> &   sceneIn,
                                   const MetricMovingTransform & transformIn,
                                   const MattesParzen &          parzen,
                                   const MetricCellBoxView &     boxes,
                                   MetricDeviceWorkspace &       workspace)
{
  MetricScene<TValue>   scene = sceneIn;
  MetricMovingTransform transform = transformIn;
  MarkIdentityStages(scene, transform);
  const int            bins = parzen.bins;
  unsigned long long * global = ZeroedDeviceHistogram(workspace, bins);
  const std::size_t    sharedBytes =
    bins <= kMaxSharedHistogramBins ? HistogramEntries(bins) * sizeof(unsigned long long) : 0;
  if (boxes.itemCount > 0)
  {
    // The block's histogram in shared memory (up to kMaxSharedHistogramBins), beside
    // the tile and the y maps (the kernel's own arrays): above the 48 KiB of a block
    // without opting in.
    AllowSharedMemory(CellBoxHistogramKernel<D, TValue>, sharedBytes, "Mattes' cell-box histogram pass");
    const ControlPlaneArrival arrival = ArrivingCoefficients(workspace);
    CellBoxHistogramKernel<D, TValue><<<static_cast<unsigned int>(boxes.itemCount), kBoxThreads, sharedBytes>>>(
      scene, transform, parzen, boxes, arrival, sharedBytes > 0, global);
    CIF_CUDA_CHECK_LAUNCH();
  }
  SendArrivingCoefficients(workspace);
  if (boxes.anyOutside)
  {
    const std::int64_t wanted = (scene.domain.count + kHistogramThreads - 1) / kHistogramThreads;
    const unsigned int blocks =
      static_cast<unsigned int>(std::max<std::int64_t>(1, std::min<std::int64_t>(wanted, 4096)));
    MattesHistogramKernel<D, TValue, true>
      <<<blocks, kHistogramThreads, sharedBytes>>>(scene, transform, parzen, boxes, global);
    CIF_CUDA_CHECK_LAUNCH();
  }
  MattesResultsOnDevice(parzen, workspace);
}


} // namespace cif

#endif
