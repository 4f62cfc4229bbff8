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
// BSplinePrefilterCLI: a 3D Slicer CLI module around BSplinePrefilterGPUImageFilter.
// Reads a 2-D or 3-D volume in any format ITK reads (scalar, RGB or vector pixels,
// filtered per component) and writes its B-spline coefficients as float, with the
// input's geometry and number of components, atomically (a temporary file, then a
// rename). Slicer's standard flags, progress and return parameters:
// cifModuleCommandLine.h.
//
//   BSplinePrefilterCLI [--splineOrder 3] [--boundary mirror|clamp|periodic] [--cpu] input output
#include "cifModuleDescription.h"
#include "cifModuleFilterRun.h"
#include "cifRunCLIModule.h"
#include "cifVolumeTypes.h"
#include "itkBSplinePrefilterGPUImageFilter.h"

#include <string>

namespace
{
/** The module's parameters, declared once: its XML description and its command line. */
cif::ModuleDeclaration
Declare()
{
  auto module = cif::DeclareModule(
    "Filtering.GPU",
    "B-spline Prefilter (GPU)",
    "Cubic (or order 0-5) B-spline interpolation coefficients of a volume (scalar, RGB or vector pixels, per "
    "component), computed on the GPU (CPU when there is none), matching ITK's BSplineDecompositionImageFilter. The "
    "coefficients are float, on the input's grid.",
    "B-spline interpolation coefficients");
  auto & parameters = module.Group("Parameters", "The spline and its boundary.");
  parameters.Integer("splineOrder", "Spline order", "B-spline order, 0 to 5.", 3).Range(0, 5, 1).Enforced();
  parameters.Enumeration("boundary",
                         "Boundary",
                         "How the volume continues past its edges: mirror (ITK's), clamp or periodic.",
                         "mirror",
                         { "mirror", "clamp", "periodic" });
  cif::AddForceCPU(parameters);
  cif::AddOutputs(module);
  auto & io = module.Group("IO", "Input and output volumes.");
  io.Image("inputVolume", "any", "Input volume", "The samples (any pixel type; read as float).").Index(0);
  io.Image("outputVolume", "any", "Coefficients", "The B-spline coefficients (float, as many components as the input).")
    .Output()
    .Index(1);
  return module;
}

void
Execute(const cif::ModuleArguments & arguments, cif::ModuleRun & run)
{
  const std::string       boundary = arguments.String("boundary");
  const cif::BoundaryMode mode = boundary == "clamp"      ? cif::BoundaryMode::ClampToEdge
                                 : boundary == "periodic" ? cif::BoundaryMode::Periodic
                                                          : cif::BoundaryMode::Mirror;
  const std::string       input = arguments.String("inputVolume");
  // coefficients are float whatever the input's type (ITK converts as it reads)
  cif::ForVolumeOf<float>(*cif::ReadVolumeInformation(input), [&](auto image) {
    using Image = typename decltype(image)::type;
    cif::FilterVolume<Image>(run, input, arguments.String("outputVolume"), "Prefiltering", [&](const Image * samples) {
      auto filter = itk::BSplinePrefilterGPUImageFilter<Image, Image>::New();
      filter->SetInput(samples);
      filter->SetSplineOrder(static_cast<unsigned int>(arguments.Integer("splineOrder")));
      filter->SetBoundaryMode(mode);
      return filter;
    });
  });
}
} // namespace

CIF_DEFINE_CLI_MODULE(Declare, Execute)
