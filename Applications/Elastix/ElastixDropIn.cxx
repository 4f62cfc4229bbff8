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
// elastix's command line over the module's GPU registration: a drop-in for the
// elastix executable that SlicerElastix, scripts and pipelines call,
//
//   elastix -f fixed -m moving -p par0.txt [-p par1.txt ...] -out folder
//           [-fMask mask] [-mMask mask] [-t0 TransformParameters.txt] [-threads N] [-priority P]
//
// Each -p file is one stage of itk::ElasticRegistration (cifElastixRegistrationStage.h:
// a key the module does not serve stops the run before any work, with the file, the
// line and the reason). In -out it writes what elastix writes: TransformParameters.N.txt
// per stage (transformix applies it), result.N.<ResultImageFormat> when
// WriteResultImage is true, TransformParameters.N.<ext> and
// TransformParameters.N-Composite.<ext> when ITKTransformOutputFileNameExtension
// (and WriteITKCompositeTransform) ask, and elastix.log.
#include "cifCudaRuntime.h"
#include "cifElastixRegistrationChain.h"
#include "cifElastixResultImage.h"
#include "cifTransformFile.h"
#include "itkElasticRegistration.h"
#include "itkElastixTransformFileWriter.h"
#include "itkImageFileReader.h"
#include "itkMultiThreaderBase.h"
#include "itksys/SystemTools.hxx"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace
{
/** elastix's arguments: "-key value" pairs, -p repeated. */
struct Arguments
{
  std::map<std::string, std::string> values;
  std::vector<std::string>           parameterFiles;

  std::string
  Get(const std::string & key) const
  {
    const auto found = values.find(key);
    return found == values.end() ? std::string() : found->second;
  }
};

constexpr const char * kUsage =
  "elastix (the CudaImageFilters GPU drop-in for elastix 5.0.1's command line)\n"
  "usage: elastix -f fixed -m moving -p parameters.txt [-p ...] -out folder\n"
  "               [-fMask mask] [-mMask mask] [-t0 initialTransform] [-threads N] [-priority P]\n"
  "  -f, -m      the fixed and the moving image (2-D or 3-D, any scalar pixel type)\n"
  "  -p          an elastix registration parameter file, one stage each, run in order\n"
  "  -out        an existing folder: TransformParameters.N.txt, result.N.*, elastix.log\n"
  "  -fMask, -mMask  masks (nonzero inside)\n"
  "  -t0         a transform applied before the first stage (elastix's or ITK's file)\n"
  "  -threads    the host threads ITK may use; -priority is accepted (elastix's process priority)\n";

/** The arguments, or none where --help or --version was answered. */
std::optional<Arguments>
Parse(int argc, char * argv[])
{
  Arguments arguments;
  for (int k = 1; k < argc; ++k)
  {
    const std::string key = argv[k];
    if (key == "--help" || key == "-help" || key == "-h")
    {
      std::cout << kUsage;
      return std::nullopt;
    }
    if (key == "--version" || key == "-version")
    {
      std::cout << "elastix version: 5.0.1 (the CudaImageFilters GPU drop-in)\n";
      return std::nullopt;
    }
    static const char * known[] = { "-f", "-m", "-p", "-out", "-fMask", "-mMask", "-t0", "-threads", "-priority" };
    if (std::find(std::begin(known), std::end(known), key) == std::end(known))
    {
      throw std::runtime_error("unknown argument \"" + key +
                               "\" (the drop-in takes -f -m -p -out -fMask -mMask -t0 "
                               "-threads -priority)");
    }
    if (k + 1 >= argc)
    {
      throw std::runtime_error(key + " needs a value");
    }
    const std::string value = argv[++k];
    if (key == "-p")
    {
      arguments.parameterFiles.push_back(value);
    }
    else if (!arguments.values.emplace(key, value).second)
    {
      throw std::runtime_error(key + " is given twice");
    }
  }
  for (const char * required : { "-f", "-m", "-out" })
  {
    if (arguments.Get(required).empty())
    {
      throw std::runtime_error(std::string(required) + " is missing\n" + kUsage);
    }
  }
  if (arguments.parameterFiles.empty())
  {
    throw std::runtime_error(std::string("-p is missing\n") + kUsage);
  }
  return arguments;
}

/** The log: every line to standard output and to -out/elastix.log. */
class Log
{
public:
  void
  Open(const std::string & path)
  {
    m_File.open(path);
    if (!m_File)
    {
      throw std::runtime_error("cannot write " + path);
    }
  }
  template <typename T>
  Log &
  operator<<(const T & value)
  {
    std::cout << value;
    if (m_File.is_open())
    {
      m_File << value;
    }
    return *this;
  }
  /** A line to the file only (the iteration tables). */
  void
  FileLine(const std::string & line)
  {
    if (m_File.is_open())
    {
      m_File << line << '\n';
    }
  }
  void
  Flush()
  {
    std::cout.flush();
    m_File.flush();
  }

private:
  std::ofstream m_File;
};

/** Seconds since \a start, as text with three decimals. */
std::string
SecondsSince(std::chrono::steady_clock::time_point start)
{
  std::ostringstream text;
  text << std::fixed << std::setprecision(3)
       << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return text.str();
}

template <unsigned int D>
typename itk::Image<float, D>::Pointer
ReadImage(const std::string & path)
{
  auto reader = itk::ImageFileReader<itk::Image<float, D>>::New();
  reader->SetFileName(path);
  reader->Update();
  return reader->GetOutput();
}

template <unsigned int D>
typename itk::Image<unsigned char, D>::Pointer
ReadMask(const std::string & path)
{
  if (path.empty())
  {
    return nullptr;
  }
  auto reader = itk::ImageFileReader<itk::Image<unsigned char, D>>::New();
  reader->SetFileName(path);
  reader->Update();
  return reader->GetOutput();
}

/** The log's lines for one level's adaptive descent, as elastix prints its settings. */
void
LogEstimate(Log & log, unsigned int level, const itk::AdaptiveStochasticGradientDescentEstimate & e)
{
  std::ostringstream text;
  text << std::setprecision(8) << "Settings of AdaptiveStochasticGradientDescent in resolution " << level << ":\n"
       << "  SP_a: " << e.Param_a << "\n  SP_alpha: " << e.Param_alpha << "\n  SigmoidMax: " << e.SigmoidMax
       << "\n  SigmoidMin: " << e.SigmoidMin << "\n  SigmoidScale: " << e.SigmoidScale
       << "\n  MaximumStepLength: " << e.MaximumStepLength << "\n  NoiseFactor: " << e.NoiseFactor << "\n"
       << std::setprecision(4) << "  Estimated in " << e.Seconds << " s (Jacobian terms " << e.JacobianSeconds << " s; "
       << e.NumberOfGradientMeasurements << " exact and sampled gradients " << e.GradientSeconds
       << " s, of which making the exact metric " << e.TwinSeconds << " s)\n";
  log << text.str();
}

template <unsigned int D>
int
Run(const Arguments &                          arguments,
    std::vector<cif::ElastixRegistrationStage> stages,
    Log &                                      log,
    const std::future<bool> &                  gpuReady)
{
  using Chain = itk::CompositeTransform<double, D>;
  const auto start = std::chrono::steady_clock::now();
  // The moving image and the masks are read while the fixed image is (each file is
  // decompressed by one thread); ImageIO's factories were set up by the header reads.
  auto       readingMoving = std::async(std::launch::async, [&arguments] { return ReadImage<D>(arguments.Get("-m")); });
  auto       readingMasks = std::async(std::launch::async, [&arguments] {
    return std::make_pair(ReadMask<D>(arguments.Get("-fMask")), ReadMask<D>(arguments.Get("-mMask")));
  });
  const auto fixed = ReadImage<D>(arguments.Get("-f"));
  const auto moving = readingMoving.get();
  const auto [fixedMask, movingMask] = readingMasks.get();
  log << "Reading the images took " << SecondsSince(start) << " s.\n";
  gpuReady.wait();
  typename itk::Transform<double, D, D>::ConstPointer initial;
  if (const std::string t0 = arguments.Get("-t0"); !t0.empty())
  {
    initial = cif::ReadTransformFile<D>(t0);
  }
  const std::string                     out = arguments.Get("-out");
  const bool                            useGPU = stages.front().settings.useGPU;
  std::chrono::steady_clock::time_point stageStart;
  cif::ElastixChainObserver<D>          observer;
  observer.stageStarts = [&](std::size_t n, const cif::ElastixRegistrationStage & stage) {
    stageStart = std::chrono::steady_clock::now();
    log << "\nRunning elastix with parameter file " << n << ": \"" << stage.parameterFile << "\".\n"
        << "  Transform " << stage.transformName << ", metric " << stage.metricName << ", optimizer "
        << stage.optimizerName << ", " << stage.settings.levels << " resolutions\n";
  };
  observer.iteration = [&log](std::size_t, const itk::RegistrationIterationReport & report) {
    if (report.levelEnded)
    {
      std::ostringstream line;
      line << "Time spent in resolution " << report.level
           << " (ITK initialization and iterating): " << std::setprecision(6) << report.levelSeconds << " s.\n"
           << "Stopping condition: Maximum number of iterations has been reached (" << report.iteration << ").\n"
           << "Final metric value of resolution " << report.level << " = " << std::setprecision(10)
           << report.metricValue << "\n"
           << "Metric timing: " << cif::MetricTimingReport<itk::Image<float, D>>(report.metric) << "\n";
      log << line.str();
      return;
    }
    if (report.iteration == 1)
    {
      log << "\nResolution: " << report.level << "\n";
      log.FileLine("1:ItNr\t2:Metric");
    }
    std::ostringstream line;
    line << report.iteration - 1 << '\t' << std::setprecision(10) << report.metricValue;
    log.FileLine(line.str());
  };
  observer.stageEnded = [&](std::size_t                                                 n,
                            const typename cif::ElastixChainObserver<D>::Registration & registration,
                            itk::Transform<double, D, D> *                              result,
                            Chain *                                                     chain) {
    const auto & stage = stages[n];
    const auto & report = registration.GetStageReports().front();
    for (std::size_t level = 0; level < report.estimatesPerLevel.size(); ++level)
    {
      LogEstimate(log, static_cast<unsigned int>(level), report.estimatesPerLevel[level]);
    }
    std::ostringstream line;
    line << "Stage " << n << " took " << SecondsSince(stageStart) << " s (metric on " << report.executionPath
         << "); final metric value " << std::setprecision(10) << report.finalMetricValue << "\n";
    log << line.str();

    // What elastix writes after the stage: the chain so far, applied as ITK applies it.
    const auto savingStart = std::chrono::steady_clock::now();
    auto       grid = itk::ElastixOutputGrid<D>::FromImage(fixed.GetPointer());
    grid.DefaultPixelValue = stage.defaultPixelValue;
    const auto base = out + "/TransformParameters." + std::to_string(n);
    auto       writer = itk::ElastixTransformFileWriter<D>::New();
    writer->SetTransform(chain);
    writer->SetOutputGrid(grid);
    writer->SetFileName(base + ".txt");
    writer->SetFinalBSplineInterpolationOrder(stage.finalBSplineInterpolationOrder);
    writer->SetResultImagePixelType(stage.resultImagePixelType);
    writer->SetResultImageFormat(stage.resultImageFormat);
    writer->SetCompressResultImage(stage.compressResultImage);
    writer->Update();
    if (!stage.itkTransformExtension.empty())
    {
      cif::WriteTransformFile(result, base + "." + stage.itkTransformExtension);
      if (stage.writeITKCompositeTransform)
      {
        cif::WriteTransformFile(chain, base + "-Composite." + stage.itkTransformExtension);
      }
    }
    if (stage.writeResultImage)
    {
      const auto resampled =
        cif::ResampleForElastix<D>(moving, chain, grid, stage.finalBSplineInterpolationOrder, useGPU);
      cif::WriteElastixResultImage<D>(resampled,
                                      out + "/result." + std::to_string(n) + "." + stage.resultImageFormat,
                                      stage.resultImagePixelType,
                                      stage.compressResultImage);
    }
    log << "Time spent on saving the results, applying the final transform etc.: " << SecondsSince(savingStart)
        << " s.\n";
  };
  cif::RunElastixRegistrationChain<D>(fixed, moving, fixedMask, movingMask, stages, initial, observer);
  log << "\nTotal time elapsed: " << SecondsSince(start) << " s.\n";
  return 0;
}
} // namespace

int
main(int argc, char * argv[])
{
  // The GPU's first use (its context: about 0.3 s on an H200) made while the files are
  // parsed and the images read; waited for before the registration.
  auto gpuReady = std::async(std::launch::async, [] {
    try
    {
      return cif::IsGPUAvailable();
    }
    catch (...)
    {
      return false; // the registration meets the same cause and reports it
    }
  });
  Log  log;
  try
  {
    // main returns (never std::exit) so that the GPU probe's thread is joined before
    // the runtime's static objects go: an exit beside it crashed one run in five.
    const auto parsed = Parse(argc, argv);
    if (!parsed)
    {
      return 0;
    }
    const Arguments & arguments = *parsed;
    const std::string out = arguments.Get("-out");
    if (!itksys::SystemTools::FileIsDirectory(out))
    {
      throw std::runtime_error("the output folder " + out + " does not exist");
    }
    log.Open(out + "/elastix.log");
    log << "elastix (the CudaImageFilters GPU drop-in for elastix 5.0.1's command line)\n";
    for (int k = 0; k < argc; ++k)
    {
      log << (k ? " " : "") << argv[k];
    }
    log << "\n";
    if (const std::string threads = arguments.Get("-threads"); !threads.empty())
    {
      const int n = std::atoi(threads.c_str());
      if (n < 1)
      {
        throw std::runtime_error("-threads needs a positive number, not \"" + threads + "\"");
      }
      itk::MultiThreaderBase::SetGlobalDefaultNumberOfThreads(n);
    }
    // Every parameter file is read, and every refusal made, before any image is.
    const auto stages = cif::ReadElastixRegistrationStages(arguments.parameterFiles, true);
    const auto io = cif::ReadVolumeInformation(arguments.Get("-f"));
    const auto dimension = io->GetNumberOfDimensions();
    if (cif::ReadVolumeInformation(arguments.Get("-m"))->GetNumberOfDimensions() != dimension)
    {
      throw std::runtime_error("the fixed and moving images differ in dimension");
    }
    const int status = dimension == 2   ? Run<2>(arguments, stages, log, gpuReady)
                       : dimension == 3 ? Run<3>(arguments, stages, log, gpuReady)
                                        : throw std::runtime_error("the drop-in registers 2-D and 3-D images, not " +
                                                                   std::to_string(dimension) + "-D ones");
    log.Flush();
    return status;
  }
  catch (const itk::ExceptionObject & e)
  {
    log << "ERROR: " << cif::ReasonOf(e) << "\n";
  }
  catch (const std::exception & e)
  {
    log << "ERROR: " << e.what() << "\n";
  }
  log.Flush();
  return 1;
}
