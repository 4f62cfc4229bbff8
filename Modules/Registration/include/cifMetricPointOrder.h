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
#ifndef cifMetricPointOrder_h
#define cifMetricPointOrder_h

#include "cifImageMetricMath.h"

#include <cstdint>
#include <vector>

/** \file cifMetricPointOrder.h
 * The virtual domain's points grouped by the cell of the optimized B-spline's
 * control grid they fall in: the order in which a metric evaluation visits them so
 * that each control point can sum its own support in a fixed order (deterministic
 * bits, no atomics). Built once per level (the points, the fixed stages before the
 * B-spline and its grid do not change between iterations) on the host; the GPU path
 * uploads the same arrays. */
namespace cif
{
/** Points a work item holds at most: a cell's points are split into items of this
 * many, so that a coarse grid (few, large cells) still gives every GPU SM work (the
 * device gives each item a warp, which walks its points 32 at a time). */
constexpr std::int64_t kMetricItemPoints = 256;

/** One work item: points [begin, end) of the order, all in \a cell (cellCount for
 * the points outside the grid's valid region, which add to the value only). */
struct MetricWorkItem
{
  std::int64_t cell = 0;
  std::int64_t begin = 0;
  std::int64_t end = 0;
};

struct MetricPointOrder
{
  std::int64_t                cellsPerAxis[3] = { 1, 1, 1 };
  std::int64_t                cellCount = 0;
  std::vector<std::uint32_t>  order;         ///< point numbers, cell by cell
  std::vector<MetricWorkItem> items;         ///< by cell, then by position
  std::vector<std::int64_t>   cellItemBegin; ///< cellCount + 2 entries: cell c's items are [begin[c], begin[c + 1])

  bool
  Empty() const
  {
    return items.empty();
  }
};

/** The work items that a cell holding \a points points splits into. */
CIF_HD std::int64_t
       MetricItemsOfCell(std::int64_t points)
{
  return (points + kMetricItemPoints - 1) / kMetricItemPoints;
}

/** Writes the items of cell \a cell, whose points are [begin, end) of the order, into
 * \a items from \a firstItem on (MetricItemsOfCell(end - begin) of them); returns the
 * index after its last. The host's order and both device builds use it, so that the
 * items, and with them the sums' order, are the same on every path. */
CIF_HD std::int64_t
       WriteMetricCellItems(std::int64_t     cell,
                            std::int64_t     begin,
                            std::int64_t     end,
                            MetricWorkItem * items,
                            std::int64_t     firstItem)
{
  std::int64_t item = firstItem;
  for (std::int64_t b = begin; b < end; b += kMetricItemPoints, ++item)
  {
    items[item].cell = cell;
    items[item].begin = b;
    items[item].end = end < b + kMetricItemPoints ? end : b + kMetricItemPoints;
  }
  return item;
}

/** The cell (support start, linearised) of the point whose optimized stage input is
 * \a q, or \a cellCount outside the valid region. */
template <int D>
CIF_HD std::int64_t
       BSplineCellOf(const TransformStage & bspline,
                     const std::int64_t     cellsPerAxis[3],
                     std::int64_t           cellCount,
                     const double           q[3])
{
  std::int64_t start[3];
  double       w[3][4];
  if (!BSplineSupport<D>(bspline, q, start, w))
  {
    return cellCount;
  }
  return (start[2] * cellsPerAxis[1] + start[1]) * cellsPerAxis[0] + start[0];
}

/** Groups the domain's points by B-spline cell (a stable counting sort). \a parallelFor
 * is a callable (count, body(i)). */
template <int D, typename TValue, typename TParallelFor>
MetricPointOrder
BuildMetricPointOrder(const MetricScene<TValue> &   scene,
                      const MetricMovingTransform & transform,
                      TParallelFor &&               parallelFor)
{
  MetricPointOrder result;
  result.cellCount = 1;
  for (int a = 0; a < 3; ++a)
  {
    result.cellsPerAxis[a] = a < D ? transform.bspline.gridSize[a] - 3 : 1;
    result.cellCount *= result.cellsPerAxis[a] > 0 ? result.cellsPerAxis[a] : 0;
  }
  const std::int64_t        count = scene.domain.count;
  std::vector<std::int64_t> cellOfPoint(static_cast<std::size_t>(count));
  constexpr std::int64_t    chunk = 1 << 14;
  parallelFor((count + chunk - 1) / chunk, [&](std::int64_t c) {
    const std::int64_t end = count < (c + 1) * chunk ? count : (c + 1) * chunk;
    for (std::int64_t n = c * chunk; n < end; ++n)
    {
      double v[3], q[3];
      VirtualPointOf<D>(scene.domain, n, v);
      ApplyAffineMap<D>(transform.before, v, q);
      cellOfPoint[n] = BSplineCellOf<D>(transform.bspline, result.cellsPerAxis, result.cellCount, q);
    }
  });
  std::vector<std::int64_t> firstOfCell(static_cast<std::size_t>(result.cellCount + 2), 0);
  for (std::int64_t n = 0; n < count; ++n)
  {
    ++firstOfCell[cellOfPoint[n] + 1];
  }
  for (std::int64_t c = 0; c <= result.cellCount; ++c)
  {
    firstOfCell[c + 1] += firstOfCell[c];
  }
  result.order.resize(static_cast<std::size_t>(count));
  {
    std::vector<std::int64_t> next(firstOfCell.begin(), firstOfCell.end() - 1);
    for (std::int64_t n = 0; n < count; ++n)
    {
      result.order[next[cellOfPoint[n]]++] = static_cast<std::uint32_t>(n);
    }
  }
  std::int64_t itemCount = 0;
  for (std::int64_t c = 0; c <= result.cellCount; ++c)
  {
    itemCount += MetricItemsOfCell(firstOfCell[c + 1] - firstOfCell[c]);
  }
  result.items.resize(static_cast<std::size_t>(itemCount));
  result.cellItemBegin.assign(static_cast<std::size_t>(result.cellCount + 2), 0);
  std::int64_t item = 0;
  for (std::int64_t c = 0; c <= result.cellCount; ++c)
  {
    result.cellItemBegin[c] = item;
    item = WriteMetricCellItems(c, firstOfCell[c], firstOfCell[c + 1], result.items.data(), item);
  }
  result.cellItemBegin[result.cellCount + 1] = static_cast<std::int64_t>(result.items.size());
  return result;
}
} // namespace cif

#endif
