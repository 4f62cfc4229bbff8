// Elastic registration on the GPU: ITK's own ImageRegistrationMethodv4, affine then
// B-spline (the layout of ITK's and elastix's pipelines), with the module's GPU twin
// of the v4 metric chosen by class. A 3-D pair with a known deformation: the moving
// image is smooth noise, the fixed image is the moving one seen through a known
// smooth B-spline warp (mean displacement about one voxel), so the registration
// should find that warp. Prints the metric per level and stage, the times, and the
// recovered deformation's error against the known one inside the inner part of the
// image (where the known warp's grid is defined).
//
//   ElasticRegistrationExample [--size N] [--metric meansquares|mattes] [--cpu]
//                              [--samples N (random points per level; 0: dense)]
//                              [--iterations N (per level)] [--levels N] [--no-affine]
//                              [--grid-spacing V (final control-point spacing, voxels)]
//                              [--itk (ITK's own metric)] [--seed S]
//                              [--write DIR (only write fixed.mha, moving.mha for another program)]
//                              [--field-error FIELD (score another program's displacement
//                               field, e.g. transformix's, instead of registering)]
#include "cifCudaRuntime.h"
#include "itkAffineTransform.h"
#include "itkBSplineTransform.h"
#include "itkBSplineTransformInitializer.h"
#include "itkBSplineTransformParametersAdaptor.h"
#include "itkCenteredTransformInitializer.h"
#include "itkCommand.h"
#include "itkDisplacementFieldTransform.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkCompositeTransform.h"
#include "itkImageRegionConstIteratorWithIndex.h"
#include "itkImageRegistrationMethodv4.h"
#include "itkLBFGSOptimizerv4.h"
#include "itkLinearInterpolateImageFunction.h"
#include "itkNearestNeighborExtrapolateImageFunction.h"
#include "itkMattesMutualInformationImageToImageMetricv4GPU.h"
#include "itkMeanSquaresImageToImageMetricv4GPU.h"
#include "itkRecursiveGaussianImageFilter.h"
#include "itkRegularStepGradientDescentOptimizerv4.h"
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
using MetricBase = itk::ImageToImageMetricv4<ImageType, ImageType>;

struct Options
{
  unsigned int size = 96;
  bool         mattes = false;
  bool         useGPU = true;
  bool         itkMetric = false;
  unsigned int samples = 0;
  unsigned int iterations = 100;
  unsigned int levels = 3;
  bool         affineStage = true;
  unsigned int gridSpacing = 10;
  std::uint32_t seed = 0;
  bool          seeded = false;
  std::string   writeDirectory;
  std::string   fieldToScore;
};

double
Seconds(std::chrono::steady_clock::time_point since)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

/** Smooth noise: uniform noise blurred by a Gaussian of \a sigma voxels, scaled to [0, 100]. */
ImageType::Pointer
MakeSmoothNoise(unsigned int n, double sigma, std::uint32_t seed)
{
  auto                 noise = ImageType::New();
  ImageType::SizeType  size;
  size.Fill(n);
  noise->SetRegions(size);
  noise->Allocate();
  std::mt19937                          rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (float * p = noise->GetBufferPointer(), *end = p + noise->GetBufferedRegion().GetNumberOfPixels(); p < end; ++p)
  {
    *p = u(rng);
  }
  auto blur = itk::SmoothingRecursiveGaussianImageFilter<ImageType, ImageType>::New();
  blur->SetInput(noise);
  blur->SetSigma(sigma);
  blur->Update();
  ImageType::Pointer smooth = blur->GetOutput();
  float              low = 1e30f, high = -1e30f;
  for (float * p = smooth->GetBufferPointer(), *end = p + smooth->GetBufferedRegion().GetNumberOfPixels(); p < end; ++p)
  {
    low = std::min(low, *p);
    high = std::max(high, *p);
  }
  for (float * p = smooth->GetBufferPointer(), *end = p + smooth->GetBufferedRegion().GetNumberOfPixels(); p < end; ++p)
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

MetricBase::Pointer
MakeMetric(const Options & o)
{
  if (o.itkMetric)
  {
    if (o.mattes)
    {
      return itk::MattesMutualInformationImageToImageMetricv4<ImageType, ImageType>::New().GetPointer();
    }
    return itk::MeanSquaresImageToImageMetricv4<ImageType, ImageType>::New().GetPointer();
  }
  if (o.mattes)
  {
    auto metric = itk::MattesMutualInformationImageToImageMetricv4GPU<ImageType, ImageType>::New();
    metric->SetUseGPU(o.useGPU);
    return metric.GetPointer();
  }
  auto metric = itk::MeanSquaresImageToImageMetricv4GPU<ImageType, ImageType>::New();
  metric->SetUseGPU(o.useGPU);
  return metric.GetPointer();
}

const char *
PathOf(const itk::Object * metric)
{
  if (const auto * m = dynamic_cast<const itk::MeanSquaresImageToImageMetricv4GPU<ImageType, ImageType> *>(metric))
  {
    return itk::ToString(m->GetLastExecutionPath());
  }
  if (const auto * m =
        dynamic_cast<const itk::MattesMutualInformationImageToImageMetricv4GPU<ImageType, ImageType> *>(metric))
  {
    return itk::ToString(m->GetLastExecutionPath());
  }
  return "ITK";
}

std::string
TimingOf(const itk::Object * metric)
{
  if (const auto * m = dynamic_cast<const itk::MeanSquaresImageToImageMetricv4GPU<ImageType, ImageType> *>(metric))
  {
    return m->GetTimingReport();
  }
  if (const auto * m =
        dynamic_cast<const itk::MattesMutualInformationImageToImageMetricv4GPU<ImageType, ImageType> *>(metric))
  {
    return m->GetTimingReport();
  }
  return "";
}

/** Prints the metric, the iterations and where the time went for each level: what
 * the optimizer's last IterationEvent of the level saw, printed when the next level
 * starts (MultiResolutionIterationEvent) and after the last one (Flush()). */
template <typename TRegistration>
class LevelObserver : public itk::Command
{
public:
  using Self = LevelObserver;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  void
  Execute(const itk::Object *, const itk::EventObject & event) override
  {
    if (itk::MultiResolutionIterationEvent().CheckEvent(&event))
    {
      this->Flush();
      m_LevelStart = std::chrono::steady_clock::now();
    }
    else if (itk::IterationEvent().CheckEvent(&event))
    {
      const auto * optimizer = m_Registration->GetOptimizer();
      std::ostringstream line;
      line << "  " << m_Stage << " level " << m_Registration->GetCurrentLevel() << ": metric "
           << std::setprecision(6) << optimizer->GetCurrentMetricValue() << " after "
           << optimizer->GetCurrentIteration() + 1 << " iterations, " << std::setprecision(3) << Seconds(m_LevelStart)
           << " s (" << PathOf(m_Registration->GetMetric()) << "; " << TimingOf(m_Registration->GetMetric()) << ")";
      m_Pending = line.str();
    }
  }
  void
  Execute(itk::Object * caller, const itk::EventObject & event) override
  {
    this->Execute(static_cast<const itk::Object *>(caller), event);
  }
  void
  Watch(TRegistration * registration, const char * stage)
  {
    m_Registration = registration;
    m_Stage = stage;
    registration->AddObserver(itk::MultiResolutionIterationEvent(), this);
    registration->GetModifiableOptimizer()->AddObserver(itk::IterationEvent(), this);
  }
  void
  Flush()
  {
    if (!m_Pending.empty())
    {
      std::cout << m_Pending << "\n";
      m_Pending.clear();
    }
  }

private:
  const TRegistration *                 m_Registration = nullptr;
  const char *                          m_Stage = "";
  std::string                           m_Pending;
  std::chrono::steady_clock::time_point m_LevelStart = std::chrono::steady_clock::now();
};

template <typename TRegistration>
void
ConfigureLevels(TRegistration * registration, const Options & o)
{
  typename TRegistration::ShrinkFactorsArrayType shrink(o.levels);
  typename TRegistration::SmoothingSigmasArrayType sigmas(o.levels);
  for (unsigned int level = 0; level < o.levels; ++level)
  {
    shrink[level] = 1u << (o.levels - 1 - level);
    sigmas[level] = o.levels - 1 - level;
  }
  registration->SetNumberOfLevels(o.levels);
  registration->SetShrinkFactorsPerLevel(shrink);
  registration->SetSmoothingSigmasPerLevel(sigmas);
  registration->SetSmoothingSigmasAreSpecifiedInPhysicalUnits(false);
  if (o.samples > 0)
  {
    registration->SetMetricSamplingStrategy(TRegistration::MetricSamplingStrategyType::RANDOM);
    registration->SetMetricSamplingPercentage(
      std::min(1.0, static_cast<double>(o.samples) / (static_cast<double>(o.size) * o.size * o.size)));
    registration->MetricSamplingReinitializeSeed(121212);
  }
}

/** Mean and largest distance between \a estimate and \a truth over the voxels of
 * the central 80 % of the image, in voxels. */
void
FieldError(const ImageType * image, const itk::Transform<double, D, D> * estimate, const BSplineType * truth,
           double & mean, double & largest)
{
  const auto           region = image->GetLargestPossibleRegion();
  double               sum = 0.0;
  std::size_t          count = 0;
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
  Options o;
  if (!Parse(argc, argv, o))
  {
    std::cerr << "usage: ElasticRegistrationExample [--size N (24..1024)] [--metric meansquares|mattes] [--cpu] "
                 "[--samples N] [--iterations N] [--itk]\n";
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
              << (o.samples > 0 ? std::to_string(o.samples) + " random points per iteration" : std::string("dense"))
              << ", metric: " << (o.itkMetric ? "ITK's own" : (o.useGPU && cif::IsGPUAvailable() ? "module, GPU" : "module, CPU path"))
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
    const auto start = std::chrono::steady_clock::now();

    // Stage 1: affine, from the images' centres.
    using AffineRegistration = itk::ImageRegistrationMethodv4<ImageType, ImageType, AffineType>;
    auto affine = AffineType::New();
    {
      auto initializer = itk::CenteredTransformInitializer<AffineType, ImageType, ImageType>::New();
      initializer->SetTransform(affine);
      initializer->SetFixedImage(fixed);
      initializer->SetMovingImage(moving);
      initializer->GeometryOn();
      initializer->InitializeTransform();
    }
    auto affineOptimizer = itk::RegularStepGradientDescentOptimizerv4<double>::New();
    affineOptimizer->SetLearningRate(1.0);
    affineOptimizer->SetMinimumStepLength(1e-4);
    affineOptimizer->SetNumberOfIterations(o.iterations);
    affineOptimizer->SetRelaxationFactor(0.5);
    {
      itk::OptimizerParameters<double> scales(affine->GetNumberOfParameters());
      const double                     extent = o.size;
      for (unsigned int k = 0; k < scales.size(); ++k)
      {
        scales[k] = k < D * D ? extent * extent : 1.0; // matrix entries move points by |x| ~ extent
      }
      affineOptimizer->SetScales(scales);
    }
    auto affineRegistration = AffineRegistration::New();
    affineRegistration->SetFixedImage(fixed);
    affineRegistration->SetMovingImage(moving);
    affineRegistration->SetMetric(MakeMetric(o));
    affineRegistration->SetOptimizer(affineOptimizer);
    affineRegistration->SetInitialTransform(affine);
    affineRegistration->InPlaceOn();
    ConfigureLevels(affineRegistration.GetPointer(), o);
    auto affineObserver = LevelObserver<AffineRegistration>::New();
    affineObserver->Watch(affineRegistration, "affine");
    if (o.affineStage)
    {
      affineRegistration->Update();
      affineObserver->Flush();
    }
    const double affineSeconds = Seconds(start);

    // Stage 2: B-spline on top of the affine (ITK's composite: the B-spline applied
    // first, the affine after it), its grid refined per level.
    using BSplineRegistration = itk::ImageRegistrationMethodv4<ImageType, ImageType, BSplineType>;
    auto                      bspline = BSplineType::New();
    BSplineType::MeshSizeType mesh;
    const unsigned int        finalMesh = std::max(1u << (o.levels - 1), o.size / o.gridSpacing);
    mesh.Fill(std::max(1u, finalMesh >> (o.levels - 1)));
    {
      auto initializer = itk::BSplineTransformInitializer<BSplineType, ImageType>::New();
      initializer->SetTransform(bspline);
      initializer->SetImage(fixed);
      initializer->SetTransformDomainMeshSize(mesh);
      initializer->InitializeTransform();
    }
    typename BSplineRegistration::TransformParametersAdaptorsContainerType adaptors;
    for (unsigned int level = 0; level < o.levels; ++level)
    {
      auto                      adaptor = itk::BSplineTransformParametersAdaptor<BSplineType>::New();
      BSplineType::MeshSizeType levelMesh;
      levelMesh.Fill(std::max(1u, (finalMesh >> (o.levels - 1)) << level));
      adaptor->SetRequiredTransformDomainOrigin(bspline->GetTransformDomainOrigin());
      adaptor->SetRequiredTransformDomainDirection(bspline->GetTransformDomainDirection());
      adaptor->SetRequiredTransformDomainPhysicalDimensions(bspline->GetTransformDomainPhysicalDimensions());
      adaptor->SetRequiredTransformDomainMeshSize(levelMesh);
      adaptors.push_back(adaptor);
    }
    // L-BFGS (unbounded: LBFGSBOptimizerv4's bounds do not follow the grid's
    // refinement between levels). Its line search stops a level early when the
    // derivative is not exactly the value's gradient (ITK's metrics take the moving
    // gradient from a Gaussian-derivative image): with ITK's own metric too.
    auto bsplineOptimizer = itk::LBFGSOptimizerv4::New();
    bsplineOptimizer->SetNumberOfIterations(o.iterations);
    bsplineOptimizer->SetMaximumNumberOfFunctionEvaluations(2 * o.iterations);
    bsplineOptimizer->SetGradientConvergenceTolerance(1e-6);
    auto bsplineRegistration = BSplineRegistration::New();
    bsplineRegistration->SetFixedImage(fixed);
    bsplineRegistration->SetMovingImage(moving);
    bsplineRegistration->SetMetric(MakeMetric(o));
    bsplineRegistration->SetOptimizer(bsplineOptimizer);
    if (o.affineStage)
    {
      bsplineRegistration->SetMovingInitialTransform(affineRegistration->GetModifiableTransform());
    }
    bsplineRegistration->SetInitialTransform(bspline);
    bsplineRegistration->InPlaceOn();
    ConfigureLevels(bsplineRegistration.GetPointer(), o);
    bsplineRegistration->SetTransformParametersAdaptorsPerLevel(adaptors);
    auto bsplineObserver = LevelObserver<BSplineRegistration>::New();
    bsplineObserver->Watch(bsplineRegistration, "B-spline");
    const auto bsplineStart = std::chrono::steady_clock::now();
    bsplineRegistration->Update();
    bsplineObserver->Flush();
    const double bsplineSeconds = Seconds(bsplineStart);

    auto result = itk::CompositeTransform<double, D>::New();
    if (o.affineStage)
    {
      result->AddTransform(affineRegistration->GetModifiableTransform());
    }
    result->AddTransform(bsplineRegistration->GetModifiableTransform());
    double mean, largest, before, beforeLargest;
    auto   identity = AffineType::New();
    FieldError(fixed, identity, truth, before, beforeLargest);
    FieldError(fixed, result, truth, mean, largest);
    std::cout << "time: affine " << std::setprecision(3) << affineSeconds << " s, B-spline " << bsplineSeconds
              << " s (final grid " << finalMesh << "^3 cells, " << bspline->GetNumberOfParameters()
              << " parameters), total " << affineSeconds + bsplineSeconds << " s\n"
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
