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
// Mattes' first pass on the device: the joint histogram in integers, then ITK's ComputeResults.
#ifndef cifMattesHistogramKernels_cuh
#define cifMattesHistogramKernels_cuh

#include "cifCudaCheck.cuh"
#include "cifMetricDeviceWorkspace.cuh"
#include "cifMetricSumsDevice.h"
#include "cifUnfusedArithmetic.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace cif
{
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
} // namespace cif

#endif
