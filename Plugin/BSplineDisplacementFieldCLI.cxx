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
#include "cifModuleCommandLine.h"
#include "cifModuleDescription.h"
#include "cifRunCLIModule.h"
#include "cifTransformFile.h"
#include "itkImageFileReader.h"
#include "itkTransformToDisplacementFieldGPUFilter.h"

#include <string>

namespace
{
template <unsigned int D>
void
Run(const std::string & transformPath, const std::string & referencePath, const std::string & output, bool cpu,
    cif::ModuleRun & run)
{
  using Field = itk::Image<itk::Vector<float, D>, D>;
  using Reference = itk::Image<float, D>;
  const auto transform = cif::ReadTransformFile<D>(transformPath);
  run.Progress().Report(0.05, 1.0, "Read the transform");
  run.Progress().ThrowIfAborted();
  auto reference = itk::ImageFileReader<Reference>::New();
  reference->SetFileName(referencePath);
  reference->UpdateOutputInformation(); // only its grid is needed

  auto filter = itk::TransformToDisplacementFieldGPUFilter<Field, double>::New();
  filter->SetTransform(transform);
  filter->SetReferenceImage(reference->GetOutput());
  filter->SetUseReferenceImage(true);
  filter->SetUseGPU(!cpu);
  run.Progress().Watch(filter, 0.1, 0.8, "Evaluating the transform at every voxel");
  filter->Update();
  run.Progress().ThrowIfAborted();

  run.Progress().BeginStage(0.8, "Writing the displacement field");
  cif::WriteAtomically(filter->GetOutput(), output);
  const std::string path = itk::ToString(filter->GetLastExecutionPath());
  run.SetReturnParameter("executionPath", path);
  std::cout << "wrote " << output << " (" << path << ", " << transform->GetNameOfClass() << ")\n";
}
} // namespace

// The module's description, as Slicer reads it (--xml prints it too).
const char XMLModuleDescription[] = R"(<?xml version="1.0" encoding="utf-8"?>
<executable>
  <category>Registration.GPU</category>
  <title>B-spline Displacement Field (GPU)</title>
  <description>Evaluates a transform (B-spline, affine family, displacement field, or a composite of these) at every voxel of a reference volume's grid and writes the dense displacement field T(p) - p as a vector volume on that grid, on the GPU (CPU when there is none), matching ITK's TransformToDisplacementFieldFilter: the B-spline deformation field of elastic registration. As in ITK, the transform maps points of the reference (fixed) grid to the moving image.</description>
)" CIF_MODULE_PROVENANCE_XML R"(  <parameters>
    <label>Parameters</label>
    <description>The transform to evaluate.</description>
    <transform type="bspline" fileExtensions=".tfm,.txt,.h5,.hdf5,.mat">
      <name>transform</name>
      <longflag>transform</longflag>
      <label>Transform</label>
      <description>The transform to evaluate: a B-spline transform (as elastic registration produces), or any transform ITK reads (affine family, displacement field, composite).</description>
      <channel>input</channel>
    </transform>
)" CIF_FORCE_CPU_PARAMETER_XML R"(  </parameters>
)" CIF_OUTPUTS_GROUP_XML R"(  <parameters>
    <label>IO</label>
    <description>The grid and the field.</description>
    <image type="any">
      <name>referenceVolume</name>
      <label>Reference volume</label>
      <description>The grid (origin, spacing, direction, size) the field is evaluated on; its voxels are not read.</description>
      <channel>input</channel>
      <index>0</index>
    </image>
    <image type="vector">
      <name>outputField</name>
      <label>Displacement field</label>
      <description>T(p) - p at every voxel of the reference grid, one float component per axis.</description>
      <channel>output</channel>
      <index>1</index>
    </image>
  </parameters>
</executable>
)";

int
ModuleEntryPoint(int argc, char * argv[])
{
  return cif::RunModule(argc, argv, [&] {
    cif::ModuleCommandLine                cmd("Displacement field of a transform on the GPU (CudaImageFilters)");
    TCLAP::ValueArg<std::string>          transform("", "transform", "transform file to evaluate", true, "", "path", cmd);
    TCLAP::SwitchArg                      cpu("", "cpu", "run the CPU path", cmd, false);
    TCLAP::UnlabeledValueArg<std::string> reference("referenceVolume", "volume whose grid the field takes", true, "",
                                                    "path", cmd);
    TCLAP::UnlabeledValueArg<std::string> output("outputField", "displacement field volume", true, "", "path", cmd);
    cif::ModuleRun run(cmd, argc, argv, "B-spline Displacement Field (GPU)", "Dense displacement field of a transform");

    const auto io = cif::ReadVolumeInformation(reference.getValue());
    switch (io->GetNumberOfDimensions())
    {
      case 2:
        Run<2>(transform.getValue(), reference.getValue(), output.getValue(), cpu.getValue(), run);
        break;
      case 3:
        Run<3>(transform.getValue(), reference.getValue(), output.getValue(), cpu.getValue(), run);
        break;
      default:
        throw std::runtime_error(std::to_string(io->GetNumberOfDimensions()) +
                                 "-D volumes are not supported (2-D or 3-D)");
    }
    return run.Finish();
  });
}
