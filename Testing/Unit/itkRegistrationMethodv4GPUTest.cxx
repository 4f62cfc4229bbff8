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
// The GPU twins of the v4 metrics inside ITK's own registration loop
// (ImageRegistrationMethodv4): they track ITK's metric iteration by iteration through
// 20 optimizer steps of a 3-D B-spline registration (MeanSquares, Mattes and
// Correlation, regular step gradient descent, and one L-BFGS-B run), they recover a known smooth
// deformation in the standard two-level pattern (shrink, smooth, B-spline grid
// refined by BSplineTransformParametersAdaptor), and an all-zero fixed mask gives
// ITK's answer (MeanSquares: its warning, the largest value, a zero derivative;
// Mattes: its exception); itk::ElasticRegistration, the staged pipeline on top of them
// (itkElasticRegistration.h), recovers the same kind of warp and stops when its
// observer throws. Each test draws a fresh seed (printed on failure). The CPU
// variants run everywhere (CI); the GPU variants skip without a device.
#include "itkElasticRegistration.h"
#include "cifMetricTestSupport.h"
#include "itkBSplineTransformParametersAdaptor.h"
#include "itkCorrelationImageToImageMetricv4GPU.h"
#include "itkExtractImageFilter.h"
#include "itkImageRegistrationMethodv4.h"
#include "itkLBFGSBOptimizerv4.h"
#include "itkMattesMutualInformationImageToImageMetricv4GPU.h"
#include "itkMeanSquaresImageToImageMetricv4GPU.h"
#include "itkOutputWindow.h"
#include "itkRegularStepGradientDescentOptimizerv4.h"
#include "itkResampleImageFilter.h"
#include "itkSmoothingRecursiveGaussianImageFilter.h"

#include <gtest/gtest.h>

#include <memory>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace
{
using namespace cif_test;

constexpr unsigned int Dimension = 3;
using ImageType = itk::Image<float, Dimension>;
using BSplineType = itk::BSplineTransform<double, Dimension, 3>;
using RegistrationType = itk::ImageRegistrationMethodv4<ImageType, ImageType, BSplineType>;
using ImageMetricType = itk::ImageToImageMetricv4<ImageType, ImageType>;
using ITKMeanSquares = itk::MeanSquaresImageToImageMetricv4<ImageType, ImageType>;
using TwinMeanSquares = itk::MeanSquaresImageToImageMetricv4GPU<ImageType, ImageType>;
using ITKMattes = itk::MattesMutualInformationImageToImageMetricv4<ImageType, ImageType>;
using TwinMattes = itk::MattesMutualInformationImageToImageMetricv4GPU<ImageType, ImageType>;
using ITKCorrelation = itk::CorrelationImageToImageMetricv4<ImageType, ImageType>;
using TwinCorrelation = itk::CorrelationImageToImageMetricv4GPU<ImageType, ImageType>;
using MaskType = itk::ImageMaskSpatialObject<Dimension, unsigned char>;

enum class MetricKind
{
  MeanSquares,
  Mattes,
  Correlation
};
enum class OptimizerKind
{
  RegularStep,
  LBFGSB
};

const char *
ToString(MetricKind k)
{
  return k == MetricKind::MeanSquares ? "MeanSquares" : k == MetricKind::Mattes ? "Mattes" : "Correlation";
}
const char *
ToString(OptimizerKind k)
{
  return k == OptimizerKind::RegularStep ? "RegularStepGradientDescent" : "LBFGSB";
}

/** ITK's metric (\a twin false) or the module's twin on the path \a useGPU. */
ImageMetricType::Pointer
NewMetric(MetricKind kind, bool twin, bool useGPU)
{
  if (kind == MetricKind::MeanSquares)
  {
    if (!twin)
    {
      return NewITKOwn<ITKMeanSquares, TwinMeanSquares>().GetPointer();
    }
    auto metric = TwinMeanSquares::New();
    metric->SetUseGPU(useGPU);
    return metric.GetPointer();
  }
  if (kind == MetricKind::Correlation)
  {
    if (!twin)
    {
      return NewITKOwn<ITKCorrelation, TwinCorrelation>().GetPointer();
    }
    auto metric = TwinCorrelation::New();
    metric->SetUseGPU(useGPU);
    return metric.GetPointer();
  }
  if (!twin)
  {
    return NewITKOwn<ITKMattes, TwinMattes>().GetPointer();
  }
  auto metric = TwinMattes::New();
  metric->SetUseGPU(useGPU);
  return metric.GetPointer();
}

/** Which code the twin's last evaluation ran, and why ITK's (None for ITK's metric). */
itk::CudaExecutionPath
PathOf(const ImageMetricType * metric, std::string & reason)
{
  if (const auto * m = dynamic_cast<const TwinMeanSquares *>(metric))
  {
    reason = m->GetLastExecutionReason();
    return m->GetLastExecutionPath();
  }
  if (const auto * m = dynamic_cast<const TwinMattes *>(metric))
  {
    reason = m->GetLastExecutionReason();
    return m->GetLastExecutionPath();
  }
  if (const auto * m = dynamic_cast<const TwinCorrelation *>(metric))
  {
    reason = m->GetLastExecutionReason();
    return m->GetLastExecutionPath();
  }
  reason = "ITK's metric";
  return itk::CudaExecutionPath::None;
}

itk::CudaExecutionPath
ModulePath(bool useGPU)
{
  return useGPU ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU;
}

/** A B-spline transform over \a image's domain with \a meshSize cells per axis, all
 * coefficients zero (the identity). */
BSplineType::Pointer
IdentityBSpline(const ImageType * image, unsigned int meshSize)
{
  auto transform = BSplineType::New();
  auto initializer = itk::BSplineTransformInitializer<BSplineType, ImageType>::New();
  initializer->SetTransform(transform);
  initializer->SetImage(image);
  BSplineType::MeshSizeType mesh;
  mesh.Fill(meshSize);
  initializer->SetTransformDomainMeshSize(mesh);
  initializer->InitializeTransform();
  BSplineType::ParametersType zero(transform->GetNumberOfParameters());
  zero.Fill(0.0);
  transform->SetParameters(zero);
  return transform;
}

/** |T(x) - x| in voxels (each axis divided by its spacing). */
double
VoxelDistance(const ImageType * image, const BSplineType::OutputPointType & a, const BSplineType::OutputPointType & b)
{
  double s = 0.0;
  for (unsigned int d = 0; d < Dimension; ++d)
  {
    const double v = (a[d] - b[d]) / image->GetSpacing()[d];
    s += v * v;
  }
  return std::sqrt(s);
}

/** A fixed image and the moving image made from it through a known warp W:
 * moving(y) = content(W(y)) on the fixed image's grid, so that the transform a
 * registration should find is W's inverse (moving(T(x)) = fixed(x) where
 * W(T(x)) = x). The content (smooth and random: Content::Smooth plus a smoothed
 * random texture) is made over a grid \a margin voxels larger
 * on every side, of which the fixed image is the inner part: the moving image has
 * content (not the resampler's default 0) where W reaches past the fixed image's
 * border. */
struct WarpedPair
{
  ImageType::Pointer   fixed;
  ImageType::Pointer   moving;
  BSplineType::Pointer warp;
};

WarpedPair
MakeWarpedPair(unsigned int size, unsigned int warpMesh, double meanDisplacementVoxels, std::mt19937 & rng)
{
  constexpr long       margin = 6;
  ImageType::SizeType  bigSize;
  ImageType::IndexType bigStart;
  bigSize.Fill(size + 2 * margin);
  bigStart.Fill(-margin);
  ImageType::Pointer content = MakeImage<ImageType>(bigSize, bigStart, Content::Smooth, rng());
  {
    // Content::Smooth is a sum of 1-D cosines per axis, I(x) = sum_d f_d(x_d): its
    // derivative along an axis vanishes on whole planes, and a displacement is only
    // partly observable from it (registrations of it alone converged 0.13 to 0.69
    // voxel off the truth). A texture of random noise smoothed over 2 voxels, of a
    // tenth of the range in standard deviation, gives every region structure in all
    // three directions.
    using SmoothType = itk::SmoothingRecursiveGaussianImageFilter<ImageType, ImageType>;
    auto smooth = SmoothType::New();
    smooth->SetInput(MakeImage<ImageType>(bigSize, bigStart, Content::Random, rng()));
    SmoothType::SigmaArrayType sigma;
    for (unsigned int d = 0; d < Dimension; ++d)
    {
      sigma[d] = 2.0 * content->GetSpacing()[d];
    }
    smooth->SetSigmaArray(sigma);
    smooth->Update();
    ImageType::Pointer texture = smooth->GetOutput();
    double             sum = 0.0, sum2 = 0.0;
    const std::size_t  n = texture->GetBufferedRegion().GetNumberOfPixels();
    const float *      t = texture->GetBufferPointer();
    for (std::size_t i = 0; i < n; ++i)
    {
      sum += t[i];
      sum2 += static_cast<double>(t[i]) * t[i];
    }
    const double mean = sum / n;
    const double scale = 20.0 / std::sqrt(std::max(sum2 / n - mean * mean, 1e-30));
    float *      c = content->GetBufferPointer();
    for (std::size_t i = 0; i < n; ++i)
    {
      c[i] += static_cast<float>(scale * (t[i] - mean));
    }
  }

  WarpedPair pair;
  using ExtractType = itk::ExtractImageFilter<ImageType, ImageType>;
  auto                 extract = ExtractType::New();
  ImageType::SizeType  fixedSize;
  ImageType::IndexType fixedStart;
  fixedSize.Fill(size);
  fixedStart.Fill(0);
  extract->SetInput(content);
  extract->SetExtractionRegion(ImageType::RegionType(fixedStart, fixedSize));
  extract->SetDirectionCollapseToIdentity();
  extract->Update();
  pair.fixed = extract->GetOutput();
  pair.fixed->DisconnectPipeline();

  // The warp: random coefficients of about one voxel per axis, then scaled so that
  // the mean displacement over the fixed grid is \a meanDisplacementVoxels.
  pair.warp = IdentityBSpline(pair.fixed, warpMesh);
  BSplineType::ParametersType      parameters(pair.warp->GetNumberOfParameters());
  const unsigned int               perAxis = parameters.size() / Dimension;
  std::normal_distribution<double> normal(0.0, 1.0);
  for (unsigned int k = 0; k < parameters.size(); ++k)
  {
    parameters[k] = normal(rng) * pair.fixed->GetSpacing()[k / perAxis];
  }
  pair.warp->SetParameters(parameters);
  double       sum = 0.0;
  unsigned int count = 0;
  for (itk::ImageRegionConstIteratorWithIndex<ImageType> it(pair.fixed, pair.fixed->GetBufferedRegion()); !it.IsAtEnd();
       ++it)
  {
    ImageType::PointType x;
    pair.fixed->TransformIndexToPhysicalPoint(it.GetIndex(), x);
    sum += VoxelDistance(pair.fixed, pair.warp->TransformPoint(x), x);
    ++count;
  }
  parameters *= meanDisplacementVoxels / (sum / count);
  pair.warp->SetParameters(parameters);

  using ResampleType = itk::ResampleImageFilter<ImageType, ImageType>;
  auto resample = ResampleType::New();
  auto cubic = itk::BSplineInterpolateImageFunction<ImageType, double, double>::New();
  cubic->SetSplineOrder(3);
  resample->SetInput(content);
  resample->SetTransform(pair.warp);
  resample->SetInterpolator(cubic);
  resample->SetOutputParametersFromImage(pair.fixed);
  resample->Update();
  pair.moving = resample->GetOutput();
  pair.moving->DisconnectPipeline();
  return pair;
}

/** W^-1(x): the y with W(y) = x, by the fixed-point iteration y <- x - u(y) (u = W - id,
 * a contraction for a smooth warp of a voxel or so: |grad u| well below 1). */
BSplineType::OutputPointType
InverseOf(const BSplineType * warp, const BSplineType::InputPointType & x)
{
  BSplineType::InputPointType y = x;
  for (int iteration = 0; iteration < 200; ++iteration)
  {
    const BSplineType::OutputPointType w = warp->TransformPoint(y);
    double                             change = 0.0;
    for (unsigned int d = 0; d < Dimension; ++d)
    {
      const double next = x[d] - (w[d] - y[d]);
      change = std::max(change, std::abs(next - y[d]));
      y[d] = next;
    }
    if (change < 1e-12)
    {
      break;
    }
  }
  return y;
}

/** One registration's record: the metric value at the start of every optimizer
 * iteration (GetCurrentMetricValue() at its IterationEvent) and the parameters it was
 * computed at, the step lengths of the regular step optimizer, the final parameters
 * and what ran. */
struct RunRecord
{
  std::vector<double>                      values;
  std::vector<BSplineType::ParametersType> parameters; ///< where values[k] was computed
  std::vector<double>                      steps;
  unsigned int                             evaluations = 0; ///< L-BFGS-B: function evaluations
  BSplineType::ParametersType              finalParameters;
  std::string                              stop;
  itk::CudaExecutionPath                   path = itk::CudaExecutionPath::None;
  std::string                              reason;
};

constexpr unsigned int kTrackIterations = 20;

/** 20 iterations of one-level B-spline registration of \a pair with \a metric. */
RunRecord
RunOneLevel(const WarpedPair & pair, ImageMetricType * metric, OptimizerKind optimizerKind, unsigned int meshSize)
{
  RunRecord record;
  auto      transform = IdentityBSpline(pair.fixed, meshSize);
  auto      registration = RegistrationType::New();
  registration->SetFixedImage(pair.fixed);
  registration->SetMovingImage(pair.moving);
  registration->SetMetric(metric);
  registration->SetInitialTransform(transform);
  registration->InPlaceOn();
  registration->SetNumberOfLevels(1);
  RegistrationType::ShrinkFactorsArrayType shrink(1);
  shrink[0] = 1;
  registration->SetShrinkFactorsPerLevel(shrink);
  RegistrationType::SmoothingSigmasArrayType sigmas(1);
  sigmas[0] = 0.0;
  registration->SetSmoothingSigmasPerLevel(sigmas);

  itk::ObjectToObjectOptimizerBaseTemplate<double>::Pointer optimizer;
  if (optimizerKind == OptimizerKind::RegularStep)
  {
    auto regular = itk::RegularStepGradientDescentOptimizerv4<double>::New();
    regular->SetLearningRate(2.0); // the first step's length in parameter space (mm)
    regular->SetRelaxationFactor(0.5);
    regular->SetMinimumStepLength(1e-6);
    regular->SetGradientMagnitudeTolerance(1e-12);
    regular->SetNumberOfIterations(kTrackIterations);
    // The value of an iteration is computed before its step, which the transform
    // holds by the time of the event: the parameters of value k are those after
    // step k - 1 (the identity's for k = 0).
    auto before = std::make_shared<BSplineType::ParametersType>(transform->GetParameters());
    regular->AddObserver(
      itk::IterationEvent(),
      [&record, regular = regular.GetPointer(), before, transform = transform.GetPointer()](const itk::EventObject &) {
        record.values.push_back(regular->GetCurrentMetricValue());
        record.parameters.push_back(*before);
        *before = transform->GetParameters();
        record.steps.push_back(regular->GetCurrentStepLength());
      });
    optimizer = regular.GetPointer();
  }
  else
  {
    // L-BFGS-B works in ITK 5.2 with a B-spline (its StartOptimization refuses only
    // transforms of local support, displacement fields) once its bound arrays hold
    // an entry per parameter (all unbounded here). ImageRegistrationMethodv4 sets
    // unit scales on it, which it answers with its warning "does not support
    // scaling". Its IterationEvent reports the value of the last evaluation, that of
    // the point the line search accepted.
    auto                                       lbfgsb = itk::LBFGSBOptimizerv4::New();
    const unsigned int                         n = transform->GetNumberOfParameters();
    itk::LBFGSBOptimizerv4::BoundSelectionType unbounded(n);
    unbounded.Fill(0); // no bounds
    itk::LBFGSBOptimizerv4::BoundValueType bound(n);
    bound.Fill(0.0);
    lbfgsb->SetBoundSelection(unbounded);
    lbfgsb->SetLowerBound(bound);
    lbfgsb->SetUpperBound(bound);
    lbfgsb->SetNumberOfIterations(kTrackIterations);
    lbfgsb->SetMaximumNumberOfFunctionEvaluations(10 * kTrackIterations);
    lbfgsb->SetGradientConvergenceTolerance(1e-12);
    lbfgsb->SetCostFunctionConvergenceFactor(1.0);
    // The vnl adaptor passes each function evaluation on as a
    // FunctionAndGradientEvaluationIterationEvent, a kind of IterationEvent: those
    // are counted, the iterations (IterationEvent itself) recorded.
    lbfgsb->AddObserver(
      itk::IterationEvent(),
      [&record, lbfgsb = lbfgsb.GetPointer(), transform = transform.GetPointer()](const itk::EventObject & event) {
        if (itk::FunctionAndGradientEvaluationIterationEvent().CheckEvent(&event))
        {
          ++record.evaluations;
        }
        else
        {
          // the accepted point: the last evaluation's, which the transform holds
          record.values.push_back(lbfgsb->GetCurrentMetricValue());
          record.parameters.push_back(transform->GetParameters());
        }
      });
    optimizer = lbfgsb.GetPointer();
  }
  registration->SetOptimizer(optimizer);
  registration->Update();
  record.finalParameters = transform->GetParameters();
  record.stop = optimizer->GetStopConditionDescription();
  record.path = PathOf(metric, record.reason);
  return record;
}

/** ITK's own metric's value at B-spline parameters \a p (mesh \a meshSize over the
 * fixed image), configured as the registration configures it: dense, the fixed
 * image's grid as the virtual domain. */
double
ITKValueAt(const WarpedPair &                  pair,
           MetricKind                          metricKind,
           unsigned int                        meshSize,
           const BSplineType::ParametersType & p,
           bool                                useGPU)
{
  auto metric = NewMetric(metricKind, false, useGPU);
  auto transform = IdentityBSpline(pair.fixed, meshSize);
  transform->SetParameters(p);
  metric->SetFixedImage(pair.fixed);
  metric->SetMovingImage(pair.moving);
  metric->SetMovingTransform(transform);
  metric->SetVirtualDomainFromImage(pair.fixed);
  metric->Initialize();
  return metric->GetValue();
}

struct TrackStats
{
  double maxRelativeValue = 0.0;  ///< largest |twin - ITK| / |ITK| over the iterations
  double parameterDistance = 0.0; ///< |p_twin - p_ITK| (Euclidean, mm)
  double pathLength = 0.0;        ///< sum of ITK's step lengths (regular step) or |p_ITK| (L-BFGS-B)
};

/** ITK's metric and the twin, each through 20 iterations of the same registration:
 * every iteration's value within 1e-5 relative of ITK's metric at the same parameters
 * (the twin's own iterate; the two runs' iterates drift apart, slowly, and comparing
 * their values with each other failed about once in 40 seeds at 1e-4 with L-BFGS-B,
 * whose quasi-Newton steps amplify the drift), the final parameters close.
 *
 * The parameter bound. The regular step optimizer moves by s_k g_k / |g_k| (s_k its
 * step length, the same for both while both take the same relaxation decisions,
 * which is asserted). The twin's derivative is within e = 1e-4 of ITK's in norm at
 * the same parameters (the metric tests' bound), so each unit step direction differs
 * by at most 2e, and the first-order difference of the final parameters is at most
 * 2e sum_k s_k. The gradients are evaluated at slightly different parameters from
 * the first step on, which feeds the difference back (by the Hessian, unknown here):
 * a factor 5 on top, |p_twin - p_ITK| <= 1e-3 sum_k s_k. L-BFGS-B's steps are not
 * normalised; its bound is the same with |p_ITK| (the straight path from the
 * identity) in place of sum_k s_k, since its quasi-Newton updates are built from the
 * same gradient differences. */
void
ExpectTracksITK(MetricKind metricKind, OptimizerKind optimizerKind, bool useGPU)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(std::string(ToString(metricKind)) + ", " + ToString(optimizerKind) + ", seed " + std::to_string(seed));
  std::mt19937           rng(seed);
  const WarpedPair       pair = MakeWarpedPair(24, 3, 1.0, rng);
  constexpr unsigned int meshSize = 3;

  auto            itkMetric = NewMetric(metricKind, false, useGPU);
  const RunRecord expected = RunOneLevel(pair, itkMetric, optimizerKind, meshSize);
  auto            twinMetric = NewMetric(metricKind, true, useGPU);
  const RunRecord actual = RunOneLevel(pair, twinMetric, optimizerKind, meshSize);

  TrackStats stats;
  EXPECT_EQ(actual.path, ModulePath(useGPU)) << actual.reason;
  EXPECT_EQ(expected.values.size(), kTrackIterations) << "ITK stopped early: " << expected.stop;
  EXPECT_EQ(actual.values.size(), expected.values.size()) << "twin: " << actual.stop << "; ITK: " << expected.stop;
  const std::size_t n = std::min(actual.values.size(), expected.values.size());
  ASSERT_EQ(actual.parameters.size(), actual.values.size());
  ASSERT_EQ(expected.parameters.size(), expected.values.size());
  for (std::size_t k = 0; k < n; ++k)
  {
    // The bookkeeping of where each value was computed, checked on ITK's own run.
    const double itkAgain = ITKValueAt(pair, metricKind, meshSize, expected.parameters[k], useGPU);
    EXPECT_LE(std::abs(itkAgain - expected.values[k]), 1e-9 * std::abs(expected.values[k]))
      << "iteration " << k << ": ITK's value at its recorded parameters " << itkAgain << " vs " << expected.values[k];
    const double itkAtTwin = ITKValueAt(pair, metricKind, meshSize, actual.parameters[k], useGPU);
    const double relative = std::abs(actual.values[k] - itkAtTwin) / std::abs(itkAtTwin);
    stats.maxRelativeValue = std::max(stats.maxRelativeValue, relative);
    EXPECT_LE(relative, 1e-5) << "iteration " << k << ": " << actual.values[k] << " vs ITK " << itkAtTwin
                              << " at the same parameters (ITK's own run: " << expected.values[k] << ")";
  }
  // The registration made progress (the comparison is not of a stalled run).
  if (n > 1)
  {
    EXPECT_LT(expected.values[n - 1], expected.values[0]);
  }
  EXPECT_EQ(actual.steps, expected.steps) << "different relaxation decisions";
  EXPECT_EQ(actual.evaluations, expected.evaluations) << "different line searches";
  ASSERT_EQ(actual.finalParameters.size(), expected.finalParameters.size());
  stats.parameterDistance = Norm(itk::Array<double>(actual.finalParameters - expected.finalParameters));
  if (optimizerKind == OptimizerKind::RegularStep)
  {
    for (double s : expected.steps)
    {
      stats.pathLength += s;
    }
  }
  else
  {
    stats.pathLength = Norm(expected.finalParameters);
  }
  EXPECT_GT(stats.pathLength, 0.0);
  EXPECT_LE(stats.parameterDistance, 1e-3 * stats.pathLength);
  std::cout << "[ measure  ] " << ToString(metricKind) << " + " << ToString(optimizerKind) << " ("
            << itk::ToString(actual.path) << "): " << n << " iterations, ITK " << expected.values.front() << " -> "
            << expected.values.back() << ", max relative value difference at the same parameters "
            << stats.maxRelativeValue << ", |p_twin - p_ITK| " << stats.parameterDistance
            << " mm = " << stats.parameterDistance / stats.pathLength << " of the path " << stats.pathLength << " mm"
            << std::endl;
}

void
ExpectTracksITKAll(bool useGPU)
{
  ExpectTracksITK(MetricKind::MeanSquares, OptimizerKind::RegularStep, useGPU);
  ExpectTracksITK(MetricKind::Mattes, OptimizerKind::RegularStep, useGPU);
  ExpectTracksITK(MetricKind::Correlation, OptimizerKind::RegularStep, useGPU);
  ExpectTracksITK(MetricKind::MeanSquares, OptimizerKind::LBFGSB, useGPU);
}

TEST(RegistrationMethodv4CPU, TracksITK) { ExpectTracksITKAll(false); }
TEST(RegistrationMethodv4GPU, TracksITK)
{
  CIF_REQUIRE_GPU();
  ExpectTracksITKAll(true);
}

/** The standard two-level B-spline registration (shrink {2, 1}, smoothing {1, 0}
 * voxels, the grid refined between levels) with the twin recovers a known smooth
 * warp of about a voxel: the mean error of the recovered transform against the known
 * inverse warp, inside the image's inner part, below 1/3 voxel. */
void
ExpectRecoversDeformation(bool useGPU)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937           rng(seed);
  constexpr unsigned int size = 40;
  const WarpedPair       pair = MakeWarpedPair(size, 3, 1.0, rng);

  constexpr unsigned int levels = 2;
  constexpr unsigned int coarseMesh = 3;
  auto                   transform = IdentityBSpline(pair.fixed, coarseMesh);
  auto                   metric = TwinMeanSquares::New();
  metric->SetUseGPU(useGPU);

  auto registration = RegistrationType::New();
  registration->SetFixedImage(pair.fixed);
  registration->SetMovingImage(pair.moving);
  registration->SetMetric(metric);
  registration->SetInitialTransform(transform);
  registration->InPlaceOn();
  registration->SetNumberOfLevels(levels);
  RegistrationType::ShrinkFactorsArrayType shrink(levels);
  shrink[0] = 2;
  shrink[1] = 1;
  registration->SetShrinkFactorsPerLevel(shrink);
  RegistrationType::SmoothingSigmasArrayType sigmas(levels);
  sigmas[0] = 1.0;
  sigmas[1] = 0.0;
  registration->SetSmoothingSigmasPerLevel(sigmas);
  registration->SetSmoothingSigmasAreSpecifiedInPhysicalUnits(false);

  // The grid: coarseMesh cells per axis at the first level, twice as many at the
  // second, over the same physical domain (ITK's pattern).
  RegistrationType::TransformParametersAdaptorsContainerType adaptors;
  for (unsigned int level = 0; level < levels; ++level)
  {
    using AdaptorType = itk::BSplineTransformParametersAdaptor<BSplineType>;
    auto                      adaptor = AdaptorType::New();
    BSplineType::MeshSizeType mesh;
    mesh.Fill(coarseMesh << level);
    adaptor->SetRequiredTransformDomainOrigin(transform->GetTransformDomainOrigin());
    adaptor->SetRequiredTransformDomainDirection(transform->GetTransformDomainDirection());
    adaptor->SetRequiredTransformDomainPhysicalDimensions(transform->GetTransformDomainPhysicalDimensions());
    adaptor->SetRequiredTransformDomainMeshSize(mesh);
    adaptors.push_back(adaptor);
  }
  registration->SetTransformParametersAdaptorsPerLevel(adaptors);

  auto optimizer = itk::LBFGSBOptimizerv4::New();
  {
    // Unbounded; the bound arrays sized for the finest grid (the optimizer needs at
    // least as many entries as there are parameters, at every level).
    const unsigned int n = Dimension * static_cast<unsigned int>(std::pow(2 * coarseMesh + 3, Dimension));
    itk::LBFGSBOptimizerv4::BoundSelectionType unbounded(n);
    unbounded.Fill(0);
    itk::LBFGSBOptimizerv4::BoundValueType bound(n);
    bound.Fill(0.0);
    optimizer->SetBoundSelection(unbounded);
    optimizer->SetLowerBound(bound);
    optimizer->SetUpperBound(bound);
  }
  // 30 iterations a level: the mean error was 0.06 to 0.09 voxel over 10 seeds (0.07
  // to 0.09 with 60; CPU path, 2 cores, about a second).
  optimizer->SetNumberOfIterations(30);
  optimizer->SetMaximumNumberOfFunctionEvaluations(60);
  optimizer->SetGradientConvergenceTolerance(1e-6);
  optimizer->SetCostFunctionConvergenceFactor(1e7);
  unsigned int iterations = 0;
  optimizer->AddObserver(itk::IterationEvent(), [&iterations](const itk::EventObject & event) {
    iterations += itk::FunctionAndGradientEvaluationIterationEvent().CheckEvent(&event) ? 0 : 1;
  });
  registration->SetOptimizer(optimizer);
  // ITK 5.4 and 6 keep an optimizer's scales from one level to the next when it cannot
  // use them (LBFGSBOptimizerv4::CanUseScales() is false), so the refined grid's level
  // meets the coarse grid's scales ("Size of scales (648) must equal number of local
  // parameters (2187)"). Emptied at each level, they are sized anew (all ones, as LBFGSB
  // takes them); ITK 5.2 resized them itself.
  registration->AddObserver(itk::MultiResolutionIterationEvent(), [&optimizer](const itk::EventObject &) {
    optimizer->ObjectToObjectOptimizerBaseTemplate<double>::SetScales(itk::LBFGSBOptimizerv4::ScalesType());
  });
  registration->Update();

  std::string reason;
  EXPECT_EQ(PathOf(metric, reason), ModulePath(useGPU)) << reason;
  ASSERT_EQ(transform->GetTransformDomainMeshSize()[0], coarseMesh << (levels - 1)) << "the grid was not refined";

  // The mean error inside the inner part (6 voxels off every face).
  constexpr long margin = 6;
  double         error = 0.0, before = 0.0;
  unsigned int   count = 0;
  for (itk::ImageRegionConstIteratorWithIndex<ImageType> it(pair.fixed, pair.fixed->GetBufferedRegion()); !it.IsAtEnd();
       ++it)
  {
    bool inner = true;
    for (unsigned int d = 0; d < Dimension; ++d)
    {
      inner = inner && it.GetIndex()[d] >= margin && it.GetIndex()[d] < static_cast<long>(size) - margin;
    }
    if (!inner)
    {
      continue;
    }
    ImageType::PointType x;
    pair.fixed->TransformIndexToPhysicalPoint(it.GetIndex(), x);
    const auto truth = InverseOf(pair.warp, x);
    error += VoxelDistance(pair.fixed, transform->TransformPoint(x), truth);
    before += VoxelDistance(pair.fixed, x, truth);
    ++count;
  }
  error /= count;
  before /= count;
  std::cout << "[ measure  ] recovered deformation (" << itk::ToString(PathOf(metric, reason)) << "): mean error "
            << error << " voxel (identity: " << before << ") over " << count << " inner voxels, " << iterations
            << " L-BFGS-B iterations; " << optimizer->GetStopConditionDescription() << std::endl;
  EXPECT_LT(error, 1.0 / 3.0);
}

TEST(RegistrationMethodv4CPU, RecoversKnownDeformation) { ExpectRecoversDeformation(false); }
TEST(RegistrationMethodv4GPU, RecoversKnownDeformation)
{
  CIF_REQUIRE_GPU();
  ExpectRecoversDeformation(true);
}

/** Collects ITK's warnings (itkWarningMacro) while it is in place, then puts the
 * process's output window back. */
class CapturingOutputWindow : public itk::OutputWindow
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CapturingOutputWindow);
  using Self = CapturingOutputWindow;
  using Superclass = itk::OutputWindow;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CapturingOutputWindow, OutputWindow);

  void
  DisplayText(const char * text) override
  {
    m_Text += text;
  }
  void
  DisplayWarningText(const char * text) override
  {
    ++m_Warnings;
    m_Text += text;
  }
  unsigned int m_Warnings = 0;
  std::string  m_Text;

protected:
  CapturingOutputWindow() = default;
  ~CapturingOutputWindow() override = default;
};

class ScopedWarningCapture
{
public:
  ScopedWarningCapture()
    : m_Previous(itk::OutputWindow::GetInstance())
    , m_Capture(CapturingOutputWindow::New())
  {
    itk::OutputWindow::SetInstance(m_Capture);
  }
  ~ScopedWarningCapture() { itk::OutputWindow::SetInstance(m_Previous); }
  ScopedWarningCapture(const ScopedWarningCapture &) = delete;
  ScopedWarningCapture &
  operator=(const ScopedWarningCapture &) = delete;
  const CapturingOutputWindow &
  Captured() const
  {
    return *m_Capture;
  }

private:
  itk::OutputWindow::Pointer     m_Previous;
  CapturingOutputWindow::Pointer m_Capture;
};

/** The twin's own code ran (not ITK's fallback). Where it threw (Mattes) it threw
 * before recording its path, which then stays None: only "not ITK" is asserted. */
void
ExpectTwinPath(const ImageMetricType * metric, MetricKind kind, bool twin, bool useGPU)
{
  if (!twin)
  {
    return;
  }
  std::string                  reason;
  const itk::CudaExecutionPath path = PathOf(metric, reason);
  if (kind == MetricKind::MeanSquares)
  {
    EXPECT_EQ(path, ModulePath(useGPU)) << reason;
  }
  else
  {
    EXPECT_NE(path, itk::CudaExecutionPath::ITK) << reason;
  }
}

/** An all-zero fixed mask: no point is valid. The metric evaluated directly (Initialize,
 * GetValueAndDerivative) and inside a registration, ITK's and the twin's: MeanSquares
 * warns, returns the largest value and a zero derivative (and the optimizer stops at
 * once, the transform unchanged); Mattes throws ITK's exception (from Update() too). */
void
ExpectZeroMaskAsITK(bool useGPU)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937     rng(seed);
  const WarpedPair pair = MakeWarpedPair(16, 2, 1.0, rng);
  auto             maskImage = itk::Image<unsigned char, Dimension>::New();
  maskImage->CopyInformation(pair.fixed);
  maskImage->SetRegions(pair.fixed->GetLargestPossibleRegion());
  maskImage->Allocate();
  maskImage->FillBuffer(0);
  auto mask = MaskType::New();
  mask->SetImage(maskImage);
  mask->Update();

  for (MetricKind kind : { MetricKind::MeanSquares, MetricKind::Mattes })
  {
    std::string itkDescription;
    for (bool twin : { false, true })
    {
      SCOPED_TRACE(std::string(ToString(kind)) + (twin ? ", twin" : ", ITK"));
      // The metric alone, on a random B-spline.
      {
        auto metric = NewMetric(kind, twin, useGPU);
        metric->SetFixedImage(pair.fixed);
        metric->SetMovingImage(pair.moving);
        metric->SetMovingTransform(MakeRandomBSpline<Dimension>(pair.fixed, 3, 0.3, rng));
        metric->SetFixedImageMask(mask);
        ImageMetricType::MeasureType    value = 0.0;
        ImageMetricType::DerivativeType derivative;
        if (kind == MetricKind::MeanSquares)
        {
          ScopedWarningCapture capture;
          ASSERT_NO_THROW(metric->Initialize());
          ASSERT_NO_THROW(metric->GetValueAndDerivative(value, derivative));
          EXPECT_EQ(capture.Captured().m_Warnings, 1u) << capture.Captured().m_Text;
          EXPECT_NE(capture.Captured().m_Text.find("No valid points"), std::string::npos) << capture.Captured().m_Text;
          EXPECT_EQ(metric->GetNumberOfValidPoints(), 0u);
          EXPECT_EQ(value, itk::NumericTraits<ImageMetricType::MeasureType>::max());
          EXPECT_EQ(metric->GetValue(), itk::NumericTraits<ImageMetricType::MeasureType>::max());
          ASSERT_EQ(derivative.size(), metric->GetNumberOfParameters());
          EXPECT_EQ(Norm(derivative), 0.0);
        }
        else
        {
          ASSERT_NO_THROW(metric->Initialize());
          try
          {
            metric->GetValueAndDerivative(value, derivative);
            ADD_FAILURE() << "no exception";
          }
          catch (const itk::ExceptionObject & e)
          {
            // "ITK ERROR: <class>(<address>): <message>": the messages alike.
            const std::string description = e.GetDescription();
            const std::string message = description.substr(description.find("): ") + 3);
            if (!twin)
            {
              itkDescription = message;
            }
            else
            {
              EXPECT_EQ(message, itkDescription);
            }
            EXPECT_NE(std::string(e.GetDescription()).find("All samples map outside moving image buffer"),
                      std::string::npos)
              << e.GetDescription();
          }
        }
        ExpectTwinPath(metric, kind, twin, useGPU);
      }
      // Inside a registration (the mask taken from the metric, as ITK does).
      {
        auto metric = NewMetric(kind, twin, useGPU);
        metric->SetFixedImageMask(mask);
        auto transform = IdentityBSpline(pair.fixed, 2);
        auto registration = RegistrationType::New();
        registration->SetFixedImage(pair.fixed);
        registration->SetMovingImage(pair.moving);
        registration->SetMetric(metric);
        registration->SetInitialTransform(transform);
        registration->InPlaceOn();
        registration->SetNumberOfLevels(1);
        RegistrationType::ShrinkFactorsArrayType shrink(1);
        shrink[0] = 1;
        registration->SetShrinkFactorsPerLevel(shrink);
        RegistrationType::SmoothingSigmasArrayType sigmas(1);
        sigmas[0] = 0.0;
        registration->SetSmoothingSigmasPerLevel(sigmas);
        auto optimizer = itk::RegularStepGradientDescentOptimizerv4<double>::New();
        optimizer->SetNumberOfIterations(5);
        registration->SetOptimizer(optimizer);
        if (kind == MetricKind::MeanSquares)
        {
          ScopedWarningCapture capture;
          ASSERT_NO_THROW(registration->Update());
          EXPECT_GE(capture.Captured().m_Warnings, 1u);
          EXPECT_EQ(optimizer->GetStopCondition(),
                    itk::StopConditionObjectToObjectOptimizerEnum::GRADIENT_MAGNITUDE_TOLEARANCE)
            << optimizer->GetStopConditionDescription();
          EXPECT_EQ(optimizer->GetCurrentMetricValue(), itk::NumericTraits<double>::max());
          EXPECT_EQ(Norm(transform->GetParameters()), 0.0);
        }
        else
        {
          EXPECT_THROW(registration->Update(), itk::ExceptionObject);
        }
        ExpectTwinPath(metric, kind, twin, useGPU);
      }
    }
  }
}

TEST(RegistrationMethodv4CPU, ZeroFixedMaskAsITK) { ExpectZeroMaskAsITK(false); }
TEST(RegistrationMethodv4GPU, ZeroFixedMaskAsITK)
{
  CIF_REQUIRE_GPU();
  ExpectZeroMaskAsITK(true);
}

/** itk::ElasticRegistration (the pipeline ElasticRegistrationExample and
 * ElasticRegistrationCLI run) on the same kind of pair: an affine stage, then a
 * B-spline one on top of it, two levels of at most 30 and 20 iterations, the grid
 * doubled between them. It recovers the warp (mean error below 1/3 voxel, as the
 * hand-built registration above), reports each stage (its iterations per level within
 * the limits, the metric's path) and every iteration to its observer. With new
 * random points at every iteration (elastix's schedule: 2000 points, a stochastic
 * gradient descent that runs every iteration, 100 per level) the same; with elastix's
 * adaptive descent (\a optimizer, 300 iterations a level: at 100 its B-spline stage
 * had not settled) each level reports its estimate (a gain, the step bound of the
 * images' spacing, a noise term from the dense twin) and the caller judges the error,
 * given in \a errors as (error, the identity's error). */
void
ExpectElasticRegistrationRecovers(bool                        useGPU,
                                  itk::RegistrationSampling   sampling = itk::RegistrationSampling::Dense,
                                  itk::StochasticOptimizer    optimizer = itk::StochasticOptimizer::DecayingGain,
                                  std::pair<double, double> * errors = nullptr)
{
  const bool          stochastic = sampling == itk::RegistrationSampling::RandomEveryIteration;
  const bool          adaptive = stochastic && optimizer == itk::StochasticOptimizer::AdaptiveStochasticGradientDescent;
  const unsigned int  stochasticLimit = adaptive ? 300u : 100u; // every iteration runs
  const unsigned int  limits[2] = { stochastic ? stochasticLimit : 30u, stochastic ? stochasticLimit : 20u };
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937           rng(seed);
  constexpr unsigned int size = 32;
  const WarpedPair       pair = MakeWarpedPair(size, 3, 1.0, rng);

  using Registration = itk::ElasticRegistration<ImageType>;
  itk::ElasticRegistrationSettings settings;
  settings.linearStage = itk::LinearRegistrationStage::Affine;
  settings.metric = cif::RegistrationMetricKind::MeanSquares;
  settings.levels = 2;
  settings.iterations = { limits[0], limits[1] };
  settings.sampling = sampling;
  settings.pointsPerIteration = 2000;
  settings.stochasticOptimizer = optimizer;
  settings.samplingSeed = seed;
  settings.gridSpacing = 1e30;
  for (unsigned int d = 0; d < Dimension; ++d)
  {
    settings.gridSpacing = std::min(settings.gridSpacing, size * pair.fixed->GetSpacing()[d] / 6.0); // 6 cells
  }
  settings.useGPU = useGPU;
  Registration registration(pair.fixed, pair.moving, settings);
  unsigned int iterations = 0, beyondLimit = 0;
  // Each stage's metric must be gone once its stage ends: a metric kept alive (a
  // reference cycle through the optimizer's observer did that) keeps its device
  // buffers for the life of the process.
  std::set<const itk::Object *> metricsSeen;
  std::size_t                   metricsDeleted = 0;
  registration.SetObserver([&](const itk::RegistrationIterationReport & r) {
    iterations += r.levelEnded ? 0 : 1;
    beyondLimit += r.iteration > r.maximumIterations ? 1 : 0;
    if (r.metric != nullptr && metricsSeen.insert(r.metric).second)
    {
      r.metric->AddObserver(itk::DeleteEvent(), [&metricsDeleted](const itk::EventObject &) { ++metricsDeleted; });
    }
  });
  registration.Update();
  EXPECT_GE(metricsSeen.size(), 1u);
  EXPECT_EQ(metricsDeleted, metricsSeen.size()) << "a stage's metric outlived its stage";

  const auto & stages = registration.GetStageReports();
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].stage, "affine");
  EXPECT_EQ(stages[1].stage, "B-spline");
  unsigned int reported = 0;
  for (const auto & stage : stages)
  {
    ASSERT_EQ(stage.iterationsPerLevel.size(), 2u) << stage.stage;
    for (unsigned int level = 0; level < 2; ++level)
    {
      // The stochastic descent has no convergence test: every iteration runs.
      EXPECT_GE(stage.iterationsPerLevel[level], stochastic ? limits[level] : 1u) << stage.stage;
      EXPECT_LE(stage.iterationsPerLevel[level], limits[level]) << stage.stage;
    }
    EXPECT_EQ(stage.executionPath, itk::ToString(ModulePath(useGPU))) << stage.stage;
    ASSERT_EQ(stage.estimatesPerLevel.size(), adaptive ? 2u : 0u) << stage.stage;
    for (const auto & estimate : stage.estimatesPerLevel)
    {
      EXPECT_GE(estimate.NumberOfGradientMeasurements, 2u) << stage.stage;
      EXPECT_GT(estimate.Param_a, 0.0) << stage.stage;
      // elastix's MaximumStepLength: the mean spacing of both images over min(D, 2) axes
      const double step = (pair.fixed->GetSpacing()[0] + pair.fixed->GetSpacing()[1] + pair.moving->GetSpacing()[0] +
                           pair.moving->GetSpacing()[1]) /
                          4.0;
      EXPECT_NEAR(estimate.MaximumStepLength, step, 1e-12) << stage.stage;
      EXPECT_GT(estimate.ExactGradientSquaredMagnitude, 0.0) << stage.stage;
      EXPECT_GT(estimate.GradientErrorSquaredMagnitude, 0.0) << stage.stage << ": no dense twin measured the noise";
    }
    reported += stage.iterationsPerLevel[0] + stage.iterationsPerLevel[1];
  }
  EXPECT_EQ(iterations, reported) << "the observer saw other iterations than the stages report";
  EXPECT_EQ(beyondLimit, 0u);
  EXPECT_EQ(registration.GetFinalMetricValue(), stages.back().finalMetricValue);
  ASSERT_NE(registration.GetBSplineTransform(), nullptr);
  const auto coarse = Registration::BSplineMesh(pair.fixed, settings, 0);
  const auto fine = registration.GetBSplineTransform()->GetTransformDomainMeshSize();
  for (unsigned int d = 0; d < Dimension; ++d)
  {
    EXPECT_EQ(fine[d], 2 * coarse[d]) << "the grid was not refined (axis " << d << ")";
  }
  EXPECT_EQ(registration.GetTransform()->GetNumberOfTransforms(), 2u);

  constexpr long margin = 6;
  double         error = 0.0, before = 0.0;
  unsigned int   count = 0;
  for (itk::ImageRegionConstIteratorWithIndex<ImageType> it(pair.fixed, pair.fixed->GetBufferedRegion()); !it.IsAtEnd();
       ++it)
  {
    bool inner = true;
    for (unsigned int d = 0; d < Dimension; ++d)
    {
      inner = inner && it.GetIndex()[d] >= margin && it.GetIndex()[d] < static_cast<long>(size) - margin;
    }
    if (inner)
    {
      ImageType::PointType x;
      pair.fixed->TransformIndexToPhysicalPoint(it.GetIndex(), x);
      const auto truth = InverseOf(pair.warp, x);
      error += VoxelDistance(pair.fixed, registration.GetTransform()->TransformPoint(x), truth);
      before += VoxelDistance(pair.fixed, x, truth);
      ++count;
    }
  }
  error /= count;
  before /= count;
  std::cout << "[ measure  ] itk::ElasticRegistration (" << stages.back().executionPath << "): mean error " << error
            << " voxel (identity: " << before << "), " << reported << " iterations" << std::endl;
  if (errors != nullptr)
  {
    *errors = { error, before };
  }
  if (!adaptive)
  {
    EXPECT_LT(error, 1.0 / 3.0);
  }
}

TEST(ElasticRegistrationCPU, RecoversKnownDeformation) { ExpectElasticRegistrationRecovers(false); }
TEST(ElasticRegistrationGPU, RecoversKnownDeformation)
{
  CIF_REQUIRE_GPU();
  ExpectElasticRegistrationRecovers(true);
}
CIF_TEST_ON_CPU_AND_GPU(ElasticRegistration, RecoversItWithNewPointsEveryIteration, [](bool useGPU) {
  ExpectElasticRegistrationRecovers(useGPU, itk::RegistrationSampling::RandomEveryIteration);
})
/** elastix's adaptive descent on three fresh pairs: each ends nearer the warp than the
 * identity, the median below half the identity's error. Not every pair below half:
 * on about one pair in fifty (seed 2332406642: 0.996 voxel against the identity's
 * 1.035) the first steps of the finer level diverge (its mean squares 0.6 -> 278) and
 * the stage does not recover; elastix 5.0.1 on that pair with the same schedule
 * diverges there too (2.8 -> 111). Over 53 seeds the others ended at 0.05-0.36 of the
 * identity's error. */
CIF_TEST_ON_CPU_AND_GPU(ElasticRegistration, RunsTheAdaptiveDescentWithElastixsEstimates, [](bool useGPU) {
  std::vector<double> ratios;
  for (unsigned int pair = 0; pair < 3; ++pair)
  {
    std::pair<double, double> errors{ 0.0, 0.0 };
    ExpectElasticRegistrationRecovers(useGPU,
                                      itk::RegistrationSampling::RandomEveryIteration,
                                      itk::StochasticOptimizer::AdaptiveStochasticGradientDescent,
                                      &errors);
    ASSERT_GT(errors.second, 0.0) << "pair " << pair << ": the registration stopped early";
    EXPECT_LT(errors.first, errors.second) << "pair " << pair;
    ratios.push_back(errors.first / errors.second);
  }
  std::sort(ratios.begin(), ratios.end());
  EXPECT_LT(ratios[1], 0.5) << "the median pair's error, of the identity's";
})

/** A similarity stage (rotation, translation, one scale): a moving image that is the
 * fixed one through a random similarity S is registered back inside a fixed mask,
 * T = S^-1 (mean error below 0.1 voxel, the scale within 1 %), with the dense
 * schedule's regular-step descent and with elastix's adaptive one on new points every
 * iteration. */
void
ExpectSimilarityRecovered(bool useGPU, itk::RegistrationSampling sampling)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937                           rng(seed);
  constexpr unsigned int                 size = 32;
  const WarpedPair                       pair = MakeWarpedPair(size, 3, 1.0, rng);
  std::uniform_real_distribution<double> scale(0.96, 1.04), angle(-0.06, 0.06), shift(-1.5, 1.5);
  auto                                   truth = itk::Similarity3DTransform<double>::New();
  ImageType::PointType                   centre;
  itk::ContinuousIndex<double, 3>        middle;
  middle.Fill(0.5 * (size - 1));
  pair.fixed->TransformContinuousIndexToPhysicalPoint(middle, centre);
  truth->SetCenter(centre);
  itk::Versor<double>::VectorType axis;
  axis[0] = angle(rng);
  axis[1] = angle(rng);
  axis[2] = angle(rng);
  itk::Versor<double> versor;
  axis.Normalize();
  versor.Set(axis, 2.0 * std::abs(angle(rng)));
  truth->SetRotation(versor);
  truth->SetScale(scale(rng));
  itk::Similarity3DTransform<double>::OutputVectorType translation;
  for (unsigned int d = 0; d < 3; ++d)
  {
    translation[d] = shift(rng) * pair.fixed->GetSpacing()[d];
  }
  truth->SetTranslation(translation);
  auto resample = itk::ResampleImageFilter<ImageType, ImageType>::New();
  resample->SetInput(pair.fixed);
  resample->SetTransform(truth);
  resample->SetOutputParametersFromImage(pair.fixed);
  resample->Update();

  itk::ElasticRegistrationSettings settings;
  settings.linearStage = itk::LinearRegistrationStage::Similarity;
  settings.bsplineStage = false;
  settings.metric = cif::RegistrationMetricKind::MeanSquares;
  settings.levels = 2;
  settings.sampling = sampling;
  const bool stochastic = sampling == itk::RegistrationSampling::RandomEveryIteration;
  settings.iterations = { stochastic ? 300u : 200u };
  settings.pointsPerIteration = 3000;
  settings.stochasticOptimizer = itk::StochasticOptimizer::AdaptiveStochasticGradientDescent;
  settings.samplingSeed = seed;
  settings.useGPU = useGPU;
  itk::ElasticRegistration<ImageType> registration(pair.fixed, resample->GetOutput(), settings);
  // fixed points 5 voxels inside or more: none maps into the band outside the resampled
  // field of view (zeros), which would pull the optimum off the truth
  auto mask = itk::Image<unsigned char, 3>::New();
  mask->CopyInformation(pair.fixed);
  mask->SetRegions(pair.fixed->GetLargestPossibleRegion());
  mask->Allocate(true);
  auto inner = pair.fixed->GetLargestPossibleRegion();
  inner.ShrinkByRadius(5);
  for (itk::ImageRegionIterator<itk::Image<unsigned char, 3>> it(mask, inner); !it.IsAtEnd(); ++it)
  {
    it.Set(1);
  }
  registration.SetFixedMask(mask);
  registration.Update();
  ASSERT_EQ(registration.GetStageReports().size(), 1u);
  EXPECT_EQ(registration.GetStageReports()[0].stage, "similarity");
  EXPECT_EQ(registration.GetStageReports()[0].executionPath, itk::ToString(ModulePath(useGPU)));
  const auto * found = dynamic_cast<const itk::Similarity3DTransform<double> *>(registration.GetLinearTransform());
  ASSERT_NE(found, nullptr);
  EXPECT_NEAR(found->GetScale() * truth->GetScale(), 1.0, 0.01)
    << "found " << found->GetScale() << ", truth " << truth->GetScale();
  double       error = 0.0, before = 0.0;
  unsigned int count = 0;
  for (itk::ImageRegionConstIteratorWithIndex<ImageType> it(pair.fixed, pair.fixed->GetBufferedRegion()); !it.IsAtEnd();
       ++it)
  {
    ImageType::PointType x;
    pair.fixed->TransformIndexToPhysicalPoint(it.GetIndex(), x);
    error += VoxelDistance(pair.fixed, truth->TransformPoint(registration.GetTransform()->TransformPoint(x)), x);
    before += VoxelDistance(pair.fixed, truth->TransformPoint(x), x);
    ++count;
  }
  std::cout << "[ measure  ] similarity stage: mean error " << error / count << " voxel (identity: " << before / count
            << "), iterations " << registration.GetStageReports()[0].iterationsPerLevel[0] << ", "
            << registration.GetStageReports()[0].iterationsPerLevel[1] << std::endl;
  EXPECT_LT(error / count, 0.1);
}
CIF_TEST_ON_CPU_AND_GPU(ElasticRegistration, RecoversASimilarity, [](bool useGPU) {
  ExpectSimilarityRecovered(useGPU, itk::RegistrationSampling::Dense);
})
CIF_TEST_ON_CPU_AND_GPU(ElasticRegistration, RecoversASimilarityWithTheAdaptiveDescent, [](bool useGPU) {
  ExpectSimilarityRecovered(useGPU, itk::RegistrationSampling::RandomEveryIteration);
})

/** elastix's GridSpacingSchedule: each level's mesh is the extent over the grid
 * spacing times the level's factor (not only halving), and the registration ends on
 * the last level's mesh; a schedule that grows or does not fit the levels is refused. */
TEST(ElasticRegistrationCPU, FollowsAGridSpacingSchedule)
{
  std::mt19937                     rng(FreshSeed());
  const WarpedPair                 pair = MakeWarpedPair(24, 3, 1.0, rng);
  itk::ElasticRegistrationSettings settings;
  settings.linearStage = itk::LinearRegistrationStage::None;
  settings.levels = 3;
  settings.iterations = { 3 };
  settings.gridSpacing = 2.0 * pair.fixed->GetSpacing()[0];
  settings.gridSpacingSchedule = { 5.0, 2.5, 1.0 };
  settings.useGPU = false;
  using Registration = itk::ElasticRegistration<ImageType>;
  for (unsigned int level = 0; level < 3; ++level)
  {
    const auto mesh = Registration::BSplineMesh(pair.fixed, settings, level);
    for (unsigned int d = 0; d < Dimension; ++d)
    {
      const double extent = 24 * pair.fixed->GetSpacing()[d];
      EXPECT_EQ(mesh[d],
                std::max(1u,
                         static_cast<unsigned int>(
                           std::floor(extent / (settings.gridSpacing * settings.gridSpacingSchedule[level]) + 1e-9))))
        << "level " << level << ", axis " << d;
    }
  }
  Registration registration(pair.fixed, pair.moving, settings);
  registration.Update();
  EXPECT_EQ(registration.GetBSplineTransform()->GetTransformDomainMeshSize(),
            Registration::BSplineMesh(pair.fixed, settings, 2));
  for (const auto & bad : { std::vector<double>{ 1.0, 2.0, 1.0 }, std::vector<double>{ 2.0, 1.0 } })
  {
    settings.gridSpacingSchedule = bad;
    Registration refused(pair.fixed, pair.moving, settings);
    EXPECT_THROW(refused.Update(), itk::ExceptionObject);
  }
}

/** elastix's grid (BSplineGridPlacement::ExactSpacing) on a random oblique image: at
 * every level the node count, spacing and first node of elastix's GridScheduleComputer
 * (ceil(extent / spacing) + 3 nodes, the grid centred on the voxel centres), and the
 * registration's result on the last level's grid. */
TEST(ElasticRegistrationCPU, PlacesTheGridAsElastixDoes)
{
  std::mt19937                           rng(FreshSeed());
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const WarpedPair                       pair = MakeWarpedPair(20, 3, 1.0, rng);
  auto                                   image = ImageType::New();
  ImageType::SizeType                    size;
  ImageType::SpacingType                 spacing;
  ImageType::PointType                   origin;
  for (unsigned int d = 0; d < Dimension; ++d)
  {
    size[d] = 9 + static_cast<unsigned int>(uniform(rng) * 30);
    spacing[d] = 0.5 + 1.5 * uniform(rng);
    origin[d] = 100.0 * (uniform(rng) - 0.5);
  }
  image->SetRegions(size);
  image->SetSpacing(spacing);
  image->SetOrigin(origin);
  itk::Euler3DTransform<double>::Pointer rotation = itk::Euler3DTransform<double>::New();
  rotation->SetRotation(uniform(rng) - 0.5, uniform(rng) - 0.5, uniform(rng) - 0.5);
  image->SetDirection(rotation->GetMatrix());
  itk::ElasticRegistrationSettings settings;
  settings.linearStage = itk::LinearRegistrationStage::None;
  settings.levels = 3;
  settings.iterations = { 3 };
  settings.gridSpacing = 3.0 + 6.0 * uniform(rng);
  settings.gridPlacement = itk::BSplineGridPlacement::ExactSpacing;
  settings.useGPU = false;
  using Registration = itk::ElasticRegistration<ImageType>;
  for (const auto & schedule : { std::vector<double>{}, std::vector<double>{ 3.0, 1.5, 1.0 } })
  {
    settings.gridSpacingSchedule = schedule;
    for (unsigned int level = 0; level < settings.levels; ++level)
    {
      SCOPED_TRACE("level " + std::to_string(level) + ", schedule of " + std::to_string(schedule.size()));
      const auto   fixed = Registration::BSplineGrid(image, settings, level);
      const double gridSpacing = settings.gridSpacing * (schedule.empty() ? std::pow(2.0, 2 - level) : schedule[level]);
      itk::Vector<double, Dimension> shift; // elastix's grid origin, relative to the image's, along its axes
      for (unsigned int d = 0; d < Dimension; ++d)
      {
        const double nodes = std::ceil(size[d] * spacing[d] / gridSpacing) + 3;
        EXPECT_EQ(fixed[d], nodes) << "axis " << d;
        EXPECT_NEAR(fixed[2 * Dimension + d], gridSpacing, 1e-12 * gridSpacing) << "axis " << d;
        shift[d] = -((nodes - 1) * gridSpacing - (size[d] - 1) * spacing[d]) / 2.0;
      }
      const ImageType::PointType first = origin + image->GetDirection() * shift;
      for (unsigned int d = 0; d < Dimension; ++d)
      {
        EXPECT_NEAR(fixed[Dimension + d], first[d], 1e-9) << "axis " << d;
        for (unsigned int e = 0; e < Dimension; ++e)
        {
          EXPECT_NEAR(fixed[3 * Dimension + d * Dimension + e], image->GetDirection()[d][e], 1e-12);
        }
      }
    }
  }
  settings.gridSpacingSchedule.clear();
  settings.gridSpacing = 4.0 * pair.fixed->GetSpacing()[0];
  Registration registration(pair.fixed, pair.moving, settings);
  registration.Update();
  const auto last = Registration::BSplineGrid(pair.fixed, settings, 2);
  const auto got = registration.GetBSplineTransform()->GetFixedParameters();
  ASSERT_EQ(got.size(), last.size());
  for (unsigned int k = 0; k < got.size(); ++k)
  {
    EXPECT_NEAR(got[k], last[k], 1e-9) << "fixed parameter " << k;
  }
}

/** ITK's own metrics cannot draw new points at every iteration: a clear error. */
TEST(ElasticRegistrationCPU, NewPointsEveryIterationNeedTheModulesMetric)
{
  std::mt19937                     rng(FreshSeed());
  const WarpedPair                 pair = MakeWarpedPair(16, 3, 1.0, rng);
  itk::ElasticRegistrationSettings settings;
  settings.sampling = itk::RegistrationSampling::RandomEveryIteration;
  settings.itkMetric = true;
  settings.useGPU = false;
  itk::ElasticRegistration<ImageType> registration(pair.fixed, pair.moving, settings);
  try
  {
    registration.Update();
    ADD_FAILURE() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("module's metrics"), std::string::npos) << e.GetDescription();
  }
}

/** An observer that throws (a host's abort) stops the run at the first iteration:
 * the exception comes out of Update(), no stage is reported. Settings without a stage
 * are refused. */
TEST(ElasticRegistrationCPU, ObserverStopsItAtTheFirstIteration)
{
  std::mt19937                     rng(FreshSeed());
  const WarpedPair                 pair = MakeWarpedPair(16, 3, 1.0, rng);
  itk::ElasticRegistrationSettings settings;
  settings.levels = 2;
  settings.iterations = { 10 };
  settings.gridSpacing = 8.0 * pair.fixed->GetSpacing()[0];
  settings.useGPU = false;
  struct Stop
  {};
  unsigned int                        calls = 0;
  itk::ElasticRegistration<ImageType> registration(pair.fixed, pair.moving, settings);
  registration.SetObserver([&calls](const itk::RegistrationIterationReport & r) {
    if (!r.levelEnded)
    {
      ++calls;
      throw Stop{};
    }
  });
  EXPECT_THROW(registration.Update(), Stop);
  EXPECT_EQ(calls, 1u);
  EXPECT_TRUE(registration.GetStageReports().empty());

  settings.linearStage = itk::LinearRegistrationStage::None;
  settings.bsplineStage = false;
  itk::ElasticRegistration<ImageType> none(pair.fixed, pair.moving, settings);
  EXPECT_THROW(none.Update(), itk::ExceptionObject);
}
} // namespace
