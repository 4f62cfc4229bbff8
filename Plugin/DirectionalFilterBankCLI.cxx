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
#include "cifModuleCommandLine.h"
#include "cifModuleDescription.h"
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
  auto reader = itk::ImageFileReader<Image>::New(); // reads the first slice's plane
  reader->SetFileName(path);
  run.Progress().Watch(reader, start, end, "Reading " + path);
  reader->Update();
  run.Progress().ThrowIfAborted();
  Image::Pointer image = reader->GetOutput();
  image->DisconnectPipeline();
  return image;
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
} // namespace

// The module's description, as Slicer reads it (--xml prints it too).
const char XMLModuleDescription[] = R"(<?xml version="1.0" encoding="utf-8"?>
<executable>
  <category>Filtering.GPU</category>
  <title>Directional Filter Bank (GPU)</title>
  <description>The Bamberger-Smith directional filter bank on 2-D images (or volumes of one slice), on the GPU (CPU when there is none): decompose an image into 2^levels directional subbands (one file each in a folder), reconstruct it from them (perfect reconstruction), or denoise it by thresholding its directional subbands at a multiple of the noise level estimated from the data.</description>
)" CIF_MODULE_PROVENANCE_XML R"(  <parameters>
    <label>Filter bank</label>
    <description>What to do, and the bank's shape.</description>
    <string-enumeration>
      <name>mode</name>
      <longflag>mode</longflag>
      <label>Mode</label>
      <description>denoise: input volume to output volume; decompose: input volume to subband files in the subband folder; reconstruct: subband files of the subband folder to output volume.</description>
      <default>denoise</default>
      <element>denoise</element>
      <element>decompose</element>
      <element>reconstruct</element>
    </string-enumeration>
    <integer>
      <name>levels</name>
      <longflag>levels</longflag>
      <label>Levels</label>
      <description>Tree levels n: 2^n directional subbands. The image's width and height must be multiples of 2^(n-1).</description>
      <default>3</default>
      <constraints><minimum>1</minimum><maximum>5</maximum><step>1</step></constraints>
    </integer>
    <string-enumeration>
      <name>filters</name>
      <longflag>filters</longflag>
      <label>Filters</label>
      <description>The 2-band stages' filters: PKVA ladder filters, or the QMF filters of the seed thesis.</description>
      <default>qmf16</default>
      <element>ladder-pkva12</element>
      <element>ladder-pkva8</element>
      <element>ladder-pkva6</element>
      <element>qmf8</element>
      <element>qmf16</element>
    </string-enumeration>
    <directory>
      <name>subbandDirectory</name>
      <longflag>subbandDirectory</longflag>
      <label>Subband folder</label>
      <description>Where decompose writes the subbands (subband_00.nrrd, ...) and reconstruct reads them.</description>
      <channel>input</channel>
    </directory>
)" CIF_FORCE_CPU_PARAMETER_XML R"(  </parameters>
  <parameters>
    <label>Denoising</label>
    <description>Settings of the denoise mode.</description>
    <double>
      <name>threshold</name>
      <longflag>threshold</longflag>
      <label>Threshold factor</label>
      <description>Subband coefficients below this many noise sigmas (times the bank's noise gain into the subband) are set to zero.</description>
      <default>3</default>
      <constraints><minimum>0</minimum><maximum>10</maximum><step>0.1</step></constraints>
    </double>
    <integer>
      <name>shifts</name>
      <longflag>shifts</longflag>
      <label>Cycle-spinning shifts</label>
      <description>Circular shifts of the image whose denoised estimates are averaged (1: none).</description>
      <default>8</default>
      <constraints><minimum>1</minimum><maximum>64</maximum><step>1</step></constraints>
    </integer>
    <double>
      <name>scaleSplit</name>
      <longflag>scaleSplit</longflag>
      <label>Scale split (pixels)</label>
      <description>Width of the Gaussian that splits the image into a coarse and a fine scale, each thresholded on its own (0: no split).</description>
      <default>1</default>
      <constraints><minimum>0</minimum><maximum>8</maximum><step>0.25</step></constraints>
    </double>
  </parameters>
  <parameters>
    <label>Outputs</label>
    <description>What the run reports.</description>
    <double>
      <name>noiseSigma</name>
      <label>Estimated noise sigma</label>
      <description>The noise level the denoise mode estimated from the image (median absolute finest diagonal Haar detail / 0.6745); 0 in the other modes.</description>
      <channel>output</channel>
    </double>
    <integer>
      <name>subbandCount</name>
      <label>Subbands</label>
      <description>The number of directional subbands (2^levels).</description>
      <channel>output</channel>
    </integer>
)" CIF_EXECUTION_PATH_PARAMETER_XML R"(  </parameters>
  <parameters>
    <label>IO</label>
    <description>Input and output images.</description>
    <image type="scalar">
      <name>inputVolume</name>
      <longflag>inputVolume</longflag>
      <label>Input image</label>
      <description>The image to decompose or denoise (2-D, or a volume of one slice).</description>
      <channel>input</channel>
    </image>
    <image type="scalar">
      <name>outputVolume</name>
      <longflag>outputVolume</longflag>
      <label>Output image</label>
      <description>The reconstructed or denoised image (float).</description>
      <channel>output</channel>
    </image>
  </parameters>
</executable>
)";

int
ModuleEntryPoint(int argc, char * argv[])
{
  return cif::RunModule(argc, argv, [&] {
    cif::ModuleCommandLine               cmd("Directional filter bank on the GPU (CudaImageFilters)");
    std::vector<std::string>             modes{ "denoise", "decompose", "reconstruct" };
    TCLAP::ValuesConstraint<std::string> allowedModes(modes);
    TCLAP::ValueArg<std::string>  mode("", "mode", "denoise, decompose or reconstruct", false, "denoise", &allowedModes,
                                      cmd);
    TCLAP::ValueArg<unsigned int> levels("", "levels", "tree levels n (1-5): 2^n directions", false, 3, "n", cmd);
    TCLAP::ValueArg<std::string>  filters("", "filters", "ladder-pkva12|ladder-pkva8|ladder-pkva6|qmf8|qmf16", false,
                                         "qmf16", "name", cmd);
    TCLAP::ValueArg<double>       threshold("", "threshold", "denoise: threshold in noise sigmas", false, 3.0, "k", cmd);
    TCLAP::ValueArg<int>          shifts("", "shifts", "denoise: cycle-spinning shifts (1 = none)", false, 8, "count",
                                cmd);
    TCLAP::ValueArg<double>       scaleSplit("", "scaleSplit", "denoise: Gaussian width of the scale split (0: none)",
                                       false, 1.0, "pixels", cmd);
    TCLAP::ValueArg<std::string>  subbands("", "subbandDirectory", "folder of the subband files", false, "", "path", cmd);
    TCLAP::ValueArg<std::string>  input("", "inputVolume", "image to decompose or denoise", false, "", "path", cmd);
    TCLAP::ValueArg<std::string>  output("", "outputVolume", "reconstructed or denoised image", false, "", "path", cmd);
    TCLAP::SwitchArg              cpu("", "cpu", "run the CPU path", cmd, false);
    cif::ModuleRun run(cmd, argc, argv, "Directional Filter Bank (GPU)", "Directional filter bank: " + mode.getValue());

    Settings s;
    if (levels.getValue() < 1 || levels.getValue() > 5)
    {
      throw TCLAP::ArgException("must be 1 to 5", "--levels");
    }
    if (shifts.getValue() < 1 || !(threshold.getValue() >= 0) || !(scaleSplit.getValue() >= 0))
    {
      throw TCLAP::ArgException("--shifts must be at least 1, --threshold and --scaleSplit at least 0", "--shifts");
    }
    s.levels = levels.getValue();
    try
    {
      s.filters = cif::DirectionalFilterSetNamed(filters.getValue());
    }
    catch (const std::invalid_argument & e)
    {
      throw TCLAP::ArgException(e.what(), "--filters");
    }
    s.useGPU = !cpu.getValue();
    s.threshold = threshold.getValue();
    s.shifts = shifts.getValue();
    s.scaleWidth = scaleSplit.getValue();
    const unsigned int count = 1u << s.levels;
    std::string        path = "None";
    double             sigma = 0.0;

    if (mode.getValue() == "decompose")
    {
      const std::string folder = Require(subbands.getValue(), "--subbandDirectory", "decompose");
      auto              image = ReadPlane(Require(input.getValue(), "--inputVolume", "decompose"), run, 0.0, 0.1);
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
    else if (mode.getValue() == "reconstruct")
    {
      const std::string folder = Require(subbands.getValue(), "--subbandDirectory", "reconstruct");
      const std::string out = Require(output.getValue(), "--outputVolume", "reconstruct");
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
      const std::string in = Require(input.getValue(), "--inputVolume", "denoise");
      const std::string out = Require(output.getValue(), "--outputVolume", "denoise");
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
    run.SetReturnParameter("executionPath", path);
    return run.Finish();
  });
}
