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
// The metrics' sums over the point order's work items, a warp each, with the B-spline derivative's gather.
#ifndef cifMetricWorkItemKernels_cuh
#define cifMetricWorkItemKernels_cuh

#include "cifCudaCheck.cuh"
#include "cifMetricDeviceWorkspace.cuh"
#include "cifMetricNaturalOrderKernels.cuh"
#include "cifMetricReductionKernels.cuh"
#include "cifMetricRowSumsKernels.cuh"
#include "cifMetricSumsDevice.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace cif
{
namespace
{
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
} // namespace

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
} // namespace cif

#endif
