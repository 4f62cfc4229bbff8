// ConvolutionCLI: a 3D Slicer CLI module around ConvolutionGPUImageFilter. Reads a
// 2-D or 3-D volume in any format ITK reads (scalar, RGB or vector pixels, each
// component convolved on its own), convolves it with a preset kernel of the upscaling
// seed (gaussian of a given side and sigma, box, sharpen, unsharp, emboss, edge,
// ridge, darken, lighten) or a kernel read from a text file, and writes the result
// with the input's pixel type and geometry, atomically. The kernels are 2-D: on a
// 3-D volume they act within each slice (a kernel one voxel deep along axis 2).
// Boundary: ITK's default for ConvolutionImageFilter (zero-flux Neumann, the edge
// voxel repeats); output region SAME. Slicer's standard flags, progress and return
// parameters: cifModuleCommandLine.h.
//
//   ConvolutionCLI [--kernel gaussian|box|...|file] [--kernelFile F] [--kernelSize 15] [--sigma 5] [--normalize]
//                  [--cpu] input output
#include "cifKernelFile.h"
#include "cifKernelPresets.h"
#include "cifModuleCommandLine.h"
#include "cifModuleDescription.h"
#include "cifRunCLIModule.h"
#include "cifVolumeTypes.h"
#include "itkConvolutionGPUImageFilter.h"
#include "itkConvolutionKernelImage.h"
#include "itkImageFileReader.h"

#include <string>

namespace
{
template <typename TImage>
void
Run(const std::string & input, const std::string & output, const cif::ConvolutionKernel & kernel, bool normalize,
    bool cpu, cif::ModuleRun & run)
{
  constexpr unsigned int D = TImage::ImageDimension;
  using KernelImage = itk::Image<float, D>;
  auto reader = itk::ImageFileReader<TImage>::New();
  reader->SetFileName(input);
  run.Progress().Watch(reader, 0.0, 0.2, "Reading the input volume");
  reader->Update();
  run.Progress().ThrowIfAborted();

  auto filter = itk::ConvolutionGPUImageFilter<TImage, KernelImage, TImage>::New();
  filter->SetInput(reader->GetOutput());
  filter->SetKernelImage(itk::MakeKernelImage<KernelImage>(kernel));
  filter->SetNormalize(normalize);
  filter->SetUseGPU(!cpu);
  run.Progress().Watch(filter, 0.2, 0.9, "Convolving with the " + kernel.name + " kernel");
  filter->Update();
  run.Progress().ThrowIfAborted();

  run.Progress().BeginStage(0.9, "Writing the convolved volume");
  cif::WriteAtomically(filter->GetOutput(), output);
  const std::string path = itk::ToString(filter->GetLastExecutionPath());
  run.SetReturnParameter("executionPath", path);
  std::cout << "wrote " << output << " (" << path << ", " << kernel.name << " " << kernel.size[0] << "x"
            << kernel.size[1] << ")\n";
}
} // namespace

// The module's description, as Slicer reads it (--xml prints it too).
const char XMLModuleDescription[] = R"(<?xml version="1.0" encoding="utf-8"?>
<executable>
  <category>Filtering.GPU</category>
  <title>Convolution (GPU)</title>
  <description>Convolves a volume (scalar, RGB or vector pixels, per component) with a preset kernel (gaussian, box, sharpen, unsharp, emboss, edge, ridge, darken, lighten) or a kernel from a text file, on the GPU (CPU when there is none), matching ITK's ConvolutionImageFilter: a true convolution, the edge voxel repeated past the border, the output on the input's grid and in its pixel type. Kernels are 2-D: on a 3-D volume they act within each slice.</description>
)" CIF_MODULE_PROVENANCE_XML R"(  <parameters>
    <label>Kernel</label>
    <description>Which kernel to convolve with.</description>
    <string-enumeration>
      <name>kernel</name>
      <longflag>kernel</longflag>
      <label>Kernel</label>
      <description>A preset of the upscaling seed, or "file" to read the kernel from Kernel file.</description>
      <default>gaussian</default>
      <element>gaussian</element>
      <element>box</element>
      <element>sharpen</element>
      <element>unsharp</element>
      <element>emboss</element>
      <element>edge</element>
      <element>ridge</element>
      <element>darken</element>
      <element>lighten</element>
      <element>file</element>
    </string-enumeration>
    <file fileExtensions=".txt">
      <name>kernelFile</name>
      <longflag>kernelFile</longflag>
      <label>Kernel file</label>
      <description>A square kernel of odd side (at most 127) as text: one row of weights per line, separated by blanks or commas; lines starting with # are ignored.</description>
      <channel>input</channel>
    </file>
    <integer>
      <name>kernelSize</name>
      <longflag>kernelSize</longflag>
      <label>Kernel size</label>
      <description>Side of the gaussian or box kernel in voxels (odd, 3 to 127).</description>
      <default>15</default>
      <constraints><minimum>3</minimum><maximum>127</maximum><step>2</step></constraints>
    </integer>
    <double>
      <name>sigma</name>
      <longflag>sigma</longflag>
      <label>Sigma</label>
      <description>Standard deviation of the gaussian kernel in voxels (at least 0.5).</description>
      <default>5</default>
      <constraints><minimum>0.5</minimum><maximum>64</maximum><step>0.5</step></constraints>
    </double>
    <boolean>
      <name>normalize</name>
      <longflag>normalize</longflag>
      <label>Normalize</label>
      <description>Divide the kernel by the sum of its weights (ConvolutionImageFilter's Normalize).</description>
      <default>false</default>
    </boolean>
)" CIF_FORCE_CPU_PARAMETER_XML R"(  </parameters>
)" CIF_OUTPUTS_GROUP_XML R"(  <parameters>
    <label>IO</label>
    <description>Input and output volumes.</description>
    <image type="any">
      <name>inputVolume</name>
      <label>Input volume</label>
      <description>The volume to convolve.</description>
      <channel>input</channel>
      <index>0</index>
    </image>
    <image type="any">
      <name>outputVolume</name>
      <label>Convolved volume</label>
      <description>The convolution, on the input's grid and in its pixel type.</description>
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
    cif::ModuleCommandLine               cmd("Convolution on the GPU (CudaImageFilters)");
    std::vector<std::string>             kernels{ "gaussian", "box",  "sharpen", "unsharp", "emboss",
                                      "edge",     "ridge", "darken",  "lighten", "file" };
    TCLAP::ValuesConstraint<std::string> allowedKernels(kernels);
    TCLAP::ValueArg<std::string>         kernel("", "kernel", "preset kernel, or file", false, "gaussian",
                                                &allowedKernels, cmd);
    TCLAP::ValueArg<std::string> kernelFile("", "kernelFile", "kernel text file (with --kernel file)", false, "", "path",
                                            cmd);
    TCLAP::ValueArg<int>         kernelSize("", "kernelSize", "side of the gaussian or box kernel (odd, 3 to 127)", false,
                                            15, "int", cmd);
    TCLAP::ValueArg<double>      sigma("", "sigma", "sigma of the gaussian kernel, >= 0.5", false, 5.0, "number", cmd);
    TCLAP::SwitchArg             normalize("", "normalize", "divide the kernel by its sum", cmd, false);
    TCLAP::SwitchArg             cpu("", "cpu", "run the CPU path", cmd, false);
    TCLAP::UnlabeledValueArg<std::string> input("inputVolume", "input volume", true, "", "path", cmd);
    TCLAP::UnlabeledValueArg<std::string> output("outputVolume", "convolved volume", true, "", "path", cmd);
    cif::ModuleRun run(cmd, argc, argv, "Convolution (GPU)", "Convolution with a kernel");

    cif::ConvolutionKernel weights;
    if (kernel.getValue() == "file")
    {
      if (kernelFile.getValue().empty())
      {
        throw TCLAP::ArgException("--kernel file needs a --kernelFile", "--kernelFile");
      }
      weights = cif::ReadKernelFile(kernelFile.getValue());
    }
    else
    {
      if (!kernelFile.getValue().empty())
      {
        throw TCLAP::ArgException("a kernel file is read only with --kernel file", "--kernelFile");
      }
      try
      {
        weights = cif::MakePresetKernel(kernel.getValue(), kernelSize.getValue(), sigma.getValue());
      }
      catch (const cif::KernelError & e)
      {
        throw TCLAP::ArgException(e.what(), "--kernel");
      }
    }
    const auto io = cif::ReadVolumeInformation(input.getValue());
    cif::ForVolumeType(*io, [&](auto image) {
      Run<typename decltype(image)::type>(input.getValue(), output.getValue(), weights, normalize.getValue(),
                                          cpu.getValue(), run);
    });
    return run.Finish();
  });
}
