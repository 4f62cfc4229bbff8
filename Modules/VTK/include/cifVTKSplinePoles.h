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
#ifndef cifVTKSplinePoles_h
#define cifVTKSplinePoles_h

#include "cifBSplinePoles.h"
#include "cifBoundaryMode.h"

#include <cfloat>
#include <cmath>

/** \file cifVTKSplinePoles.h
 * What makes the project's prefilter compute VTK's coefficients
 * (vtkImageBSplineCoefficients, vtkImageBSplineInternals): the same poles and gain;
 * a causal start truncated where the pole's powers fall below DBL_EPSILON (28 terms
 * for degree 3, against ITK's 1e-10 and 18 terms) and exact on lines no longer than
 * that, which is also VTK's rule for lines of 16 samples or fewer; and VTK's border
 * modes as the project's boundary modes. */
namespace cif
{
namespace vtkmath
{
inline SplinePoles
MakeVTKSplinePoles(unsigned int degree)
{
  SplinePoles poles;
  MakeSplinePoles(degree, poles);
  for (int k = 0; k < poles.count; ++k)
  {
    poles.horizon[k] = static_cast<int>(std::ceil(std::log(DBL_EPSILON) / std::log(std::fabs(poles.pole[k]))));
  }
  return poles;
}

/** VTK_IMAGE_BORDER_CLAMP (0), _REPEAT (1), _MIRROR (2) as prefilter boundaries:
 * VTK's clamp prefilters the half-sample symmetric extension. */
inline BoundaryMode
PrefilterBoundaryOfVTKBorder(int vtkBorderMode)
{
  switch (vtkBorderMode)
  {
    case 1:
      return BoundaryMode::Periodic;
    case 2:
      return BoundaryMode::Mirror;
    default:
      return BoundaryMode::HalfSampleMirror;
  }
}
} // namespace vtkmath
} // namespace cif

#endif
