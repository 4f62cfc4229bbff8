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
// Elastic registration on the GPU: ITK's own ImageRegistrationMethodv4, affine then
// B-spline (the layout of ITK's and elastix's pipelines), with the module's GPU twin
// of the v4 metric chosen by class (itk::ElasticRegistration, itkElasticRegistration.h:
// the pipeline the ElasticRegistrationCLI module runs too). A 3-D pair with a known deformation: the moving
// image is smooth noise, the fixed image is the moving one seen through a known
// smooth B-spline warp (mean displacement about one voxel), so the registration
// should find that warp. Prints the metric per level and stage, the times, and the
// recovered deformation's error against the known one inside the inner part of the
// image (where the known warp's grid is defined).
//
//   ElasticRegistrationExample [--size N] [--metric meansquares|mattes] [--cpu]
//                              [--samples N (random points per level; 0: dense)]
//                              [--new-samples (new random points every iteration, as
//                               elastix's NewSamplesEveryIteration; with --samples)]
//                              [--adaptive (with --new-samples: elastix's adaptive stochastic
//                               gradient descent instead of the decaying gain)]
//                              [--iterations N (per level)] [--levels N] [--no-affine]
//                              [--grid-spacing V (final control-point spacing, voxels)]
//                              [--itk (ITK's own metric)] [--seed S]
//                              [--write DIR (only write fixed.mha, moving.mha for another program)]
//                              [--field-error FIELD (score another program's displacement
//                               field, e.g. transformix's, instead of registering)]
#include "cifITKPoolParking.h"
#include "cifCudaRuntime.h"
#include "itkElasticRegistration.h"
#include "itkAffineTransform.h"
#include "itkBSplineTransform.h"
#include "itkBSplineTransformInitializer.h"
#include "itkDisplacementFieldTransform.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkImageRegionConstIteratorWithIndex.h"
#include "itkNearestNeighborExtrapolateImageFunction.h"
#include "itkResampleImageFilter.h"
#include "itkSmoothingGPUFactory.h"
#include "itkSmoothingRecursiveGaussianImageFilter.h"

#include <chrono>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>
#include <string>

namespace
{
constexpr unsigned int D = 3;
using ImageType = itk::Image<float, D>;
using AffineType = itk::AffineTransform<double, D>;
using BSplineType = itk::BSplineTransform<double, D, 3>;

struct Options
{
  unsigned int  size = 96;
  bool          mattes = false;
  bool          useGPU = true;
  bool          itkMetric = false;
  unsigned int  samples = 0;
  bool          newSamplesEveryIteration = false;
  bool          adaptive = false;
  unsigned int  iterations = 100;
  unsigned int  levels = 3;
  bool          affineStage = true;
  unsigned int  gridSpacing = 10;
  std::uint32_t seed = 0;
  bool          seeded = false;
  std::string   writeDirectory;
  std::string   fieldToScore;
};

/** Smooth noise: uniform noise blurred by a Gaussian of \a sigma voxels, scaled to [0, 100]. */
ImageType::Pointer
MakeSmoothNoise(unsigned int n, double sigma, std::uint32_t seed)
{
  auto                noise = ImageType::New();
  ImageType::SizeType size;
  size.Fill(n);
  noise->SetRegions(size);
  noise->Allocate();
  std::mt19937                          rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (float *p = noise->GetBufferPointer(), *end = p + noise->GetBufferedRegion().GetNumberOfPixels(); p < end; ++p)
  {
    *p = u(rng);
  }
  auto blur = itk::SmoothingRecursiveGaussianImageFilter<ImageType, ImageType>::New();
  blur->SetInput(noise);
  blur->SetSigma(sigma);
  blur->Update();
  ImageType::Pointer smooth = blur->GetOutput();
  float              low = 1e30f, high = -1e30f;
  for (float *p = smooth->GetBufferPointer(), *end = p + smooth->GetBufferedRegion().GetNumberOfPixels(); p < end; ++p)
  {
    low = std::min(low, *p);
    high = std::max(high, *p);
  }
  for (float *p = smooth->GetBufferPointer(), *end = p + smooth->GetBufferedRegion().GetNumberOfPixels(); p < end; ++p)
  {
    *p = 100.0f * (*p - low) / (high - low);
  }
  return smooth;
}

/** The known warp: a B-spline of mesh 4 over the image with random coefficients
 * whose displacement averages about one voxel. */
BSplineType::Pointer
MakeKnownWarp(const ImageType * image, std::uint32_t seed)
{
  auto transform = BSplineType::New();
  auto initializer = itk::BSplineTransformInitializer<BSplineType, ImageType>::New();
  initializer->SetTransform(transform);
  initializer->SetImage(image);
  BSplineType::MeshSizeType mesh;
  mesh.Fill(4);
  initializer->SetTransformDomainMeshSize(mesh);
  initializer->InitializeTransform();
  std::mt19937                     rng(seed);
  std::normal_distribution<double> normal(0.0, 1.2);
  BSplineType::ParametersType      parameters(transform->GetNumberOfParameters());
  for (auto & p : parameters)
  {
    p = normal(rng);
  }
  transform->SetParameters(parameters);
  return transform;
}

ImageType::Pointer
Warp(const ImageType * moving, const itk::Transform<double, D, D> * transform)
{
  auto resample = itk::ResampleImageFilter<ImageType, ImageType>::New();
  resample->SetInput(moving);
  resample->SetTransform(transform);
  resample->SetReferenceImage(moving);
  resample->UseReferenceImageOn();
  // Points the warp takes past the edge get the nearest edge value rather than 0: no
  // band of outliers along the faces that a least-squares metric would chase.
  resample->SetExtrapolator(itk::NearestNeighborExtrapolateImageFunction<ImageType, double>::New());
  resample->Update();
  return resample->GetOutput();
}

/** The registration's settings for the example's options: the pair's voxels are
 * 1 unit wide, so the grid spacing in voxels is its physical spacing; random points
 * as a fraction of the voxels, drawn with ITK's seed 121212. */
itk::ElasticRegistrationSettings
SettingsOf(const Options & o)
{
  itk::ElasticRegistrationSettings s;
  s.linearStage = o.affineStage ? itk::LinearRegistrationStage::Affine : itk::LinearRegistrationStage::None;
  s.metric = o.mattes ? cif::RegistrationMetricKind::MattesMutualInformation : cif::RegistrationMetricKind::MeanSquares;
  s.levels = o.levels;
  s.iterations = { o.iterations };
  s.gridSpacing = o.gridSpacing;
  if (o.samples > 0 && o.newSamplesEveryIteration)
  {
    s.sampling = itk::RegistrationSampling::RandomEveryIteration;
    s.pointsPerIteration = o.samples;
    s.stochasticOptimizer =
      o.adaptive ? itk::StochasticOptimizer::AdaptiveStochasticGradientDescent : itk::StochasticOptimizer::DecayingGain;
  }
  else if (o.samples > 0)
  {
    s.sampling = itk::RegistrationSampling::Random;
    s.samplingPercentage =
      std::min(1.0, static_cast<double>(o.samples) / (static_cast<double>(o.size) * o.size * o.size));
  }
  s.useGPU = o.useGPU;
  s.itkMetric = o.itkMetric;
  return s;
}

/** Mean and largest distance between \a estimate and \a truth over the voxels of
 * the central 80 % of the image, in voxels. */
void
FieldError(const ImageType *                    image,
           const itk::Transform<double, D, D> * estimate,
           const BSplineType *                  truth,
           double &                             mean,
           double &                             largest)
{
  const auto  region = image->GetLargestPossibleRegion();
  double      sum = 0.0;
  std::size_t count = 0;
  largest = 0.0;
  for (itk::ImageRegionConstIteratorWithIndex<ImageType> it(image, region); !it.IsAtEnd(); ++it)
  {
    bool inner = true;
    for (unsigned int a = 0; a < D; ++a)
    {
      const double x = static_cast<double>(it.GetIndex()[a]) / (region.GetSize()[a] - 1.0);
      inner = inner && x >= 0.1 && x <= 0.9;
    }
    if (!inner)
    {
      continue;
    }
    ImageType::PointType p;
    image->TransformIndexToPhysicalPoint(it.GetIndex(), p);
    const double error = (estimate->TransformPoint(p) - truth->TransformPoint(p)).GetNorm() / image->GetSpacing()[0];
    sum += error;
    largest = std::max(largest, error);
    ++count;
  }
  mean = sum / static_cast<double>(count);
}

bool
Parse(int argc, char * argv[], Options & o)
{
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    const bool        hasValue = i + 1 < argc;
    if (a == "--size" && hasValue)
    {
      o.size = static_cast<unsigned int>(std::stoul(argv[++i]));
    }
    else if (a == "--metric" && hasValue)
    {
      const std::string m = argv[++i];
      if (m != "meansquares" && m != "mattes")
      {
        return false;
      }
      o.mattes = m == "mattes";
    }
    else if (a == "--samples" && hasValue)
    {
      o.samples = static_cast<unsigned int>(std::stoul(argv[++i]));
    }
    else if (a == "--new-samples")
    {
      o.newSamplesEveryIteration = true;
    }
    else if (a == "--adaptive")
    {
      o.adaptive = true;
    }
    else if (a == "--iterations" && hasValue)
    {
      o.iterations = static_cast<unsigned int>(std::stoul(argv[++i]));
    }
    else if (a == "--levels" && hasValue)
    {
      o.levels = static_cast<unsigned int>(std::stoul(argv[++i]));
    }
    else if (a == "--grid-spacing" && hasValue)
    {
      o.gridSpacing = static_cast<unsigned int>(std::stoul(argv[++i]));
    }
    else if (a == "--seed" && hasValue)
    {
      o.seed = static_cast<std::uint32_t>(std::stoul(argv[++i]));
      o.seeded = true;
    }
    else if (a == "--write" && hasValue)
    {
      o.writeDirectory = argv[++i];
    }
    else if (a == "--field-error" && hasValue)
    {
      o.fieldToScore = argv[++i];
    }
    else if (a == "--no-affine")
    {
      o.affineStage = false;
    }
    else if (a == "--cpu")
    {
      o.useGPU = false;
    }
    else if (a == "--itk")
    {
      o.itkMetric = true;
    }
    else
    {
      return false;
    }
  }
  return o.size >= 24 && o.size <= 1024 && o.iterations > 0 && o.levels >= 1 && o.levels <= 5 && o.gridSpacing >= 2;
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  Options                        o;
  if (!Parse(argc, argv, o))
  {
    std::cerr << "usage: ElasticRegistrationExample [--size N (24..1024)] [--metric meansquares|mattes] [--cpu] "
                 "[--samples N [--new-samples [--adaptive]]] [--iterations N] [--itk]\n";
    return 2;
  }
  try
  {
    if (!o.itkMetric)
    {
      // ImageRegistrationMethodv4 smooths both images at every level with
      // SmoothingRecursiveGaussianImageFilter::New(): the factory gives the GPU twin.
      itk::SmoothingGPUFactory::RegisterOneFactory();
    }
    const std::uint32_t seed = o.seeded ? o.seed : std::random_device{}();
    std::cout << "Elastic registration example: " << o.size << "^3 smooth-noise pair with a known B-spline warp (seed "
              << seed << "), " << (o.mattes ? "Mattes MI" : "MeanSquares") << ", "
              << (o.samples > 0
                    ? std::to_string(o.samples) +
                        (o.newSamplesEveryIteration ? " new random points every iteration" : " random points per level")
                    : std::string("dense"))
              << ", metric: "
              << (o.itkMetric ? "ITK's own" : (o.useGPU && cif::IsGPUAvailable() ? "module, GPU" : "module, CPU path"))
              << "\n";
    const auto moving = MakeSmoothNoise(o.size, 2.0, seed);
    const auto truth = MakeKnownWarp(moving, seed + 1);
    const auto fixed = Warp(moving, truth);
    if (!o.writeDirectory.empty())
    {
      itk::WriteImage(fixed, o.writeDirectory + "/fixed.mha");
      itk::WriteImage(moving, o.writeDirectory + "/moving.mha");
      std::cout << "wrote " << o.writeDirectory << "/fixed.mha and moving.mha\n";
      return 0;
    }
    if (!o.fieldToScore.empty())
    {
      // A displacement field over the fixed image (x -> x + d(x) in the moving one,
      // elastix's and ITK's convention), scored like the module's result.
      using FieldTransform = itk::DisplacementFieldTransform<double, D>;
      const auto field = itk::ReadImage<FieldTransform::DisplacementFieldType>(o.fieldToScore);
      auto       transform = FieldTransform::New();
      transform->SetDisplacementField(field);
      double mean, largest;
      FieldError(fixed, transform, truth, mean, largest);
      std::cout << "deformation error of " << o.fieldToScore << " against the known warp (inner 80 %, voxels): mean "
                << std::setprecision(3) << mean << ", max " << largest << "\n";
      return 0;
    }
    // Affine, then B-spline on top of it (ITK's composite: the B-spline applied first,
    // the affine after it), its grid refined per level. Each level's metric, iterations
    // and where the time went are printed when it ends.
    itk::ElasticRegistration<ImageType> registration(fixed, moving, SettingsOf(o));
    registration.SetObserver([](const itk::RegistrationIterationReport & r) {
      if (r.levelEnded)
      {
        std::cout << "  " << r.stage << " level " << r.level << ": metric " << std::setprecision(6) << r.metricValue
                  << " after " << r.iteration << " iterations, " << std::setprecision(3) << r.levelSeconds << " s ("
                  << cif::MetricExecutionPath<ImageType>(r.metric) << "; "
                  << cif::MetricTimingReport<ImageType>(r.metric) << ")\n";
      }
    });
    registration.Update();
    const auto & stages = registration.GetStageReports();
    const double affineSeconds = o.affineStage ? stages.front().seconds : 0.0;
    const double bsplineSeconds = stages.back().seconds;
    const auto * bspline = registration.GetBSplineTransform();
    const auto   result = registration.GetTransform();
    double       mean, largest, before, beforeLargest;
    auto         identity = AffineType::New();
    FieldError(fixed, identity, truth, before, beforeLargest);
    FieldError(fixed, result, truth, mean, largest);
    std::cout << "time: affine " << std::setprecision(3) << affineSeconds << " s, B-spline " << bsplineSeconds
              << " s (final grid " << bspline->GetTransformDomainMeshSize()[0] << "^3 cells, "
              << bspline->GetNumberOfParameters() << " parameters), total " << affineSeconds + bsplineSeconds << " s\n"
              << "deformation error against the known warp (inner 80 %, voxels): mean " << mean << ", max " << largest
              << " (before registration: mean " << before << ", max " << beforeLargest << ")\n";
    return 0;
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << "ElasticRegistrationExample: " << e.GetDescription() << "\n";
    return 1;
  }
}
