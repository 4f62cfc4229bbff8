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
// The elastix drop-in's reading of registration parameter files
// (cifElastixRegistrationStage.h): each served key as elastix reads it, elastix's
// defaults where a key is absent, the pyramids' schedules as Gaussians, the optimizer
// set as the file says, and every unserved value refused with its file and line.
#include "cifElastixRegistrationStage.h"
#include "cifTestHelpers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <random>
#include <sstream>
#include <string>

namespace
{
using cif::ElastixRegistrationStage;

ElastixRegistrationStage
StageOf(const std::string & text)
{
  return cif::ReadElastixRegistrationStage(itk::ElastixParameterFile::Parse(text, "par.txt"));
}

/** The description of the exception reading \a text throws ("" when none). */
std::string
RefusalOf(const std::string & text)
{
  try
  {
    StageOf(text);
  }
  catch (const itk::ExceptionObject & e)
  {
    return e.GetDescription();
  }
  return "";
}

const std::string kStochastic = "(Optimizer \"AdaptiveStochasticGradientDescent\")\n"
                                "(ImageSampler \"RandomCoordinate\")\n(NewSamplesEveryIteration \"true\")\n";

TEST(ElastixRegistrationStage, ReadsEachServedKeyAsElastixDoes)
{
  const std::uint32_t seed = cif_test::FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937                       rng(seed);
  std::uniform_int_distribution<int> bins(8, 128), iterations(1, 3000), samples(100, 100000);
  const int                          b = bins(rng), i0 = iterations(rng), i1 = iterations(rng), n = samples(rng);
  std::ostringstream                 text;
  text
    << "(FixedImageDimension 3)\n(MovingImageDimension 3)\n(Transform \"AffineTransform\")\n"
    << "(Metric \"AdvancedMattesMutualInformation\")\n(NumberOfHistogramBins " << b << ")\n"
    << "(NumberOfResolutions 2)\n(MaximumNumberOfIterations " << i0 << " " << i1 << ")\n"
    << "(NumberOfSpatialSamples " << n << " " << n << ")\n"
    << kStochastic
    << "(AutomaticTransformInitialization \"true\")\n(AutomaticTransformInitializationMethod \"CenterOfGravity\")\n"
    << "(BSplineInterpolationOrder 3)\n(FinalBSplineInterpolationOrder 1)\n(ResultImagePixelType \"unsigned char\")\n"
    << "(ResultImageFormat \"nii.gz\")\n(DefaultPixelValue -7.5)\n(WriteResultImage \"false\")\n"
    << "(ITKTransformOutputFileNameExtension \"h5\")\n(WriteITKCompositeTransform \"true\")\n";
  const auto   stage = StageOf(text.str());
  const auto & s = stage.settings;
  EXPECT_EQ(stage.dimension, 3u);
  EXPECT_EQ(s.linearStage, itk::LinearRegistrationStage::Affine);
  EXPECT_FALSE(s.bsplineStage);
  EXPECT_EQ(s.linearInitialization, itk::LinearStageInitialization::CentersOfMass);
  EXPECT_EQ(s.metric, cif::RegistrationMetricKind::MattesMutualInformation);
  EXPECT_EQ(s.histogramBins, static_cast<unsigned int>(b));
  EXPECT_EQ(s.levels, 2u);
  EXPECT_EQ(s.iterations, (std::vector<unsigned int>{ static_cast<unsigned int>(i0), static_cast<unsigned int>(i1) }));
  EXPECT_EQ(s.sampling, itk::RegistrationSampling::RandomEveryIteration);
  EXPECT_EQ(s.pointsPerIteration, static_cast<unsigned int>(n));
  EXPECT_EQ(s.stochasticOptimizer, itk::StochasticOptimizer::AdaptiveStochasticGradientDescent);
  EXPECT_EQ(s.movingInterpolationOrder, 3u);
  EXPECT_EQ(stage.finalBSplineInterpolationOrder, 1u);
  EXPECT_EQ(stage.resultImagePixelType, "unsigned char");
  EXPECT_EQ(stage.resultImageFormat, "nii.gz");
  EXPECT_EQ(stage.defaultPixelValue, -7.5);
  EXPECT_FALSE(stage.writeResultImage);
  EXPECT_EQ(stage.itkTransformExtension, "h5");
  EXPECT_TRUE(stage.writeITKCompositeTransform);
}

TEST(ElastixRegistrationStage, TakesElastixsDefaultsForAbsentKeys)
{
  auto         stage = StageOf("(Transform \"BSplineTransform\")\n(Metric \"AdvancedMeanSquares\")\n" + kStochastic);
  const auto & s = stage.settings;
  EXPECT_EQ(stage.dimension, 0u);
  EXPECT_TRUE(s.bsplineStage);
  EXPECT_EQ(s.linearStage, itk::LinearRegistrationStage::None);
  EXPECT_EQ(s.levels, 3u);
  EXPECT_EQ(s.iterations, (std::vector<unsigned int>{ 500, 500, 500 }));
  EXPECT_EQ(s.pointsPerIteration, 5000u);
  EXPECT_EQ(s.movingInterpolationOrder, 1u);
  EXPECT_EQ(stage.finalBSplineInterpolationOrder, 3u);
  EXPECT_EQ(stage.resultImagePixelType, "short");
  EXPECT_EQ(stage.resultImageFormat, "mhd");
  EXPECT_TRUE(stage.writeResultImage);
  EXPECT_EQ(stage.gridSpacingInVoxels, 16.0);
  auto optimizer = itk::AdaptiveStochasticGradientDescentOptimizerv4::New();
  s.adaptiveDescentSetup(*optimizer);
  EXPECT_TRUE(optimizer->GetAutomaticParameterEstimation()); // elastix sets it per resolution
  EXPECT_EQ(optimizer->GetParam_A(), 20.0);
  // the smoothing pyramid: Gaussians of half the factors 4, 2, 1, no shrinking; the
  // grid of 16 voxels of 0.75
  cif::ResolveForImages(stage, { 0.75, 0.75 });
  EXPECT_EQ(s.smoothingSigmas, (std::vector<double>{ 2.0, 1.0, 0.5 }));
  EXPECT_EQ(s.shrinkFactors, (std::vector<std::vector<unsigned int>>(3, { 1, 1 })));
  EXPECT_DOUBLE_EQ(s.gridSpacing, 12.0);
}

TEST(ElastixRegistrationStage, ReadsThePyramidsAsGaussiansOfTheirSchedule)
{
  const std::uint32_t seed = cif_test::FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937 rng(seed);
  // a schedule of non-increasing factors per axis, coarsest first
  std::vector<std::vector<unsigned int>> schedule(4, std::vector<unsigned int>(3));
  for (unsigned int a = 0; a < 3; ++a)
  {
    unsigned int f = 1;
    for (unsigned int l = 4; l-- > 0;)
    {
      schedule[l][a] = f;
      f *= std::uniform_int_distribution<unsigned int>(1, 3)(rng);
    }
  }
  for (auto & level : schedule) // the smoothing pyramids take one factor on every axis
  {
    level = { level[0], level[0], level[0] };
  }
  std::ostringstream list;
  for (const auto & level : schedule)
  {
    for (unsigned int f : level)
    {
      list << f << ' ';
    }
  }
  for (const std::string kind : { "Smoothing", "Recursive", "Shrinking" })
  {
    SCOPED_TRACE(kind);
    auto stage =
      StageOf("(FixedImageDimension 3)\n(MovingImageDimension 3)\n(Transform \"EulerTransform\")\n"
              "(Metric \"AdvancedNormalizedCorrelation\")\n(NumberOfResolutions 4)\n(FixedImagePyramid \"Fixed" +
              kind + "ImagePyramid\")\n(MovingImagePyramid \"Moving" + kind +
              "ImagePyramid\")\n(ImagePyramidSchedule " + list.str() + ")\n" + kStochastic);
    cif::ResolveForImages(stage, { 1.0, 1.0, 1.0 });
    const auto & s = stage.settings;
    ASSERT_EQ(s.smoothingSigmas.size(), 4u);
    for (unsigned int l = 0; l < 4; ++l)
    {
      // ITK's recursive pyramid smooths each level from the next finer one with half
      // their factors' ratio, in that level's voxels: half of each factor met on the
      // way, in full-resolution voxels, added as variances
      double variance = 0.0;
      for (unsigned int k = l; k < 4; ++k)
      {
        const unsigned int finer = k + 1 < 4 ? schedule[k + 1][0] : 1u;
        variance += schedule[k][0] != finer ? 0.25 * schedule[k][0] * schedule[k][0] : 0.0;
      }
      const double expected = kind == "Smoothing"   ? 0.5 * schedule[l][0]
                              : kind == "Recursive" ? std::sqrt(variance)
                                                    : 0.0;
      EXPECT_NEAR(s.smoothingSigmas[l], expected, 1e-12) << "level " << l;
      EXPECT_EQ(s.shrinkFactors[l], kind == "Smoothing" ? std::vector<unsigned int>(3, 1u) : schedule[l]);
    }
  }
}

TEST(ElastixRegistrationStage, SetsTheOptimizerAsTheFileSays)
{
  auto adaptive = StageOf("(Transform \"AffineTransform\")\n(Metric \"AdvancedMeanSquares\")\n" + kStochastic +
                          "(AutomaticParameterEstimation \"false\")\n(SP_a 812.5)\n(SP_A 33)\n(SP_alpha 0.75)\n"
                          "(SigmoidMax 0.9)\n(SigmoidMin -0.5)\n(SigmoidScale 1e-6)\n(SigmoidInitialTime 2)\n"
                          "(UseAdaptiveStepSizes \"false\")\n(MaximumStepLength 0.25)\n");
  auto optimizer = itk::AdaptiveStochasticGradientDescentOptimizerv4::New();
  ASSERT_TRUE(adaptive.settings.adaptiveDescentSetup);
  adaptive.settings.adaptiveDescentSetup(*optimizer);
  EXPECT_FALSE(optimizer->GetAutomaticParameterEstimation());
  EXPECT_EQ(optimizer->GetParam_a(), 812.5);
  EXPECT_EQ(optimizer->GetParam_A(), 33.0);
  EXPECT_EQ(optimizer->GetParam_alpha(), 0.75);
  EXPECT_EQ(optimizer->GetSigmoidMax(), 0.9);
  EXPECT_EQ(optimizer->GetSigmoidMin(), -0.5);
  EXPECT_EQ(optimizer->GetSigmoidScale(), 1e-6);
  EXPECT_EQ(optimizer->GetInitialTime(), 2.0);
  EXPECT_FALSE(optimizer->GetUseAdaptiveStepSizes());
  EXPECT_EQ(optimizer->GetMaximumStepLength(), 0.25);

  // elastix's StandardGradientDescent: a / (A + k + 1)^alpha, A 50 by default
  auto standard = StageOf("(Transform \"AffineTransform\")\n(Metric \"AdvancedMeanSquares\")\n"
                          "(Optimizer \"StandardGradientDescent\")\n(ImageSampler \"Random\")\n"
                          "(NewSamplesEveryIteration \"true\")\n(SP_a 3.5)\n");
  auto plain = itk::AdaptiveStochasticGradientDescentOptimizerv4::New();
  standard.settings.adaptiveDescentSetup(*plain);
  EXPECT_FALSE(plain->GetAutomaticParameterEstimation());
  EXPECT_FALSE(plain->GetUseAdaptiveStepSizes());
  EXPECT_EQ(plain->GetParam_a(), 3.5);
  EXPECT_EQ(plain->GetParam_A(), 50.0);
  EXPECT_EQ(plain->GetParam_alpha(), 0.602);
  EXPECT_EQ(plain->GetSigmoidMax() + plain->GetSigmoidMin(), 2.0); // the time grows by one a step
}

TEST(ElastixRegistrationStage, RefusesWhatTheModuleDoesNotServeWithFileAndLine)
{
  const std::string head = "(Transform \"AffineTransform\")\n(Metric \"AdvancedMeanSquares\")\n";
  const std::string ok = head + kStochastic;
  ASSERT_EQ(RefusalOf(ok), "");
  struct Case
  {
    std::string key; // the refused line, added last (line 6 of the file)
    std::string reason;
  };
  const Case cases[] = {
    { "(Scales 1 1 1)", "(Scales 1 1 1) is not served by the GPU drop-in: the module does not know this parameter" },
    { "(Metric0Weight 0.5)", "the module does not know this parameter" },
    { "(HowToCombineTransforms \"Add\")", "stages are composed" },
    { "(ErodeMask \"true\")", "does not erode masks" },
    { "(NumberOfSpatialSamples 2048 4096)", "one value for every resolution" },
    { "(NumberOfHistogramBins 32 64)", "" }, // read only for Mattes
    { "(BSplineInterpolationOrder 2)", "linearly (1) or by a cubic B-spline (3)" },
    { "(RequiredRatioOfValidSamples 0.1 0.2)", "one value for every resolution" },
    { "(AutomaticScalesEstimation \"false\")", "scales are estimated" },
    { "(FixedInternalImagePixelType \"short\")", "registers float images" },
    { "(AutomaticTransformInitializationMethod \"Origins\")", "" }, // read only with the initialization on
    { "(FixedKernelBSplineOrder 1)", "" },                          // read only for Mattes
    { "(ASGDParameterEstimationMethod \"DisplacementDistribution\")", "served: Original, OriginalButSigmoidToDefault" },
    { "(FixedImageBSplineInterpolationOrder 3)", "interpolated linearly" },
    { "(WriteIterationInfo \"true\")", "the stage's result only" },
    { "(Resampler \"OpenCLResampler\")", "elastix's default one" },
  };
  for (const auto & c : cases)
  {
    SCOPED_TRACE(c.key);
    const std::string refusal = RefusalOf(ok + c.key + "\n");
    if (c.reason.empty())
    {
      EXPECT_EQ(refusal, "");
      continue;
    }
    EXPECT_EQ(refusal.rfind("par.txt:6: ", 0), 0u) << refusal;
    EXPECT_NE(refusal.find(c.reason), std::string::npos) << refusal;
  }
  // components: the line of the component named
  EXPECT_NE(RefusalOf(head + "(Optimizer \"QuasiNewtonLBFGS\")\n").find("par.txt:3: (Optimizer \"QuasiNewtonLBFGS\")"),
            std::string::npos);
  EXPECT_NE(RefusalOf("(Metric \"AdvancedMeanSquares\")\n(Transform \"TranslationTransform\")\n")
              .find("par.txt:2: (Transform \"TranslationTransform\")"),
            std::string::npos);
  EXPECT_EQ(RefusalOf("(Transform \"EulerTransform\")\n"),
            "par.txt: (Metric ...) is missing; the GPU drop-in serves AdvancedMattesMutualInformation, "
            "AdvancedMeanSquares, AdvancedNormalizedCorrelation");
  EXPECT_NE(RefusalOf(head + "(Optimizer \"AdaptiveStochasticGradientDescent\")\n(ImageSampler \"Full\")\n")
              .find("par.txt:4: (ImageSampler \"Full\")"),
            std::string::npos);
  EXPECT_NE(RefusalOf(head + "(Optimizer \"AdaptiveStochasticGradientDescent\")\n").find("NewSamplesEveryIteration"),
            std::string::npos);
  EXPECT_NE(RefusalOf(ok + "(FixedImagePyramid \"FixedSmoothingImagePyramid\")\n"
                           "(MovingImagePyramid \"MovingRecursiveImagePyramid\")\n")
              .find("par.txt:7: (MovingImagePyramid"),
            std::string::npos);
}

TEST(ElastixRegistrationStage, ReadsTheSamplersChecksAndSchedulesAsElastixDoes)
{
  const std::uint32_t seed = cif_test::FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> ratio(0.01, 0.9), box(5.0, 30.0);
  const double                           r = ratio(rng), b0 = box(rng), b1 = box(rng), b2 = box(rng);
  const unsigned int                     attempts = std::uniform_int_distribution<unsigned int>(1, 100)(rng);
  std::ostringstream                     text;
  text << std::setprecision(17) << "(Transform \"SimilarityTransform\")\n(Metric \"AdvancedMattesMutualInformation\")\n"
       << kStochastic << "(NumberOfResolutions 2)\n(RequiredRatioOfValidSamples " << r
       << ")\n(MaximumNumberOfSamplingAttempts " << attempts
       << ")\n(UseRandomSampleRegion \"true\")\n(SampleRegionSize " << b0 << " " << b1 << " " << b2 << ")\n";
  auto         stage = StageOf(text.str());
  const auto & s = stage.settings;
  EXPECT_EQ(s.linearStage, itk::LinearRegistrationStage::Similarity);
  EXPECT_FALSE(s.bsplineStage);
  EXPECT_EQ(s.minimumValidFraction, r);
  EXPECT_EQ(s.samplingAttempts, attempts);
  // entry level * D + axis, else the first: elastix's ReadParameter
  cif::ResolveForImages(stage, { 1.0, 1.0, 1.0 }, { 64, 64, 64 });
  ASSERT_EQ(s.randomSampleRegionSize.size(), 2u);
  EXPECT_EQ(s.randomSampleRegionSize[0], (std::vector<double>{ b0, b1, b2 }));
  EXPECT_EQ(s.randomSampleRegionSize[1], (std::vector<double>{ b0, b0, b0 }));
  EXPECT_THROW(cif::ResolveForImages(stage, { 1.0, 1.0, 1.0 }, { 64, 5, 64 }), itk::ExceptionObject); // too big

  // elastix's defaults: the ratio 0.25 (none when CheckNumberOfSamples is false), no
  // new draws, the box a third of the longest extent and at most each extent
  auto defaults = StageOf("(Transform \"EulerTransform\")\n(Metric \"AdvancedMeanSquares\")\n" + kStochastic +
                          "(NumberOfResolutions 1)\n(UseRandomSampleRegion \"true\")\n");
  EXPECT_EQ(defaults.settings.minimumValidFraction, 0.25);
  EXPECT_EQ(defaults.settings.samplingAttempts, 0u);
  cif::ResolveForImages(defaults, { 0.5, 2.0 }, { 121, 11 });
  EXPECT_EQ(defaults.settings.randomSampleRegionSize,
            (std::vector<std::vector<double>>{ { 20.0, 20.0 } })); // extents 60 and 20
  EXPECT_EQ(StageOf("(Transform \"EulerTransform\")\n(Metric \"AdvancedMeanSquares\")\n" + kStochastic +
                    "(CheckNumberOfSamples \"false\")\n(RequiredRatioOfValidSamples 0.5)\n")
              .settings.minimumValidFraction,
            0.0);

  // GridSpacingSchedule: any non-increasing factors; elastix's default keeps the mesh rule
  const std::string bspline = "(Transform \"BSplineTransform\")\n(Metric \"AdvancedMeanSquares\")\n" + kStochastic;
  EXPECT_EQ(
    StageOf(bspline + "(NumberOfResolutions 4)\n(GridSpacingSchedule 6 6 2.5 1)\n").settings.gridSpacingSchedule,
    (std::vector<double>{ 6, 6, 2.5, 1 }));
  EXPECT_TRUE(
    StageOf(bspline + "(NumberOfResolutions 3)\n(GridSpacingSchedule 4 2 1)\n").settings.gridSpacingSchedule.empty());
  EXPECT_NE(RefusalOf(bspline + "(NumberOfResolutions 2)\n(GridSpacingSchedule 1 2)\n").find("non-increasing"),
            std::string::npos);
  EXPECT_NE(
    RefusalOf("(FixedImageDimension 2)\n" + bspline + "(NumberOfResolutions 2)\n(GridSpacingSchedule 2 1 1 1)\n")
      .find("one spacing factor per resolution on every axis"),
    std::string::npos);
}

TEST(ElastixRegistrationStage, ResolvesWhatDependsOnTheImages)
{
  auto stage = StageOf("(FixedImageDimension 2)\n(MovingImageDimension 2)\n(Transform \"BSplineTransform\")\n"
                       "(Metric \"AdvancedMeanSquares\")\n(FinalGridSpacingInVoxels 6)\n" +
                       kStochastic);
  EXPECT_THROW(cif::ResolveForImages(stage, { 1.0, 1.0, 1.0 }), itk::ExceptionObject); // a 3-D image
  EXPECT_THROW(cif::ResolveForImages(stage, { 1.0, 2.0 }), itk::ExceptionObject);      // voxels not squares
  cif::ResolveForImages(stage, { 2.5, 2.5 });
  EXPECT_DOUBLE_EQ(stage.settings.gridSpacing, 15.0);
  auto physical = StageOf("(Transform \"BSplineTransform\")\n(Metric \"AdvancedMeanSquares\")\n"
                          "(FinalGridSpacingInPhysicalUnits 7.5)\n" +
                          kStochastic);
  cif::ResolveForImages(physical, { 1.0, 2.0, 3.0 }); // any voxels: the spacing is physical
  EXPECT_DOUBLE_EQ(physical.settings.gridSpacing, 7.5);
  EXPECT_EQ(physical.settings.gridPlacement, itk::BSplineGridPlacement::ExactSpacing); // elastix's grid
  EXPECT_EQ(physical.settings.shrinkFactors.size(), 3u);
}
} // namespace
