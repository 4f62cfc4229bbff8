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
#ifndef cifVTKInterpolationMath_h
#define cifVTKInterpolationMath_h

#include "cifHostDevice.h"
#include "cifUnfusedArithmetic.h"

#include <cstdint>

/** \file cifVTKInterpolationMath.h
 * The index and weight arithmetic of VTK 9.1's image interpolators
 * (vtkInterpolationMath, vtkImageBSplineInterpolator, degree 3), written once for the
 * CPU path and the CUDA kernels. Plain types only: no VTK header, so nvcc sees none.
 *
 * Matching VTK to float rounding needs VTK's operations in VTK's order, in double,
 * each rounded once: on the device the products and sums go through __dmul_rn and
 * __dadd_rn so that nvcc does not fuse them into FMAs (rounded once instead of twice),
 * which would move a point across one of the 2^-16 steps below and change the
 * interpolated value by up to a gradient times 1.5e-5. */
namespace cif
{
namespace vtkmath
{

// VTK's host code rounds every operation (cifUnfusedArithmetic.h).
CIF_HD double
Mul(double a, double b)
{
  return MulUnfused(a, b);
}
CIF_HD double
Add(double a, double b)
{
  return AddUnfused(a, b);
}
CIF_HD double
Sub(double a, double b)
{
  return SubUnfused(a, b);
}

/** VTK's border modes (vtkImageBorderMode: VTK_IMAGE_BORDER_CLAMP, _REPEAT, _MIRROR). */
enum class Border : int
{
  Clamp = 0,
  Repeat = 1,
  Mirror = 2
};

/** VTK's fixed-point floor (vtkInterpolationMath::Floor on 64-bit hosts). Adding
 * 1.5 * 2^36 leaves 16 bits after the binary point, so the fraction \a f comes out
 * as a multiple of 2^-16 and a value within 2^-17 below an integer counts as that
 * integer: VTK's interpolation positions are quantized to 1/65536 of a voxel, and
 * so must be ours. */
CIF_HD int
FixedFloor(double x, double & f)
{
  constexpr double   kBias = 103079215104.0 + 7.62939453125e-06; // VTK_INTERPOLATE_FLOOR_TOL
  const double       shifted = Add(x, kBias);
  const std::int64_t i = static_cast<std::int64_t>(shifted);
  f = Sub(shifted, static_cast<double>(i)); // exact: both sides share the 2^-16 grid
  return static_cast<int>(i - 103079215104LL);
}

/** VTK's fixed-point rounding (vtkInterpolationMath::Round): half-way rounds up. */
CIF_HD int
FixedRound(double x)
{
  constexpr double   kBias = 103079215104.5 + 7.62939453125e-06;
  const std::int64_t i = static_cast<std::int64_t>(Add(x, kBias));
  return static_cast<int>(i - 103079215104LL);
}

/** Index \a a kept within [lo, hi] by \a border, returned relative to lo
 * (vtkInterpolationMath::Clamp, Wrap and Mirror: whole-sample mirror). */
CIF_HD int
BorderIndex(int a, int lo, int hi, Border border)
{
  if (border == Border::Repeat)
  {
    const int range = hi - lo + 1;
    a = (a - lo) % range;
    return a >= 0 ? a : a + range;
  }
  if (border == Border::Mirror)
  {
    const int range = hi - lo;
    const int period = 2 * range + (range == 0 ? 1 : 0);
    a -= lo;
    a = a >= 0 ? a : -a;
    a %= period;
    return a <= range ? a : period - a;
  }
  a = a <= hi ? a : hi;
  a -= lo;
  return a >= 0 ? a : 0;
}

/** The four weights of the cubic B-spline at fraction \a w in [0, 1), as VTK computes
 * them (vtkImageBSplineInternals::GetInterpolationWeights, degree 3), operation by
 * operation. */
CIF_HD void
CubicWeights(double w, double weights[4])
{
  constexpr double sixth = 1.0 / 6.0;
  weights[3] = Mul(Mul(Mul(sixth, w), w), w);
  weights[0] = Sub(Add(sixth, Mul(Mul(0.5, w), Sub(w, 1.0))), weights[3]);
  weights[2] = Sub(Add(w, weights[0]), Mul(2.0, weights[3]));
  weights[1] = Sub(Sub(Sub(1.0, weights[0]), weights[2]), weights[3]);
}

} // namespace vtkmath
} // namespace cif

#endif
