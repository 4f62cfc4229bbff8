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
#ifndef cifMetricSumsHost_h
#define cifMetricSumsHost_h

#include "cifImageMetricMath.h"
#include "cifMetricPointOrder.h"
#include "cifMetricPointTerms.h"

#include <cstdint>
#include <type_traits>
#include <vector>

/** \file cifMetricSumsHost.h
 * A metric's sums over the points for one of its point terms (cifMetricPointTerms.h:
 * the term, and the force whose product with the transform's Jacobian is the
 * point's derivative), and the CPU path that forms them: for an affine-family
 * optimized stage the force's moments, from which the caller forms the derivative
 * with the transform's own Jacobian; for a cubic B-spline stage the per-cell partial
 * sums of force x weight, gathered per control point in a fixed order. The sums do
 * not depend on the number of threads. */
namespace cif
{
/** The sums of one evaluation: [0] valid points, [1] the metric's sum, then for an
 * affine-family stage the force's sum (D) and its moments about the reference point
 * (D x D, row i = force component). */
struct MetricSums
{
  double value[kMaxMetricSums] = {};
};

/** Adds one valid point's force \a h (pulled back to the optimized stage) to the
 * affine moments about \a reference. */
template <int D>
CIF_HD void
AddAffineMoments(const double h[3], const double q[3], const double reference[3], double * moments)
{
  for (int i = 0; i < D; ++i)
  {
    moments[i] += h[i];
    for (int j = 0; j < D; ++j)
    {
      moments[D + i * D + j] += h[i] * (q[j] - reference[j]);
    }
  }
}

/** One control point's derivative along \a axis: its item partials (4^D x D per
 * item: support offset, then axis) summed over the cells whose support holds it, in
 * a fixed order (cells k - (a, b, c), c then b then a, each cell's items in order).
 * \a controlPoint: the grid's linear index. \a TIndex: the type of its index
 * arithmetic (the GPU's gather uses 32 bits where the grid fits: 64-bit division
 * costs a GPU about a hundred instructions). The item ranges of a row of four cells
 * along x are consecutive in \a cellItemBegin: five entries bound all four, read
 * before any is used. The host's and the GPU's gathers both sum here. */
template <int D, typename TIndex = std::int64_t>
CIF_HD double
GatherControlPointDerivative(const double *       itemPartials,
                             const std::int64_t * cellItemBegin,
                             const std::int64_t   cellsPerAxis[3],
                             const std::int64_t   gridSize[3],
                             TIndex               controlPoint,
                             int                  axis)
{
  using Coordinate = std::conditional_t<sizeof(TIndex) <= 4, int, std::int64_t>; // signed: cells k - a may be < 0
  constexpr int KY = D > 1 ? 4 : 1;
  constexpr int KZ = D > 2 ? 4 : 1;
  constexpr int kPartials = 4 * KY * KZ * D; // an item's
  Coordinate    index[3] = { 0, 0, 0 };
  TIndex        rest = controlPoint;
  for (int a = 0; a < D; ++a)
  {
    const auto size = static_cast<TIndex>(gridSize[a]);
    index[a] = static_cast<Coordinate>(rest % size);
    rest /= size;
  }
  const auto cellsX = static_cast<Coordinate>(cellsPerAxis[0]);
  double     sum = 0.0;
  for (int c = 0; c < KZ; ++c)
  {
    for (int b = 0; b < KY; ++b)
    {
      const Coordinate y = index[1] - b, z = index[2] - c;
      if ((D > 1 && (y < 0 || y >= cellsPerAxis[1])) || (D > 2 && (z < 0 || z >= cellsPerAxis[2])))
      {
        continue;
      }
      // Cells x = index[0] - a for a = 3..0: entries row + x of the table, and the
      // one after the last; those outside [0, cellsX] are not read.
      const std::int64_t row = (static_cast<std::int64_t>(z) * cellsPerAxis[1] + y) * cellsX;
      std::int64_t       bound[5];
      for (int e = 0; e < 5; ++e)
      {
        const Coordinate x = index[0] - 3 + e;
        bound[e] = x >= 0 && x <= cellsX ? cellItemBegin[row + x] : 0;
      }
      // Each cell's first item read for all four cells before any is added (a GPU
      // thread then waits for one round of loads instead of four); the additions
      // stay in their order: cell a = 0..3, each cell's items in order.
      double first[4];
      for (int a = 0; a < 4; ++a)
      {
        const Coordinate x = index[0] - a;
        const bool       any = x >= 0 && x < cellsX && bound[3 - a] < bound[4 - a];
        first[a] = any ? itemPartials[bound[3 - a] * kPartials + (a + 4 * (b + 4 * c)) * D + axis] : 0.0;
      }
      for (int a = 0; a < 4; ++a)
      {
        const Coordinate x = index[0] - a;
        if (x < 0 || x >= cellsX || bound[3 - a] >= bound[4 - a])
        {
          continue;
        }
        const double * slot = itemPartials + (a + 4 * (b + 4 * c)) * D + axis;
        sum += first[a];
        for (std::int64_t item = bound[3 - a] + 1; item < bound[4 - a]; ++item)
        {
          sum += slot[item * kPartials];
        }
      }
    }
  }
  return sum;
}

/** Every control point's derivative (D x P, itk::BSplineTransform's parameter
 * layout) gathered from the work items' partials into \a bsplineDerivative. */
template <int D, typename TParallelFor>
void
GatherBSplineDerivativeOnHost(const double *         itemPartials,
                              const std::int64_t *   cellItemBegin,
                              const std::int64_t     cellsPerAxis[3],
                              const TransformStage & grid,
                              TParallelFor &&        parallelFor,
                              std::vector<double> *  bsplineDerivative)
{
  const std::int64_t controlPoints = grid.gridSize[0] * grid.gridSize[1] * grid.gridSize[2];
  bsplineDerivative->assign(static_cast<std::size_t>(D * controlPoints), 0.0);
  parallelFor(controlPoints, [&](std::int64_t k) {
    for (int axis = 0; axis < D; ++axis)
    {
      (*bsplineDerivative)[axis * controlPoints + k] =
        GatherControlPointDerivative<D>(itemPartials, cellItemBegin, cellsPerAxis, grid.gridSize, k, axis);
    }
  });
}

/** Adds one valid point's force \a h at optimized-stage input \a q to its cell's
 * partials (4^D x D): force x tensor-product weight of each support control point. */
template <int D>
CIF_HD void
AddBSplinePartials(const TransformStage & bspline, const double h[3], const double q[3], double * partials)
{
  std::int64_t start[3];
  double       w[3][4];
  if (!BSplineSupport<D>(bspline, q, start, w))
  {
    return;
  }
  constexpr int KY = D > 1 ? 4 : 1;
  constexpr int KZ = D > 2 ? 4 : 1;
  for (int c = 0; c < KZ; ++c)
  {
    for (int b = 0; b < KY; ++b)
    {
      const double wyz = w[1][b] * w[2][c];
      for (int a = 0; a < 4; ++a)
      {
        const double weight = w[0][a] * wyz;
        for (int d = 0; d < D; ++d)
        {
          partials[(a + 4 * (b + 4 * c)) * D + d] += weight * h[d];
        }
      }
    }
  }
}

/** A metric's sums over \a scene's points in the domain's order, in chunks of 4096
 * points added in order (the same sums whatever the threads): [0] the valid points,
 * [1, 1 + V) the term's V = MetricTermValues<TTerm> values, then, with
 * \a withDerivative (terms of one value, an affine-family stage), the force's
 * moments about \a reference. \a parallelFor: a callable (count, body(i)). */
template <int D, typename TValue, typename TTerm, typename TParallelFor>
MetricSums
EvaluateMetricSumsInDomainOrderOnHost(const MetricScene<TValue> &   scene,
                                      const MetricMovingTransform & transform,
                                      const TTerm &                 term,
                                      const double                  reference[3],
                                      bool                          withDerivative,
                                      TParallelFor &&               parallelFor)
{
  constexpr int kValues = MetricTermValues<TTerm>::value;
  static_assert(1 + kValues <= kMaxMetricSums, "too many values per point");
  constexpr std::int64_t  chunk = 4096;
  const std::int64_t      count = scene.domain.count;
  const std::int64_t      chunks = (count + chunk - 1) / chunk;
  std::vector<MetricSums> partial(static_cast<std::size_t>(chunks));
  parallelFor(chunks, [&](std::int64_t c) {
    MetricSums &       sums = partial[c];
    const std::int64_t end = count < (c + 1) * chunk ? count : (c + 1) * chunk;
    for (std::int64_t n = c * chunk; n < end; ++n)
    {
      double v[3];
      VirtualPointOf<D>(scene.domain, n, v);
      const MetricPointSample s = SampleMetricPoint<D>(scene, transform, v, withDerivative);
      if (!s.valid)
      {
        continue;
      }
      double force[3], values[kValues];
      if (!ApplyMetricTerm<D>(term, s, values, force))
      {
        continue;
      }
      sums.value[0] += 1.0;
      for (int k = 0; k < kValues; ++k)
      {
        sums.value[1 + k] += values[k];
      }
      if constexpr (kValues == 1)
      {
        if (withDerivative)
        {
          double h[3];
          PullBackThroughAfter<D>(transform, force, h);
          AddAffineMoments<D>(h, s.q, reference, sums.value + 2);
        }
      }
    }
  });
  MetricSums total;
  for (const MetricSums & sums : partial)
  {
    for (int k = 0; k < kMaxMetricSums; ++k)
    {
      total.value[k] += sums.value[k];
    }
  }
  return total;
}

/** The CPU path of a metric's sums (\a term: a point term of cifMetricPointTerms.h)
 * over \a scene's points. With
 * \a withDerivative and a B-spline stage, \a order must be built for this scene and
 * grid (BuildMetricPointOrder) and \a bsplineDerivative gets the D x P sums
 * (parameter layout of itk::BSplineTransform: axis, then control point); with an
 * affine-family stage the moments about \a reference land in \a sums. Nothing is
 * divided by the number of points yet. \a parallelFor: a callable (count, body(i)). */
template <int D, typename TValue, typename TTerm, typename TParallelFor>
MetricSums
EvaluateMetricSumsOnHost(const MetricScene<TValue> &   scene,
                         const MetricMovingTransform & transform,
                         const TTerm &                 term,
                         const MetricPointOrder *      order,
                         const double                  reference[3],
                         bool                          withDerivative,
                         TParallelFor &&               parallelFor,
                         std::vector<double> *         bsplineDerivative)
{
  const bool bsplineGather = withDerivative && transform.kind == OptimizedStageKind::BSpline;
  if (!bsplineGather)
  {
    return EvaluateMetricSumsInDomainOrderOnHost<D>(scene, transform, term, reference, withDerivative, parallelFor);
  }

  MetricSums              total;
  constexpr int           kSupport = (D > 2 ? 64 : (D > 1 ? 16 : 4));
  const std::int64_t      itemCount = static_cast<std::int64_t>(order->items.size());
  std::vector<double>     itemPartials(static_cast<std::size_t>(itemCount * kSupport * D), 0.0);
  std::vector<MetricSums> itemSums(static_cast<std::size_t>(itemCount));
  parallelFor(itemCount, [&](std::int64_t i) {
    const MetricWorkItem & item = order->items[i];
    MetricSums &           sums = itemSums[i];
    double *               partials = itemPartials.data() + i * kSupport * D;
    for (std::int64_t p = item.begin; p < item.end; ++p)
    {
      double v[3];
      VirtualPointOf<D>(scene.domain, order->order[p], v);
      const MetricPointSample s = SampleMetricPoint<D>(scene, transform, v, true);
      if (!s.valid)
      {
        continue;
      }
      double force[3], h[3], value;
      if (!term.template Apply<D>(s, value, force))
      {
        continue;
      }
      sums.value[0] += 1.0;
      sums.value[1] += value;
      if (item.cell < order->cellCount)
      {
        PullBackThroughAfter<D>(transform, force, h);
        AddBSplinePartials<D>(transform.bspline, h, s.q, partials);
      }
    }
  });
  for (const MetricSums & sums : itemSums)
  {
    total.value[0] += sums.value[0];
    total.value[1] += sums.value[1];
  }
  GatherBSplineDerivativeOnHost<D>(itemPartials.data(),
                                   order->cellItemBegin.data(),
                                   order->cellsPerAxis,
                                   transform.bspline,
                                   parallelFor,
                                   bsplineDerivative);
  return total;
}
} // namespace cif

#endif
