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
// The point order on the device: the points grouped by B-spline cell, in one block or by CUB's sort.
#ifndef cifMetricPointOrderKernels_cuh
#define cifMetricPointOrderKernels_cuh

#include "cifCudaCheck.cuh"
#include "cifMetricDeviceWorkspace.cuh"
#include "cifMetricReductionKernels.cuh"
#include "cifMetricSumsDevice.h"

#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace cif
{
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
} // namespace cif

#endif
