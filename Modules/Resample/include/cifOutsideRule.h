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
#ifndef cifOutsideRule_h
#define cifOutsideRule_h

#include "cifBoundaryMode.h"
#include "cifCubicInterpolation.h"
#include "cifHostDevice.h"

#include <limits>

/** \file cifOutsideRule.h
 * What cubic evaluation at a point gives where the point lies outside its grid's
 * extent, the span of the samples: start <= x <= start + size - 1 in continuous
 * index, on every axis. One definition for the CPU path and the CUDA kernels. */
namespace cif
{
/** The rule for points outside the grid's extent, by BoundaryMode:
 * - Mirror (default): ITK's BSplineInterpolateImageFunction, whose support indices
 *   are mirrored at the ends (the spline continued symmetrically about the end
 *   samples, one reflection deep). The point evaluator's rule.
 * - ClampToEdge: the value at the nearest point of the extent (each coordinate
 *   clamped into it); the gradient along a clamped axis is 0, since the value no
 *   longer changes along it. The coefficients stay ITK's (mirrored).
 * - Constant: \a value (NaN by default); the gradient is NaN when the value is, 0
 *   otherwise. A point within kOutsideTolerance of the extent counts as inside, so
 *   that a point computed as origin + (n - 1) spacing is inside despite rounding.
 * A point with a NaN or infinite coordinate evaluates to NaN in every mode: the
 * point-to-index matrix multiplies its zeros with the infinity (ITK's own indices
 * overflow there). Periodic is not a rule for points (the evaluation mirrors):
 * callers reject it. */
struct OutsideRule
{
  BoundaryMode mode = BoundaryMode::Mirror;
  double       value = std::numeric_limits<double>::quiet_NaN();
};

/** Continuous-index distance (in samples) past the extent within which Constant
 * still evaluates a point: far above the rounding of mapping a grid point to its
 * index (a few ulp of the index), far below any distance a table lookup means. */
constexpr double kOutsideTolerance = 1e-6;

/** Applies \a rule to the continuous index \a x (D axes) of a point on \a grid.
 * Returns false where the point takes rule.value instead of an evaluation (Constant,
 * outside). Otherwise \a x is ready to evaluate: with ClampToEdge clamped into the
 * extent, bit a of \a clampedAxes set for each axis clamped. NaN coordinates stay
 * NaN (and the evaluation with them NaN). */
template <int D>
CIF_HD bool
ApplyOutsideRule(const OutsideRule & rule, const CoefficientGrid & grid, double x[], unsigned int & clampedAxes)
{
  clampedAxes = 0;
  if (rule.mode == BoundaryMode::ClampToEdge)
  {
    for (int a = 0; a < D; ++a)
    {
      const double low = static_cast<double>(grid.start[a]);
      const double high = static_cast<double>(grid.start[a] + grid.size[a] - 1);
      if (x[a] < low)
      {
        x[a] = low;
        clampedAxes |= 1u << a;
      }
      else if (x[a] > high)
      {
        x[a] = high;
        clampedAxes |= 1u << a;
      }
    }
    return true;
  }
  if (rule.mode == BoundaryMode::Constant)
  {
    bool inside = true, nan = false;
    for (int a = 0; a < D; ++a)
    {
      const double low = static_cast<double>(grid.start[a]) - kOutsideTolerance;
      const double high = static_cast<double>(grid.start[a] + grid.size[a] - 1) + kOutsideTolerance;
      nan = nan || x[a] != x[a];
      inside = inside && x[a] >= low && x[a] <= high;
    }
    return inside || nan;
  }
  return true;
}
} // namespace cif

#endif
