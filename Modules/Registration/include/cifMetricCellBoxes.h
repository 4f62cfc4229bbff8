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
#ifndef cifMetricCellBoxes_h
#define cifMetricCellBoxes_h

#include "cifImageMetricMath.h"
#include "cifMetricPointOrder.h"
#include "cifMetricSumsHost.h"

#include <cmath>
#include <cstdint>
#include <vector>

/** \file cifMetricCellBoxes.h
 * A dense domain whose grid axes map onto the optimized B-spline's control-grid axes
 * one to one (the same directions, no rotation or shear before the B-spline: what
 * ITK's BSplineTransformInitializer gives over the fixed image, alone or as the last
 * stage of an affine-then-B-spline composite) is a product of per-axis index ranges:
 * the points of one B-spline cell fill a box, and each point's kernel weights are
 * products of per-axis weights that depend on its index along that axis only. Then
 *  - the displacement is separable: per row of a box (fixed y, z) the 4 x 4 support
 *    rows contract to 4 x D values once, and each point of the row costs 4 x D
 *    multiply-adds instead of 64 x D (3-D);
 *  - the adjoint too: a row's forces contract with the x weights (4 x D sums), the
 *    rows of one z (a slice) with their y weights (4 x 4 x D sums), and only those
 *    go to the 4^D x D partials, weighted by the slice's z weights.
 * The per-axis tables, the cells' index ranges and the work items (a cell's rows, in
 * pieces) are built once per level on the host; the sums are reduced in a fixed
 * order (rows in order, items per cell in order), so every run gives the same bits.
 * The GPU path (cifMetricSumsDevice.h) and the CPU path below share the per-row and
 * per-point arithmetic. */
namespace cif
{
/** Points a cell-box work item holds at most (a cell's rows are split into pieces
 * of about this many points, so that coarse grids still give every SM work). */
constexpr std::int64_t kCellBoxItemPoints = 4096;

/** Longest row (points along axis 0 in one cell) the GPU path takes: one point per
 * thread of a block. */
constexpr std::int64_t kCellBoxMaxRow = 256;

/** The tables of a cell-box plan, as host vectors. */
struct MetricCellBoxes
{
  std::int64_t cellsPerAxis[3] = { 1, 1, 1 };
  std::int64_t cellCount = 0;
  std::int64_t longestRow = 0;
  bool         anyOutside = false; ///< some index lies outside the B-spline's valid region
  /** Per axis, per index of the domain (from its start): the 4 kernel weights. */
  std::vector<double> weights[3];
  /** Per axis, per index: 1 where the index lies inside the valid region. */
  std::vector<std::uint8_t> inside[3];
  /** Per axis, per cell: the first index and one past the last (from the domain's start). */
  std::vector<std::int64_t>   range[3];
  std::vector<MetricWorkItem> items;         ///< cell, then [begin, end) of its rows (y fastest)
  std::vector<std::int64_t>   cellItemBegin; ///< cellCount + 2 entries, as MetricPointOrder's
};

/** The same tables where a path reads them (host or device pointers). */
struct MetricCellBoxView
{
  const double *         weights[3] = { nullptr, nullptr, nullptr };
  const std::uint8_t *   inside[3] = { nullptr, nullptr, nullptr };
  const std::int64_t *   range[3] = { nullptr, nullptr, nullptr };
  const MetricWorkItem * items = nullptr;
  const std::int64_t *   cellItemBegin = nullptr;
  std::int64_t           itemCount = 0;
  std::int64_t           cellCount = 0;
  std::int64_t           cellsPerAxis[3] = { 1, 1, 1 };
  bool                   anyOutside = false;
};

inline MetricCellBoxView
HostView(const MetricCellBoxes & boxes)
{
  MetricCellBoxView view;
  for (int a = 0; a < 3; ++a)
  {
    view.weights[a] = boxes.weights[a].data();
    view.inside[a] = boxes.inside[a].data();
    view.range[a] = boxes.range[a].data();
    view.cellsPerAxis[a] = boxes.cellsPerAxis[a];
  }
  view.items = boxes.items.data();
  view.cellItemBegin = boxes.cellItemBegin.data();
  view.itemCount = static_cast<std::int64_t>(boxes.items.size());
  view.cellCount = boxes.cellCount;
  view.anyOutside = boxes.anyOutside;
  return view;
}

/** The B-spline grid's continuous index along \a axis of the dense domain's index
 * (offset \a step along \a along from the domain's start). */
template <int D>
double
CellBoxGridIndex(const MetricDomain & domain, const MetricMovingTransform & t, int axis, int along, std::int64_t step)
{
  double index[3] = { 0, 0, 0 };
  for (int a = 0; a < D; ++a)
  {
    index[a] = static_cast<double>(domain.start[a] + (a == along ? step : 0));
  }
  double v[3], q[3];
  VirtualPointAtIndex<D>(domain, index, v);
  ApplyAffineMap<D>(t.before, v, q);
  return BSplineGridIndex<D>(t.bspline, q, axis);
}

/** Largest drift (in control-grid index units, over the whole domain) of one grid
 * axis's index along the domain's other axes that the plan accepts. ITK's
 * BSplineTransformInitializer over an oblique image builds the grid's directions
 * from the image's corners, parallel to the image axes within about 1e-7 of a cell
 * over a domain (measured: 1e-8 to 4e-7); the per-axis weights then stand for each
 * point's own within that. */
constexpr double kCellBoxMaxDrift = 1e-6;

/** The cell-box plan of a dense \a domain and B-spline stage \a t, or false where it
 * does not apply: listed points; an index map that is not diagonal (another axis
 * moves a grid index by more than kCellBoxMaxDrift across the domain); an index
 * within twice the drift of the valid region's limits (where ITK's own per-point
 * decision could differ: the B-spline is the identity outside); a cell whose
 * indices are not contiguous; a row longer than kCellBoxMaxRow. */
template <int D>
bool
BuildMetricCellBoxes(const MetricDomain & domain, const MetricMovingTransform & t, MetricCellBoxes & boxes)
{
  boxes = MetricCellBoxes();
  if (domain.points != nullptr || t.kind != OptimizedStageKind::BSpline || domain.count <= 0)
  {
    return false;
  }
  double drift = 0.0;
  for (int a = 0; a < D; ++a)
  {
    const double base = CellBoxGridIndex<D>(domain, t, a, -1, 0);
    for (int b = 0; b < D; ++b)
    {
      const double moved = b == a ? 0.0 : std::fabs(CellBoxGridIndex<D>(domain, t, a, b, domain.size[b] - 1) - base);
      if (!(moved <= kCellBoxMaxDrift))
      {
        return false;
      }
      drift = moved > drift ? moved : drift;
    }
  }
  boxes.cellCount = 1;
  for (int a = 0; a < 3; ++a)
  {
    const std::int64_t size = a < D ? domain.size[a] : 1;
    const std::int64_t cells = a < D ? t.bspline.gridSize[a] - 3 : 1;
    boxes.cellsPerAxis[a] = cells > 0 ? cells : 0;
    boxes.cellCount *= boxes.cellsPerAxis[a];
    boxes.weights[a].assign(static_cast<std::size_t>(4 * size), 0.0);
    boxes.inside[a].assign(static_cast<std::size_t>(size), 0);
    boxes.range[a].assign(static_cast<std::size_t>(2 * boxes.cellsPerAxis[a]), 0);
    std::vector<std::int64_t> members(static_cast<std::size_t>(boxes.cellsPerAxis[a]), 0);
    for (std::int64_t i = 0; i < size; ++i)
    {
      std::int64_t cell = 0;
      double *     w = boxes.weights[a].data() + 4 * i;
      if (a >= D)
      {
        w[0] = 1.0;
      }
      else
      {
        const double x = CellBoxGridIndex<D>(domain, t, a, a, i);
        const double upper = static_cast<double>(t.bspline.gridSize[a]) - 2.0;
        if (drift > 0.0 && (std::fabs(x - 1.0) <= 2.0 * drift || std::fabs(x - upper) <= 2.0 * drift))
        {
          return false;
        }
        if (!BSplineAxisSupport(t.bspline, a, x, cell, w))
        {
          boxes.anyOutside = true;
          w[0] = w[1] = w[2] = w[3] = 0.0;
          continue;
        }
      }
      if (cell < 0 || cell >= boxes.cellsPerAxis[a])
      {
        return false; // not expected from ITK's valid region; the generic path decides
      }
      boxes.inside[a][i] = 1;
      std::int64_t * r = boxes.range[a].data() + 2 * cell;
      if (members[cell]++ == 0)
      {
        r[0] = i;
        r[1] = i + 1;
      }
      r[0] = i < r[0] ? i : r[0];
      r[1] = i + 1 > r[1] ? i + 1 : r[1];
    }
    for (std::int64_t c = 0; c < boxes.cellsPerAxis[a]; ++c)
    {
      const std::int64_t * r = boxes.range[a].data() + 2 * c;
      if (members[c] != r[1] - r[0])
      {
        return false;
      }
      if (a == 0 && r[1] - r[0] > boxes.longestRow)
      {
        boxes.longestRow = r[1] - r[0];
      }
    }
  }
  if (boxes.longestRow > kCellBoxMaxRow || boxes.cellCount >= (std::int64_t(1) << 31))
  {
    return false;
  }
  boxes.cellItemBegin.assign(static_cast<std::size_t>(boxes.cellCount + 2), 0);
  for (std::int64_t c = 0; c < boxes.cellCount; ++c)
  {
    boxes.cellItemBegin[c] = static_cast<std::int64_t>(boxes.items.size());
    const std::int64_t sx = c % boxes.cellsPerAxis[0];
    const std::int64_t sy = (c / boxes.cellsPerAxis[0]) % boxes.cellsPerAxis[1];
    const std::int64_t sz = c / (boxes.cellsPerAxis[0] * boxes.cellsPerAxis[1]);
    const std::int64_t nx = boxes.range[0][2 * sx + 1] - boxes.range[0][2 * sx];
    const std::int64_t rows =
      (boxes.range[1][2 * sy + 1] - boxes.range[1][2 * sy]) * (boxes.range[2][2 * sz + 1] - boxes.range[2][2 * sz]);
    if (nx == 0 || rows == 0)
    {
      continue;
    }
    const std::int64_t pieces = (nx * rows + kCellBoxItemPoints - 1) / kCellBoxItemPoints;
    const std::int64_t rowsPerPiece = (rows + pieces - 1) / pieces;
    for (std::int64_t b = 0; b < rows; b += rowsPerPiece)
    {
      MetricWorkItem item;
      item.cell = c;
      item.begin = b;
      item.end = b + rowsPerPiece < rows ? b + rowsPerPiece : rows;
      boxes.items.push_back(item);
    }
  }
  boxes.cellItemBegin[boxes.cellCount] = static_cast<std::int64_t>(boxes.items.size());
  boxes.cellItemBegin[boxes.cellCount + 1] = static_cast<std::int64_t>(boxes.items.size());
  return true;
}

/** Where a work item lies: its cell's first index along each axis, its row length
 * and rows per z (the box's extent along y). The indices in 32 bits (a plan's domain
 * has fewer than 2^31 points): a GPU thread keeps them live through a work item, and
 * 64-bit ones cost registers that the dense kernel spilled for. */
struct CellBoxExtent
{
  std::int32_t start[3];
  std::int64_t cell[3];
  std::int32_t rowLength;
  std::int32_t rowsPerSlice;
};

CIF_HD CellBoxExtent
CellBoxExtentOf(const MetricCellBoxView & boxes, std::int64_t cell)
{
  // 32-bit division (a plan has fewer than 2^31 cells: BuildMetricCellBoxes checks
  // it); a 64-bit division costs a GPU about a hundred instructions.
  CellBoxExtent e;
  const auto    c = static_cast<std::uint32_t>(cell);
  const auto    n0 = static_cast<std::uint32_t>(boxes.cellsPerAxis[0]);
  const auto    n1 = static_cast<std::uint32_t>(boxes.cellsPerAxis[1]);
  e.cell[0] = static_cast<std::int64_t>(c % n0);
  e.cell[1] = static_cast<std::int64_t>((c / n0) % n1);
  e.cell[2] = static_cast<std::int64_t>(c / (n0 * n1));
  for (int a = 0; a < 3; ++a)
  {
    e.start[a] = static_cast<std::int32_t>(boxes.range[a][2 * e.cell[a]]);
  }
  e.rowLength = static_cast<std::int32_t>(boxes.range[0][2 * e.cell[0] + 1] - e.start[0]);
  e.rowsPerSlice = static_cast<std::int32_t>(boxes.range[1][2 * e.cell[1] + 1] - e.start[1]);
  return e;
}

/** The domain indices (from its start) of row \a row of a box: y and z (32-bit
 * division: a box has fewer rows than the domain points, below 2^31). */
CIF_HD void
CellBoxRowIndex(const CellBoxExtent & e, std::int64_t row, std::int64_t & y, std::int64_t & z)
{
  const auto r = static_cast<std::uint32_t>(row);
  const auto perSlice = static_cast<std::uint32_t>(e.rowsPerSlice);
  y = e.start[1] + static_cast<std::int64_t>(r % perSlice);
  z = e.start[2] + static_cast<std::int64_t>(r / perSlice);
}

/** The support's control point of slot (a + 4 (b + 4 c)) of \a cell's coefficients
 * along \a axis. */
template <int D>
CIF_HD double
CellBoxCoefficient(const TransformStage & s, const std::int64_t cell[3], int slot, int axis)
{
  const int          a = slot % 4, b = (slot / 4) % 4, c = slot / 16;
  const std::int64_t k =
    ((cell[2] + (D > 2 ? c : 0)) * s.gridSize[1] + cell[1] + (D > 1 ? b : 0)) * s.gridSize[0] + cell[0] + a;
  return s.coefficients[axis][k];
}

/** Values of a y map (CellBoxYMapEntry) per y index: (a, c, d), a < 4, c below the
 * support's extent along z, d < D. */
template <int D>
constexpr int kCellBoxYMapValues = 4 * (D > 2 ? 4 : 1) * D;

/** Entry k = (a KZ + c) D + d of the support coefficients \a coefficient (slot-major,
 * D per slot) contracted with one y index's weights \a wy: what every row of that y
 * shares of its map (CellBoxRowMapEntry's inner sums). */
template <int D>
CIF_HD double
CellBoxYMapEntry(const double * coefficient, const double wy[4], int k)
{
  constexpr int KY = D > 1 ? 4 : 1;
  constexpr int KZ = D > 2 ? 4 : 1;
  const int     d = k % D, c = (k / D) % KZ, a = k / (D * KZ);
  double        inner = 0.0;
  for (int b = 0; b < KY; ++b)
  {
    inner += wy[b] * coefficient[(a + 4 * (b + 4 * c)) * D + d];
  }
  return inner;
}

/** A row's map entry (a, d) from its y index's map \a yMap (CellBoxYMapEntry's
 * values) and its z weights: CellBoxRowMapEntry's sum, the same operations. */
template <int D>
CIF_HD double
CellBoxRowMapEntryFromY(const double * yMap, const double wz[4], int a, int d)
{
  constexpr int KZ = D > 2 ? 4 : 1;
  double        sum = 0.0;
  for (int c = 0; c < KZ; ++c)
  {
    sum += wz[c] * yMap[(a * KZ + c) * D + d];
  }
  return sum;
}

/** One row's contraction of the support coefficients \a coefficient (slot-major,
 * D per slot) with the row's y and z weights: rowMap[a * D + d], a < 4. */
template <int D>
CIF_HD double
CellBoxRowMapEntry(const double * coefficient, const double wy[4], const double wz[4], int a, int d)
{
  constexpr int KZ = D > 2 ? 4 : 1;
  double        sum = 0.0;
  for (int c = 0; c < KZ; ++c)
  {
    sum += wz[c] * CellBoxYMapEntry<D>(coefficient, wy, (a * KZ + c) * D + d);
  }
  return sum;
}

/** A point's displacement from its row's map and its x weights. */
template <int D>
CIF_HD double
CellBoxDisplacement(const double * rowMap, const double wx[4], int d)
{
  double u = 0.0;
  for (int a = 0; a < 4; ++a)
  {
    u += wx[a] * rowMap[a * D + d];
  }
  return u;
}

/** The optimized stage of a point whose displacement is already formed. */
struct DisplacedStage
{
  double u[3];

  template <int D>
  CIF_HD void
  Apply(const double q[3], double y[3]) const
  {
    for (int i = 0; i < 3; ++i)
    {
      y[i] = q[i] + (i < D ? u[i] : 0.0);
    }
  }
};

/** Threads of a block of the GPU path, each taking one point of a tile of whole
 * rows of a work item (at most kCellBoxMaxTileRows rows). */
constexpr int kCellBoxBlockThreads = 256;
constexpr int kCellBoxMaxTileRows = 64;

/** Rows of a tile of the GPU path: as many whole rows of \a rowLength points as
 * \a pointsPerThread points a thread allow. */
CIF_HD int
CellBoxTileRows(int rowLength, int pointsPerThread = 1)
{
  const int rows = pointsPerThread * kCellBoxBlockThreads / (rowLength > 0 ? rowLength : 1);
  return rows < 1 ? 1 : (rows > kCellBoxMaxTileRows ? kCellBoxMaxTileRows : rows);
}

/** Rows whose force contractions the GPU path holds at once (a row group). */
constexpr int kCellBoxMaxGroupRows = 128;

/** Rows of a work item's row group for rows of \a rowLength points: whole tiles,
 * at most kCellBoxMaxGroupRows rows. Both paths add a group's rows to the partials
 * together (AddCellBoxGroupPartials), so both group alike. */
CIF_HD int
CellBoxGroupRows(int rowLength)
{
  const int tile = CellBoxTileRows(rowLength);
  const int tiles = kCellBoxMaxGroupRows / tile;
  return tile * (tiles > 1 ? tiles : 1);
}

/** Values of a slice entry set (CellBoxSliceEntry): (a, b, d), a and b < 4, d < D. */
template <int D>
constexpr int kCellBoxSliceValues = 4 * (D > 1 ? 4 : 1) * D;

/** Entry k = (a KY + b) D + d of one slice (one z) of a row group: the force
 * contractions \a rowForces (4 D values a row, a x D + d) of its \a rows
 * consecutive rows contracted with their y weights \a wy (4 a row, from the
 * slice's first row), rows in order. The partials are then separable along z too
 * (CellBoxSliceTerm): 4 KY D sums over a slice's rows and 4^D D over a group's
 * slices, instead of 4^D D over every row. */
template <int D>
CIF_HD double
CellBoxSliceEntry(const double * rowForces, int rows, const double * wy, int k)
{
  constexpr int KY = D > 1 ? 4 : 1;
  const int     d = k % D, b = (k / D) % KY, a = k / (D * KY);
  double        sum = 0.0;
  for (int r = 0; r < rows; ++r)
  {
    sum += wy[4 * r + b] * rowForces[r * 4 * D + a * D + d];
  }
  return sum;
}

/** One slice's contribution to output \a o of a cell's partials (slot (a + 4 (b +
 * 4 c)) x D + d): its entry (a, b, d) (CellBoxSliceEntry) times the slice's z
 * weight c, \a wz (4 values; 1, 0, 0, 0 below 3-D). */
template <int D>
CIF_HD double
CellBoxSliceTerm(const double * sliceEntries, const double wz[4], int o)
{
  constexpr int KY = D > 1 ? 4 : 1;
  const int     slot = o / D, d = o % D;
  const int     a = slot % 4, b = D > 1 ? (slot / 4) % 4 : 0, c = D > 2 ? slot / 16 : 0;
  return wz[c] * sliceEntries[(a * KY + b) * D + d];
}

/** Entry \a k of slice \a s (its z from the box's first) of a row group of cell
 * rows [\a group, \a groupEnd), whose force contractions are \a rowForces (4 D values
 * a row, from the group's first): CellBoxSliceEntry over the slice's rows in the
 * group, both paths' one reading of them. */
template <int D>
CIF_HD double
CellBoxGroupSliceEntry(const MetricCellBoxView & boxes,
                       const CellBoxExtent &     e,
                       const double *            rowForces,
                       int                       group,
                       int                       groupEnd,
                       int                       s,
                       int                       k)
{
  const int perSlice = e.rowsPerSlice;
  const int first = s * perSlice > group ? s * perSlice : group;
  const int end = (s + 1) * perSlice < groupEnd ? (s + 1) * perSlice : groupEnd;
  return CellBoxSliceEntry<D>(
    rowForces + (first - group) * 4 * D, end - first, boxes.weights[1] + 4 * (e.start[1] + first - s * perSlice), k);
}

/** The z weights of slice \a s of a box (its z from the box's first). */
CIF_HD const double *
CellBoxSliceZWeights(const MetricCellBoxView & boxes, const CellBoxExtent & e, int s)
{
  return boxes.weights[2] + 4 * (e.start[2] + s);
}

/** The partials' share of a row group of cell rows [\a group, \a groupEnd), whose
 * force contractions are \a rowForces (4 D values a row), added into \a partials
 * slice by slice (the host path; the GPU path adds the same terms in the same
 * order). */
template <int D>
void
AddCellBoxGroupPartials(const MetricCellBoxView & boxes,
                        const CellBoxExtent &     e,
                        const double *            rowForces,
                        int                       group,
                        int                       groupEnd,
                        double *                  partials)
{
  constexpr int kOutputs = (D > 2 ? 64 : (D > 1 ? 16 : 4)) * D;
  for (int s = group / e.rowsPerSlice; s * e.rowsPerSlice < groupEnd; ++s)
  {
    double entries[kCellBoxSliceValues<D>];
    for (int k = 0; k < kCellBoxSliceValues<D>; ++k)
    {
      entries[k] = CellBoxGroupSliceEntry<D>(boxes, e, rowForces, group, groupEnd, s, k);
    }
    const double * wz = CellBoxSliceZWeights(boxes, e, s);
    for (int o = 0; o < kOutputs; ++o)
    {
      partials[o] += CellBoxSliceTerm<D>(entries, wz, o);
    }
  }
}

/** Whether the dense domain's \a n-th point lies outside the B-spline's valid region
 * (where the B-spline is the identity and the point adds to the value only). */
template <int D>
CIF_HD bool
OutsideCellBoxes(const MetricDomain & domain, const MetricCellBoxView & boxes, std::int64_t n)
{
  std::uint32_t rest = static_cast<std::uint32_t>(n);
  bool          outside = false;
  for (int a = 0; a < D; ++a)
  {
    const auto size = static_cast<std::uint32_t>(domain.size[a]);
    outside = outside || boxes.inside[a][rest % size] == 0;
    rest /= size;
  }
  return outside;
}
/** Adds the dense domain's \a n-th point to the value's sums (\a count valid
 * points, \a value the term's sum) where it lies outside the cell boxes: the
 * B-spline leaves it in place and it adds to the value only. */
template <int D, typename TValue, typename TTerm>
CIF_HD void
AddOutsideCellBoxesPoint(const MetricScene<TValue> &   scene,
                         const MetricMovingTransform & transform,
                         const TTerm &                 term,
                         const MetricCellBoxView &     boxes,
                         std::int64_t                  n,
                         double &                      count,
                         double &                      value)
{
  if (!OutsideCellBoxes<D>(scene.domain, boxes, n))
  {
    return;
  }
  double v[3];
  VirtualPointOf<D>(scene.domain, n, v);
  const MetricPointSample s = SampleMetricPoint<D>(scene, transform, v, true);
  double                  force[3], termValue;
  if (s.valid && term.template Apply<D>(s, termValue, force))
  {
    count += 1.0;
    value += termValue;
  }
}

/** The CPU path of a metric's sums in cell boxes (the B-spline derivative gathered
 * per control point into \a bsplineDerivative), the same sums as
 * EvaluateMetricSumsOnHost's with a B-spline stage, added to \a sums (valid points,
 * the metric's sum). \a parallelFor: a callable (count, body(i)). */
template <int D, typename TValue, typename TTerm, typename TParallelFor>
void
EvaluateMetricSumsInCellBoxesOnHost(const MetricScene<TValue> &   scene,
                                    const MetricMovingTransform & transform,
                                    const TTerm &                 term,
                                    const MetricCellBoxView &     boxes,
                                    TParallelFor &&               parallelFor,
                                    double                        sums[2],
                                    std::vector<double> *         bsplineDerivative)
{
  constexpr int       kSupport = (D > 2 ? 64 : (D > 1 ? 16 : 4));
  constexpr int       kOutputs = kSupport * D;
  const std::int64_t  itemCount = boxes.itemCount;
  std::vector<double> itemPartials(static_cast<std::size_t>(itemCount * kOutputs), 0.0);
  std::vector<double> itemSums(static_cast<std::size_t>(2 * itemCount), 0.0);
  parallelFor(itemCount, [&](std::int64_t i) {
    const MetricWorkItem & item = boxes.items[i];
    const CellBoxExtent    e = CellBoxExtentOf(boxes, item.cell);
    double                 coefficient[kOutputs];
    for (int o = 0; o < kOutputs; ++o)
    {
      coefficient[o] = CellBoxCoefficient<D>(transform.bspline, e.cell, o / D, o % D);
    }
    double *   partials = itemPartials.data() + i * kOutputs;
    double     count = 0.0, value = 0.0;
    const int  groupRows = CellBoxGroupRows(e.rowLength);
    double     rowForces[kCellBoxMaxGroupRows * 4 * D];
    const auto begin = static_cast<int>(item.begin), end = static_cast<int>(item.end);
    for (int group = begin; group < end; group += groupRows)
    {
      const int groupEnd = end < group + groupRows ? end : group + groupRows;
      for (int row = group; row < groupEnd; ++row)
      {
        std::int64_t y, z;
        CellBoxRowIndex(e, row, y, z);
        const double * wy = boxes.weights[1] + 4 * y;
        const double * wz = boxes.weights[2] + 4 * z;
        double         rowMap[4 * D];
        double *       rowForce = rowForces + (row - group) * 4 * D;
        for (int o = 0; o < 4 * D; ++o)
        {
          rowMap[o] = CellBoxRowMapEntry<D>(coefficient, wy, wz, o / D, o % D);
          rowForce[o] = 0.0;
        }
        for (std::int64_t x = e.start[0]; x < e.start[0] + e.rowLength; ++x)
        {
          const double * wx = boxes.weights[0] + 4 * x;
          DisplacedStage stage;
          for (int d = 0; d < 3; ++d)
          {
            stage.u[d] = d < D ? CellBoxDisplacement<D>(rowMap, wx, d) : 0.0;
          }
          const double index[3] = { static_cast<double>(scene.domain.start[0] + x),
                                    static_cast<double>(scene.domain.start[1] + y),
                                    static_cast<double>(scene.domain.start[2] + z) };
          double       v[3];
          VirtualPointAtIndex<D>(scene.domain, index, v);
          const MetricPointSample s = SampleMetricPointThrough<D>(scene, transform, stage, v, true);
          double                  force[3], h[3], termValue;
          if (!s.valid || !term.template Apply<D>(s, termValue, force))
          {
            continue;
          }
          count += 1.0;
          value += termValue;
          PullBackThroughAfter<D>(transform, force, h);
          for (int o = 0; o < 4 * D; ++o)
          {
            rowForce[o] += wx[o / D] * h[o % D];
          }
        }
      }
      AddCellBoxGroupPartials<D>(boxes, e, rowForces, group, groupEnd, partials);
    }
    itemSums[2 * i] = count;
    itemSums[2 * i + 1] = value;
  });
  // The points outside the valid region (the B-spline leaves them in place): the
  // value only.
  constexpr std::int64_t chunk = 4096;
  const std::int64_t     chunks = boxes.anyOutside ? (scene.domain.count + chunk - 1) / chunk : 0;
  std::vector<double>    outsideSums(static_cast<std::size_t>(2 * chunks), 0.0);
  parallelFor(chunks, [&](std::int64_t c) {
    const std::int64_t end = scene.domain.count < (c + 1) * chunk ? scene.domain.count : (c + 1) * chunk;
    for (std::int64_t n = c * chunk; n < end; ++n)
    {
      AddOutsideCellBoxesPoint<D>(scene, transform, term, boxes, n, outsideSums[2 * c], outsideSums[2 * c + 1]);
    }
  });
  for (std::int64_t i = 0; i < itemCount; ++i)
  {
    sums[0] += itemSums[2 * i];
    sums[1] += itemSums[2 * i + 1];
  }
  for (std::int64_t c = 0; c < chunks; ++c)
  {
    sums[0] += outsideSums[2 * c];
    sums[1] += outsideSums[2 * c + 1];
  }
  GatherBSplineDerivativeOnHost<D>(
    itemPartials.data(), boxes.cellItemBegin, boxes.cellsPerAxis, transform.bspline, parallelFor, bsplineDerivative);
}

} // namespace cif

#endif
