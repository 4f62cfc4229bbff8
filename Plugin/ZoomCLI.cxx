// ZoomCLI: a 3D Slicer CLI module around ZoomGPUImageFilter, the upscaling seed's
// workflow: a cut-out (centre and size in voxels of the first two axes) enlarged by a
// zoom factor (cubic B-spline, linear or nearest), optionally enhanced with a kernel
// preset. 2-D images are zoomed as a whole; a 3-D volume is zoomed slice by slice
// within the plane of its first two axes (its third axis kept), with the output's
// geometry placed so that it overlays the input in physical space. Gray, RGB and RGBA
// pixels; 8-bit images stay 8-bit, other types are computed and written as float.
// Slicer's standard flags, progress and return parameters: cifModuleCommandLine.h.
//
//   ZoomCLI [--center X,Y] [--size W,H] [--zoom 2] [--interpolation cubic|linear|nearest]
//           [--enhancement none|gaussian|...] [--kernelSize 15] [--sigma 5] [--cpu] input output
#include "cifKernelPresets.h"
#include "cifModuleCommandLine.h"
#include "cifModuleDescription.h"
#include "cifRunCLIModule.h"
#include "itkImageFileReader.h"
#include "itkRGBAPixel.h"
#include "itkRGBPixel.h"
#include "itkZoomGPUImageFilter.h"

#include <algorithm>
#include <optional>
#include <string>

namespace
{
struct Options
{
  std::string                           input, output;
  std::optional<std::vector<long>>      center, size;
  double                                zoom = 2.0;
  cif::ZoomInterpolation                interpolation = cif::ZoomInterpolation::Cubic;
  std::optional<cif::ConvolutionKernel> kernel;
  bool                                  cpu = false;
};

/** Zooms one 2-D plane: the filter set up from \a o, run, its output returned. */
template <typename TPlane>
typename TPlane::Pointer
ZoomPlane(const TPlane * plane, const Options & o, itk::CudaExecutionPath & path)
{
  auto       zoom = itk::ZoomGPUImageFilter<TPlane>::New();
  const auto imageSize = plane->GetLargestPossibleRegion().GetSize();
  typename TPlane::IndexType center;
  typename TPlane::SizeType  size;
  for (unsigned int a = 0; a < 2; ++a)
  {
    center[a] = o.center ? (*o.center)[a] : static_cast<long>(imageSize[a] / 2);
    if (o.size && (*o.size)[a] < 1)
    {
      throw TCLAP::ArgException("expects a width and a height of at least 1 voxel", "--size");
    }
    size[a] = o.size ? static_cast<itk::SizeValueType>((*o.size)[a]) : imageSize[a];
  }
  zoom->SetInput(plane);
  zoom->SetCutOutCenter(center);
  zoom->SetCutOutSize(size);
  zoom->SetZoomFactor(o.zoom);
  zoom->SetInterpolation(o.interpolation);
  zoom->SetUseGPU(!o.cpu);
  if (o.kernel)
  {
    zoom->SetKernel(*o.kernel);
  }
  zoom->Update();
  path = zoom->GetLastExecutionPath();
  typename TPlane::Pointer result = zoom->GetOutput();
  result->DisconnectPipeline();
  return result;
}

/** A 2-D image: zoomed as a whole. */
template <typename TPixel>
std::string
Zoom2D(const Options & o, cif::ModuleRun & run)
{
  using Image = itk::Image<TPixel, 2>;
  auto reader = itk::ImageFileReader<Image>::New();
  reader->SetFileName(o.input);
  run.Progress().Watch(reader, 0.0, 0.2, "Reading the input image");
  reader->Update();
  run.Progress().ThrowIfAborted();
  run.Progress().BeginStage(0.2, "Zooming");
  itk::CudaExecutionPath path = itk::CudaExecutionPath::None;
  auto                   zoomed = ZoomPlane<Image>(reader->GetOutput(), o, path);
  run.Progress().ThrowIfAborted();
  run.Progress().BeginStage(0.9, "Writing the zoomed image");
  cif::WriteAtomically(zoomed.GetPointer(), o.output);
  return itk::ToString(path);
}

/** A 3-D volume: each slice's plane zoomed; the output keeps the third axis (its
 * spacing, and each slice where it was), its in-plane origin and spacing mapped from
 * the zoomed plane's through the input's own index-to-physical transform. */
template <typename TPixel>
std::string
ZoomSlices(const Options & o, cif::ModuleRun & run)
{
  using Volume = itk::Image<TPixel, 3>;
  using Plane = itk::Image<TPixel, 2>;
  auto reader = itk::ImageFileReader<Volume>::New();
  reader->SetFileName(o.input);
  run.Progress().Watch(reader, 0.0, 0.2, "Reading the input volume");
  reader->Update();
  run.Progress().ThrowIfAborted();
  const Volume * input = reader->GetOutput();
  const auto     size = input->GetLargestPossibleRegion().GetSize();
  const auto     planePixels = static_cast<std::size_t>(size[0] * size[1]);

  // each plane in its own index frame scaled by the spacing: origin 0, no rotation
  auto plane = Plane::New();
  plane->SetRegions(itk::Size<2>{ { size[0], size[1] } });
  typename Plane::SpacingType planeSpacing;
  planeSpacing[0] = input->GetSpacing()[0];
  planeSpacing[1] = input->GetSpacing()[1];
  plane->SetSpacing(planeSpacing);
  plane->Allocate();

  typename Volume::Pointer output;
  itk::CudaExecutionPath   path = itk::CudaExecutionPath::None;
  for (itk::SizeValueType z = 0; z < size[2]; ++z)
  {
    run.Progress().Report(0.2 + 0.7 * z / size[2], static_cast<double>(z) / size[2], "Zooming the slices");
    run.Progress().ThrowIfAborted();
    std::copy_n(input->GetBufferPointer() + z * planePixels, planePixels, plane->GetBufferPointer());
    plane->Modified();
    const auto zoomed = ZoomPlane<Plane>(plane, o, path);
    const auto zoomedSize = zoomed->GetLargestPossibleRegion().GetSize();
    if (!output)
    {
      output = Volume::New();
      output->SetRegions(itk::Size<3>{ { zoomedSize[0], zoomedSize[1], size[2] } });
      itk::ContinuousIndex<double, 3> first; // the zoomed plane's first voxel, in the input's index space
      first[0] = zoomed->GetOrigin()[0] / input->GetSpacing()[0];
      first[1] = zoomed->GetOrigin()[1] / input->GetSpacing()[1];
      first[2] = 0.0;
      typename Volume::PointType origin;
      input->TransformContinuousIndexToPhysicalPoint(first, origin);
      output->SetOrigin(origin);
      auto spacing = input->GetSpacing();
      spacing[0] = zoomed->GetSpacing()[0];
      spacing[1] = zoomed->GetSpacing()[1];
      output->SetSpacing(spacing);
      output->SetDirection(input->GetDirection());
      output->Allocate();
    }
    const auto zoomedPixels = static_cast<std::size_t>(zoomedSize[0] * zoomedSize[1]);
    std::copy_n(zoomed->GetBufferPointer(), zoomedPixels, output->GetBufferPointer() + z * zoomedPixels);
  }
  run.Progress().BeginStage(0.9, "Writing the zoomed volume");
  cif::WriteAtomically(output.GetPointer(), o.output);
  return itk::ToString(path);
}

template <typename TPixel>
std::string
ZoomVolume(const Options & o, unsigned int dimension, cif::ModuleRun & run)
{
  return dimension == 2 ? Zoom2D<TPixel>(o, run) : ZoomSlices<TPixel>(o, run);
}

template <typename TComponent>
std::string
ZoomComponents(const Options & o, const itk::ImageIOBase & io, cif::ModuleRun & run)
{
  switch (io.GetNumberOfComponents())
  {
    case 1:
      return ZoomVolume<TComponent>(o, io.GetNumberOfDimensions(), run);
    case 3:
      return ZoomVolume<itk::RGBPixel<TComponent>>(o, io.GetNumberOfDimensions(), run);
    case 4:
      return ZoomVolume<itk::RGBAPixel<TComponent>>(o, io.GetNumberOfDimensions(), run);
    default:
      throw std::runtime_error(o.input + " has " + std::to_string(io.GetNumberOfComponents()) +
                               " components per pixel; the module zooms gray (1), RGB (3) or RGBA (4) images");
  }
}
} // namespace

// The module's description, as Slicer reads it (--xml prints it too).
const char XMLModuleDescription[] = R"(<?xml version="1.0" encoding="utf-8"?>
<executable>
  <category>Filtering.GPU</category>
  <title>Zoom (GPU)</title>
  <description>Cuts a region out of an image, enlarges it by a zoom factor (cubic B-spline, linear or nearest-neighbour interpolation) and optionally enhances it with a kernel, on the GPU (CPU when there is none): the upscaling seed's workflow. A 3-D volume is zoomed slice by slice within the plane of its first two axes. Gray, RGB and RGBA pixels; 8-bit images stay 8-bit, other types become float. The output overlays the cut-out in physical space.</description>
)" CIF_MODULE_PROVENANCE_XML R"(  <parameters>
    <label>Zoom</label>
    <description>The cut-out and the enlargement.</description>
    <integer-vector>
      <name>center</name>
      <longflag>center</longflag>
      <label>Cut-out centre (voxels)</label>
      <description>Centre of the cut-out as column,row indices of the first two axes; the image's centre when not given.</description>
    </integer-vector>
    <integer-vector>
      <name>size</name>
      <longflag>size</longflag>
      <label>Cut-out size (voxels)</label>
      <description>Width,height of the cut-out; the whole plane when not given. The cut-out must lie inside the image.</description>
    </integer-vector>
    <double>
      <name>zoom</name>
      <longflag>zoom</longflag>
      <label>Zoom factor</label>
      <description>Enlargement, at least 1 (need not be an integer).</description>
      <default>2</default>
      <constraints><minimum>1</minimum><maximum>64</maximum><step>0.5</step></constraints>
    </double>
    <string-enumeration>
      <name>interpolation</name>
      <longflag>interpolation</longflag>
      <label>Interpolation</label>
      <description>cubic (B-spline, as ITK's BSplineInterpolateImageFunction), linear, or nearest (pixel replication).</description>
      <default>cubic</default>
      <element>cubic</element>
      <element>linear</element>
      <element>nearest</element>
    </string-enumeration>
  </parameters>
  <parameters>
    <label>Enhancement</label>
    <description>An optional convolution of the zoomed cut-out.</description>
    <string-enumeration>
      <name>enhancement</name>
      <longflag>enhancement</longflag>
      <label>Enhancement kernel</label>
      <description>A kernel preset applied after zooming, or none.</description>
      <default>none</default>
      <element>none</element>
      <element>gaussian</element>
      <element>box</element>
      <element>sharpen</element>
      <element>unsharp</element>
      <element>emboss</element>
      <element>edge</element>
      <element>ridge</element>
      <element>darken</element>
      <element>lighten</element>
    </string-enumeration>
    <integer>
      <name>kernelSize</name>
      <longflag>kernelSize</longflag>
      <label>Kernel size</label>
      <description>Side of the gaussian or box kernel (odd, 3 to 127).</description>
      <default>15</default>
      <constraints><minimum>3</minimum><maximum>127</maximum><step>2</step></constraints>
    </integer>
    <double>
      <name>sigma</name>
      <longflag>sigma</longflag>
      <label>Sigma</label>
      <description>Standard deviation of the gaussian kernel in pixels (at least 0.5).</description>
      <default>5</default>
      <constraints><minimum>0.5</minimum><maximum>64</maximum><step>0.5</step></constraints>
    </double>
)" CIF_FORCE_CPU_PARAMETER_XML R"(  </parameters>
)" CIF_OUTPUTS_GROUP_XML R"(  <parameters>
    <label>IO</label>
    <description>Input and output images.</description>
    <image type="any">
      <name>inputVolume</name>
      <label>Input image</label>
      <description>The image or volume to zoom (gray, RGB or RGBA).</description>
      <channel>input</channel>
      <index>0</index>
    </image>
    <image type="any">
      <name>outputVolume</name>
      <label>Zoomed image</label>
      <description>The enlarged cut-out.</description>
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
    cif::ModuleCommandLine               cmd("Cut-out, zoom and enhancement on the GPU (CudaImageFilters)");
    TCLAP::ValueArg<std::string>         center("", "center", "cut-out centre X,Y in voxels", false, "", "X,Y", cmd);
    TCLAP::ValueArg<std::string>         size("", "size", "cut-out width,height in voxels", false, "", "W,H", cmd);
    TCLAP::ValueArg<double>              zoom("", "zoom", "zoom factor, at least 1", false, 2.0, "number", cmd);
    std::vector<std::string>             interpolations{ "cubic", "linear", "nearest" };
    TCLAP::ValuesConstraint<std::string> allowedInterpolations(interpolations);
    TCLAP::ValueArg<std::string> interpolation("", "interpolation", "cubic, linear or nearest", false, "cubic",
                                               &allowedInterpolations, cmd);
    std::vector<std::string>     enhancements{ "none", "gaussian", "box",    "sharpen", "unsharp",
                                           "emboss", "edge",     "ridge", "darken",  "lighten" };
    TCLAP::ValuesConstraint<std::string> allowedEnhancements(enhancements);
    TCLAP::ValueArg<std::string> enhancement("", "enhancement", "kernel preset after zooming, or none", false, "none",
                                             &allowedEnhancements, cmd);
    TCLAP::ValueArg<int>         kernelSize("", "kernelSize", "side of the gaussian or box kernel", false, 15, "int", cmd);
    TCLAP::ValueArg<double>      sigma("", "sigma", "sigma of the gaussian kernel", false, 5.0, "number", cmd);
    TCLAP::SwitchArg             cpu("", "cpu", "run the CPU path", cmd, false);
    TCLAP::UnlabeledValueArg<std::string> input("inputVolume", "input image or volume", true, "", "path", cmd);
    TCLAP::UnlabeledValueArg<std::string> output("outputVolume", "zoomed image", true, "", "path", cmd);
    cif::ModuleRun run(cmd, argc, argv, "Zoom (GPU)", "Cut-out, zoom and enhancement");

    Options o;
    o.input = input.getValue();
    o.output = output.getValue();
    try
    {
      if (center.isSet())
      {
        o.center = cif::ParseIntegerList(center.getValue(), 2);
      }
      if (size.isSet())
      {
        o.size = cif::ParseIntegerList(size.getValue(), 2);
      }
    }
    catch (const std::invalid_argument & e)
    {
      throw TCLAP::ArgException(e.what(), center.isSet() && !o.center ? "--center" : "--size");
    }
    o.zoom = zoom.getValue();
    o.interpolation = interpolation.getValue() == "nearest"  ? cif::ZoomInterpolation::Nearest
                      : interpolation.getValue() == "linear" ? cif::ZoomInterpolation::Linear
                                                             : cif::ZoomInterpolation::Cubic;
    if (enhancement.getValue() != "none")
    {
      try
      {
        o.kernel = cif::MakePresetKernel(enhancement.getValue(), kernelSize.getValue(), sigma.getValue());
      }
      catch (const cif::KernelError & e)
      {
        throw TCLAP::ArgException(e.what(), "--enhancement");
      }
    }
    o.cpu = cpu.getValue();

    const auto io = cif::ReadVolumeInformation(o.input);
    if (io->GetNumberOfDimensions() != 2 && io->GetNumberOfDimensions() != 3)
    {
      throw std::runtime_error(std::to_string(io->GetNumberOfDimensions()) + "-D volumes are not supported (2-D or 3-D)");
    }
    const std::string path = io->GetComponentType() == itk::IOComponentEnum::UCHAR
                               ? ZoomComponents<unsigned char>(o, *io, run)
                               : ZoomComponents<float>(o, *io, run);
    run.SetReturnParameter("executionPath", path);
    std::cout << "wrote " << o.output << " (" << path << ", " << interpolation.getValue() << ", zoom " << o.zoom
              << ")\n";
    return run.Finish();
  });
}
