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
// Mattes' first pass over cell boxes: the cell-box tiles feeding the integer joint histogram.
#ifndef cifMattesCellBoxesKernels_cuh
#define cifMattesCellBoxesKernels_cuh

#include "cifCudaCheck.cuh"
#include "cifMattesHistogramKernels.cuh"
#include "cifMetricCellBoxesKernels.cuh"
#include "cifMetricDeviceWorkspace.cuh"
#include "cifMetricSumsDevice.h"
#include "cifSharedMemoryOptIn.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace cif
{
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
