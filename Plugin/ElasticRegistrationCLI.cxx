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
// ElasticRegistrationCLI: a 3D Slicer CLI module around the module's elastic
// registration (itk::ElasticRegistration, itkElasticRegistration.h: ITK's
// ImageRegistrationMethodv4 with the GPU twins of its v4 metrics). Registers a moving
// scalar volume (2-D or 3-D, any scalar type, registered as float) to a fixed one,
// optionally inside masks: a rigid or affine stage, a cubic B-spline stage on top of
// it, or both, over a multi-resolution schedule; writes the transform (ITK .h5/.tfm:
// the composite, as CubicResampleCLI and Slicer read it; the linear stage alone on
// request) and the moving volume resampled onto the fixed grid (cubic, float), all
// atomically and only when the whole run succeeded. Progress per iteration and level;
// the host's abort stops it within one iteration. Slicer's standard flags, progress
// and return parameters: cifModuleCommandLine.h.
//
//   ElasticRegistrationCLI [--stages affine,bspline|affine,syn|...] [--metric MattesMI|MeanSquares|Correlation]
//   [--gridSpacing MM]
//                          [--levels N] [--iterations N[,N...]]
//                          [--sampling dense|random|regular|randomEveryIteration] [--pointsPerIteration N]
//                          [--stochasticOptimizer adaptive|decayingGain]
//                          [--correlationRadius R] [--synIterations N,N,...] [--synLearningRate S]
//                          [--updateFieldVariance V] [--totalFieldVariance V]
//                          [--parameterFile elastix.txt ...] [--fixedMask M] [--movingMask M] [--cpu]
//                          [--outputTransform T.h5] [--inverseTransform I.h5] [--linearTransform L.tfm]
//                          [--outputVolume V] fixed moving
//
// The syn stage is ANTs' SyN (itk::SyNImageRegistrationMethodGPU with ANTs' local
// correlation, antsRegistrationSyN.sh's defaults) on top of the linear stage; its
// transform is a displacement field with its inverse (--inverseTransform).
//
// --parameterFile (repeatable): elastix's registration parameter files instead, one stage
// each, composed as elastix composes its -p files (cifElastixRegistrationChain.h).
//
// As in ITK (and elastix), the transform maps points of the fixed grid to the moving
// volume: what a resampler applies to bring the moving volume onto the fixed grid.
#include "cifElastixRegistrationChain.h"
#include "itkElasticRegistration.h"
#include "cifModuleDescription.h"
#include "cifPendingOutputs.h"
#include "cifScopedSmoothingFactory.h"
#include "cifModuleFilterRun.h"
#include "cifRunCLIModule.h"
#include "cifTransformFile.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkImageRegionConstIterator.h"
#include "itkSyNImageRegistrationMethodGPU.h"
#include "itkSyNRegistrationSetup.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace
{
/** The stages the module offers, as --stages names them. */
constexpr const char * kStages[] = { "affine,bspline", "rigid,bspline", "rigid",     "affine",
                                     "bspline",        "affine,syn",    "rigid,syn", "syn" };

/** The module's parameters, declared once: its XML description and its command line. */
cif::ModuleDeclaration
Declare()
{
  auto module = cif::DeclareModule(
    "Registration.GPU",
    "Elastic Registration (GPU)",
    "Registers a moving scalar volume to a fixed one: a rigid or affine stage, a cubic B-spline (elastic) stage on "
    "top of it, or both, through ITK's ImageRegistrationMethodv4 over a multi-resolution schedule (level l of L "
    "shrinks both volumes by 2^(L-1-l) and smooths them by L-1-l voxels; the B-spline grid doubles per level), with "
    "the metric (mean squares, Mattes mutual information or normalized correlation) evaluated on the GPU (CPU when "
    "there is none). Writes "
    "the transform, which maps fixed points into the moving volume (ITK's convention: a composite of the linear and "
    "the B-spline stage, the B-spline applied first), and the moving volume resampled onto the fixed grid with "
    "cubic B-spline interpolation.",
    "Elastic (B-spline) registration with the metric on the GPU");
  auto & registration = module.Group("Registration", "The stages, the metric and the schedule.");
  registration.Enumeration(
    "stages",
    "Stages",
    "The stages run in order: a linear one (rigid: rotation and translation; affine), a cubic "
    "B-spline one, ANTs' SyN (a diffeomorphic displacement field with its inverse, ANTs' local "
    "correlation as the metric), or a linear stage then a B-spline or SyN stage on top of it.",
    kStages[0],
    { kStages[0], kStages[1], kStages[2], kStages[3], kStages[4], kStages[5], kStages[6], kStages[7] });
  registration.Enumeration("initialization",
                           "Linear stage start",
                           "Where the rigid or affine stage starts (its centre of rotation is the fixed volume's "
                           "geometric centre either way): geometry, the translation between the volumes' geometric "
                           "centres (ITK's CenteredTransformInitializer GeometryOn); moments, between their "
                           "intensity centres of mass (MomentsOn, antsRegistration's --initial-moving-transform "
                           "[f,m,1]); identity, no translation.",
                           "geometry",
                           { "geometry", "moments", "identity" });
  registration.Enumeration("metric",
                           "Metric",
                           "MattesMI: Mattes mutual information (any intensity relation, e.g. two modalities); "
                           "MeanSquares: the mean squared difference (the same modality, the same intensities); "
                           "Correlation: normalized cross correlation (the same modality, intensities related "
                           "linearly).",
                           "MattesMI",
                           { "MattesMI", "MeanSquares", "Correlation" });
  registration
    .Integer("histogramBins", "Histogram bins", "Mattes mutual information: the joint histogram's bins per axis.", 32)
    .Range(5, 256, 1)
    .Enforced();
  registration
    .Double("gridSpacing",
            "B-spline grid spacing (mm)",
            "The B-spline control-point spacing at the last level, in physical units: the last level's mesh has "
            "floor(extent / spacing) cells per axis rounded down to a multiple of 2^(levels-1) (at least that), "
            "halved per coarser level, so the spacing reached is this or more.",
            20)
    .Range(0.1, 1000, 1)
    .Enforced();
  registration.Integer("levels", "Levels", "Resolution levels (1: full resolution only).", 3).Range(1, 5, 1).Enforced();
  registration.IntegerVector("iterations",
                             "Iterations",
                             "The most optimizer iterations per level: one number for every level, or one per level "
                             "(coarsest first). Default: 100 at every level.",
                             0);
  registration.Enumeration("sampling",
                           "Sampling",
                           "The fixed-volume points the metric evaluates: dense (every voxel of the level), random or "
                           "regular (samplingPercentage of them, drawn once per level), or randomEveryIteration "
                           "(pointsPerIteration new random points at every iteration, as elastix's "
                           "NewSamplesEveryIteration, with a stochastic gradient descent).",
                           "dense",
                           { "dense", "random", "regular", "randomEveryIteration" });
  registration
    .Integer("pointsPerIteration",
             "Points per iteration",
             "randomEveryIteration: the random points drawn at every iteration (elastix's NumberOfSpatialSamples).",
             2048)
    .Range(16, 16777216, 1)
    .Enforced();
  registration.Enumeration("stochasticOptimizer",
                           "Stochastic optimizer",
                           "randomEveryIteration: elastix's adaptive stochastic gradient descent with its automatic "
                           "parameter and scales estimation (adaptive), or a gain decaying as a/(A+k+1)^0.602 with a "
                           "set per level from the largest allowed step (decayingGain).",
                           "decayingGain",
                           { "decayingGain", "adaptive" });
  registration
    .Double(
      "samplingPercentage", "Sampling fraction", "random, regular: the fraction of the voxels evaluated (0 to 1].", 0.1)
    .Range(1e-6, 1, 0.01)
    .Enforced();
  registration.Integer("seed", "Random seed", "The seed of random sampling (the same seed, the same points).", 121212)
    .Range(0, 2147483647, 1)
    .Enforced();
  registration
    .File("parameterFile",
          "elastix parameter files",
          "elastix registration parameter files (elastix 5's syntax), one stage each, run in the order given as "
          "elastix runs its -p files, each on top of the ones before; when given, they set the whole registration "
          "and the other registration parameters but the CPU switch are not used. Every key is read before any "
          "volume: one the module does not serve is refused with its file and line. The elastix drop-in's manual "
          "lists the keys served.")
    .Multiple()
    .FileExtensions(".txt");
  cif::AddForceCPU(registration);

  auto & syn = module.Group("SyN",
                            "The syn stage: ANTs' SyN[learning rate, update variance, total variance] with "
                            "CC[fixed, moving, 1, radius], as antsRegistrationSyN.sh sets it.");
  syn.Integer("correlationRadius", "Correlation radius", "The local correlation's window radius, voxels.", 4)
    .Range(1, 10, 1)
    .Enforced();
  syn.IntegerVector("synIterations",
                    "SyN iterations",
                    "The SyN iterations per level, coarsest first; the levels shrink by 2^(L-1-l) and smooth by "
                    "L-1-l voxels. Default: 100,70,50,20.",
                    0);
  syn.Double("synLearningRate", "Learning rate", "SyN's gradient step (voxels at the largest update).", 0.1)
    .Range(0.001, 10, 0.01)
    .Enforced();
  syn.Double("updateFieldVariance", "Update field variance", "The Gaussian smoothing of each update, voxels^2.", 3.0)
    .Range(0, 100, 0.5)
    .Enforced();
  syn.Double("totalFieldVariance", "Total field variance", "The Gaussian smoothing of the total field, voxels^2.", 0.0)
    .Range(0, 100, 0.5)
    .Enforced();

  auto & masks = module.Group("Masks", "Where the metric looks (nonzero voxels inside).");
  masks.Image("fixedMask",
              "label",
              "Fixed mask",
              "Only fixed points inside it are evaluated (a volume on any grid; nonzero is inside).");
  masks.Image("movingMask", "label", "Moving mask", "Only points that map inside it are evaluated.");

  auto & outputs = cif::AddOutputs(module);
  outputs.Returned("double",
                   "finalMetricValue",
                   "Final metric value",
                   "The last stage's metric at its last iteration, at full resolution (lower is better: Mattes is "
                   "the negative mutual information, Correlation the negative squared correlation).");
  outputs.Returned(
    "string",
    "iterationsPerLevel",
    "Iterations per level",
    "The iterations each stage ran at each level, coarsest first: \"affine 12,8,5; B-spline 20,20,14\".");

  auto & io = module.Group("IO", "Input volumes and outputs.");
  io.Image("fixedVolume", "scalar", "Fixed volume", "The volume that stays: the output grid.").Index(0);
  io.Image("movingVolume", "scalar", "Moving volume", "The volume registered onto the fixed one.").Index(1);
  io.Transform("outputTransform",
               "nonlinear",
               "Output transform",
               "Every stage's result as one ITK CompositeTransform (.h5 or .tfm; the B-spline applied first, then the "
               "linear stage): maps fixed points into the moving volume, as CubicResampleCLI applies it.")
    .Attribute("reference", "movingVolume")
    .FileExtensions(".h5,.hdf5,.tfm,.txt")
    .Output();
  io.Transform("inverseTransform",
               "nonlinear",
               "Inverse transform",
               "The syn stages' inverse as one ITK CompositeTransform (.h5): maps moving points onto the fixed "
               "volume (the SyN field's inverse, then the linear stage's).")
    .Attribute("reference", "fixedVolume")
    .FileExtensions(".h5,.hdf5")
    .Output();
  io.Transform("linearTransform",
               "linear",
               "Linear transform",
               "The rigid or affine stage's result alone (the stages must have one).")
    .Attribute("reference", "movingVolume")
    .FileExtensions(".h5,.hdf5,.tfm,.txt,.mat")
    .Output();
  io.Image("outputVolume",
           "scalar",
           "Registered volume",
           "The moving volume resampled onto the fixed grid through the transform (cubic B-spline, float; 0 outside "
           "the moving volume).")
    .Attribute("reference", "movingVolume")
    .Output();
  return module;
}

/** The settings the command line names; throws TCLAP::ArgException (status 2) for
 * values that do not fit together. */
itk::ElasticRegistrationSettings
SettingsOf(const cif::ModuleArguments & arguments, bool useGPU)
{
  itk::ElasticRegistrationSettings s;
  const std::string                stages = arguments.String("stages");
  s.linearStage = stages.rfind("rigid", 0) == 0    ? itk::LinearRegistrationStage::Rigid
                  : stages.rfind("affine", 0) == 0 ? itk::LinearRegistrationStage::Affine
                                                   : itk::LinearRegistrationStage::None;
  s.bsplineStage = stages.find("bspline") != std::string::npos;
  const std::string initialization = arguments.String("initialization");
  s.linearInitialization = initialization == "moments"    ? itk::LinearStageInitialization::CentersOfMass
                           : initialization == "identity" ? itk::LinearStageInitialization::Identity
                                                          : itk::LinearStageInitialization::ImageCenters;
  const std::string metric = arguments.String("metric");
  s.metric = metric == "MeanSquares"   ? cif::RegistrationMetricKind::MeanSquares
             : metric == "Correlation" ? cif::RegistrationMetricKind::Correlation
                                       : cif::RegistrationMetricKind::MattesMutualInformation;
  s.histogramBins = static_cast<unsigned int>(arguments.Integer("histogramBins"));
  s.gridSpacing = arguments.Double("gridSpacing");
  s.levels = static_cast<unsigned int>(arguments.Integer("levels"));
  s.iterations = { 100 };
  if (const auto iterations = arguments.IntegerVector("iterations"))
  {
    if (iterations->size() != 1 && iterations->size() != s.levels)
    {
      throw TCLAP::ArgException("needs one number, or one per level (" + std::to_string(s.levels) + ")",
                                "--iterations");
    }
    s.iterations.clear();
    for (const long n : *iterations)
    {
      if (n < 1 || n > 100000)
      {
        throw TCLAP::ArgException("must be 1 to 100000 per level", "--iterations");
      }
      s.iterations.push_back(static_cast<unsigned int>(n));
    }
  }
  const std::string sampling = arguments.String("sampling");
  s.sampling = sampling == "random"                 ? itk::RegistrationSampling::Random
               : sampling == "regular"              ? itk::RegistrationSampling::Regular
               : sampling == "randomEveryIteration" ? itk::RegistrationSampling::RandomEveryIteration
                                                    : itk::RegistrationSampling::Dense;
  s.pointsPerIteration = static_cast<unsigned int>(arguments.Integer("pointsPerIteration"));
  s.stochasticOptimizer = arguments.String("stochasticOptimizer") == "decayingGain"
                            ? itk::StochasticOptimizer::DecayingGain
                            : itk::StochasticOptimizer::AdaptiveStochasticGradientDescent;
  s.samplingPercentage = arguments.Double("samplingPercentage");
  s.samplingSeed = static_cast<unsigned int>(arguments.Integer("seed"));
  s.useGPU = useGPU;
  if (!arguments.String("linearTransform").empty() && !arguments.Strings("parameterFile").empty())
  {
    throw TCLAP::ArgException("is the linear stage of --stages: with --parameterFile, --outputTransform has every "
                              "file's stage",
                              "--linearTransform");
  }
  if (!arguments.String("linearTransform").empty() && s.linearStage == itk::LinearRegistrationStage::None)
  {
    throw TCLAP::ArgException("needs a rigid or affine stage (--stages " + stages + " has none)", "--linearTransform");
  }
  if (arguments.String("outputTransform").empty() && arguments.String("linearTransform").empty() &&
      arguments.String("outputVolume").empty())
  {
    throw TCLAP::ArgException("nothing to write: give --outputTransform, --linearTransform or --outputVolume",
                              "--outputTransform");
  }
  return s;
}

/** Whether --stages has the syn stage. */
bool
HasSyN(const cif::ModuleArguments & arguments)
{
  return arguments.String("stages").find("syn") != std::string::npos;
}

/** The syn stage's settings (antsRegistrationSyN.sh's defaults where not given);
 * throws TCLAP::ArgException (status 2) for values that cannot run. */
itk::SyNStageSettings
SyNSettingsOf(const cif::ModuleArguments & arguments)
{
  itk::SyNStageSettings s;
  s.radius = static_cast<unsigned int>(arguments.Integer("correlationRadius"));
  s.learningRate = arguments.Double("synLearningRate");
  s.updateFieldVariance = arguments.Double("updateFieldVariance");
  s.totalFieldVariance = arguments.Double("totalFieldVariance");
  if (const auto iterations = arguments.IntegerVector("synIterations"))
  {
    if (iterations->empty() || iterations->size() > 6)
    {
      throw TCLAP::ArgException("needs 1 to 6 levels", "--synIterations");
    }
    s.iterations.clear();
    for (const long n : *iterations)
    {
      if (n < 0 || n > 100000)
      {
        throw TCLAP::ArgException("must be 0 to 100000 per level", "--synIterations");
      }
      s.iterations.push_back(static_cast<unsigned int>(n));
    }
  }
  if (!HasSyN(arguments) && !arguments.String("inverseTransform").empty())
  {
    throw TCLAP::ArgException("is the syn stage's inverse (--stages " + arguments.String("stages") + " has none)",
                              "--inverseTransform");
  }
  if (HasSyN(arguments) && (!arguments.String("fixedMask").empty() || !arguments.String("movingMask").empty()))
  {
    throw TCLAP::ArgException("is not served with the syn stage (ANTs' masks: not yet)", "--fixedMask/--movingMask");
  }
  return s;
}

/** The syn stage on top of \a linear (may be empty): ITK's SyN method with every
 * iteration on the GPU (the module's CPU path without one); \a report filled, the
 * field transform (with its inverse) returned. */
template <unsigned int D, typename TReport, typename TObserve>
typename itk::DisplacementFieldTransform<double, D>::Pointer
RunSyN(const itk::Image<float, D> *         fixed,
       const itk::Image<float, D> *         moving,
       itk::CompositeTransform<double, D> * linear,
       const itk::SyNStageSettings &        settings,
       bool                                 useGPU,
       TReport &                            report,
       TObserve &&                          observe)
{
  using Image = itk::Image<float, D>;
  using SyN = itk::SyNImageRegistrationMethodGPU<Image, Image, itk::DisplacementFieldTransform<double, D>>;
  auto syn = SyN::New();
  syn->SetUseGPU(useGPU);
  if (linear != nullptr && linear->GetNumberOfTransforms() > 0)
  {
    syn->SetMovingInitialTransform(linear);
  }
  itk::ConfigureSyN(syn.GetPointer(), fixed, moving, settings);
  report.stage = "SyN";
  report.iterationsPerLevel.assign(settings.iterations.size(), 0);
  struct Watch
  {
    SyN *                                                                 method;
    TReport *                                                             report;
    std::function<void(unsigned int, unsigned int, unsigned int, double)> observe;
  } watch{ syn.GetPointer(), &report, observe };
  auto observer = itk::CStyleCommand::New();
  observer->SetClientData(&watch);
  observer->SetCallback([](itk::Object *, const itk::EventObject &, void * data) {
    auto *             w = static_cast<Watch *>(data);
    const unsigned int level = w->method->GetCurrentLevel();
    const unsigned int iteration = w->method->GetCurrentIteration();
    if (iteration == 0 || level >= w->report->iterationsPerLevel.size())
    {
      return; // the level's start
    }
    w->report->iterationsPerLevel[level] = iteration;
    w->observe(level,
               iteration,
               static_cast<unsigned int>(w->report->iterationsPerLevel.size()),
               w->method->GetCurrentMetricValue());
  });
  syn->AddObserver(itk::IterationEvent(), observer);
  syn->Update();
  report.finalMetricValue = syn->GetCurrentMetricValue();
  report.executionPath = itk::ToString(syn->GetLastExecutionPath());
  return const_cast<itk::DisplacementFieldTransform<double, D> *>(syn->GetTransformOutput()->Get());
}

/** The mask at \a path, read watched; an all-zero mask is refused (it leaves no point to evaluate). */
template <unsigned int D>
typename itk::Image<unsigned char, D>::Pointer
ReadMask(cif::ModuleRun & run, const std::string & path, double start, double end)
{
  using Mask = itk::Image<unsigned char, D>;
  auto mask = cif::ReadWatched<Mask>(run, path, start, end, "Reading " + path);
  for (itk::ImageRegionConstIterator<Mask> it(mask, mask->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    if (it.Get() != 0)
    {
      return mask;
    }
  }
  throw std::runtime_error("the mask " + path + " is empty (no nonzero voxel): it leaves no point to register");
}

template <unsigned int D>
void
Register(const cif::ModuleArguments &                       arguments,
         const itk::ElasticRegistrationSettings &           settings,
         const itk::SyNStageSettings &                      synSettings,
         const std::vector<cif::ElastixRegistrationStage> & fileStages,
         cif::ModuleRun &                                   run)
{
  using Image = itk::Image<float, D>;
  using Registration = itk::ElasticRegistration<Image>;
  auto & progress = run.Progress();

  const auto fixed =
    cif::ReadWatched<Image>(run, arguments.String("fixedVolume"), 0.0, 0.03, "Reading the fixed volume");
  const auto moving =
    cif::ReadWatched<Image>(run, arguments.String("movingVolume"), 0.03, 0.06, "Reading the moving volume");
  typename itk::Image<unsigned char, D>::Pointer fixedMask, movingMask;
  if (const std::string path = arguments.String("fixedMask"); !path.empty())
  {
    fixedMask = ReadMask<D>(run, path, 0.06, 0.065);
  }
  if (const std::string path = arguments.String("movingMask"); !path.empty())
  {
    movingMask = ReadMask<D>(run, path, 0.065, 0.07);
  }

  // Registration: 0.07 to 0.87 of the run, the stages and levels in equal shares, each
  // level's share filled by its iterations. The host's abort stops it at the next
  // iteration (the observer throws out of ITK's optimizer).
  constexpr double  start = 0.07, span = 0.8;
  const std::size_t files = fileStages.size();
  const auto        observe = [&](std::size_t file, const itk::RegistrationIterationReport & r) {
    const std::string where = (files ? "file " + std::to_string(file + 1) + " " : std::string()) + r.stage + " level " +
                              std::to_string(r.level + 1) + "/" + std::to_string(r.numberOfLevels);
    if (r.levelEnded)
    {
      std::cout << where << ": metric " << r.metricValue << " after " << r.iteration << " iterations, "
                << r.levelSeconds << " s (" << cif::MetricExecutionPath<Image>(r.metric) << ")" << std::endl;
      return;
    }
    const double level =
      (r.level + std::min(1.0, static_cast<double>(r.iteration) / r.maximumIterations)) / r.numberOfLevels;
    const double       stages = files ? static_cast<double>(files) : r.numberOfStages;
    const double       stage = files ? static_cast<double>(file) : r.stageIndex;
    std::ostringstream message;
    message << where << ", iteration " << r.iteration << ": metric " << r.metricValue;
    progress.Report(start + span * (stage + level) / stages, level, message.str());
    progress.ThrowIfAborted();
  };
  progress.BeginStage(start, "Registering");
  std::vector<typename Registration::StageReport>      reports;
  typename itk::CompositeTransform<double, D>::Pointer transform, inverse;
  typename itk::Transform<double, D, D>::Pointer       linear;
  if (files)
  {
    // elastix's files, one stage each, composed as elastix composes its -p files
    cif::ElastixChainObserver<D> observer;
    observer.iteration = observe;
    observer.stageEnded = [&](std::size_t, const Registration & registration, itk::Transform<double, D, D> *, auto *) {
      reports.push_back(registration.GetStageReports().front());
    };
    transform =
      cif::RunElastixRegistrationChain<D>(fixed, moving, fixedMask, movingMask, fileStages, nullptr, observer);
  }
  else
  {
    const bool synStage = HasSyN(arguments);
    const bool linearStage = settings.linearStage != itk::LinearRegistrationStage::None;
    transform = itk::CompositeTransform<double, D>::New();
    if (linearStage || settings.bsplineStage)
    {
      Registration registration(fixed, moving, settings);
      registration.SetFixedMask(fixedMask);
      registration.SetMovingMask(movingMask);
      registration.SetObserver([&](const itk::RegistrationIterationReport & r) {
        auto shared = r;
        shared.numberOfStages += synStage ? 1 : 0; // the SyN stage's share of the progress
        observe(0, shared);
      });
      {
        const cif::ScopedSmoothingFactory smoothingOnTheGPU(run.UseGPU());
        registration.Update();
      }
      reports = registration.GetStageReports();
      transform = registration.GetTransform();
      linear = registration.GetLinearTransform();
    }
    if (synStage)
    {
      progress.ThrowIfAborted();
      const unsigned int                 before = linearStage ? 1u : 0u;
      typename Registration::StageReport report;
      const auto                         started = std::chrono::steady_clock::now();
      auto                               field = RunSyN<D>(fixed,
                             moving,
                             transform,
                             synSettings,
                             run.UseGPU(),
                             report,
                             [&](unsigned int level, unsigned int iteration, unsigned int levels, double value) {
                               itk::RegistrationIterationReport r;
                               r.stage = "SyN";
                               r.stageIndex = before;
                               r.numberOfStages = before + 1;
                               r.level = level;
                               r.numberOfLevels = levels;
                               r.iteration = iteration;
                               r.maximumIterations = std::max(1u, synSettings.iterations[level]);
                               r.metricValue = value;
                               observe(0, r);
                             });
      report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::cout << "SyN: metric " << report.finalMetricValue << " after " << report.seconds << " s ("
                << report.executionPath << ")" << std::endl;
      reports.push_back(report);
      // forward: the field, then the linear stage; inverse: the linear stage's inverse,
      // then the field's (a composite applies its last transform first)
      inverse = itk::CompositeTransform<double, D>::New();
      inverse->AddTransform(field->GetInverseTransform().GetPointer());
      if (transform->GetNumberOfTransforms() > 0)
      {
        inverse->AddTransform(transform->GetInverseTransform().GetPointer());
      }
      transform->AddTransform(field);
      transform->FlattenTransformQueue();
      inverse->FlattenTransformQueue();
    }
  }
  progress.ThrowIfAborted();

  // Return parameters: the final value, the iterations, which code ran the metric.
  std::ostringstream iterations, paths;
  std::string        path;
  for (const auto & stage : reports)
  {
    iterations << (iterations.tellp() > 0 ? "; " : "") << stage.stage << " ";
    for (std::size_t l = 0; l < stage.iterationsPerLevel.size(); ++l)
    {
      iterations << (l ? "," : "") << stage.iterationsPerLevel[l];
    }
    paths << (paths.tellp() > 0 ? ", " : "") << stage.stage << " " << stage.executionPath;
    path = path.empty() || path == stage.executionPath ? stage.executionPath : path + "," + stage.executionPath;
  }
  const double finalValue = reports.empty() ? 0.0 : reports.back().finalMetricValue;
  run.SetReturnParameter("finalMetricValue", finalValue);
  run.SetReturnParameter("iterationsPerLevel", iterations.str());

  cif::PendingOutputs pending;
  if (const std::string output = arguments.String("outputVolume"); !output.empty())
  {
    auto resample = itk::CubicResampleGPUImageFilter<Image, Image>::New();
    auto interpolator = itk::BSplineInterpolateImageFunction<Image, double, double>::New();
    interpolator->SetSplineOrder(3);
    resample->SetInput(moving);
    resample->SetInterpolator(interpolator);
    resample->SetTransform(transform);
    resample->SetOutputParametersFromImage(fixed);
    resample->SetDefaultPixelValue(0.0f);
    resample->SetUseGPU(run.UseGPU());
    progress.Watch(resample, 0.87, 0.95, "Resampling the moving volume");
    resample->Update();
    progress.ThrowIfAborted();
    progress.BeginStage(0.95, "Writing " + output);
    auto writer = itk::ImageFileWriter<Image>::New();
    writer->SetInput(resample->GetOutput());
    writer->SetFileName(pending.Add(output));
    writer->Update();
    paths << ", resampling " << itk::ToString(resample->GetLastExecutionPath());
  }
  if (const std::string output = arguments.String("outputTransform"); !output.empty())
  {
    progress.BeginStage(0.97, "Writing " + output);
    cif::WriteTransformFile(transform, pending.Add(output));
  }
  if (const std::string output = arguments.String("inverseTransform"); !output.empty())
  {
    progress.BeginStage(0.975, "Writing " + output);
    cif::WriteTransformFile(inverse, pending.Add(output));
  }
  if (const std::string output = arguments.String("linearTransform"); !output.empty())
  {
    progress.BeginStage(0.98, "Writing " + output);
    cif::WriteTransformFile(linear, pending.Add(output));
  }
  progress.ThrowIfAborted();
  pending.Commit();
  for (const char * name : { "outputTransform", "inverseTransform", "linearTransform" })
  {
    if (!arguments.String(name).empty())
    {
      std::cout << "wrote " << arguments.String(name) << "\n";
    }
  }
  run.Wrote(arguments.String("outputVolume").empty() ? std::string("the transform") : arguments.String("outputVolume"),
            path,
            paths.str() + "; final metric " + std::to_string(finalValue));
}

/** A volume the module registers: one scalar component, of \a dimension if given. */
unsigned int
CheckVolume(const std::string & path, const std::string & what, unsigned int dimension)
{
  const auto io = cif::ReadVolumeInformation(path);
  if (io->GetNumberOfComponents() != 1 || io->GetComponentType() == itk::IOComponentEnum::UNKNOWNCOMPONENTTYPE)
  {
    throw std::runtime_error("the " + what + " " + path + " has " + std::to_string(io->GetNumberOfComponents()) +
                             " components of " + itk::ImageIOBase::GetComponentTypeAsString(io->GetComponentType()) +
                             ": scalar volumes only");
  }
  const unsigned int d = io->GetNumberOfDimensions();
  if (dimension != 0 && d != dimension)
  {
    throw std::runtime_error("the " + what + " " + path + " is " + std::to_string(d) + "-D, the fixed volume " +
                             std::to_string(dimension) + "-D");
  }
  return d;
}

void
Execute(const cif::ModuleArguments & arguments, cif::ModuleRun & run)
{
  const auto settings = SettingsOf(arguments, run.UseGPU()); // bad arguments first: status 2
  const auto synSettings = SyNSettingsOf(arguments);
  // every key of the elastix files read, and refused, before any volume
  const auto         fileStages = cif::ReadElastixRegistrationStages(arguments.Strings("parameterFile"), run.UseGPU());
  const unsigned int dimension = CheckVolume(arguments.String("fixedVolume"), "fixed volume", 0);
  CheckVolume(arguments.String("movingVolume"), "moving volume", dimension);
  for (const char * mask : { "fixedMask", "movingMask" })
  {
    if (!arguments.String(mask).empty())
    {
      CheckVolume(arguments.String(mask), mask, dimension);
    }
  }
  switch (dimension)
  {
    case 2:
      Register<2>(arguments, settings, synSettings, fileStages, run);
      break;
    case 3:
      Register<3>(arguments, settings, synSettings, fileStages, run);
      break;
    default:
      throw std::runtime_error(std::to_string(dimension) + "-D volumes are not supported (2-D or 3-D)");
  }
}
} // namespace

CIF_DEFINE_CLI_MODULE(Declare, Execute)
