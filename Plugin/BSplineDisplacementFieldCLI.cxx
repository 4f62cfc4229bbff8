// BSplineDisplacementFieldCLI: a 3D Slicer CLI module around
// TransformToDisplacementFieldGPUFilter. Evaluates a transform from a file ITK reads
// (.tfm/.txt, .h5, .mat: B-spline, affine family, displacement field, composite) at
// every voxel of a reference volume's grid and writes the dense displacement field
// T(p) - p as a vector volume (float, one component per axis) with the reference's
// origin, spacing and direction, atomically: the B-spline deformation field of
// elastic registration. Slicer's standard flags, progress and return parameters:
// cifModuleCommandLine.h.
//
//   BSplineDisplacementFieldCLI --transform T [--cpu] referenceVolume outputField
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
    "Registration.GPU", "B-spline Displacement Field (GPU)",
    "Evaluates a transform (B-spline, affine family, displacement field, or a composite of these) at every voxel of a "
    "reference volume's grid and writes the dense displacement field T(p) - p as a vector volume on that grid, on the "
    "GPU (CPU when there is none), matching ITK's TransformToDisplacementFieldFilter: the B-spline deformation field "
    "of elastic registration. As in ITK, the transform maps points of the reference (fixed) grid to the moving image.",
    "Dense displacement field of a transform");
  auto & parameters = module.Group("Parameters", "The transform to evaluate.");
  parameters
    .Transform("transform", "bspline", "Transform",
               "The transform to evaluate: a B-spline transform (as elastic registration produces), or any transform "
               "ITK reads (affine family, displacement field, composite).")
    .FileExtensions(cif::kTransformFileExtensions)
    .Required();
  cif::AddForceCPU(parameters);
  cif::AddOutputs(module);
  auto & io = module.Group("IO", "The grid and the field.");
  io.Image("referenceVolume", "any", "Reference volume",
           "The grid (origin, spacing, direction, size) the field is evaluated on; its voxels are not read.")
    .Index(0);
  io.Image("outputField", "vector", "Displacement field",
           "T(p) - p at every voxel of the reference grid, one float component per axis.")
    .Output()
    .Index(1);
  return module;
}

template <unsigned int D>
void
EvaluateField(const cif::ModuleArguments & arguments, cif::ModuleRun & run)
{
  using Field = itk::Image<itk::Vector<float, D>, D>;
  using Reference = itk::Image<float, D>;
  const auto transform = cif::ReadTransformFile<D>(arguments.String("transform"));
  run.Progress().Report(0.05, 1.0, "Read the transform");
  run.Progress().ThrowIfAborted();
  auto reference = itk::ImageFileReader<Reference>::New();
  reference->SetFileName(arguments.String("referenceVolume"));
  reference->UpdateOutputInformation(); // only its grid is needed

  auto filter = itk::TransformToDisplacementFieldGPUFilter<Field, double>::New();
  filter->SetTransform(transform);
  filter->SetReferenceImage(reference->GetOutput());
  filter->SetUseReferenceImage(true);
  cif::RunAndWrite(run, filter.GetPointer(), arguments.String("outputField"), 0.1,
                   "Evaluating the transform at every voxel", transform->GetNameOfClass());
}

void
Execute(const cif::ModuleArguments & arguments, cif::ModuleRun & run)
{
  const auto io = cif::ReadVolumeInformation(arguments.String("referenceVolume"));
  switch (io->GetNumberOfDimensions())
  {
    case 2:
      EvaluateField<2>(arguments, run);
      break;
    case 3:
      EvaluateField<3>(arguments, run);
      break;
    default:
      throw std::runtime_error(std::to_string(io->GetNumberOfDimensions()) + "-D volumes are not supported (2-D or 3-D)");
  }
}
} // namespace

CIF_DEFINE_CLI_MODULE(Declare, Execute)
