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
#include "cifElastixRegistrationStage.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

namespace cif
{
namespace
{
using itk::ElastixParameterFile;

/** The keys served, each with what the module does with it (ServedElastixRegistrationKeys). */
const std::set<std::string> kServedKeys = {
  "ASGDParameterEstimationMethod",
  "AutomaticParameterEstimation",
  "AutomaticScalesEstimation",
  "AutomaticTransformInitialization",
  "AutomaticTransformInitializationMethod",
  "BSplineInterpolationOrder",
  "BSplineTransformSplineOrder",
  "CheckNumberOfSamples",
  "CompressResultImage",
  "DefaultPixelValue",
  "ErodeMask",
  "ErodeMovingMask",
  "ErodeFixedMask",
  "FinalBSplineInterpolationOrder",
  "FinalGridSpacingInPhysicalUnits",
  "FinalGridSpacingInVoxels",
  "FixedImageBSplineInterpolationOrder",
  "FixedImageDimension",
  "FixedImagePyramid",
  "FixedImagePyramidSchedule",
  "FixedInternalImagePixelType",
  "FixedKernelBSplineOrder",
  "FixedLimitRangeRatio",
  "GridSpacingSchedule",
  "HowToCombineTransforms",
  "ITKTransformOutputFileNameExtension",
  "ImagePyramidSchedule",
  "ImageSampler",
  "Interpolator",
  "MaximumNumberOfIterations",
  "MaximumNumberOfSamplingAttempts",
  "MaximumStepLength",
  "Metric",
  "MovingImageDimension",
  "MovingImagePyramid",
  "MovingImagePyramidSchedule",
  "MovingInternalImagePixelType",
  "MovingKernelBSplineOrder",
  "MovingLimitRangeRatio",
  "NewSamplesEveryIteration",
  "NumberOfGradientMeasurements",
  "NumberOfHistogramBins",
  "NumberOfJacobianMeasurements",
  "NumberOfResolutions",
  "NumberOfSamplesForExactGradient",
  "NumberOfSpatialSamples",
  "Optimizer",
  "PassiveEdgeWidth",
  "Registration",
  "RequiredRatioOfValidSamples",
  "Resampler",
  "ResampleInterpolator",
  "ResultImageFormat",
  "ResultImagePixelType",
  "SampleRegionSize",
  "SP_A",
  "SP_a",
  "SP_alpha",
  "ShowExactMetricValue",
  "SigmoidInitialTime",
  "SigmoidMax",
  "SigmoidMin",
  "SigmoidScale",
  "SigmoidScaleFactor",
  "SubtractMean",
  "Transform",
  "UseAdaptiveStepSizes",
  "UseCyclicTransform",
  "UseDirectionCosines",
  "UseFastAndLowMemoryVersion",
  "UseAllPixels",
  "UseRandomSampleRegion",
  "WriteITKCompositeTransform",
  "WriteIterationInfo",
  "WritePyramidImagesAfterEachResolution",
  "WriteResultImage",
  "WriteResultImageAfterEachResolution",
  "WriteTransformParametersEachIteration",
  "WriteTransformParametersEachResolution",
};

/** Reads one file's keys; every refusal names the key's line. */
class StageReader
{
public:
  explicit StageReader(const ElastixParameterFile & file)
    : m_File(file)
  {}

  [[noreturn]] void
  Refuse(const std::string & key, const std::string & why) const
  {
    m_File.Fail(key, "(" + key + " " + Joined(key) + ") is not served by the GPU drop-in: " + why);
  }

  std::string
  Joined(const std::string & key) const
  {
    std::string text;
    for (const auto & v : m_File.GetValues(key))
    {
      char *     end = nullptr;
      const bool number = !v.empty() && (std::strtod(v.c_str(), &end), *end == '\0');
      text += (text.empty() ? "" : " ") + (number ? v : "\"" + v + "\"");
    }
    return text;
  }

  /** The one string value of \a key (fallback when absent), which must be one of \a allowed. */
  std::string
  OneOf(const std::string & key, const std::string & fallback, const std::vector<std::string> & allowed) const
  {
    std::string list;
    for (const auto & a : allowed)
    {
      list += (list.empty() ? "" : ", ") + a;
    }
    if (!m_File.Has(key) && fallback.empty())
    {
      m_File.FailFile("(" + key + " ...) is missing; the GPU drop-in serves " + list);
    }
    const std::string value = this->Uniform(key, fallback);
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
    {
      this->Refuse(key, "served: " + list);
    }
    return value;
  }

  /** \a key's value, the same at every resolution (one value, or one per resolution all equal). */
  std::string
  Uniform(const std::string & key, const std::string & fallback) const
  {
    if (!m_File.Has(key))
    {
      return fallback;
    }
    const auto & values = m_File.GetValues(key);
    if (std::any_of(values.begin(), values.end(), [&](const std::string & v) { return v != values.front(); }))
    {
      this->Refuse(key, "the module takes one value for every resolution");
    }
    return values.front();
  }

  double
  UniformNumber(const std::string & key, double fallback) const
  {
    if (!m_File.Has(key))
    {
      return fallback;
    }
    const auto numbers = m_File.GetNumbers(key);
    if (std::any_of(numbers.begin(), numbers.end(), [&](double v) { return v != numbers.front(); }))
    {
      this->Refuse(key, "the module takes one value for every resolution");
    }
    return numbers.front();
  }

  /** UniformNumber as a whole number from \a minimum to \a maximum. */
  unsigned int
  UniformWhole(const std::string & key, double fallback, double minimum, double maximum) const
  {
    const double value = this->UniformNumber(key, fallback);
    if (value < minimum || value > maximum || value != std::floor(value))
    {
      std::ostringstream message;
      message << key << " must be a whole number from " << minimum << " to " << maximum;
      m_File.Fail(key, message.str());
    }
    return static_cast<unsigned int>(value);
  }

  bool
  UniformBoolean(const std::string & key, bool fallback) const
  {
    const std::string value = this->Uniform(key, fallback ? "true" : "false");
    if (value != "true" && value != "false")
    {
      m_File.Fail(key, key + " is \"" + value + "\", not \"true\" or \"false\"");
    }
    return value == "true";
  }

  /** The key must be absent or \a required. */
  void
  Require(const std::string & key, const std::string & required, const std::string & why) const
  {
    if (m_File.Has(key) && this->Uniform(key, required) != required)
    {
      this->Refuse(key, why);
    }
  }
  void
  RequireNumber(const std::string & key, double required, const std::string & why) const
  {
    if (m_File.Has(key) && this->UniformNumber(key, required) != required)
    {
      this->Refuse(key, why);
    }
  }

  /** One value or one per resolution: the value at each of \a levels resolutions. */
  std::vector<double>
  PerResolution(const std::string & key, double fallback, unsigned int levels) const
  {
    if (!m_File.Has(key))
    {
      return std::vector<double>(levels, fallback);
    }
    const auto numbers = m_File.GetNumbers(key);
    if (numbers.size() != 1 && numbers.size() != levels)
    {
      m_File.Fail(key,
                  key + " has " + std::to_string(numbers.size()) + " values: one, or one per resolution (" +
                    std::to_string(levels) + "), expected");
    }
    return numbers.size() == 1 ? std::vector<double>(levels, numbers.front()) : numbers;
  }

  const ElastixParameterFile & m_File;
};

/** elastix's pyramid schedule: levels x dimension factors, coarsest first. */
std::vector<std::vector<unsigned int>>
ReadSchedule(const StageReader & reader, unsigned int levels, unsigned int dimension)
{
  const auto &                           file = reader.m_File;
  std::vector<std::vector<unsigned int>> schedule(levels, std::vector<unsigned int>(dimension));
  for (unsigned int l = 0; l < levels; ++l)
  {
    std::fill(schedule[l].begin(), schedule[l].end(), 1u << (levels - 1 - l));
  }
  std::string key;
  for (const char * k : { "ImagePyramidSchedule", "FixedImagePyramidSchedule", "MovingImagePyramidSchedule" })
  {
    if (!file.Has(k))
    {
      continue;
    }
    if (!key.empty() && file.GetValues(k) != file.GetValues(key))
    {
      reader.Refuse(k,
                    "the module shrinks and smooths both images alike: the fixed and moving schedules must be "
                    "the same");
    }
    key = k;
  }
  if (!key.empty())
  {
    const auto values = file.GetIntegers(key, static_cast<std::size_t>(levels) * dimension, 1);
    for (unsigned int l = 0; l < levels; ++l)
    {
      for (unsigned int a = 0; a < dimension; ++a)
      {
        schedule[l][a] = static_cast<unsigned int>(values[l * dimension + a]);
      }
    }
  }
  return schedule;
}
} // namespace

std::vector<std::string>
ServedElastixRegistrationKeys()
{
  return { kServedKeys.begin(), kServedKeys.end() };
}

ElastixRegistrationStage
ReadElastixRegistrationStage(const ElastixParameterFile & file)
{
  const StageReader        reader(file);
  ElastixRegistrationStage stage;
  stage.parameterFile = file.GetFileName();
  for (const auto & key : file.GetKeys())
  {
    if (kServedKeys.count(key) == 0)
    {
      reader.Refuse(key, "the module does not know this parameter");
    }
  }
  auto & s = stage.settings;

  // ------------------------------------------------------------- images
  if (file.Has("FixedImageDimension") || file.Has("MovingImageDimension"))
  {
    stage.dimension = file.GetImageDimension();
    if (stage.dimension != 2 && stage.dimension != 3)
    {
      reader.Refuse("FixedImageDimension", "the module registers 2-D and 3-D images");
    }
  }
  reader.Require("FixedInternalImagePixelType", "float", "the module registers float images");
  reader.Require("MovingInternalImagePixelType", "float", "the module registers float images");
  reader.Require("UseDirectionCosines", "true", "the module always uses the images' directions");
  for (const char * key : { "ErodeMask", "ErodeFixedMask", "ErodeMovingMask" })
  {
    reader.Require(key, "false", "the module does not erode masks");
  }
  reader.Require("Registration", "MultiResolutionRegistration", "the one registration served");

  // ------------------------------------------------------------- schedule
  s.levels = reader.UniformWhole("NumberOfResolutions", 3, 1, 16);
  const std::string fixedPyramid =
    reader.OneOf("FixedImagePyramid",
                 "FixedSmoothingImagePyramid",
                 { "FixedSmoothingImagePyramid", "FixedRecursiveImagePyramid", "FixedShrinkingImagePyramid" });
  const std::string movingPyramid =
    reader.OneOf("MovingImagePyramid",
                 "MovingSmoothingImagePyramid",
                 { "MovingSmoothingImagePyramid", "MovingRecursiveImagePyramid", "MovingShrinkingImagePyramid" });
  if (fixedPyramid.substr(5) != movingPyramid.substr(6))
  {
    reader.Refuse("MovingImagePyramid",
                  "the module shrinks and smooths both images alike: the fixed and moving "
                  "pyramids must be of one kind");
  }
  // Without FixedImageDimension a schedule's length tells its axes (2 or 3 per level).
  unsigned int scheduleDimension = stage.dimension;
  for (const char * key : { "ImagePyramidSchedule", "FixedImagePyramidSchedule", "MovingImagePyramidSchedule" })
  {
    const std::size_t count = file.Has(key) ? file.GetValues(key).size() : 0;
    if (scheduleDimension == 0 && count != 0)
    {
      scheduleDimension = count == 2 * s.levels ? 2 : count == 3 * s.levels ? 3 : 0;
      if (scheduleDimension == 0)
      {
        file.Fail(key, std::string(key) + " has " + std::to_string(count) + " values: 2 or 3 per resolution expected");
      }
    }
  }
  stage.pyramidSmooths = fixedPyramid != "FixedShrinkingImagePyramid";
  stage.pyramidShrinks = fixedPyramid != "FixedSmoothingImagePyramid";
  if (scheduleDimension != 0)
  {
    stage.pyramidSchedule = ReadSchedule(reader, s.levels, scheduleDimension);
    for (const auto & f : stage.pyramidSchedule)
    {
      if (stage.pyramidSmooths && std::any_of(f.begin(), f.end(), [&](unsigned int x) { return x != f.front(); }))
      {
        reader.Refuse(file.Has("ImagePyramidSchedule") ? "ImagePyramidSchedule" : "FixedImagePyramidSchedule",
                      "the smoothing pyramids are served with one factor per resolution on every axis (ITK's "
                      "registration takes one sigma per level)");
      }
    }
  }

  // ------------------------------------------------------------- metric
  const std::string metric = reader.OneOf(
    "Metric", "", { "AdvancedMattesMutualInformation", "AdvancedMeanSquares", "AdvancedNormalizedCorrelation" });
  stage.metricName = metric;
  if (metric == "AdvancedMattesMutualInformation")
  {
    s.metric = RegistrationMetricKind::MattesMutualInformation;
    s.histogramBins = reader.UniformWhole("NumberOfHistogramBins", 32, 5, 1024);
    reader.RequireNumber("FixedKernelBSplineOrder", 0, "the fixed Parzen window is of order 0 (ITK's Mattes)");
    reader.RequireNumber("MovingKernelBSplineOrder", 3, "the moving Parzen window is of order 3 (ITK's Mattes)");
    reader.RequireNumber("FixedLimitRangeRatio", 0, "the histogram spans the images' whole range (ITK's Mattes)");
    reader.RequireNumber("MovingLimitRangeRatio", 0, "the histogram spans the images' whole range (ITK's Mattes)");
  }
  else if (metric == "AdvancedMeanSquares")
  {
    s.metric = RegistrationMetricKind::MeanSquares;
  }
  else
  {
    s.metric = RegistrationMetricKind::Correlation;
    reader.Require("SubtractMean", "true", "ITK's correlation subtracts the means");
  }
  reader.Require("ShowExactMetricValue", "false", "the module logs the sampled value");
  (void)reader.UniformBoolean("UseFastAndLowMemoryVersion", true); // elastix's two codes of one value

  // ------------------------------------------------------------- transform
  const std::string transform = reader.OneOf(
    "Transform",
    "",
    { "EulerTransform", "SimilarityTransform", "AffineTransform", "BSplineTransform", "RecursiveBSplineTransform" });
  stage.transformName = transform;
  const bool bspline = transform == "BSplineTransform" || transform == "RecursiveBSplineTransform";
  s.bsplineStage = bspline;
  s.linearStage = transform == "EulerTransform"        ? itk::LinearRegistrationStage::Rigid
                  : transform == "SimilarityTransform" ? itk::LinearRegistrationStage::Similarity
                  : transform == "AffineTransform"     ? itk::LinearRegistrationStage::Affine
                                                       : itk::LinearRegistrationStage::None;
  reader.Require("HowToCombineTransforms", "Compose", "stages are composed");
  if (!bspline)
  {
    if (reader.UniformBoolean("AutomaticTransformInitialization", false))
    {
      const std::string method = reader.OneOf(
        "AutomaticTransformInitializationMethod", "GeometricalCenter", { "GeometricalCenter", "CenterOfGravity" });
      s.linearInitialization = method == "CenterOfGravity" ? itk::LinearStageInitialization::CentersOfMass
                                                           : itk::LinearStageInitialization::ImageCenters;
    }
    else
    {
      s.linearInitialization = itk::LinearStageInitialization::Identity;
    }
    if (!reader.UniformBoolean("AutomaticScalesEstimation", true))
    {
      reader.Refuse("AutomaticScalesEstimation",
                    "a linear stage's scales are estimated as elastix's "
                    "AutomaticScalesEstimation does (Scales are not read)");
    }
  }
  else
  {
    reader.Require("AutomaticTransformInitialization", "false", "a B-spline stage starts from zero");
    reader.Require("AutomaticScalesEstimation", "false", "a B-spline stage's scales are 1, as elastix's default");
    reader.RequireNumber("BSplineTransformSplineOrder", 3, "the module's B-splines are cubic");
    reader.Require("UseCyclicTransform", "false", "no cyclic transform");
    reader.RequireNumber("PassiveEdgeWidth", 0, "every control point moves");
    s.gridPlacement = itk::BSplineGridPlacement::ExactSpacing; // elastix's grid, not the image's domain
    if (file.Has("FinalGridSpacingInPhysicalUnits"))
    {
      s.gridSpacing = reader.UniformNumber("FinalGridSpacingInPhysicalUnits", 0);
    }
    else
    {
      stage.gridSpacingInVoxels = reader.UniformNumber("FinalGridSpacingInVoxels", 16);
    }
    if (!(s.gridSpacing > 0) || !(stage.gridSpacingInVoxels >= 0))
    {
      file.Fail(file.Has("FinalGridSpacingInPhysicalUnits") ? "FinalGridSpacingInPhysicalUnits"
                                                            : "FinalGridSpacingInVoxels",
                "the grid spacing must be positive");
    }
    if (file.Has("GridSpacingSchedule"))
    {
      const auto values = file.GetNumbers("GridSpacingSchedule");
      const bool perAxis = stage.dimension != 0 && values.size() == s.levels * stage.dimension;
      if (values.size() != s.levels && !perAxis)
      {
        file.Fail("GridSpacingSchedule",
                  "GridSpacingSchedule needs one value per resolution (or one per resolution "
                  "and axis)");
      }
      const unsigned int stride = perAxis ? stage.dimension : 1;
      bool               doubling = true;
      for (std::size_t i = 0; i < values.size(); ++i)
      {
        const double level = values[i - i % stride];
        if (values[i] != level)
        {
          reader.Refuse("GridSpacingSchedule", "the module's grid has one spacing factor per resolution on every axis");
        }
        if (!(values[i] > 0) || (i >= stride && values[i] > values[i - stride]))
        {
          file.Fail("GridSpacingSchedule", "GridSpacingSchedule must be positive and non-increasing");
        }
        doubling = doubling && values[i] == static_cast<double>(1u << (s.levels - 1 - i / stride));
      }
      for (std::size_t l = 0; !doubling && l < s.levels; ++l)
      {
        s.gridSpacingSchedule.push_back(values[l * stride]);
      }
    }
  }

  // ------------------------------------------------------------- interpolators
  const std::string interpolator = reader.OneOf(
    "Interpolator", "BSplineInterpolator", { "BSplineInterpolator", "BSplineInterpolatorFloat", "LinearInterpolator" });
  const double order = interpolator == "LinearInterpolator" ? 1 : reader.UniformNumber("BSplineInterpolationOrder", 1);
  if (order != 1 && order != 3)
  {
    reader.Refuse("BSplineInterpolationOrder",
                  "the metric interpolates the moving image linearly (1) or by a cubic "
                  "B-spline (3)");
  }
  s.movingInterpolationOrder = static_cast<unsigned int>(order);
  const std::string resampleInterpolator = reader.OneOf("ResampleInterpolator",
                                                        "FinalBSplineInterpolator",
                                                        { "FinalBSplineInterpolator",
                                                          "FinalBSplineInterpolatorFloat",
                                                          "FinalLinearInterpolator",
                                                          "FinalNearestNeighborInterpolator" });
  if (resampleInterpolator == "FinalLinearInterpolator")
  {
    stage.finalBSplineInterpolationOrder = 1;
  }
  else if (resampleInterpolator == "FinalNearestNeighborInterpolator")
  {
    stage.finalBSplineInterpolationOrder = 0;
  }
  else
  {
    stage.finalBSplineInterpolationOrder = reader.UniformWhole("FinalBSplineInterpolationOrder", 3, 0, 5);
  }
  reader.Require("Resampler", "DefaultResampler", "the module's resampler is elastix's default one");

  // ------------------------------------------------------------- sampler and optimizer
  const std::string optimizer =
    reader.OneOf("Optimizer", "", { "AdaptiveStochasticGradientDescent", "StandardGradientDescent" });
  stage.optimizerName = optimizer;
  reader.OneOf("ImageSampler", "Random", { "RandomCoordinate", "Random" });
  if (!reader.UniformBoolean("NewSamplesEveryIteration", false))
  {
    const std::string why = "the module's stochastic descents draw new points at every iteration "
                            "(NewSamplesEveryIteration \"true\")";
    if (!file.Has("NewSamplesEveryIteration"))
    {
      file.FailFile("elastix's default (NewSamplesEveryIteration \"false\") is not served by the GPU drop-in: " + why);
    }
    reader.Refuse("NewSamplesEveryIteration", why);
  }
  s.sampling = itk::RegistrationSampling::RandomEveryIteration;
  s.pointsPerIteration = reader.UniformWhole("NumberOfSpatialSamples", 5000, 1, 16777216);
  // SampleRegionSize is read by elastix only with UseRandomSampleRegion true
  stage.useRandomSampleRegion = reader.UniformBoolean("UseRandomSampleRegion", false);
  if (stage.useRandomSampleRegion && file.Has("SampleRegionSize"))
  {
    stage.sampleRegionSize = file.GetNumbers("SampleRegionSize");
    if (std::any_of(stage.sampleRegionSize.begin(), stage.sampleRegionSize.end(), [](double x) { return !(x > 0); }))
    {
      file.Fail("SampleRegionSize", "SampleRegionSize must be positive");
    }
  }
  reader.Require("UseAllPixels", "false", "the random samplers draw NumberOfSpatialSamples points");
  reader.RequireNumber("FixedImageBSplineInterpolationOrder", 1, "the fixed image is interpolated linearly");
  if (reader.UniformBoolean("CheckNumberOfSamples", true))
  {
    s.minimumValidFraction = reader.UniformNumber("RequiredRatioOfValidSamples", 0.25);
    if (!(s.minimumValidFraction >= 0 && s.minimumValidFraction <= 1))
    {
      file.Fail("RequiredRatioOfValidSamples", "RequiredRatioOfValidSamples must be from 0 to 1");
    }
  }
  s.samplingAttempts = reader.UniformWhole("MaximumNumberOfSamplingAttempts", 0, 0, 1e6);

  s.stochasticOptimizer = itk::StochasticOptimizer::AdaptiveStochasticGradientDescent;
  const auto iterations = reader.PerResolution("MaximumNumberOfIterations", 500, s.levels);
  s.iterations.clear();
  for (double i : iterations)
  {
    if (i < 0 || i != std::floor(i) || i > 1e9)
    {
      file.Fail("MaximumNumberOfIterations", "MaximumNumberOfIterations must be whole numbers");
    }
    s.iterations.push_back(static_cast<unsigned int>(i));
  }
  const bool   adaptive = optimizer == "AdaptiveStochasticGradientDescent";
  const bool   automatic = adaptive && reader.UniformBoolean("AutomaticParameterEstimation", true);
  const double a = reader.UniformNumber("SP_a", 400);
  const double A = reader.UniformNumber("SP_A", adaptive ? 20 : 50);
  const double alpha = reader.UniformNumber("SP_alpha", 0.602);
  if (!adaptive)
  {
    for (const char * key : { "AutomaticParameterEstimation",
                              "SigmoidMax",
                              "SigmoidMin",
                              "SigmoidScale",
                              "SigmoidInitialTime",
                              "UseAdaptiveStepSizes",
                              "MaximumStepLength" })
    {
      if (file.Has(key))
      {
        reader.Refuse(key, "StandardGradientDescent has no such parameter");
      }
    }
  }
  const std::string method =
    reader.OneOf("ASGDParameterEstimationMethod", "Original", { "Original", "OriginalButSigmoidToDefault" });
  const double       sigmoidMax = reader.UniformNumber("SigmoidMax", 1.0);
  const double       sigmoidMin = reader.UniformNumber("SigmoidMin", -0.8);
  const double       sigmoidScale = reader.UniformNumber("SigmoidScale", 1e-8);
  const double       initialTime = reader.UniformNumber("SigmoidInitialTime", 0.0);
  const bool         adaptiveSteps = reader.UniformBoolean("UseAdaptiveStepSizes", true);
  const double       maximumStep = reader.UniformNumber("MaximumStepLength", 0.0);
  const unsigned int gradientMeasurements = reader.UniformWhole("NumberOfGradientMeasurements", 0, 0, 1e9);
  const unsigned int jacobianMeasurements = reader.UniformWhole("NumberOfJacobianMeasurements", 0, 0, 1e9);
  reader.RequireNumber("NumberOfSamplesForExactGradient", 100000, "the exact gradients use elastix's default grid");
  const double sigmoidScaleFactor = reader.UniformNumber("SigmoidScaleFactor", 0.1);
  // The optimizer's set-up at each stage, as elastix's component reads the same keys.
  s.adaptiveDescentSetup = [=](itk::AdaptiveStochasticGradientDescentOptimizerv4 & o) {
    o.SetParam_a(a);
    o.SetParam_A(A);
    o.SetParam_alpha(alpha);
    if (!adaptive) // a / (A + k + 1)^alpha: the time grows by one a step
    {
      o.SetAutomaticParameterEstimation(false);
      o.SetUseAdaptiveStepSizes(false);
      o.SetSigmoidMax(1.0);
      o.SetSigmoidMin(1.0);
      return;
    }
    o.SetAutomaticParameterEstimation(automatic);
    o.SetParameterEstimationMethod(
      method == "Original" ? itk::AdaptiveStochasticGradientDescentOptimizerv4::ParameterEstimationMethodEnum::Original
                           : itk::AdaptiveStochasticGradientDescentOptimizerv4::ParameterEstimationMethodEnum::
                               OriginalButSigmoidToDefault);
    o.SetSigmoidMax(sigmoidMax);
    o.SetSigmoidMin(sigmoidMin);
    o.SetSigmoidScale(sigmoidScale);
    o.SetInitialTime(initialTime);
    o.SetUseAdaptiveStepSizes(adaptiveSteps);
    o.SetMaximumStepLength(maximumStep);
    o.SetNumberOfGradientMeasurements(gradientMeasurements);
    o.SetNumberOfJacobianMeasurements(jacobianMeasurements);
    o.SetSigmoidScaleFactor(sigmoidScaleFactor);
  };

  // ------------------------------------------------------------- output
  for (const char * key : { "WriteTransformParametersEachIteration",
                            "WriteTransformParametersEachResolution",
                            "WriteResultImageAfterEachResolution",
                            "WritePyramidImagesAfterEachResolution",
                            "WriteIterationInfo" })
  {
    reader.Require(key, "false", "the drop-in writes the stage's result only");
  }
  stage.writeResultImage = reader.UniformBoolean("WriteResultImage", true);
  stage.resultImageFormat = reader.Uniform("ResultImageFormat", "mhd");
  stage.resultImagePixelType = reader.OneOf("ResultImagePixelType",
                                            "short",
                                            { "char",
                                              "unsigned char",
                                              "short",
                                              "unsigned short",
                                              "int",
                                              "unsigned int",
                                              "long",
                                              "unsigned long",
                                              "float",
                                              "double" });
  stage.compressResultImage = reader.UniformBoolean("CompressResultImage", false);
  stage.defaultPixelValue = reader.UniformNumber("DefaultPixelValue", 0.0);
  stage.itkTransformExtension = reader.Uniform("ITKTransformOutputFileNameExtension", "");
  stage.writeITKCompositeTransform = reader.UniformBoolean("WriteITKCompositeTransform", false);
  return stage;
}

void
ResolveForImages(ElastixRegistrationStage &  stage,
                 const std::vector<double> & spacing,
                 const std::vector<double> & size)
{
  auto &            s = stage.settings;
  const auto        dimension = static_cast<unsigned int>(spacing.size());
  const std::string where = stage.parameterFile + ": ";
  if (stage.dimension != 0 && stage.dimension != dimension)
  {
    throw itk::ExceptionObject(__FILE__,
                               __LINE__,
                               where + "the file is for " + std::to_string(stage.dimension) +
                                 "-D images, the images are " + std::to_string(dimension) + "-D",
                               "ElastixRegistrationStage");
  }
  std::vector<std::vector<unsigned int>> schedule = stage.pyramidSchedule;
  if (!schedule.empty() && schedule.front().size() != dimension)
  {
    throw itk::ExceptionObject(__FILE__,
                               __LINE__,
                               where + "the pyramid schedule is for " + std::to_string(schedule.front().size()) +
                                 "-D images, the images are " + std::to_string(dimension) + "-D",
                               "ElastixRegistrationStage");
  }
  if (schedule.empty())
  {
    for (unsigned int l = 0; l < s.levels; ++l)
    {
      schedule.emplace_back(dimension, 1u << (s.levels - 1 - l));
    }
  }
  s.shrinkFactors.clear();
  s.smoothingSigmas.clear();
  // elastix's smoothing pyramid: a Gaussian of half the factor, in voxels, at every
  // level; ITK's recursive one smooths each level from the next finer one by half the
  // ratio of their factors (none where it is 1): the same Gaussians, accumulated.
  double accumulated = 0.0;
  for (unsigned int k = s.levels; k-- > 0;)
  {
    const double f = schedule[k].front();
    const double finer = k + 1 < s.levels ? schedule[k + 1].front() : 1.0;
    if (f != finer)
    {
      accumulated = std::sqrt(accumulated * accumulated + 0.25 * f * f);
    }
    const double sigma = !stage.pyramidSmooths ? 0.0 : stage.pyramidShrinks ? accumulated : 0.5 * f;
    s.smoothingSigmas.insert(s.smoothingSigmas.begin(), sigma);
    s.shrinkFactors.insert(s.shrinkFactors.begin(),
                           stage.pyramidShrinks ? schedule[k] : std::vector<unsigned int>(dimension, 1u));
  }
  s.randomSampleRegionSize.clear();
  if (stage.useRandomSampleRegion)
  {
    if (size.size() != dimension)
    {
      throw itk::ExceptionObject(__FILE__,
                                 __LINE__,
                                 where + "the random sample region needs the fixed image's size",
                                 "ElastixRegistrationStage");
    }
    // elastix's default: a third of the longest extent (first to last voxel centre), at
    // most each axis's extent; the file's entry level * D + axis, else its first
    std::vector<double> extent(dimension), box(dimension);
    double              third = 0.0;
    for (unsigned int a = 0; a < dimension; ++a)
    {
      extent[a] = (size[a] - 1) * spacing[a];
      third = std::max(third, extent[a] / 3.0);
    }
    for (unsigned int l = 0; l < s.levels; ++l)
    {
      for (unsigned int a = 0; a < dimension; ++a)
      {
        const std::size_t entry = static_cast<std::size_t>(l) * dimension + a;
        box[a] = stage.sampleRegionSize.empty()          ? std::min(third, extent[a])
                 : entry < stage.sampleRegionSize.size() ? stage.sampleRegionSize[entry]
                                                         : stage.sampleRegionSize.front();
        if (box[a] > extent[a])
        {
          std::ostringstream message;
          message << where << "SampleRegionSize " << box[a] << " on axis " << a << " at resolution " << l
                  << " exceeds the fixed image's extent (" << extent[a] << ")";
          throw itk::ExceptionObject(__FILE__, __LINE__, message.str(), "ElastixRegistrationStage");
        }
      }
      s.randomSampleRegionSize.push_back(box);
    }
  }
  if (stage.gridSpacingInVoxels == 0.0)
  {
    return;
  }
  if (std::any_of(spacing.begin(), spacing.end(), [&](double x) { return std::abs(x - spacing.front()) > 1e-6 * x; }))
  {
    throw itk::ExceptionObject(__FILE__,
                               __LINE__,
                               where + "FinalGridSpacingInVoxels on an image whose voxels are not cubes is not served "
                                       "by the GPU drop-in: give FinalGridSpacingInPhysicalUnits",
                               "ElastixRegistrationStage");
  }
  s.gridSpacing = stage.gridSpacingInVoxels * spacing.front();
}
} // namespace cif
