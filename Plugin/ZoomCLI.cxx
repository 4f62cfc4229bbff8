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
#include "cifModuleDescription.h"
#include "cifModuleFilterRun.h"
#include "cifRunCLIModule.h"
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
  bool                                  useGPU = true;
};

/** Zooms one 2-D plane: the filter set up from \a o, run, its output returned. */
template <typename TPlane>
typename TPlane::Pointer
ZoomPlane(const TPlane * plane, const Options & o, itk::CudaExecutionPath & path)
{
  auto                       zoom = itk::ZoomGPUImageFilter<TPlane>::New();
  const auto                 imageSize = plane->GetLargestPossibleRegion().GetSize();
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
  zoom->SetUseGPU(o.useGPU);
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
  const auto input = cif::ReadWatched<Image>(run, o.input, 0.0, 0.2, "Reading the input image");
  run.Progress().BeginStage(0.2, "Zooming");
  itk::CudaExecutionPath path = itk::CudaExecutionPath::None;
  auto                   zoomed = ZoomPlane<Image>(input, o, path);
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
  const auto input = cif::ReadWatched<Volume>(run, o.input, 0.0, 0.2);
  const auto size = input->GetLargestPossibleRegion().GetSize();
  const auto planePixels = static_cast<std::size_t>(size[0] * size[1]);

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

/** The module's parameters, declared once: its XML description and its command line. */
cif::ModuleDeclaration
Declare()
{
  auto module = cif::DeclareModule(
    "Filtering.GPU",
    "Zoom (GPU)",
    "Cuts a region out of an image, enlarges it by a zoom factor (cubic B-spline, linear or nearest-neighbour "
    "interpolation) and optionally enhances it with a kernel, on the GPU (CPU when there is none): the upscaling "
    "seed's workflow. A 3-D volume is zoomed slice by slice within the plane of its first two axes. Gray, RGB and RGBA "
    "pixels; 8-bit images stay 8-bit, other types become float. The output overlays the cut-out in physical space.",
    "Cut-out, zoom and enhancement");
  auto & zoom = module.Group("Zoom", "The cut-out and the enlargement.");
  zoom.IntegerVector("center",
                     "Cut-out centre (voxels)",
                     "Centre of the cut-out as column,row indices of the first two axes; the image's centre when not "
                     "given.",
                     2);
  zoom.IntegerVector("size",
                     "Cut-out size (voxels)",
                     "Width,height of the cut-out; the whole plane when not given. The cut-out must lie inside the "
                     "image.",
                     2);
  zoom.Double("zoom", "Zoom factor", "Enlargement, at least 1 (need not be an integer).", 2).Range(1, 64, 0.5);
  zoom.Enumeration(
    "interpolation",
    "Interpolation",
    "cubic (B-spline, as ITK's BSplineInterpolateImageFunction), linear, or nearest (pixel replication).",
    "cubic",
    { "cubic", "linear", "nearest" });
  auto & enhancement = module.Group("Enhancement", "An optional convolution of the zoomed cut-out.");
  enhancement.Enumeration(
    "enhancement",
    "Enhancement kernel",
    "A kernel preset applied after zooming, or none.",
    "none",
    { "none", "gaussian", "box", "sharpen", "unsharp", "emboss", "edge", "ridge", "darken", "lighten" });
  enhancement.Integer("kernelSize", "Kernel size", "Side of the gaussian or box kernel (odd, 3 to 127).", 15)
    .Range(3, 127, 2);
  enhancement.Double("sigma", "Sigma", "Standard deviation of the gaussian kernel in pixels (at least 0.5).", 5)
    .Range(0.5, 64, 0.5);
  cif::AddForceCPU(enhancement);
  cif::AddOutputs(module);
  auto & io = module.Group("IO", "Input and output images.");
  io.Image("inputVolume", "any", "Input image", "The image or volume to zoom (gray, RGB or RGBA).").Index(0);
  io.Image("outputVolume", "any", "Zoomed image", "The enlarged cut-out.").Output().Index(1);
  return module;
}

void
Execute(const cif::ModuleArguments & arguments, cif::ModuleRun & run)
{
  Options o;
  o.input = arguments.String("inputVolume");
  o.output = arguments.String("outputVolume");
  o.center = arguments.IntegerVector("center");
  o.size = arguments.IntegerVector("size");
  o.zoom = arguments.Double("zoom");
  const std::string interpolation = arguments.String("interpolation");
  o.interpolation = interpolation == "nearest"  ? cif::ZoomInterpolation::Nearest
                    : interpolation == "linear" ? cif::ZoomInterpolation::Linear
                                                : cif::ZoomInterpolation::Cubic;
  const std::string enhancement = arguments.String("enhancement");
  if (enhancement != "none")
  {
    try
    {
      o.kernel = cif::MakePresetKernel(
        enhancement, static_cast<int>(arguments.Integer("kernelSize")), arguments.Double("sigma"));
    }
    catch (const cif::KernelError & e)
    {
      throw TCLAP::ArgException(e.what(), "--enhancement");
    }
  }
  o.useGPU = run.UseGPU();

  const auto io = cif::ReadVolumeInformation(o.input);
  if (io->GetNumberOfDimensions() != 2 && io->GetNumberOfDimensions() != 3)
  {
    throw std::runtime_error(std::to_string(io->GetNumberOfDimensions()) + "-D volumes are not supported (2-D or 3-D)");
  }
  const std::string path = io->GetComponentType() == itk::IOComponentEnum::UCHAR
                             ? ZoomComponents<unsigned char>(o, *io, run)
                             : ZoomComponents<float>(o, *io, run);
  run.Wrote(o.output, path, interpolation + ", zoom " + cif::ModuleParameter::Number(o.zoom));
}
} // namespace

CIF_DEFINE_CLI_MODULE(Declare, Execute)
