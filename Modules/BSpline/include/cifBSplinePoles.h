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
#ifndef cifBSplinePoles_h
#define cifBSplinePoles_h

#include "cifHostDevice.h"

#include <cmath>

namespace cif
{
/** The poles of the B-spline prefilter of one order, with ITK's gain and horizon.
 * Values and formulas as itk::BSplineDecompositionImageFilter::SetPoles() (Unser
 * 1997, Table I): order 3 has one pole, sqrt(3) - 2, and gain 6. */
struct SplinePoles
{
  int    count = 0; ///< 0 for orders 0 and 1 (the samples are the coefficients)
  double pole[2] = { 0, 0 };
  int    horizon[2] = { 0, 0 }; ///< ceil(ln(tolerance) / ln|z|): terms of the truncated causal start
  double gain = 1.0;            ///< product of (1 - z)(1 - 1/z), applied once per axis
};

/** ITK's tolerance for truncating the causal initialization (m_Tolerance). */
constexpr double kPrefilterTolerance = 1e-10;

/** Returns false for an order outside 0..5. */
inline bool
MakeSplinePoles(unsigned int order, SplinePoles & poles)
{
  poles = SplinePoles{};
  switch (order)
  {
    case 0:
    case 1:
      break;
    case 2:
      poles.count = 1;
      poles.pole[0] = std::sqrt(8.0) - 3.0;
      break;
    case 3:
      poles.count = 1;
      poles.pole[0] = std::sqrt(3.0) - 2.0;
      break;
    case 4:
      poles.count = 2;
      poles.pole[0] = std::sqrt(664.0 - std::sqrt(438976.0)) + std::sqrt(304.0) - 19.0;
      poles.pole[1] = std::sqrt(664.0 + std::sqrt(438976.0)) - std::sqrt(304.0) - 19.0;
      break;
    case 5:
      poles.count = 2;
      poles.pole[0] = std::sqrt(135.0 / 2.0 - std::sqrt(17745.0 / 4.0)) + std::sqrt(105.0 / 4.0) - 13.0 / 2.0;
      poles.pole[1] = std::sqrt(135.0 / 2.0 + std::sqrt(17745.0 / 4.0)) - std::sqrt(105.0 / 4.0) - 13.0 / 2.0;
      break;
    default:
      return false;
  }
  for (int k = 0; k < poles.count; ++k)
  {
    const double z = poles.pole[k];
    poles.gain *= (1.0 - z) * (1.0 - 1.0 / z);
    poles.horizon[k] = static_cast<int>(std::ceil(std::log(kPrefilterTolerance) / std::log(std::fabs(z))));
  }
  return true;
}
} // namespace cif

#endif
