// CubicResampleCLI: a 3D Slicer CLI module around CubicResampleGPUImageFilter.
// Reads a 2-D or 3-D volume in any format ITK reads (scalar, RGB or vector pixels;
// vectors are resampled per component), resamples it with cubic B-spline
// interpolation (prefiltered, exact: ITK's ResampleImageFilter +
// BSplineInterpolateImageFunction) through a transform from a file ITK reads
// (.tfm/.txt, .h5, .mat: affine family, B-spline, displacement field, composite),
// onto the grid of a reference volume (or the input's own), and writes it with the
// input's pixel type, atomically. Slicer's standard flags, progress and return
// parameters: cifModuleCommandLine.h.
//
//   CubicResampleCLI [--transform T] [--referenceVolume R] [--defaultValue 0] [--texture] [--cpu] input output
//
// As in ITK, the transform maps points of the output grid to the input (the
// "fixed to moving" transform a registration produces).
#include "cifModuleCommandLine.h"
#include "cifModuleDescription.h"
#include "cifRunCLIModule.h"
#include "cifTransformFile.h"
#include "cifVolumeTypes.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkImageFileReader.h"

#include <string>

namespace
{
struct Options
{
  std::string input, output, transform, reference;
  double      defaultValue = 0.0;
  bool        texture = false;
  bool        cpu = false;
};

template <typename TImage>
void
Run(const Options & o, unsigned int components, cif::ModuleRun & run)
{
  constexpr unsigned int D = TImage::ImageDimension;
  const auto defaultPixel = cif::FilledPixel<TImage>(o.defaultValue, components, "--defaultValue");
  const auto transform = cif::ReadTransformFile<D>(o.transform);

  auto reader = itk::ImageFileReader<TImage>::New();
  reader->SetFileName(o.input);
  run.Progress().Watch(reader, 0.0, 0.2, "Reading the input volume");
  reader->Update();
  run.Progress().ThrowIfAborted();
  typename TImage::ConstPointer grid = reader->GetOutput();
  if (!o.reference.empty())
  {
    auto referenceReader = itk::ImageFileReader<TImage>::New();
    referenceReader->SetFileName(o.reference);
    referenceReader->UpdateOutputInformation(); // only its grid is needed
    grid = referenceReader->GetOutput();
  }

  auto filter = itk::CubicResampleGPUImageFilter<TImage, TImage>::New();
  filter->SetInput(reader->GetOutput());
  if constexpr (std::is_arithmetic_v<typename TImage::PixelType>)
  {
    auto interpolator = itk::BSplineInterpolateImageFunction<TImage, double, double>::New();
    interpolator->SetSplineOrder(3);
    filter->SetInterpolator(interpolator);
  }
  else // RGB, vectors: each component its own cubic spline (ITK's interpolator takes scalars only)
  {
    filter->SetCubicBSplinePerComponent(true);
  }
  filter->SetTransform(transform);
  filter->SetOutputParametersFromImage(grid);
  filter->SetDefaultPixelValue(defaultPixel);
  filter->SetUseTextureInterpolation(o.texture);
  filter->SetUseGPU(!o.cpu);
  run.Progress().Watch(filter, 0.2, 0.9, "Resampling");
  filter->Update();
  run.Progress().ThrowIfAborted();

  run.Progress().BeginStage(0.9, "Writing the resampled volume");
  cif::WriteAtomically(filter->GetOutput(), o.output);
  const std::string path = itk::ToString(filter->GetLastExecutionPath());
  run.SetReturnParameter("executionPath", path);
  std::cout << "wrote " << o.output << " (" << path << ", " << transform->GetNameOfClass() << ")\n";
}
} // namespace

// The module's description, as Slicer reads it (--xml prints it too).
const char XMLModuleDescription[] = R"(<?xml version="1.0" encoding="utf-8"?>
<executable>
  <category>Registration.GPU</category>
  <title>Cubic Resample (GPU)</title>
  <description>Resamples a volume (scalar, RGB or vector pixels) through a transform with prefiltered cubic B-spline interpolation on the GPU (CPU when there is none), matching ITK's ResampleImageFilter with a cubic BSplineInterpolateImageFunction. The output keeps the input's pixel type; vector pixels are resampled per component.</description>
)" CIF_MODULE_PROVENANCE_XML R"(  <parameters>
    <label>Parameters</label>
    <description>The transform and the output grid.</description>
    <transform type="nonlinear" fileExtensions=".tfm,.txt,.h5,.hdf5,.mat">
      <name>transform</name>
      <longflag>transform</longflag>
      <label>Transform</label>
      <description>Maps output points to input points, as ITK's resampler applies it (identity when none is given): any transform ITK reads (affine family, B-spline, displacement field, composite).</description>
      <channel>input</channel>
    </transform>
    <image type="any">
      <name>referenceVolume</name>
      <longflag>referenceVolume</longflag>
      <label>Reference volume</label>
      <description>The output grid (origin, spacing, direction, size); the input's own when none is given.</description>
      <channel>input</channel>
    </image>
    <double>
      <name>defaultValue</name>
      <longflag>defaultValue</longflag>
      <label>Default value</label>
      <description>The value of output voxels that map outside the input.</description>
      <default>0</default>
    </double>
    <boolean>
      <name>texture</name>
      <longflag>texture</longflag>
      <label>Texture-accelerated</label>
      <description>Hardware-interpolated texture mode (float volumes): faster on some GPUs, 8-bit interpolation weights (see Modules/Resample/README.md for its measured error).</description>
      <default>false</default>
    </boolean>
)" CIF_FORCE_CPU_PARAMETER_XML R"(  </parameters>
)" CIF_OUTPUTS_GROUP_XML R"(  <parameters>
    <label>IO</label>
    <description>Input and output volumes.</description>
    <image type="any">
      <name>inputVolume</name>
      <label>Input volume</label>
      <description>The volume to resample.</description>
      <channel>input</channel>
      <index>0</index>
    </image>
    <image type="any">
      <name>outputVolume</name>
      <label>Resampled volume</label>
      <description>The input resampled onto the reference grid, in the input's pixel type.</description>
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
    cif::ModuleCommandLine                cmd("Cubic B-spline resampling on the GPU (CudaImageFilters)");
    TCLAP::ValueArg<std::string>          transform("", "transform", "transform file (output -> input points)", false, "",
                                                    "path", cmd);
    TCLAP::ValueArg<std::string>          reference("", "referenceVolume", "volume whose grid the output takes", false, "",
                                                    "path", cmd);
    TCLAP::ValueArg<double>               defaultValue("", "defaultValue", "value outside the input", false, 0.0, "number",
                                                       cmd);
    TCLAP::SwitchArg                      texture("", "texture", "texture-accelerated mode", cmd, false);
    TCLAP::SwitchArg                      cpu("", "cpu", "run the CPU path", cmd, false);
    TCLAP::UnlabeledValueArg<std::string> input("inputVolume", "input volume", true, "", "path", cmd);
    TCLAP::UnlabeledValueArg<std::string> output("outputVolume", "resampled volume", true, "", "path", cmd);
    cif::ModuleRun run(cmd, argc, argv, "Cubic Resample (GPU)", "Cubic B-spline resampling through a transform");

    Options o;
    o.input = input.getValue();
    o.output = output.getValue();
    o.transform = transform.getValue();
    o.reference = reference.getValue();
    o.defaultValue = defaultValue.getValue();
    o.texture = texture.getValue();
    o.cpu = cpu.getValue();

    const auto io = cif::ReadVolumeInformation(o.input);
    if (!o.reference.empty() && cif::ReadVolumeInformation(o.reference)->GetNumberOfDimensions() !=
                                  io->GetNumberOfDimensions())
    {
      throw std::runtime_error("the reference volume and the input differ in dimension");
    }
    // The output keeps the input's pixel type (cast as ITK casts: clamp, truncate).
    cif::ForVolumeType(*io, [&](auto image) { Run<typename decltype(image)::type>(o, io->GetNumberOfComponents(), run); });
    return run.Finish();
  });
}
