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
// DirectionalFilterBankCLI: a 3D Slicer CLI module around the Bamberger-Smith
// directional filter bank (DirectionalFilterBankGPUImageFilter and its synthesis).
// Three modes on 2-D images (or 3-D volumes of one slice, as Slicer holds 2-D
// images):
//   decompose:   input volume -> 2^levels subband files subband_00.nrrd ... in a folder
//   reconstruct: the subband files of a folder -> output volume
//   denoise:     input volume -> output volume (thresholded subbands, cycle spinning;
//                itkDirectionalFilterBankDenoising.h), returning the estimated noise
//                sigma as the output parameter noiseSigma
// Slicer's standard flags, progress and return parameters: cifModuleCommandLine.h.
//
//   DirectionalFilterBankCLI --mode denoise|decompose|reconstruct [--levels 3] [--filters qmf16]
//       [--threshold 3] [--shifts 8] [--scaleSplit 1] [--subbandDirectory D]
//       [--inputVolume I] [--outputVolume O] [--cpu]
#include "cifModuleDescription.h"
#include "cifModuleFilterRun.h"
#include "cifRunCLIModule.h"
#include "itkDirectionalFilterBankDenoising.h"
#include "itkImageFileReader.h"

#include <cstdio>
#include <string>
#include <vector>

namespace
{
using namespace itk::DirectionalDenoising; // Image (2-D float), Settings, Decompose, Reconstruct, Denoise

/** The path of subband \a b in \a folder. */
std::string
SubbandPath(const std::string & folder, unsigned int b)
{
  char name[32];
  std::snprintf(name, sizeof name, "/subband_%02u.nrrd", b);
  return folder + name;
}

/** A 2-D image, or a 3-D volume of one slice, as a 2-D float image. */
Image::Pointer
ReadPlane(const std::string & path, cif::ModuleRun & run, double start, double end)
{
  const auto io = cif::ReadVolumeInformation(path);
  if (io->GetNumberOfComponents() != 1 ||
      !(io->GetNumberOfDimensions() == 2 || (io->GetNumberOfDimensions() == 3 && io->GetDimensions(2) == 1)))
  {
    throw std::runtime_error(path + " is not a 2-D scalar image (or a 3-D volume of one slice): the directional "
                                    "filter bank works on 2-D images");
  }
  return cif::ReadWatched<Image>(run, path, start, end, "Reading " + path); // the first slice's plane
}

/** Writes \a plane, on the grid of the volume at \a like: a 3-D volume of one slice
 * keeps its third axis (origin, spacing, direction), so the output overlays the
 * input in Slicer. */
void
WriteLike(const Image * plane, const std::string & like, const std::string & path)
{
  const auto io = cif::ReadVolumeInformation(like);
  if (io->GetNumberOfDimensions() == 2)
  {
    cif::WriteAtomically(plane, path);
    return;
  }
  using Volume = itk::Image<float, 3>;
  auto reader = itk::ImageFileReader<Volume>::New();
  reader->SetFileName(like);
  reader->UpdateOutputInformation();
  auto volume = Volume::New();
  volume->CopyInformation(reader->GetOutput());
  volume->SetRegions(reader->GetOutput()->GetLargestPossibleRegion());
  volume->Allocate();
  std::copy_n(plane->GetBufferPointer(), plane->GetBufferedRegion().GetNumberOfPixels(), volume->GetBufferPointer());
  cif::WriteAtomically(volume.GetPointer(), path);
}

std::string
Require(const std::string & value, const std::string & flag, const std::string & mode)
{
  if (value.empty())
  {
    throw TCLAP::ArgException("--mode " + mode + " needs it", flag);
  }
  return value;
}

/** The module's parameters, declared once: its XML description and its command line. */
cif::ModuleDeclaration
Declare()
{
  auto module = cif::DeclareModule(
    "Filtering.GPU",
    "Directional Filter Bank (GPU)",
    "The Bamberger-Smith directional filter bank on 2-D images (or volumes of one slice), on the GPU (CPU when there "
    "is none): decompose an image into 2^levels directional subbands (one file each in a folder), reconstruct it from "
    "them (perfect reconstruction), or denoise it by thresholding its directional subbands at a multiple of the noise "
    "level estimated from the data.",
    "Directional filter bank");
  auto & bank = module.Group("Filter bank", "What to do, and the bank's shape.");
  bank.Enumeration("mode",
                   "Mode",
                   "denoise: input volume to output volume; decompose: input volume to subband files in the subband "
                   "folder; reconstruct: subband files of the subband folder to output volume.",
                   "denoise",
                   { "denoise", "decompose", "reconstruct" });
  bank
    .Integer("levels",
             "Levels",
             "Tree levels n: 2^n directional subbands. The image's width and height must be multiples of 2^(n-1).",
             3)
    .Range(1, 5, 1)
    .Enforced();
  bank.Enumeration("filters",
                   "Filters",
                   "The 2-band stages' filters: PKVA ladder filters, or the QMF filters of the seed thesis.",
                   "qmf16",
                   { "ladder-pkva12", "ladder-pkva8", "ladder-pkva6", "qmf8", "qmf16" });
  bank.Directory("subbandDirectory",
                 "Subband folder",
                 "Where decompose writes the subbands (subband_00.nrrd, ...) and reconstruct reads them.");
  cif::AddForceCPU(bank);
  auto & denoising = module.Group("Denoising", "Settings of the denoise mode.");
  denoising
    .Double("threshold",
            "Threshold factor",
            "Subband coefficients below this many noise sigmas (times the bank's noise gain into the subband) are set "
            "to zero.",
            3)
    .Range(0, 10, 0.1);
  denoising
    .Integer("shifts",
             "Cycle-spinning shifts",
             "Circular shifts of the image whose denoised estimates are averaged (1: none).",
             8)
    .Range(1, 64, 1);
  denoising
    .Double("scaleSplit",
            "Scale split (pixels)",
            "Width of the Gaussian that splits the image into a coarse and a fine scale, each thresholded on its own "
            "(0: no split).",
            1)
    .Range(0, 8, 0.25);
  auto & outputs = cif::AddOutputs(module);
  outputs.Returned("double",
                   "noiseSigma",
                   "Estimated noise sigma",
                   "The noise level the denoise mode estimated from the image (median absolute finest diagonal Haar "
                   "detail / 0.6745); 0 in the other modes.");
  outputs.Returned("integer", "subbandCount", "Subbands", "The number of directional subbands (2^levels).");
  auto & io = module.Group("IO", "Input and output images.");
  io.Image(
    "inputVolume", "scalar", "Input image", "The image to decompose or denoise (2-D, or a volume of one slice).");
  io.Image("outputVolume", "scalar", "Output image", "The reconstructed or denoised image (float).").Output();
  return module;
}

void
Execute(const cif::ModuleArguments & arguments, cif::ModuleRun & run)
{
  const std::string mode = arguments.String("mode");
  const std::string subbands = arguments.String("subbandDirectory");
  const std::string input = arguments.String("inputVolume");
  const std::string output = arguments.String("outputVolume");
  Settings          s;
  if (arguments.Integer("shifts") < 1 || !(arguments.Double("threshold") >= 0) ||
      !(arguments.Double("scaleSplit") >= 0))
  {
    throw TCLAP::ArgException("--shifts must be at least 1, --threshold and --scaleSplit at least 0", "--shifts");
  }
  s.levels = static_cast<unsigned int>(arguments.Integer("levels"));
  try
  {
    s.filters = cif::DirectionalFilterSetNamed(arguments.String("filters"));
  }
  catch (const std::invalid_argument & e)
  {
    throw TCLAP::ArgException(e.what(), "--filters");
  }
  s.useGPU = run.UseGPU();
  s.threshold = arguments.Double("threshold");
  s.shifts = static_cast<int>(arguments.Integer("shifts"));
  s.scaleWidth = arguments.Double("scaleSplit");
  const unsigned int count = 1u << s.levels;
  std::string        path = "None";
  double             sigma = 0.0;

  if (mode == "decompose")
  {
    const std::string folder = Require(subbands, "--subbandDirectory", "decompose");
    auto              image = ReadPlane(Require(input, "--inputVolume", "decompose"), run, 0.0, 0.1);
    auto              analysis = Analysis::New();
    analysis->SetInput(image);
    analysis->SetNumberOfLevels(s.levels);
    analysis->SetFilterSet(s.filters);
    analysis->SetUseGPU(s.useGPU);
    run.Progress().Watch(analysis, 0.1, 0.6, "Decomposing");
    analysis->Update();
    run.Progress().ThrowIfAborted();
    for (unsigned int b = 0; b < count; ++b)
    {
      run.Progress().Report(0.6 + 0.4 * b / count, static_cast<double>(b) / count, "Writing the subbands");
      cif::WriteAtomically(analysis->GetSubband(b), SubbandPath(folder, b));
    }
    path = itk::ToString(analysis->GetLastExecutionPath());
    std::cout << "wrote " << count << " subbands " << SubbandPath(folder, 0) << " ... (" << path << ")\n";
  }
  else if (mode == "reconstruct")
  {
    const std::string folder = Require(subbands, "--subbandDirectory", "reconstruct");
    const std::string out = Require(output, "--outputVolume", "reconstruct");
    auto              synthesis = Synthesis::New();
    synthesis->SetNumberOfLevels(s.levels);
    synthesis->SetFilterSet(s.filters);
    synthesis->SetUseGPU(s.useGPU);
    std::vector<Image::Pointer> bands; // the synthesis keeps pointers to its inputs
    for (unsigned int b = 0; b < count; ++b)
    {
      bands.push_back(ReadPlane(SubbandPath(folder, b), run, 0.4 * b / count, 0.4 * (b + 1) / count));
      synthesis->SetSubband(b, bands.back());
    }
    run.Progress().Watch(synthesis, 0.4, 0.9, "Reconstructing");
    synthesis->Update();
    run.Progress().ThrowIfAborted();
    run.Progress().BeginStage(0.9, "Writing the reconstruction");
    cif::WriteAtomically(synthesis->GetOutput(), out);
    path = itk::ToString(synthesis->GetLastExecutionPath());
    std::cout << "wrote " << out << " (" << path << ")\n";
  }
  else
  {
    const std::string in = Require(input, "--inputVolume", "denoise");
    const std::string out = Require(output, "--outputVolume", "denoise");
    auto              image = ReadPlane(in, run, 0.0, 0.1);
    s.progress = [&run](double done) {
      run.Progress().Report(0.1 + 0.8 * done, done, "Denoising");
      run.Progress().ThrowIfAborted();
    };
    auto denoised = Denoise(image, s, &sigma);
    run.Progress().BeginStage(0.9, "Writing the denoised image");
    WriteLike(denoised, in, out);
    // the denoising decomposes on the path UseGPU asks for where a device is present
    path = s.useGPU && cif::IsGPUAvailable() ? "GPU" : "CPU";
    std::cout << "estimated noise sigma = " << sigma << "; wrote " << out << " (" << path << ")\n";
  }
  run.SetReturnParameter("noiseSigma", sigma);
  run.SetReturnParameter("subbandCount", count);
  run.SetReturnParameter(cif::ExecutionPathParameterName, path);
}
} // namespace

CIF_DEFINE_CLI_MODULE(Declare, Execute)
