// BSplinePrefilterCLI: a 3D Slicer CLI module around BSplinePrefilterGPUImageFilter.
// Reads a 2-D or 3-D volume in any format ITK reads (scalar, RGB or vector pixels,
// filtered per component) and writes its B-spline coefficients as float, with the
// input's geometry and number of components, atomically (a temporary file, then a
// rename). Slicer's standard flags, progress and return parameters:
// cifModuleCommandLine.h.
//
//   BSplinePrefilterCLI [--splineOrder 3] [--boundary mirror|clamp|periodic] [--cpu] input output
#include "cifModuleCommandLine.h"
#include "cifModuleDescription.h"
#include "cifRunCLIModule.h"
#include "cifVolumeTypes.h"
#include "itkBSplinePrefilterGPUImageFilter.h"
#include "itkImageFileReader.h"

#include <string>

namespace
{
template <typename TImage>
void
Run(const std::string & input, const std::string & output, unsigned int order, cif::BoundaryMode mode, bool cpu,
    cif::ModuleRun & run)
{
  auto reader = itk::ImageFileReader<TImage>::New();
  reader->SetFileName(input);
  run.Progress().Watch(reader, 0.0, 0.2, "Reading the input volume");
  reader->Update();
  run.Progress().ThrowIfAborted();

  auto filter = itk::BSplinePrefilterGPUImageFilter<TImage, TImage>::New();
  filter->SetInput(reader->GetOutput());
  filter->SetSplineOrder(order);
  filter->SetBoundaryMode(mode);
  filter->SetUseGPU(!cpu);
  run.Progress().Watch(filter, 0.2, 0.9, "Prefiltering");
  filter->Update();
  run.Progress().ThrowIfAborted();

  run.Progress().BeginStage(0.9, "Writing the coefficients");
  cif::WriteAtomically(filter->GetOutput(), output);
  const std::string path = itk::ToString(filter->GetLastExecutionPath());
  run.SetReturnParameter("executionPath", path);
  std::cout << "wrote " << output << " (" << path << ")\n";
}
} // namespace

// The module's description, as Slicer reads it (--xml prints it too).
const char XMLModuleDescription[] = R"(<?xml version="1.0" encoding="utf-8"?>
<executable>
  <category>Filtering.GPU</category>
  <title>B-spline Prefilter (GPU)</title>
  <description>Cubic (or order 0-5) B-spline interpolation coefficients of a volume (scalar, RGB or vector pixels, per component), computed on the GPU (CPU when there is none), matching ITK's BSplineDecompositionImageFilter. The coefficients are float, on the input's grid.</description>
)" CIF_MODULE_PROVENANCE_XML R"(  <parameters>
    <label>Parameters</label>
    <description>The spline and its boundary.</description>
    <integer>
      <name>splineOrder</name>
      <longflag>splineOrder</longflag>
      <label>Spline order</label>
      <description>B-spline order, 0 to 5.</description>
      <default>3</default>
      <constraints><minimum>0</minimum><maximum>5</maximum><step>1</step></constraints>
    </integer>
    <string-enumeration>
      <name>boundary</name>
      <longflag>boundary</longflag>
      <label>Boundary</label>
      <description>How the volume continues past its edges: mirror (ITK's), clamp or periodic.</description>
      <default>mirror</default>
      <element>mirror</element>
      <element>clamp</element>
      <element>periodic</element>
    </string-enumeration>
)" CIF_FORCE_CPU_PARAMETER_XML R"(  </parameters>
)" CIF_OUTPUTS_GROUP_XML R"(  <parameters>
    <label>IO</label>
    <description>Input and output volumes.</description>
    <image type="any">
      <name>inputVolume</name>
      <label>Input volume</label>
      <description>The samples (any pixel type; read as float).</description>
      <channel>input</channel>
      <index>0</index>
    </image>
    <image type="any">
      <name>outputVolume</name>
      <label>Coefficients</label>
      <description>The B-spline coefficients (float, as many components as the input).</description>
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
    cif::ModuleCommandLine                cmd("B-spline prefilter on the GPU (CudaImageFilters)");
    TCLAP::ValueArg<unsigned int>         order("", "splineOrder", "B-spline order, 0 to 5", false, 3, "int", cmd);
    std::vector<std::string>              modes{ "mirror", "clamp", "periodic" };
    TCLAP::ValuesConstraint<std::string>  allowed(modes);
    TCLAP::ValueArg<std::string>          boundary("", "boundary", "mirror, clamp or periodic", false, "mirror", &allowed,
                                                   cmd);
    TCLAP::SwitchArg                      cpu("", "cpu", "run the CPU path", cmd, false);
    TCLAP::UnlabeledValueArg<std::string> input("inputVolume", "input volume", true, "", "path", cmd);
    TCLAP::UnlabeledValueArg<std::string> output("outputVolume", "output coefficients", true, "", "path", cmd);
    cif::ModuleRun run(cmd, argc, argv, "B-spline Prefilter (GPU)", "B-spline interpolation coefficients");

    if (order.getValue() > 5)
    {
      throw TCLAP::ArgException("must be 0 to 5", "--splineOrder");
    }
    const cif::BoundaryMode mode = boundary.getValue() == "clamp"      ? cif::BoundaryMode::ClampToEdge
                                   : boundary.getValue() == "periodic" ? cif::BoundaryMode::Periodic
                                                                       : cif::BoundaryMode::Mirror;
    const auto io = cif::ReadVolumeInformation(input.getValue());
    // coefficients are float whatever the input's type (ITK converts as it reads)
    cif::ForVolumeOf<float>(*io, [&](auto image) {
      Run<typename decltype(image)::type>(input.getValue(), output.getValue(), order.getValue(), mode,
                                          cpu.getValue(), run);
    });
    return run.Finish();
  });
}
