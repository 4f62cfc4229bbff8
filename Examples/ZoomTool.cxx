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
// ZoomTool: the upscaling seed's command-line program on ZoomGPUImageFilter. Cuts a
// region out of an image, enlarges it (cubic B-spline by default; linear, or the
// seed's pixel replication with --interpolation nearest), optionally enhances it with
// a kernel preset or a kernel file, and writes the result atomically (a temporary
// file, then a rename): a failure never leaves a half-written file. Reads PPM/PGM (the
// seed's format) and what ITK reads here (PNG, JPEG, TIFF, BMP, NRRD, MetaImage);
// gray, RGB or RGBA.
//
//   ZoomTool [--center X,Y] [--size W,H] [--zoom Z] [--interpolation cubic|linear|nearest]
//            [--kernel PRESET | --kernel-file FILE] [--gauss-length N] [--gauss-sigma S]
//            [--general] [--cpu] [-v] input output
//
// The seed's "upsCu -g img.ppm 100 100 50 50 2 31 5" is
//   ZoomTool --center 100,100 --size 50,50 --zoom 2 --kernel gaussian --gauss-length 31 --gauss-sigma 5 img.ppm out.ppm
#include "cifITKPoolParking.h"
#include "cifCommandLineSupport.h"
#include "cifKernelFile.h"
#include "cifKernelPresets.h"
#include "cifPortablePixmap.h"
#include "itkBMPImageIOFactory.h"
#include "itkImageFileReader.h"
#include "itkJPEGImageIOFactory.h"
#include "itkMetaImageIOFactory.h"
#include "itkNrrdImageIOFactory.h"
#include "itkPNGImageIOFactory.h"
#include "itkRGBAPixel.h"
#include "itkRGBPixel.h"
#include "itkTIFFImageIOFactory.h"
#include "itkZoomGPUImageFilter.h"

#include <tclap/CmdLine.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace
{
struct Options
{
  std::string            input, output;
  bool                   hasCenter = false, hasSize = false;
  long                   center[2] = { 0, 0 };
  long                   size[2] = { 0, 0 };
  double                 zoom = 2.0;
  cif::ZoomInterpolation interpolation = cif::ZoomInterpolation::Cubic;
  bool                   hasKernel = false;
  cif::ConvolutionKernel kernel;
  bool                   cpu = false, verbose = false, general = false;
};

/** A user error in the arguments: reported with exit status 2. */
struct UsageError : std::runtime_error
{
  using std::runtime_error::runtime_error;
};

/** "X,Y" as two integers (strictly: "12,x" or "12" is refused). */
void
ParsePair(const std::string & text, const char * option, long out[2])
{
  try
  {
    const auto values = cif::ParseIntegerList(text, 2);
    out[0] = values[0];
    out[1] = values[1];
  }
  catch (const std::invalid_argument &)
  {
    throw UsageError(std::string("--") + option + " expects two integers as X,Y (got \"" + text + "\")");
  }
}

double
Milliseconds(std::chrono::steady_clock::time_point since)
{
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

bool
EndsWithNetpbm(const std::string & path)
{
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos)
    return false;
  std::string ext = path.substr(dot + 1);
  for (char & c : ext)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == "ppm" || ext == "pgm" || ext == "pnm";
}

template <typename TComponent, unsigned int N>
using PixelOf = std::
  conditional_t<N == 1, TComponent, std::conditional_t<N == 3, itk::RGBPixel<TComponent>, itk::RGBAPixel<TComponent>>>;

template <typename TComponent, unsigned int N>
int
Run(const Options & o, const cif_example::Pixmap * pixmap)
{
  using Image = itk::Image<PixelOf<TComponent, N>, 2>;
  const auto              start = std::chrono::steady_clock::now();
  typename Image::Pointer input;
  if (pixmap)
  {
    input = Image::New();
    input->SetRegions(itk::Size<2>{ { pixmap->width, pixmap->height } });
    input->Allocate();
    std::copy(pixmap->data.begin(), pixmap->data.end(), reinterpret_cast<TComponent *>(input->GetBufferPointer()));
  }
  else
  {
    auto reader = itk::ImageFileReader<Image>::New();
    reader->SetFileName(o.input);
    reader->Update();
    input = reader->GetOutput();
  }
  const double readMs = Milliseconds(start);
  const auto   imageSize = input->GetLargestPossibleRegion().GetSize();

  auto zoom = itk::ZoomGPUImageFilter<Image>::New();
  zoom->SetInput(input);
  typename Image::IndexType center;
  typename Image::SizeType  size;
  for (unsigned a = 0; a < 2; ++a)
  {
    center[a] = o.hasCenter ? o.center[a] : static_cast<long>(imageSize[a] / 2);
    if (o.hasSize && o.size[a] < 0)
    {
      throw UsageError("--size expects a width and a height of at least 1 pixel");
    }
    size[a] = o.hasSize ? static_cast<itk::SizeValueType>(o.size[a]) : imageSize[a];
  }
  zoom->SetCutOutCenter(center);
  zoom->SetCutOutSize(size);
  zoom->SetZoomFactor(o.zoom);
  zoom->SetInterpolation(o.interpolation);
  zoom->SetUseGPU(!o.cpu);
  zoom->SetForceGeneralPath(o.general);
  if (o.hasKernel)
  {
    zoom->SetKernel(o.kernel);
  }
  const auto zoomStart = std::chrono::steady_clock::now();
  zoom->Update();
  const double zoomMs = Milliseconds(zoomStart);

  const auto writeStart = std::chrono::steady_clock::now();
  const auto outSize = zoom->GetOutput()->GetLargestPossibleRegion().GetSize();
  if (EndsWithNetpbm(o.output))
  {
    if constexpr (std::is_same_v<TComponent, unsigned char> && (N == 1 || N == 3))
    {
      cif_example::Pixmap out;
      out.width = outSize[0];
      out.height = outSize[1];
      out.components = N;
      const auto * data = reinterpret_cast<const unsigned char *>(zoom->GetOutput()->GetBufferPointer());
      out.data.assign(data, data + out.width * out.height * N);
      cif_example::WritePortablePixmap(out, o.output);
    }
    else
    {
      throw std::runtime_error("PPM/PGM output holds 8-bit gray or RGB pixels; this image has " + std::to_string(N) +
                               " components of another type (write .nrrd, .mha or .tif instead)");
    }
  }
  else
  {
    cif::WriteAtomically(zoom->GetOutput(), o.output);
  }
  const double writeMs = Milliseconds(writeStart);

  const char * path = zoom->GetLastExecutionPath() == itk::CudaExecutionPath::GPU ? "GPU" : "CPU";
  const auto   cutOut = zoom->GetCutOutRegion();
  std::cout << "ZoomTool: cut out " << cutOut.GetSize()[0] << " x " << cutOut.GetSize()[1] << " pixels at ["
            << cutOut.GetIndex()[0] << ", " << cutOut.GetIndex()[1] << "] of " << o.input << ", zoomed by " << o.zoom
            << (o.hasKernel ? ", enhanced with " + o.kernel.name : std::string()) << "\n";
  std::cout << "wrote " << o.output << " (" << outSize[0] << " x " << outSize[1] << ", " << path << ", "
            << cif::ToString(o.interpolation) << ", " << (o.hasKernel ? o.kernel.name : std::string("no kernel"))
            << ")\n";
  if (o.verbose)
  {
    const auto cut = zoom->GetCutOutRegion();
    std::cout << "  input " << imageSize[0] << " x " << imageSize[1] << ", " << N << " component(s); cut-out ["
              << cut.GetIndex()[0] << ", " << cut.GetIndex()[1] << "] + " << cut.GetSize()[0] << " x "
              << cut.GetSize()[1] << ", zoom " << o.zoom << "\n"
              << "  read " << readMs << " ms; cut-out, zoom and enhancement (" << path << ", transfers included) "
              << zoomMs << " ms; write " << writeMs << " ms\n";
  }
  return 0;
}

template <typename TComponent>
int
RunComponents(const Options & o, unsigned int components, const cif_example::Pixmap * pixmap)
{
  switch (components)
  {
    case 1:
      return Run<TComponent, 1>(o, pixmap);
    case 3:
      return Run<TComponent, 3>(o, pixmap);
    case 4:
      return Run<TComponent, 4>(o, pixmap);
    default:
      std::cerr << "error: " << o.input << " has " << components
                << " components per pixel; the tool takes gray (1), RGB (3) or RGBA (4)\n";
      return 1;
  }
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  // Registered here rather than through ITK's CMake-generated list, so the tool reads
  // the same formats however the build directory was configured.
  itk::PNGImageIOFactory::RegisterOneFactory();
  itk::JPEGImageIOFactory::RegisterOneFactory();
  itk::TIFFImageIOFactory::RegisterOneFactory();
  itk::BMPImageIOFactory::RegisterOneFactory();
  itk::NrrdImageIOFactory::RegisterOneFactory();
  itk::MetaImageIOFactory::RegisterOneFactory();
  try
  {
    std::string presets;
    for (const auto & n : cif::PresetKernelNames())
      presets += (presets.empty() ? "" : ", ") + n;
    TCLAP::CmdLine cmd(
      "Cut out, zoom and enhance an image on the GPU (CudaImageFilters; the upscaling seed's tool)", ' ', "0.1.0");
    TCLAP::ValueArg<std::string> center(
      "", "center", "centre of the cut-out in pixels, X,Y (default: the image's)", false, "", "X,Y", cmd);
    TCLAP::ValueArg<std::string> size(
      "", "size", "cut-out width and height in pixels, W,H (default: the whole image)", false, "", "W,H", cmd);
    TCLAP::ValueArg<double> zoomArg(
      "", "zoom", "zoom factor, at least 1; need not be an integer (default 2)", false, 2.0, "Z", cmd);
    std::vector<std::string>             interpolations{ "cubic", "linear", "nearest" };
    TCLAP::ValuesConstraint<std::string> allowedInterpolations(interpolations);
    TCLAP::ValueArg<std::string>         interpolation("",
                                               "interpolation",
                                               "cubic (B-spline, default), linear, or nearest (pixel replication)",
                                               false,
                                               "cubic",
                                               &allowedInterpolations,
                                               cmd);
    TCLAP::ValueArg<std::string>         kernel(
      "", "kernel", "enhancement kernel preset: " + presets, false, "", "PRESET", cmd);
    TCLAP::ValueArg<std::string> kernelFile(
      "", "kernel-file", "enhancement kernel from a text file (square, odd side <= 127)", false, "", "FILE", cmd);
    TCLAP::ValueArg<int> gaussLength(
      "", "gauss-length", "side of the gaussian (odd, 3 to 127) or box kernel (default 15)", false, 15, "N", cmd);
    TCLAP::ValueArg<double> gaussSigma(
      "", "gauss-sigma", "sigma of the gaussian kernel, >= 0.5 (default 5)", false, 5.0, "S", cmd);
    TCLAP::SwitchArg general("", "general", "convolve with the general path even for a separable kernel", cmd, false);
    TCLAP::SwitchArg cpu("", "cpu", "run the CPU path even when a GPU is present", cmd, false);
    TCLAP::SwitchArg verbose("v", "verbose", "print sizes and timings", cmd, false);
    TCLAP::UnlabeledValueArg<std::string> input(
      "input", "input image (PPM/PGM, PNG, JPEG, TIFF, BMP, NRRD, MHA)", true, "", "input", cmd);
    TCLAP::UnlabeledValueArg<std::string> output(
      "output", "output image (format from the extension)", true, "", "output", cmd);
    cmd.setExceptionHandling(false); // errors reach the handlers below, reported as "error: ..."
    cmd.parse(argc, argv);

    Options o;
    o.input = input.getValue();
    o.output = output.getValue();
    if (center.isSet())
    {
      ParsePair(center.getValue(), "center", o.center);
      o.hasCenter = true;
    }
    if (size.isSet())
    {
      ParsePair(size.getValue(), "size", o.size);
      o.hasSize = true;
    }
    o.zoom = zoomArg.getValue();
    o.interpolation = interpolation.getValue() == "nearest"  ? cif::ZoomInterpolation::Nearest
                      : interpolation.getValue() == "linear" ? cif::ZoomInterpolation::Linear
                                                             : cif::ZoomInterpolation::Cubic;
    if (kernel.isSet() && kernelFile.isSet())
    {
      throw UsageError("--kernel and --kernel-file exclude each other");
    }
    if (kernelFile.isSet())
    {
      o.kernel = cif::ReadKernelFile(kernelFile.getValue());
      o.hasKernel = true;
    }
    else if (kernel.isSet() && kernel.getValue() != "none")
    {
      o.kernel = cif::MakePresetKernel(kernel.getValue(), gaussLength.getValue(), gaussSigma.getValue());
      o.hasKernel = true;
    }
    o.cpu = cpu.getValue();
    o.verbose = verbose.getValue();
    o.general = general.getValue();

    if (cif_example::IsPortablePixmap(o.input))
    {
      const cif_example::Pixmap pixmap = cif_example::ReadPortablePixmap(o.input);
      return RunComponents<unsigned char>(o, static_cast<unsigned int>(pixmap.components), &pixmap);
    }
    const auto io = cif::ReadVolumeInformation(o.input);
    if (io->GetNumberOfDimensions() != 2)
    {
      std::cerr << "error: " << o.input << " is " << io->GetNumberOfDimensions() << "-D; the tool zooms 2-D images\n";
      return 1;
    }
    // 8-bit images stay 8-bit; any other component type is processed and written as float.
    if (io->GetComponentType() == itk::IOComponentEnum::UCHAR)
    {
      return RunComponents<unsigned char>(o, io->GetNumberOfComponents(), nullptr);
    }
    return RunComponents<float>(o, io->GetNumberOfComponents(), nullptr);
  }
  catch (const TCLAP::ArgException & e)
  {
    std::cerr << "error: " << e.error() << " for " << e.argId() << "\n";
    return 2;
  }
  catch (const UsageError & e)
  {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << "error: " << cif::ReasonOf(e) << "\n";
    return 1;
  }
  catch (const std::exception & e)
  {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
