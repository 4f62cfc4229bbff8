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
// CubicResampleCLI: a 3D Slicer CLI module around CubicResampleGPUImageFilter.
// Reads a 2-D or 3-D volume in any format ITK reads (scalar, RGB or vector pixels;
// vectors are resampled per component), resamples it with cubic B-spline
// interpolation (prefiltered, exact: ITK's ResampleImageFilter +
// BSplineInterpolateImageFunction) through a transform from a file ITK reads
// (.tfm/.txt, .h5, .mat: affine family, B-spline, displacement field, composite) or an
// elastix transform parameter file (TransformParameters.N.txt and the chain it names:
// what transformix applies), onto the grid of a reference volume (or the grid the
// elastix file names, or the input's own), and writes it with the input's pixel type,
// atomically. Slicer's standard flags, progress and return parameters:
// cifModuleCommandLine.h.
//
//   CubicResampleCLI [--transform T] [--referenceVolume R] [--defaultValue 0] [--texture] [--cpu] input output
//
// As in ITK (and transformix), the transform maps points of the output grid to the
// input (the "fixed to moving" transform a registration produces).
#include "cifModuleDescription.h"
#include "cifModuleFilterRun.h"
#include "cifRunCLIModule.h"
#include "cifTransformFile.h"
#include "cifVolumeTypes.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkImageFileReader.h"

#include <string>

namespace
{
/** The module's parameters, declared once: its XML description and its command line. */
cif::ModuleDeclaration
Declare()
{
  auto module = cif::DeclareModule(
    "Registration.GPU",
    "Cubic Resample (GPU)",
    "Resamples a volume (scalar, RGB or vector pixels) through a transform with prefiltered cubic B-spline "
    "interpolation on the GPU (CPU when there is none), matching ITK's ResampleImageFilter with a cubic "
    "BSplineInterpolateImageFunction. The output keeps the input's pixel type; vector pixels are resampled per "
    "component.",
    "Cubic B-spline resampling through a transform");
  auto & parameters = module.Group("Parameters", "The transform and the output grid.");
  parameters
    .Transform("transform",
               "nonlinear",
               "Transform",
               "Maps output points to input points, as ITK's resampler applies it (identity when none is given): any "
               "transform ITK reads (affine family, B-spline, displacement field, composite), or an elastix transform "
               "parameter file (TransformParameters.0.txt, with the chain of initial transforms it names), applied "
               "as transformix applies it.")
    .FileExtensions(cif::kTransformFileExtensions);
  parameters.Image("referenceVolume",
                   "any",
                   "Reference volume",
                   "The output grid (origin, spacing, direction, size). When none is given: the grid an elastix "
                   "transform file names (its Size, Index, Spacing, Origin, Direction), else the input's own.");
  parameters.Double("defaultValue",
                    "Default value",
                    "The value of output voxels that map outside the input. When it is not given on the command "
                    "line, an elastix transform file's DefaultPixelValue (0 when the file has none).",
                    0);
  parameters.Boolean("texture",
                     "Texture-accelerated",
                     "Hardware-interpolated texture mode (float volumes): faster on some GPUs, 8-bit interpolation "
                     "weights (see Modules/Resample/README.md for its measured error).");
  cif::AddForceCPU(parameters);
  cif::AddOutputs(module);
  auto & io = module.Group("IO", "Input and output volumes.");
  io.Image("inputVolume", "any", "Input volume", "The volume to resample.").Index(0);
  io.Image("outputVolume",
           "any",
           "Resampled volume",
           "The input resampled onto the reference grid, in the input's pixel type.")
    .Output()
    .Index(1);
  return module;
}

template <typename TImage>
void
Resample(const cif::ModuleArguments & arguments, unsigned int components, cif::ModuleRun & run)
{
  constexpr unsigned int D = TImage::ImageDimension;
  const std::string      path = arguments.String("transform");
  const auto             file = cif::ReadTransformAndGrid<D>(path);
  const auto             transform = file.transform;
  // an elastix file's grid and default value, unless the command line names others
  const std::string reference = arguments.String("referenceVolume");
  const bool        elastixGrid = reference.empty() && file.elastixGrid && file.elastixGrid->IsValid();
  const bool        elastixDefault =
    !arguments.IsSet("defaultValue") && file.elastixGrid && file.elastixGrid->HasDefaultPixelValue;
  const auto defaultPixel =
    elastixDefault
      ? cif::FilledPixel<TImage>(file.elastixGrid->DefaultPixelValue, components, "DefaultPixelValue of " + path)
      : cif::FilledPixel<TImage>(arguments.Double("defaultValue"), components, "--defaultValue");

  auto resample = [&](const TImage * input) {
    typename itk::ImageBase<D>::ConstPointer grid = input;
    if (!reference.empty())
    {
      auto referenceReader = itk::ImageFileReader<TImage>::New();
      referenceReader->SetFileName(reference);
      referenceReader->UpdateOutputInformation(); // only its grid is needed
      grid = referenceReader->GetOutput();
    }
    else if (elastixGrid)
    {
      auto named = itk::Image<char, D>::New(); // never allocated: the grid alone
      file.elastixGrid->ApplyTo(named);
      grid = named.GetPointer();
    }
    auto filter = itk::CubicResampleGPUImageFilter<TImage, TImage>::New();
    filter->SetInput(input);
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
    filter->SetUseTextureInterpolation(arguments.Boolean("texture"));
    return filter;
  };
  cif::FilterVolume<TImage>(run,
                            arguments.String("inputVolume"),
                            arguments.String("outputVolume"),
                            "Resampling",
                            resample,
                            transform->GetNameOfClass());
}

void
Execute(const cif::ModuleArguments & arguments, cif::ModuleRun & run)
{
  const auto        io = cif::ReadVolumeInformation(arguments.String("inputVolume"));
  const std::string reference = arguments.String("referenceVolume");
  if (!reference.empty() &&
      cif::ReadVolumeInformation(reference)->GetNumberOfDimensions() != io->GetNumberOfDimensions())
  {
    throw std::runtime_error("the reference volume and the input differ in dimension");
  }
  // The output keeps the input's pixel type (cast as ITK casts: clamp, truncate).
  cif::ForVolumeType(
    *io, [&](auto image) { Resample<typename decltype(image)::type>(arguments, io->GetNumberOfComponents(), run); });
}
} // namespace

CIF_DEFINE_CLI_MODULE(Declare, Execute)
