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
// BSplineDisplacementFieldCLI: a 3D Slicer CLI module around
// TransformToDisplacementFieldGPUFilter. Evaluates a transform from a file ITK reads
// (.tfm/.txt, .h5, .mat: B-spline, affine family, displacement field, composite) or an
// elastix transform parameter file (and the chain it names) at every voxel of a grid
// (a reference volume's, or the one the elastix file names) and writes the dense
// displacement field T(p) - p as a vector volume (float, one component per axis) with
// that grid's origin, spacing and direction, atomically: the B-spline deformation
// field of elastic registration, what transformix -def all writes. Slicer's standard
// flags, progress and return parameters: cifModuleCommandLine.h.
//
//   BSplineDisplacementFieldCLI --transform T [--referenceVolume R] [--cpu] outputField
#include "cifModuleDescription.h"
#include "cifModuleFilterRun.h"
#include "cifRunCLIModule.h"
#include "cifTransformFile.h"
#include "itkImageFileReader.h"
#include "itkTransformToDisplacementFieldGPUFilter.h"

#include <string>

namespace
{
/** The module's parameters, declared once: its XML description and its command line. */
cif::ModuleDeclaration
Declare()
{
  auto module = cif::DeclareModule(
    "Registration.GPU",
    "B-spline Displacement Field (GPU)",
    "Evaluates a transform (B-spline, affine family, displacement field, or a composite of these) at every voxel of a "
    "reference volume's grid and writes the dense displacement field T(p) - p as a vector volume on that grid, on the "
    "GPU (CPU when there is none), matching ITK's TransformToDisplacementFieldFilter: the B-spline deformation field "
    "of elastic registration. As in ITK, the transform maps points of the reference (fixed) grid to the moving image. "
    "With an elastix transform parameter file and no reference volume, the field is transformix's -def all: on the "
    "grid the file names.",
    "Dense displacement field of a transform");
  auto & parameters = module.Group("Parameters", "The transform to evaluate.");
  parameters
    .Transform("transform",
               "bspline",
               "Transform",
               "The transform to evaluate: a B-spline transform (as elastic registration produces), any transform "
               "ITK reads (affine family, displacement field, composite), or an elastix transform parameter file "
               "(TransformParameters.0.txt, with the chain of initial transforms it names).")
    .FileExtensions(cif::kTransformFileExtensions)
    .Required();
  cif::AddForceCPU(parameters);
  cif::AddOutputs(module);
  auto & io = module.Group("IO", "The grid and the field.");
  io.Image("referenceVolume",
           "any",
           "Reference volume",
           "The grid (origin, spacing, direction, size) the field is evaluated on; its voxels are not read. When "
           "none is given, the grid the elastix transform file names (its Size, Index, Spacing, Origin, Direction); "
           "an ITK transform file names none, so it needs one.");
  io.Image("outputField",
           "vector",
           "Displacement field",
           "T(p) - p at every voxel of the grid, one float component per axis.")
    .Output()
    .Index(0);
  return module;
}

template <unsigned int D>
void
EvaluateField(const cif::ModuleArguments & arguments, cif::ModuleRun & run)
{
  using Field = itk::Image<itk::Vector<float, D>, D>;
  using Reference = itk::Image<float, D>;
  const std::string path = arguments.String("transform");
  const auto        file = cif::ReadTransformAndGrid<D>(path);
  const auto        transform = file.transform;
  run.Progress().Report(0.05, 1.0, "Read the transform");
  run.Progress().ThrowIfAborted();

  auto              filter = itk::TransformToDisplacementFieldGPUFilter<Field, double>::New();
  const std::string reference = arguments.String("referenceVolume");
  filter->SetTransform(transform);
  if (!reference.empty())
  {
    auto referenceReader = itk::ImageFileReader<Reference>::New();
    referenceReader->SetFileName(reference);
    referenceReader->UpdateOutputInformation(); // only its grid is needed
    filter->SetReferenceImage(referenceReader->GetOutput());
    filter->SetUseReferenceImage(true);
  }
  else
  {
    if (!file.elastixGrid || !file.elastixGrid->IsValid())
    {
      throw std::runtime_error(path + " names no output grid: give --referenceVolume");
    }
    const auto & grid = *file.elastixGrid;
    filter->SetSize(grid.Size);
    filter->SetOutputStartIndex(grid.Index);
    filter->SetOutputSpacing(grid.Spacing);
    filter->SetOutputOrigin(grid.Origin);
    filter->SetOutputDirection(grid.Direction);
    filter->SetUseReferenceImage(false);
  }
  cif::RunAndWrite(run,
                   filter.GetPointer(),
                   arguments.String("outputField"),
                   0.1,
                   "Evaluating the transform at every voxel",
                   transform->GetNameOfClass());
}

void
Execute(const cif::ModuleArguments & arguments, cif::ModuleRun & run)
{
  // the field's dimension: the reference volume's, else the elastix file's
  const std::string reference = arguments.String("referenceVolume");
  const std::string transform = arguments.String("transform");
  unsigned int      dimension = 0;
  if (!reference.empty())
  {
    dimension = cif::ReadVolumeInformation(reference)->GetNumberOfDimensions();
  }
  else if (cif::IsElastixTransformFile(transform))
  {
    dimension = cif::ElastixTransformFileDimension(transform);
  }
  else
  {
    throw std::runtime_error("no --referenceVolume: the field's grid is a reference volume's or the one an elastix "
                             "transform parameter file names, and " +
                             transform + " is no elastix file");
  }
  switch (dimension)
  {
    case 2:
      EvaluateField<2>(arguments, run);
      break;
    case 3:
      EvaluateField<3>(arguments, run);
      break;
    default:
      throw std::runtime_error(std::to_string(dimension) + "-D volumes are not supported (2-D or 3-D)");
  }
}
} // namespace

CIF_DEFINE_CLI_MODULE(Declare, Execute)
