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
// What itk::ElasticRegistration runs and what it reports per iteration: its stages,
// metric, schedule, points and optimizers, as plain values a command line or an
// elastix parameter file fills in.
#ifndef itkElasticRegistrationSettings_h
#define itkElasticRegistrationSettings_h

#include "cifRegistrationMetrics.h"
#include "itkAdaptiveStochasticGradientDescentOptimizerv4.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace itk
{
/** The linear stage run before the B-spline one, if any. */
enum class LinearRegistrationStage
{
  None,
  Rigid,      // Euler2DTransform / Euler3DTransform: rotation and translation
  Similarity, // Similarity2DTransform / Similarity3DTransform: rigid and one scale
  Affine
};

/** Where the linear stage's transform starts; its centre of rotation is the fixed
 * image's geometric centre in each case (elastix's AutomaticTransformInitialization). */
enum class LinearStageInitialization
{
  ImageCenters,  ///< the translation between the images' geometric centres (GeometricalCenter)
  CentersOfMass, ///< the translation between their intensity centres of mass (CenterOfGravity)
  Identity       ///< no translation (elastix without AutomaticTransformInitialization)
};

/** Which fixed-image points the metric evaluates: every voxel of the level's grid, a
 * fraction of them (ImageRegistrationMethodv4's RANDOM and REGULAR strategies: drawn
 * once per level), or new random points at every iteration (elastix's
 * NewSamplesEveryIteration with its RandomCoordinate sampler; the module's metric
 * twins only, and a decaying-gain gradient descent: itkDecayingGainGradientDescentOptimizerv4.h). */
enum class RegistrationSampling
{
  Dense,
  Random,
  Regular,
  RandomEveryIteration
};

/** The optimizer of a stage with new random points at every iteration. */
enum class StochasticOptimizer
{
  /** elastix's adaptive stochastic gradient descent with its automatic parameter and
   * scales estimation (AdaptiveStochasticGradientDescentOptimizerv4). */
  AdaptiveStochasticGradientDescent,
  /** a / (A + k + 1)^0.602 with a set per level from the largest allowed step
   * (DecayingGainGradientDescentOptimizerv4). */
  DecayingGain
};

/** Where the B-spline stage's control points lie. */
enum class BSplineGridPlacement
{
  /** ITK's: the mesh spans the fixed image's domain (BSplineTransformInitializer) and
   * its cells are rounded down (see ElasticRegistrationSettings), so the spacing is
   * gridSpacing or more. */
  ImageDomain,
  /** elastix's (its GridScheduleComputer): at level l the spacing is exactly gridSpacing
   * times the schedule's factor, ceil(extent / spacing) cells per axis, the grid
   * centred on the fixed image's voxel centres and wider than the image. */
  ExactSpacing
};

/** \class ElasticRegistrationSettings
 * \brief How ElasticRegistration runs: its stages, metric, levels, iterations, grid
 * and points.
 *
 * Level l of L (0 the coarsest) shrinks both images by 2^(L-1-l) and smooths them by a
 * Gaussian of L-1-l voxels, unless shrinkFactors and smoothingSigmas give the schedule. The B-spline grid's mesh, per
 * axis, is the fixed image's physical extent over gridSpacing at the last level, halved per coarser level
 * (with gridSpacingSchedule: floor(extent / (gridSpacing * factor)) cells at each level, at least 1)
 * (BSplineTransformParametersAdaptor refines it between levels): the coarsest mesh is
 * floor(floor(extent / gridSpacing) / 2^(L-1)) cells (at least 1), so the last level's
 * spacing is gridSpacing or more. */
struct ElasticRegistrationSettings
{
  LinearRegistrationStage     linearStage = LinearRegistrationStage::Affine;
  LinearStageInitialization   linearInitialization = LinearStageInitialization::ImageCenters;
  bool                        bsplineStage = true;
  cif::RegistrationMetricKind metric = cif::RegistrationMetricKind::MeanSquares;
  unsigned int                histogramBins = 50; // Mattes (ITK's default)
  unsigned int                levels = 3;
  /** Per level (coarsest first), per axis: both images' shrink factor. Empty: 2^(L-1-l). */
  std::vector<std::vector<unsigned int>> shrinkFactors;
  /** Per level: the Gaussian's sigma in full-resolution voxels. Empty: L-1-l. */
  std::vector<double> smoothingSigmas;
  /** The moving image's interpolation in the metric: 1 (linear, ITK's default) or 3
   * (cubic B-spline, BSplineInterpolateImageFunction). */
  unsigned int movingInterpolationOrder = 1;
  /** The most iterations per level, coarsest first; one value: the same at every level. */
  std::vector<unsigned int> iterations{ 100 };
  /** The last level's control-point spacing, in the images' physical units. */
  double gridSpacing = 10.0;
  /** Per level (coarsest first): the control-point spacing as a multiple of
   * gridSpacing, non-increasing (elastix's GridSpacingSchedule). Empty: 2^(L-1-l), the
   * grid halving its spacing per level (see BSplineMesh). */
  std::vector<double>  gridSpacingSchedule;
  BSplineGridPlacement gridPlacement = BSplineGridPlacement::ImageDomain;
  RegistrationSampling sampling = RegistrationSampling::Dense;
  /** Random, Regular: the fraction of the level's voxels evaluated, (0, 1]. */
  double samplingPercentage = 1.0;
  /** RandomEveryIteration: the points drawn per iteration (elastix's
   * NumberOfSpatialSamples). */
  unsigned int pointsPerIteration = 2048;
  /** RandomEveryIteration, per level (coarsest first), per axis: each iteration's
   * points drawn inside a box of this physical size placed at random in the fixed
   * image (elastix's UseRandomSampleRegion with SampleRegionSize); empty: over the
   * whole image. */
  std::vector<std::vector<double>> randomSampleRegionSize;
  StochasticOptimizer              stochasticOptimizer = StochasticOptimizer::DecayingGain;
  /** Called on the adaptive descent before its stage runs (elastix's SP_A, sigmoid,
   * step length, estimation switches...); empty: its defaults, elastix's. */
  std::function<void(AdaptiveStochasticGradientDescentOptimizerv4 &)> adaptiveDescentSetup;
  unsigned int                                                        samplingSeed = 121212;
  /** The metric's GPU path when a GPU is there (else the module's CPU path). */
  bool useGPU = true;
  /** ITK's own metric classes instead of the module's twins. */
  bool itkMetric = false;
  /** Fewer valid points than this (points of the fixed image, inside its mask, that map
   * inside the moving image and its mask) at an iteration is an error. */
  unsigned int minimumValidPoints = 16;
  /** RandomEveryIteration with the adaptive descent: an iteration whose valid points
   * are fewer than this fraction of the points drawn draws new points, up to
   * samplingAttempts times, then is an error (elastix's RequiredRatioOfValidSamples
   * and MaximumNumberOfSamplingAttempts; AdaptiveStochasticGradientDescentOptimizerv4::
   * SetValidSampleRequirement). 0: no such check. */
  double       minimumValidFraction = 0.0;
  unsigned int samplingAttempts = 0;

  unsigned int
  IterationsAtLevel(unsigned int level) const
  {
    return iterations.empty() ? 0 : iterations[std::min<std::size_t>(level, iterations.size() - 1)];
  }
};

/** What ElasticRegistration reports after each optimizer iteration (and, with
 * levelEnded, once a level's optimization has ended). */
struct RegistrationIterationReport
{
  std::string    stage;          // "rigid", "affine" or "B-spline"
  unsigned int   stageIndex = 0; // of numberOfStages
  unsigned int   numberOfStages = 0;
  unsigned int   level = 0; // 0: the coarsest, of numberOfLevels
  unsigned int   numberOfLevels = 0;
  unsigned int   iteration = 0; // iterations done in this level
  unsigned int   maximumIterations = 0;
  double         metricValue = 0.0;
  double         levelSeconds = 0.0;
  bool           levelEnded = false;
  const Object * metric = nullptr; // for MetricExecutionPath, MetricTimingReport
};

} // namespace itk

#endif
