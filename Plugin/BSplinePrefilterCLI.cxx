// BSplinePrefilterCLI: a 3D Slicer-style command-line module (CLI) around
// BSplinePrefilterGPUImageFilter. `--xml` prints the module description Slicer reads;
// otherwise it reads a 2-D or 3-D scalar volume in any format ITK reads, writes its
// B-spline coefficients as float, atomically (a temporary file, then a rename), and
// exits non-zero with a message on any error.
//
//   BSplinePrefilterCLI [--splineOrder 3] [--boundary mirror|clamp|periodic] [--cpu] input output
#include "cifCudaRuntime.h"
#include "cifRunCLIModule.h"
#include "itkBSplinePrefilterGPUImageFilter.h"
#include "itkImageFileReader.h"

#include <iostream>
#include <string>

namespace
{
template <unsigned int D>
void
Run(const std::string & input, const std::string & output, unsigned int order, cif::BoundaryMode mode, bool cpu)
{
  using Image = itk::Image<float, D>;
  auto reader = itk::ImageFileReader<Image>::New();
  reader->SetFileName(input);
  auto filter = itk::BSplinePrefilterGPUImageFilter<Image, Image>::New();
  filter->SetInput(reader->GetOutput());
  filter->SetSplineOrder(order);
  filter->SetBoundaryMode(mode);
  filter->SetUseGPU(!cpu);
  filter->Update();

  cif::WriteAtomically(filter->GetOutput(), output);
  std::cout << "wrote " << output << " (" << (filter->GetLastExecutionPath() == itk::CudaExecutionPath::GPU ? "GPU" : "CPU")
            << ")\n";
}
} // namespace

// The module's description, as Slicer reads it (--xml prints it too).
const char XMLModuleDescription[] = R"(<?xml version="1.0" encoding="utf-8"?>
<executable>
  <category>Filtering.GPU</category>
  <title>B-spline Prefilter (GPU)</title>
  <description>Cubic (or order 0-5) B-spline interpolation coefficients of a volume, computed on the GPU (CPU when there is none), matching ITK's BSplineDecompositionImageFilter.</description>
  <version>0.1.0</version>
  <contributor>CudaImageFilters</contributor>
  <parameters>
    <label>Parameters</label>
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
    <boolean>
      <name>cpu</name>
      <longflag>cpu</longflag>
      <label>Force CPU</label>
      <description>Run the CPU path even when a GPU is present.</description>
      <default>false</default>
    </boolean>
  </parameters>
  <parameters>
    <label>IO</label>
    <image>
      <name>inputVolume</name>
      <label>Input volume</label>
      <channel>input</channel>
      <index>0</index>
    </image>
    <image>
      <name>outputVolume</name>
      <label>Coefficients</label>
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
    TCLAP::CmdLine                     cmd("B-spline prefilter on the GPU (CudaImageFilters)", ' ', "0.1.0");
    TCLAP::ValueArg<unsigned int>      order("", "splineOrder", "B-spline order, 0 to 5", false, 3, "int", cmd);
    std::vector<std::string>           modes{ "mirror", "clamp", "periodic" };
    TCLAP::ValuesConstraint<std::string> allowed(modes);
    TCLAP::ValueArg<std::string>       boundary("", "boundary", "mirror, clamp or periodic", false, "mirror", &allowed, cmd);
    TCLAP::SwitchArg                   cpu("", "cpu", "run the CPU path", cmd, false);
    TCLAP::UnlabeledValueArg<std::string> input("inputVolume", "input volume", true, "", "path", cmd);
    TCLAP::UnlabeledValueArg<std::string> output("outputVolume", "output coefficients", true, "", "path", cmd);
    cmd.setExceptionHandling(false); // errors come back here: exit() would end the host
    cmd.parse(argc, argv);

    if (order.getValue() > 5)
    {
      std::cerr << "error: --splineOrder must be 0 to 5\n";
      return 1;
    }
    const cif::BoundaryMode mode = boundary.getValue() == "clamp"      ? cif::BoundaryMode::ClampToEdge
                                   : boundary.getValue() == "periodic" ? cif::BoundaryMode::Periodic
                                                                       : cif::BoundaryMode::Mirror;
    const auto io = cif::ReadVolumeInformation(input.getValue());
    if (io->GetNumberOfComponents() != 1)
    {
      std::cerr << "error: " << input.getValue() << " has " << io->GetNumberOfComponents()
                << " components per pixel; this module takes scalar volumes\n";
      return 1;
    }
    switch (io->GetNumberOfDimensions())
    {
      case 2:
        Run<2>(input.getValue(), output.getValue(), order.getValue(), mode, cpu.getValue());
        break;
      case 3:
        Run<3>(input.getValue(), output.getValue(), order.getValue(), mode, cpu.getValue());
        break;
      default:
        std::cerr << "error: " << io->GetNumberOfDimensions() << "-D images are not supported (2-D or 3-D)\n";
        return 1;
    }
    return 0;
  });
}
