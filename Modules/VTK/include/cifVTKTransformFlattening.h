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
#ifndef cifVTKTransformFlattening_h
#define cifVTKTransformFlattening_h

#include "CudaImageFiltersVTKExport.h"
#include "cifVTKTransformStages.h"

#include <string>
#include <vector>

class vtkAbstractTransform;
class vtkDataArray;

/** \file cifVTKTransformFlattening.h
 * A VTK transform as device stages (cifVTKTransformStages.h): a vtkLinearTransform,
 * a forward vtkBSplineTransform with a 3-component float or double grid, or a
 * vtkGeneralTransform made of these (nested ones included), in the order VTK applies
 * them (vtkGeneralTransform::GetConcatenatedTransform, which already accounts for
 * an inverted concatenation). */
namespace cif
{
namespace vtkmath
{
/** Fills \a stages and, per stage, the B-spline grid's scalars (nullptr for linear
 * stages: the caller puts the grid where the code that runs the stages can read it
 * and sets stage.grid). Returns "" on success, else why the transform must be
 * mapped on the host (another kind, an inverted B-spline, too many stages). */
CudaImageFiltersVTK_EXPORT std::string
FlattenTransform(vtkAbstractTransform * transform, TransformStages & stages, std::vector<vtkDataArray *> & grids);
} // namespace vtkmath
} // namespace cif

#endif
