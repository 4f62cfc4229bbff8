// CubicResampleCLI: a 3D Slicer-style command-line module (CLI) around
// CubicResampleGPUImageFilter. `--xml` prints the module description Slicer reads;
// otherwise it reads a 2-D or 3-D scalar volume in any format ITK reads, resamples
// it with cubic B-spline interpolation (prefiltered, exact: ITK's ResampleImageFilter
// + BSplineInterpolateImageFunction) through a transform from a file ITK reads
// (.tfm/.txt, .h5, .mat: affine family, B-spline, displacement field, composite),
// onto the grid of a reference volume (or the input's own), and writes it with the
// input's pixel type, atomically. Exits non-zero with a message on any error.
//
//   CubicResampleCLI [--transform T] [--referenceVolume R] [--defaultValue 0] [--texture] [--cpu] input output
//
// As in ITK, the transform maps points of the output grid to the input (the
// "fixed to moving" transform a registration produces).
#include "cifCudaRuntime.h"
#include "cifRunCLIModule.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkIdentityTransform.h"
#include "itkImageFileReader.h"
#include "itkTransformFileReader.h"

#include <iostream>
#include <limits>
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

/** The transform in \a path as a D-D transform: one transform per file (a composite
 * is one); identity without a file. */
template <unsigned int D>
typename itk::Transform<double, D, D>::ConstPointer
ReadTransform(const std::string & path)
{
  if (path.empty())
  {
    return itk::IdentityTransform<double, D>::New().GetPointer();
  }
  auto reader = itk::TransformFileReaderTemplate<double>::New();
  reader->SetFileName(path);
  try
  {
    reader->Update();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw std::runtime_error("cannot read transform " + path + ": " + e.GetDescription());
  }
  const auto * list = reader->GetTransformList();
  if (list->size() != 1)
  {
    throw std::runtime_error(path + " holds " + std::to_string(list->size()) +
                             " transforms; write them as one CompositeTransform");
  }
  const auto * transform = dynamic_cast<const itk::Transform<double, D, D> *>(list->front().GetPointer());
  if (transform == nullptr)
  {
    throw std::runtime_error("the transform in " + path + " (" + list->front()->GetNameOfClass() + ", " +
                             std::to_string(list->front()->GetInputSpaceDimension()) + "-D) does not map " +
                             std::to_string(D) + "-D points");
  }
  return transform;
}

template <typename TPixel, unsigned int D>
void
Run(const Options & o)
{
  using Image = itk::Image<TPixel, D>;
  // the default value is a pixel of the output: one that does not fit would wrap
  if (!(o.defaultValue >= static_cast<double>(std::numeric_limits<TPixel>::lowest()) &&
        o.defaultValue <= static_cast<double>(std::numeric_limits<TPixel>::max())))
  {
    throw std::runtime_error("--defaultValue " + std::to_string(o.defaultValue) + " does not fit the volume's pixel type");
  }
  auto reader = itk::ImageFileReader<Image>::New();
  reader->SetFileName(o.input);
  reader->Update();
  typename Image::ConstPointer grid = reader->GetOutput();
  if (!o.reference.empty())
  {
    auto referenceReader = itk::ImageFileReader<Image>::New();
    referenceReader->SetFileName(o.reference);
    referenceReader->UpdateOutputInformation(); // only its grid is needed
    grid = referenceReader->GetOutput();
  }
  const auto transform = ReadTransform<D>(o.transform);

  auto filter = itk::CubicResampleGPUImageFilter<Image, Image>::New();
  auto interpolator = itk::BSplineInterpolateImageFunction<Image, double, double>::New();
  interpolator->SetSplineOrder(3);
  filter->SetInput(reader->GetOutput());
  filter->SetInterpolator(interpolator);
  filter->SetTransform(transform);
  filter->SetOutputParametersFromImage(grid);
  filter->SetDefaultPixelValue(static_cast<TPixel>(o.defaultValue));
  filter->SetUseTextureInterpolation(o.texture);
  filter->SetUseGPU(!o.cpu);
  filter->Update();

  cif::WriteAtomically(filter->GetOutput(), o.output);
  std::cout << "wrote " << o.output << " (" << (filter->GetLastExecutionPath() == itk::CudaExecutionPath::GPU ? "GPU" : "CPU")
            << ", " << transform->GetNameOfClass() << ")\n";
}

template <typename TPixel>
void
RunWithDimension(unsigned int dimension, const Options & o)
{
  switch (dimension)
  {
    case 2:
      Run<TPixel, 2>(o);
      break;
    case 3:
      Run<TPixel, 3>(o);
      break;
    default:
      throw std::runtime_error(std::to_string(dimension) + "-D images are not supported (2-D or 3-D)");
  }
}
} // namespace

// The module's description, as Slicer reads it (--xml prints it too).
const char XMLModuleDescription[] = R"(<?xml version="1.0" encoding="utf-8"?>
<executable>
  <category>Registration.GPU</category>
  <title>Cubic Resample (GPU)</title>
  <description>Resamples a volume through a transform with prefiltered cubic B-spline interpolation on the GPU (CPU when there is none), matching ITK's ResampleImageFilter with a cubic BSplineInterpolateImageFunction.</description>
  <version>0.1.0</version>
  <contributor>CudaImageFilters</contributor>
  <parameters>
    <label>Parameters</label>
    <transform fileExtensions=".tfm,.txt,.h5,.hdf5,.mat">
      <name>transform</name>
      <longflag>transform</longflag>
      <label>Transform</label>
      <description>Maps output points to input points (identity when none is given).</description>
      <channel>input</channel>
    </transform>
    <image>
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
      <description>Hardware-interpolated texture mode (float volumes): faster on some GPUs, 8-bit interpolation weights (see the README's error table).</description>
      <default>false</default>
    </boolean>
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
      <label>Resampled volume</label>
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
    TCLAP::CmdLine                        cmd("Cubic B-spline resampling on the GPU (CudaImageFilters)", ' ', "0.1.0");
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
    cmd.setExceptionHandling(false); // errors come back here: exit() would end the host
    cmd.parse(argc, argv);

    Options o;
    o.input = input.getValue();
    o.output = output.getValue();
    o.transform = transform.getValue();
    o.reference = reference.getValue();
    o.defaultValue = defaultValue.getValue();
    o.texture = texture.getValue();
    o.cpu = cpu.getValue();

    const auto io = cif::ReadVolumeInformation(o.input);
    if (io->GetNumberOfComponents() != 1)
    {
      std::cerr << "error: " << o.input << " has " << io->GetNumberOfComponents()
                << " components per pixel; this module takes scalar volumes\n";
      return 1;
    }
    if (!o.reference.empty() && cif::ReadVolumeInformation(o.reference)->GetNumberOfDimensions() !=
                                  io->GetNumberOfDimensions())
    {
      std::cerr << "error: the reference volume and the input differ in dimension\n";
      return 1;
    }
    // The output keeps the input's pixel type (cast as ITK casts: clamp, truncate).
    const unsigned int dimension = io->GetNumberOfDimensions();
    switch (io->GetComponentType())
    {
      case itk::IOComponentEnum::UCHAR:
        RunWithDimension<unsigned char>(dimension, o);
        break;
      case itk::IOComponentEnum::SHORT:
        RunWithDimension<short>(dimension, o);
        break;
      case itk::IOComponentEnum::USHORT:
        RunWithDimension<unsigned short>(dimension, o);
        break;
      case itk::IOComponentEnum::DOUBLE:
        RunWithDimension<double>(dimension, o);
        break;
      default: // float, and the other types read as float
        RunWithDimension<float>(dimension, o);
        break;
    }
    return 0;
  });
}
