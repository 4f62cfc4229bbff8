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
// The metrics' sums in the domain's own order: a block per 4096 points, then the blocks' rows in order.
#ifndef cifMetricNaturalOrderKernels_cuh
#define cifMetricNaturalOrderKernels_cuh

#include "cifCudaCheck.cuh"
#include "cifMetricDeviceWorkspace.cuh"
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
} // namespace cif

#endif
