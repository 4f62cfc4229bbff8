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
#include "cifVTKTransformFlattening.h"

#include "vtkBSplineTransform.h"
#include "vtkDataArray.h"
#include "vtkGeneralTransform.h"
#include "vtkImageData.h"
#include "vtkLinearTransform.h"
#include "vtkMatrix4x4.h"
#include "vtkPointData.h"

namespace cif
{
namespace vtkmath
{
namespace
{
std::string
Append(vtkAbstractTransform * transform, TransformStages & stages, std::vector<vtkDataArray *> & grids)
{
  if (!transform)
  {
    return "a null transform";
  }
  transform->Update();
  if (auto * general = vtkGeneralTransform::SafeDownCast(transform))
  {
    for (int i = 0; i < general->GetNumberOfConcatenatedTransforms(); ++i)
    {
      const std::string why = Append(general->GetConcatenatedTransform(i), stages, grids);
      if (!why.empty())
      {
        return why;
      }
    }
    return "";
  }
  if (stages.count == kMaxTransformStages)
  {
    return "more than " + std::to_string(kMaxTransformStages) + " transforms";
  }
  TransformStage & stage = stages.stage[stages.count];
  stage = TransformStage{};
  if (auto * linear = vtkLinearTransform::SafeDownCast(transform))
  {
    vtkMatrix4x4 * m = linear->GetMatrix();
    stage.kind = StageKind::Linear;
    for (int r = 0; r < 3; ++r)
    {
      for (int c = 0; c < 4; ++c)
      {
        stage.matrix[r][c] = m->GetElement(r, c);
      }
    }
    grids.push_back(nullptr);
    ++stages.count;
    return "";
  }
  if (auto * spline = vtkBSplineTransform::SafeDownCast(transform))
  {
    if (spline->GetInverseFlag())
    {
      return "an inverted vtkBSplineTransform (Newton iterations per point)";
    }
    vtkImageData * grid = spline->GetCoefficientData();
    vtkDataArray * scalars = grid ? grid->GetPointData()->GetScalars() : nullptr;
    if (!scalars || grid->GetNumberOfScalarComponents() != 3 ||
        (scalars->GetDataType() != VTK_FLOAT && scalars->GetDataType() != VTK_DOUBLE))
    {
      return "a vtkBSplineTransform without a 3-component float or double grid";
    }
    stage.kind = StageKind::BSpline;
    stage.gridIsDouble = scalars->GetDataType() == VTK_DOUBLE;
    grid->GetExtent(stage.gridExtent);
    vtkIdType increments[3];
    grid->GetIncrements(increments);
    for (int a = 0; a < 3; ++a)
    {
      stage.gridIncrement[a] = increments[a];
    }
    grid->GetOrigin(stage.gridOrigin);
    grid->GetSpacing(stage.gridSpacing);
    stage.border = static_cast<GridBorder>(spline->GetBorderMode());
    stage.displacementScale = spline->GetDisplacementScale();
    grids.push_back(scalars);
    ++stages.count;
    return "";
  }
  return std::string("a ") + transform->GetClassName();
}
} // namespace

std::string
FlattenTransform(vtkAbstractTransform * transform, TransformStages & stages, std::vector<vtkDataArray *> & grids)
{
  stages.count = 0;
  grids.clear();
  return Append(transform, stages, grids);
}
} // namespace vtkmath
} // namespace cif
