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
#ifndef cifVTKResliceJob_h
#define cifVTKResliceJob_h

#include "cifVTKInterpolationMath.h"
#include "cifVTKTransformStages.h"

#include <cstdint>

/** \file cifVTKResliceJob.h
 * One vtkImageReslice execution with a degree-3 vtkImageBSplineInterpolator, as plain
 * data: what the CUDA kernel and the CPU path need, and nothing of VTK. The VTK side
 * (vtkCudaImageReslice) fills it from the filter, its interpolator, its transform and
 * the pipeline's information, with the values VTK itself computes (the index matrix,
 * the interpolator's bounds and border mode). */
namespace cif
{
namespace vtkmath
{

/** Output scalar types served (VTK_CHAR and VTK_SIGNED_CHAR are both Int8). */
enum class ScalarKind : int
{
  Int8,
  UInt8,
  Int16,
  UInt16,
  Int32,
  UInt32,
  Float32,
  Float64
};

/** Where the input position of an output voxel comes from. */
enum class PointSource : int
{
  Matrix, ///< the index matrix alone (no transform, or a homogeneous one folded into it)
  Stages, ///< the index matrix to a world point, then device-side transform stages
  Given   ///< positions computed on the host (any other transform), one per voxel
};

struct ResliceJob
{
  // The coefficients the interpolator reads: a host or device pointer to the first
  // interpolated component of the voxel at inputExtent's start.
  const void * input = nullptr;
  bool         inputIsDouble = false;
  int          inputExtent[6] = { 0, -1, 0, -1, 0, -1 };
  std::int64_t inputIncrement[3] = { 1, 1, 1 }; ///< scalars between neighbours along x, y, z
  int          components = 1;                  ///< components interpolated (and written)
  Border       border = Border::Clamp;
  double       bounds[6] = { 0, 0, 0, 0, 0, 0 }; ///< the interpolator's bounds, in input index space

  // Output index -> input index (Matrix), or -> world point before the stages (Stages).
  PointSource     source = PointSource::Matrix;
  double          matrix[4][4] = { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 } };
  bool            perspective = false; ///< the last row is not (0, 0, 0, 1)
  TransformStages stages;
  double          inputOrigin[3] = { 0, 0, 0 };         ///< world -> input index after the stages
  double          inputInverseSpacing[3] = { 1, 1, 1 }; ///< 1/spacing, as VTK precomputes it
  const double *  points = nullptr;                     ///< Given: x, y, z per voxel of outputExtent

  // The output voxels computed: outputExtent, x fastest, components interleaved.
  void *     output = nullptr;
  ScalarKind outputKind = ScalarKind::Float32;
  int        outputExtent[6] = { 0, -1, 0, -1, 0, -1 };
  double     background[4] = { 0, 0, 0, 0 }; ///< BackgroundColor (components past 4 get 0)
  double     scalarShift = 0;                ///< ScalarShift and ScalarScale
  double     scalarScale = 1;

  CIF_HD std::int64_t
         OutputSize(int axis) const
  {
    return static_cast<std::int64_t>(outputExtent[2 * axis + 1]) - outputExtent[2 * axis] + 1;
  }
  CIF_HD std::int64_t
         OutputVoxels() const
  {
    const std::int64_t x = OutputSize(0), y = OutputSize(1), z = OutputSize(2);
    return x > 0 && y > 0 && z > 0 ? x * y * z : 0;
  }
};

} // namespace vtkmath
} // namespace cif

#endif
