// MeanSquaresImageToImageMetricv4GPU against ITK's MeanSquaresImageToImageMetricv4:
// value and derivative on fresh random images for every transform kind, dense and
// sampled points, gradient filter and calculator, masks, linear and cubic moving
// interpolation; run-to-run bits; ITK's behaviour without overlap; ITK's code for a
// transform the module does not take. The CPU path runs everywhere (CI); the GPU
// cases skip without a device.
#include "cifMetricTestSupport.h"
#include "itkDisplacementFieldTransform.h"
#include "itkMeanSquaresImageToImageMetricv4GPU.h"
#include "itkPointSet.h"
#include "itkRegistrationGPUFactory.h"

#include <gtest/gtest.h>

namespace
{
using namespace cif_test;

enum class Sampling
{
  Dense,
  Regular,
  Random
};

struct MetricCase
{
  MetricTransformKind transform = MetricTransformKind::Affine;
  Sampling            sampling = Sampling::Dense;
  bool                gradientFilter = true;
  bool                masks = false;
  bool                cubicMoving = false;
};

std::string
Describe(const MetricCase & c)
{
  std::ostringstream s;
  s << ToString(c.transform) << ", "
    << (c.sampling == Sampling::Dense ? "dense" : c.sampling == Sampling::Regular ? "regular" : "random") << ", "
    << (c.gradientFilter ? "gradient filter" : "calculator") << ", " << (c.masks ? "masks" : "no mask") << ", "
    << (c.cubicMoving ? "cubic" : "linear") << " moving";
  return s.str();
}

template <typename TPixel, unsigned int D>
struct MetricFixture
{
  using ImageType = itk::Image<TPixel, D>;
  using CPUMetric = itk::MeanSquaresImageToImageMetricv4<ImageType, ImageType>;
  using GPUMetric = itk::MeanSquaresImageToImageMetricv4GPU<ImageType, ImageType>;
  using TransformType = itk::Transform<double, D, D>;
  using PointSetType = typename CPUMetric::FixedSampledPointSetType;

  typename ImageType::Pointer           fixed;
  typename ImageType::Pointer           moving;
  typename TransformType::Pointer       transform;
  typename PointSetType::Pointer        points;
  typename itk::ImageMaskSpatialObject<D, unsigned char>::Pointer fixedMask, movingMask;

  MetricFixture(const MetricCase & c, std::uint32_t seed)
  {
    std::mt19937                        rng(seed);
    typename ImageType::SizeType        size;
    typename ImageType::IndexType       start;
    for (unsigned int a = 0; a < D; ++a)
    {
      size[a] = (D == 3 ? 28 : 64) + 3 * a;
      start[a] = static_cast<long>(a);
    }
    fixed = MakeImage<ImageType>(size, start, Content::Smooth, rng());
    moving = MakeImage<ImageType>(size, start, Content::Smooth, rng());
    typename ImageType::PointType origin;
    for (unsigned int a = 0; a < D; ++a)
    {
      origin[a] = 3.0 * a - 2.0;
    }
    fixed->SetOrigin(origin);
    moving->SetOrigin(origin);
    switch (c.transform)
    {
      case MetricTransformKind::BSpline:
        transform = MakeRandomBSpline<D>(fixed, 5, 0.6, rng).GetPointer();
        break;
      case MetricTransformKind::Composite:
      {
        auto composite = itk::CompositeTransform<double, D>::New();
        composite->AddTransform(MakeRandomAffineFamily<D>(MetricTransformKind::Affine, fixed, rng));
        composite->AddTransform(MakeRandomBSpline<D>(fixed, 4, 0.6, rng));
        composite->SetOnlyMostRecentTransformToOptimizeOn();
        transform = composite.GetPointer();
        break;
      }
      default:
        transform = MakeRandomAffineFamily<D>(c.transform, fixed, rng);
    }
    if (c.sampling != Sampling::Dense)
    {
      points = PointSetType::New();
      std::uniform_real_distribution<double> u(0.0, 1.0);
      const auto                             region = fixed->GetLargestPossibleRegion();
      unsigned long                          n = 0, visited = 0;
      for (itk::ImageRegionConstIteratorWithIndex<ImageType> it(fixed, region); !it.IsAtEnd(); ++it)
      {
        const bool take = c.sampling == Sampling::Random ? u(rng) < 0.1 : (visited++ % 7) == 0;
        if (!take)
        {
          continue;
        }
        itk::ContinuousIndex<double, D> index;
        for (unsigned int a = 0; a < D; ++a)
        {
          index[a] = it.GetIndex()[a] + (c.sampling == Sampling::Random ? u(rng) - 0.5 : 0.3 * (u(rng) - 0.5));
        }
        typename PointSetType::PointType p;
        fixed->TransformContinuousIndexToPhysicalPoint(index, p);
        points->SetPoint(n++, p);
      }
    }
    if (c.masks)
    {
      fixedMask = MakeRandomMask<D>(fixed, rng);
      movingMask = MakeRandomMask<D>(moving, rng);
    }
  }

  template <typename TMetric>
  void
  Configure(TMetric * metric, const MetricCase & c) const
  {
    metric->SetFixedImage(fixed);
    metric->SetMovingImage(moving);
    metric->SetMovingTransform(transform);
    if (c.cubicMoving)
    {
      auto cubic = itk::BSplineInterpolateImageFunction<ImageType, double, double>::New();
      cubic->SetSplineOrder(3);
      metric->SetMovingInterpolator(cubic);
    }
    metric->SetUseMovingImageGradientFilter(c.gradientFilter);
    if (points)
    {
      metric->SetFixedSampledPointSet(points);
      metric->SetUseSampledPointSet(true);
    }
    if (c.masks)
    {
      metric->SetFixedImageMask(fixedMask);
      metric->SetMovingImageMask(movingMask);
    }
    metric->Initialize();
  }
};

struct Evaluation
{
  double                   value = 0.0;
  itk::Array<double>       derivative;
  itk::SizeValueType       validPoints = 0;
};

template <typename TMetric>
Evaluation
Evaluate(TMetric * metric)
{
  Evaluation e;
  typename TMetric::DerivativeType derivative;
  typename TMetric::MeasureType    value;
  metric->GetValueAndDerivative(value, derivative);
  e.value = value;
  e.derivative = derivative;
  e.validPoints = metric->GetNumberOfValidPoints();
  return e;
}

double
Norm(const itk::Array<double> & a)
{
  double s = 0.0;
  for (unsigned int k = 0; k < a.size(); ++k)
  {
    s += a[k] * a[k];
  }
  return std::sqrt(s);
}

template <typename TPixel, unsigned int D>
void
ExpectMatchesITK(const MetricCase & c, bool useGPU)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(Describe(c) + ", seed " + std::to_string(seed));
  MetricFixture<TPixel, D> fixture(c, seed);
  auto                     reference = MetricFixture<TPixel, D>::CPUMetric::New();
  fixture.Configure(reference.GetPointer(), c);
  auto module = MetricFixture<TPixel, D>::GPUMetric::New();
  module->SetUseGPU(useGPU);
  fixture.Configure(module.GetPointer(), c);

  const Evaluation expected = Evaluate(reference.GetPointer());
  const Evaluation actual = Evaluate(module.GetPointer());
  ASSERT_EQ(module->GetLastExecutionPath(), useGPU ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU)
    << module->GetLastExecutionReason();
  ASSERT_GT(expected.validPoints, 0u);
  EXPECT_EQ(actual.validPoints, expected.validPoints);
  EXPECT_LE(std::abs(actual.value - expected.value), 1e-5 * std::abs(expected.value))
    << "value " << actual.value << " vs ITK " << expected.value;
  ASSERT_EQ(actual.derivative.size(), expected.derivative.size());
  const itk::Array<double> difference(actual.derivative - expected.derivative);
  const double       norm = Norm(expected.derivative);
  ASSERT_GT(norm, 0.0);
  EXPECT_LE(Norm(difference), 1e-4 * norm) << "derivative error " << Norm(difference) / norm << " of its norm";

  // GetValue alone: the same value.
  EXPECT_LE(std::abs(module->GetValue() - expected.value), 1e-5 * std::abs(expected.value));
}

std::vector<MetricCase>
EveryCase()
{
  std::vector<MetricCase> cases;
  for (auto transform : { MetricTransformKind::Affine, MetricTransformKind::Translation, MetricTransformKind::Rigid,
                          MetricTransformKind::BSpline, MetricTransformKind::Composite })
  {
    for (auto sampling : { Sampling::Dense, Sampling::Regular, Sampling::Random })
    {
      for (bool gradientFilter : { true, false })
      {
        for (bool masks : { false, true })
        {
          MetricCase c;
          c.transform = transform;
          c.sampling = sampling;
          c.gradientFilter = gradientFilter;
          c.masks = masks;
          c.cubicMoving = (static_cast<int>(transform) + static_cast<int>(sampling) + masks) % 2 == 1;
          cases.push_back(c);
        }
      }
    }
  }
  return cases;
}

template <typename TPixel, unsigned int D>
void
ExpectEveryCaseMatchesITK(bool useGPU)
{
  for (const MetricCase & c : EveryCase())
  {
    ExpectMatchesITK<TPixel, D>(c, useGPU);
  }
}

TEST(MeanSquaresMetricv4CPU, MatchesITK3DFloat) { ExpectEveryCaseMatchesITK<float, 3>(false); }
TEST(MeanSquaresMetricv4CPU, MatchesITK3DDouble) { ExpectEveryCaseMatchesITK<double, 3>(false); }
TEST(MeanSquaresMetricv4CPU, MatchesITK2DFloat) { ExpectEveryCaseMatchesITK<float, 2>(false); }
TEST(MeanSquaresMetricv4GPU, MatchesITK3DFloat)
{
  CIF_REQUIRE_GPU();
  ExpectEveryCaseMatchesITK<float, 3>(true);
}
TEST(MeanSquaresMetricv4GPU, MatchesITK3DDouble)
{
  CIF_REQUIRE_GPU();
  ExpectEveryCaseMatchesITK<double, 3>(true);
}
TEST(MeanSquaresMetricv4GPU, MatchesITK2DFloat)
{
  CIF_REQUIRE_GPU();
  ExpectEveryCaseMatchesITK<float, 2>(true);
}

/** Two evaluations give the same bits (B-spline, dense: the gather). */
void
ExpectSameBitsTwice(bool useGPU)
{
  MetricCase c;
  c.transform = MetricTransformKind::BSpline;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  MetricFixture<float, 3> fixture(c, seed);
  auto                    module = MetricFixture<float, 3>::GPUMetric::New();
  module->SetUseGPU(useGPU);
  fixture.Configure(module.GetPointer(), c);
  const Evaluation first = Evaluate(module.GetPointer());
  const Evaluation second = Evaluate(module.GetPointer());
  EXPECT_EQ(std::memcmp(&first.value, &second.value, sizeof(double)), 0);
  ASSERT_EQ(first.derivative.size(), second.derivative.size());
  EXPECT_EQ(std::memcmp(first.derivative.data_block(), second.derivative.data_block(),
                        first.derivative.size() * sizeof(double)),
            0);
}
TEST(MeanSquaresMetricv4CPU, SameBitsEveryRun) { ExpectSameBitsTwice(false); }
TEST(MeanSquaresMetricv4GPU, SameBitsEveryRun)
{
  CIF_REQUIRE_GPU();
  ExpectSameBitsTwice(true);
}

/** No point maps inside the moving image: ITK's answer (its warning, the largest
 * value, a zero derivative), not a crash or NaN. */
void
ExpectNoOverlapAsITK(bool useGPU)
{
  MetricCase c;
  c.transform = MetricTransformKind::Translation;
  MetricFixture<float, 3> fixture(c, FreshSeed());
  auto                    far = itk::TranslationTransform<double, 3>::New();
  itk::Vector<double, 3>  offset;
  offset.Fill(1000.0);
  far->SetOffset(offset);
  fixture.transform = far.GetPointer();
  auto module = MetricFixture<float, 3>::GPUMetric::New();
  module->SetUseGPU(useGPU);
  fixture.Configure(module.GetPointer(), c);
  const Evaluation e = Evaluate(module.GetPointer());
  EXPECT_EQ(e.validPoints, 0u);
  EXPECT_EQ(e.value, itk::NumericTraits<double>::max());
  for (unsigned int k = 0; k < e.derivative.size(); ++k)
  {
    EXPECT_EQ(e.derivative[k], 0.0);
  }
}
TEST(MeanSquaresMetricv4CPU, NoOverlapAsITK) { ExpectNoOverlapAsITK(false); }
TEST(MeanSquaresMetricv4GPU, NoOverlapAsITK)
{
  CIF_REQUIRE_GPU();
  ExpectNoOverlapAsITK(true);
}

/** A transform the module does not take (a displacement field) runs ITK's code,
 * says so, and gives ITK's numbers. */
TEST(MeanSquaresMetricv4CPU, OtherTransformRunsITK)
{
  MetricCase c;
  MetricFixture<float, 3> fixture(c, FreshSeed());
  using FieldTransform = itk::DisplacementFieldTransform<double, 3>;
  auto field = FieldTransform::DisplacementFieldType::New();
  field->CopyInformation(fixture.fixed);
  field->SetRegions(fixture.fixed->GetLargestPossibleRegion());
  field->Allocate();
  FieldTransform::OutputVectorType zero;
  zero.Fill(0.25);
  field->FillBuffer(zero);
  auto transform = FieldTransform::New();
  transform->SetDisplacementField(field);
  fixture.transform = transform.GetPointer();
  auto reference = MetricFixture<float, 3>::CPUMetric::New();
  fixture.Configure(reference.GetPointer(), c);
  auto module = MetricFixture<float, 3>::GPUMetric::New();
  fixture.Configure(module.GetPointer(), c);
  const Evaluation expected = Evaluate(reference.GetPointer());
  const Evaluation actual = Evaluate(module.GetPointer());
  EXPECT_EQ(module->GetLastExecutionPath(), itk::CudaExecutionPath::ITK);
  EXPECT_NE(module->GetLastExecutionReason().find("DisplacementFieldTransform"), std::string::npos)
    << module->GetLastExecutionReason();
  EXPECT_EQ(actual.value, expected.value);
}

/** With the factory registered, ITK's New() gives the module's metric. */
TEST(MeanSquaresMetricv4CPU, FactoryGivesTheTwin)
{
  itk::RegistrationGPUFactory::RegisterOneFactory();
  using ImageType = itk::Image<float, 3>;
  auto metric = itk::MeanSquaresImageToImageMetricv4<ImageType, ImageType>::New();
  using Twin = itk::MeanSquaresImageToImageMetricv4GPU<ImageType, ImageType>;
  EXPECT_NE(dynamic_cast<Twin *>(metric.GetPointer()), nullptr);
}
} // namespace
