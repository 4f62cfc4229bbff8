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
#include "cifModuleDescription.h"
#include "cifModuleFilterRun.h"
#include "cifRunCLIModule.h"
#include "cifVolumeTypes.h"
#include "itkConvolutionGPUImageFilter.h"
#include "itkConvolutionKernelImage.h"

#include <string>

namespace
{
/** The module's parameters, declared once: its XML description and its command line. */
cif::ModuleDeclaration
Declare()
{
  auto module = cif::DeclareModule(
    "Filtering.GPU",
    "Convolution (GPU)",
    "Convolves a volume (scalar, RGB or vector pixels, per component) with a preset kernel (gaussian, box, sharpen, "
    "unsharp, emboss, edge, ridge, darken, lighten) or a kernel from a text file, on the GPU (CPU when there is "
    "none), matching ITK's ConvolutionImageFilter: a true convolution, the edge voxel repeated past the border, the "
    "output on the input's grid and in its pixel type. Kernels are 2-D: on a 3-D volume they act within each slice.",
    "Convolution with a kernel");
  auto & kernel = module.Group("Kernel", "Which kernel to convolve with.");
  kernel.Enumeration(
    "kernel",
    "Kernel",
    "A preset of the upscaling seed, or \"file\" to read the kernel from Kernel file.",
    "gaussian",
    { "gaussian", "box", "sharpen", "unsharp", "emboss", "edge", "ridge", "darken", "lighten", "file" });
  kernel
    .File("kernelFile",
          "Kernel file",
          "A square kernel of odd side (at most 127) as text: one row of weights per line, separated by blanks or "
          "commas; lines starting with # are ignored.")
    .FileExtensions(".txt");
  kernel.Integer("kernelSize", "Kernel size", "Side of the gaussian or box kernel in voxels (odd, 3 to 127).", 15)
    .Range(3, 127, 2);
  kernel.Double("sigma", "Sigma", "Standard deviation of the gaussian kernel in voxels (at least 0.5).", 5)
    .Range(0.5, 64, 0.5);
  kernel.Boolean(
    "normalize", "Normalize", "Divide the kernel by the sum of its weights (ConvolutionImageFilter's Normalize).");
  cif::AddForceCPU(kernel);
  cif::AddOutputs(module);
  auto & io = module.Group("IO", "Input and output volumes.");
  io.Image("inputVolume", "any", "Input volume", "The volume to convolve.").Index(0);
  io.Image("outputVolume", "any", "Convolved volume", "The convolution, on the input's grid and in its pixel type.")
    .Output()
    .Index(1);
  return module;
}

/** The kernel the arguments ask for: a preset, or the weights of --kernelFile. */
cif::ConvolutionKernel
KernelOf(const cif::ModuleArguments & arguments)
{
  const std::string kernel = arguments.String("kernel");
  const std::string file = arguments.String("kernelFile");
  if (kernel == "file")
  {
    if (file.empty())
    {
      throw TCLAP::ArgException("--kernel file needs a --kernelFile", "--kernelFile");
    }
    return cif::ReadKernelFile(file);
  }
  if (!file.empty())
  {
    throw TCLAP::ArgException("a kernel file is read only with --kernel file", "--kernelFile");
  }
  try
  {
    return cif::MakePresetKernel(kernel, static_cast<int>(arguments.Integer("kernelSize")), arguments.Double("sigma"));
  }
  catch (const cif::KernelError & e)
  {
    throw TCLAP::ArgException(e.what(), "--kernel");
  }
}

void
Execute(const cif::ModuleArguments & arguments, cif::ModuleRun & run)
{
  const cif::ConvolutionKernel weights = KernelOf(arguments);
  const std::string            input = arguments.String("inputVolume");
  const std::string            detail =
    weights.name + " " + std::to_string(weights.size[0]) + "x" + std::to_string(weights.size[1]);
  cif::ForVolumeType(*cif::ReadVolumeInformation(input), [&](auto image) {
    using Image = typename decltype(image)::type;
    using KernelImage = itk::Image<float, Image::ImageDimension>;
    auto convolve = [&](const Image * volume) {
      auto filter = itk::ConvolutionGPUImageFilter<Image, KernelImage, Image>::New();
      filter->SetInput(volume);
      filter->SetKernelImage(itk::MakeKernelImage<KernelImage>(weights));
      filter->SetNormalize(arguments.Boolean("normalize"));
      return filter;
    };
    cif::FilterVolume<Image>(run,
                             input,
                             arguments.String("outputVolume"),
                             "Convolving with the " + weights.name + " kernel",
                             convolve,
                             detail);
  });
}
} // namespace

CIF_DEFINE_CLI_MODULE(Declare, Execute)
