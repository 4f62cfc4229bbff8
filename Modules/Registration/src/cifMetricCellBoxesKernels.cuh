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
// The metrics' sums over cell boxes (separable rows): a block per work item, then the points outside them.
#ifndef cifMetricCellBoxesKernels_cuh
#define cifMetricCellBoxesKernels_cuh

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
} // namespace cif

#endif
