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
// ANTSNeighborhoodCorrelationImageToImageMetricv4GPU against ITK's
// ANTSNeighborhoodCorrelationImageToImageMetricv4 on fresh random images: 2-D and 3-D,
// float and double, radius 1 to 4, masks, gradient filter and calculator, affine-family
// and displacement-field moving transforms (the derivative a field: each voxel's force
// against ITK's), fixed displacement fields; a comparison that catches another radius; run-to-run bits; ITK's
// answer without overlap; ITK's code for what the module does not take. The CPU path
// runs everywhere (CI); the GPU cases skip without a device.
#include "cifMetricTestSupport.h"
#include "itkANTSNeighborhoodCorrelationImageToImageMetricv4GPU.h"
#include "itkGaussianSmoothingOnUpdateDisplacementFieldTransform.h"
#include "itkRegistrationGPUFactory.h"

#include <gtest/gtest.h>

#include <cstring>
#include <iostream>

namespace
{
using namespace cif_test;

template <typename TPixel, unsigned int D>
using ITKNeighborhoodCorrelation =
  itk::ANTSNeighborhoodCorrelationImageToImageMetricv4<itk::Image<TPixel, D>, itk::Image<TPixel, D>>;
template <typename TPixel, unsigned int D>
using ModuleNeighborhoodCorrelation =
  itk::ANTSNeighborhoodCorrelationImageToImageMetricv4GPU<itk::Image<TPixel, D>, itk::Image<TPixel, D>>;

enum class MovingKind
{
  Affine,
  Rigid,
  Field,         ///< a DisplacementFieldTransform over the virtual domain
  SmoothedField, ///< GaussianSmoothingOnUpdateDisplacementFieldTransform
};

const char *
ToString(MovingKind k)
{
  switch (k)
  {
    case MovingKind::Affine:
      return "affine";
    case MovingKind::Rigid:
      return "rigid";
    case MovingKind::Field:
      return "displacement field";
    default:
      return "smoothing-on-update field";
  }
}

struct CorrelationCase
{
  MovingKind   moving = MovingKind::Field;
  bool         fixedField = false; ///< a fixed displacement field too (SyN's middle)
  unsigned int radius = 2;
  bool         masks = false;
  bool         gradientFilter = true;
};

std::string
Describe(const CorrelationCase & c)
{
  std::ostringstream s;
  s << ToString(c.moving) << (c.fixedField ? ", fixed field" : "") << ", radius " << c.radius
    << (c.masks ? ", masks" : "") << (c.gradientFilter ? ", gradient filter" : ", calculator");
  return s.str();
}

/** A smooth random field on \a image's grid, up to \a voxels voxels long. */
template <unsigned int D, typename TField>
typename TField::Pointer
MakeRandomField(const itk::ImageBase<D> * image, double voxels, std::mt19937 & rng)
{
  auto field = TField::New();
  field->CopyInformation(image);
  field->SetRegions(image->GetLargestPossibleRegion());
  field->Allocate();
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double                                 phase[3][3], frequency[3][3];
  for (auto & row : phase)
  {
    for (double & p : row)
    {
      p = 3.0 * u(rng);
    }
  }
  for (auto & row : frequency)
  {
    for (double & f : row)
    {
      f = 0.15 * u(rng);
    }
  }
  for (itk::ImageRegionIteratorWithIndex<TField> it(field, field->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    typename TField::PixelType v;
    for (unsigned int a = 0; a < D; ++a)
    {
      double s = 0.0;
      for (unsigned int b = 0; b < D; ++b)
      {
        s += std::sin(frequency[a][b] * it.GetIndex()[b] + phase[a][b]);
      }
      v[a] = voxels * image->GetSpacing()[a] * s / D;
    }
    it.Set(v);
  }
  return field;
}

template <typename TPixel, unsigned int D>
struct CorrelationFixture
{
  using ImageType = itk::Image<TPixel, D>;
  using FieldTransform = itk::DisplacementFieldTransform<double, D>;
  using SmoothedTransform = itk::GaussianSmoothingOnUpdateDisplacementFieldTransform<double, D>;
  using FieldType = typename FieldTransform::DisplacementFieldType;

  typename ImageType::Pointer                                     fixed, moving;
  typename itk::Transform<double, D, D>::Pointer                  movingTransform;
  typename FieldTransform::Pointer                                fixedTransform;
  typename itk::ImageMaskSpatialObject<D, unsigned char>::Pointer fixedMask, movingMask;

  CorrelationFixture(const CorrelationCase & c, std::uint32_t seed)
  {
    std::mt19937                  rng(seed);
    typename ImageType::SizeType  size;
    typename ImageType::IndexType start;
    for (unsigned int a = 0; a < D; ++a)
    {
      size[a] = (D == 3 ? 20 : 48) + 3 * a;
      start[a] = static_cast<long>(a);
    }
    fixed = MakeImage<ImageType>(size, start, Content::Smooth, rng());
    moving = MakeImage<ImageType>(size, start, Content::Smooth, rng());
    typename ImageType::SpacingType spacing;
    typename ImageType::PointType   origin;
    for (unsigned int a = 0; a < D; ++a)
    {
      spacing[a] = 0.8 + 0.2 * a;
      origin[a] = 3.0 * a - 2.0;
    }
    for (auto * image : { fixed.GetPointer(), moving.GetPointer() })
    {
      image->SetSpacing(spacing);
      image->SetOrigin(origin);
    }
    // Related images: the moving one partly the fixed one (ANTs' correlation of
    // unrelated smooth images is near 0 in many windows).
    for (itk::ImageRegionIteratorWithIndex<ImageType> it(moving, moving->GetBufferedRegion()); !it.IsAtEnd(); ++it)
    {
      it.Set(static_cast<TPixel>(0.4 * it.Get() + 0.6 * fixed->GetPixel(it.GetIndex())));
    }
    switch (c.moving)
    {
      case MovingKind::Affine:
        movingTransform = MakeRandomAffineFamily<D>(MetricTransformKind::Affine, fixed, rng);
        break;
      case MovingKind::Rigid:
        movingTransform = MakeRandomAffineFamily<D>(MetricTransformKind::Rigid, fixed, rng);
        break;
      case MovingKind::Field:
      {
        auto t = FieldTransform::New();
        t->SetDisplacementField(MakeRandomField<D, FieldType>(fixed, 1.5, rng));
        movingTransform = t.GetPointer();
        break;
      }
      default:
      {
        auto t = SmoothedTransform::New();
        t->SetDisplacementField(MakeRandomField<D, FieldType>(fixed, 1.5, rng));
        movingTransform = t.GetPointer();
      }
    }
    if (c.fixedField)
    {
      fixedTransform = FieldTransform::New();
      fixedTransform->SetDisplacementField(MakeRandomField<D, FieldType>(fixed, 1.0, rng));
    }
    if (c.masks)
    {
      fixedMask = MakeRandomMask<D>(fixed, rng);
      movingMask = MakeRandomMask<D>(moving, rng);
    }
  }

  template <typename TMetric>
  void
  Configure(TMetric * metric, const CorrelationCase & c) const
  {
    metric->SetFixedImage(fixed);
    metric->SetMovingImage(moving);
    metric->SetMovingTransform(movingTransform);
    if (fixedTransform)
    {
      metric->SetFixedTransform(fixedTransform);
    }
    typename TMetric::RadiusType radius;
    radius.Fill(c.radius);
    metric->SetRadius(radius);
    metric->SetUseMovingImageGradientFilter(c.gradientFilter);
    if (c.masks)
    {
      metric->SetFixedImageMask(fixedMask);
      metric->SetMovingImageMask(movingMask);
    }
    metric->Initialize();
  }
};

/** ITK's metric with the module's factory out of the way (the test binary may have
 * registered it). */
template <typename TPixel, unsigned int D>
typename ITKNeighborhoodCorrelation<TPixel, D>::Pointer
NewITKMetric()
{
  return NewITKOwn<ITKNeighborhoodCorrelation<TPixel, D>, ModuleNeighborhoodCorrelation<TPixel, D>>();
}

struct Compared
{
  double valueError = 0.0;        ///< relative
  double derivativeError = 0.0;   ///< of ITK's derivative's norm
  double largestVoxelError = 0.0; ///< the largest derivative difference over ITK's largest entry
};

template <typename TPixel, unsigned int D>
Compared
CompareWithITK(const CorrelationCase & c, bool useGPU)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(Describe(c) + ", " + std::to_string(D) + "-D " + typeid(TPixel).name() + ", seed " +
               std::to_string(seed));
  CorrelationFixture<TPixel, D> fixture(c, seed);
  auto                          reference = NewITKMetric<TPixel, D>();
  fixture.Configure(reference.GetPointer(), c);
  auto module = ModuleNeighborhoodCorrelation<TPixel, D>::New();
  module->SetUseGPU(useGPU);
  fixture.Configure(module.GetPointer(), c);
  const Evaluation expected = Evaluate(reference.GetPointer());
  const Evaluation actual = Evaluate(module.GetPointer());
  EXPECT_EQ(module->GetLastExecutionPath(), useGPU ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU)
    << module->GetLastExecutionReason();
  EXPECT_EQ(actual.validPoints, expected.validPoints);
  EXPECT_GT(expected.validPoints, 0u);
  Compared r;
  r.valueError = std::abs(actual.value - expected.value) / std::abs(expected.value);
  EXPECT_LE(r.valueError, 1e-5) << "value " << actual.value << " vs ITK's " << expected.value;
  EXPECT_EQ(actual.derivative.size(), expected.derivative.size());
  itk::Array<double> difference(expected.derivative.size());
  for (unsigned int k = 0; k < difference.size(); ++k)
  {
    difference[k] = actual.derivative[k] - expected.derivative[k];
  }
  const double norm = Norm(expected.derivative);
  EXPECT_GT(norm, 0.0);
  r.derivativeError = Norm(difference) / norm;
  EXPECT_LE(r.derivativeError, 1e-4) << "derivative error";
  double largest = 0.0, largestDifference = 0.0;
  for (unsigned int k = 0; k < difference.size(); ++k)
  {
    largest = std::max(largest, std::abs(expected.derivative[k]));
    largestDifference = std::max(largestDifference, std::abs(difference[k]));
  }
  r.largestVoxelError = largestDifference / largest;
  return r;
}

template <typename TPixel, unsigned int D>
void
ExpectEveryCaseMatchesITK(bool useGPU)
{
  double worstValue = 0.0, worstDerivative = 0.0;
  for (MovingKind moving : { MovingKind::Field, MovingKind::SmoothedField, MovingKind::Affine, MovingKind::Rigid })
  {
    for (unsigned int radius : { 1u, 2u, 4u })
    {
      for (bool masks : { false, true })
      {
        CorrelationCase c;
        c.moving = moving;
        c.radius = radius;
        c.masks = masks;
        c.gradientFilter = radius != 4;
        c.fixedField = moving == MovingKind::Field && radius == 2;
        if (D == 2 && moving == MovingKind::Rigid)
        {
          c.moving = MovingKind::Affine; // the fixture's rigid transform is 3-D only
        }
        const Compared r = CompareWithITK<TPixel, D>(c, useGPU);
        worstValue = std::max(worstValue, r.valueError);
        worstDerivative = std::max(worstDerivative, r.derivativeError);
      }
    }
  }
  std::cout << "[ measure  ] " << (useGPU ? "GPU" : "CPU path") << ": largest relative difference to ITK: value "
            << worstValue << ", derivative " << worstDerivative << " of its norm" << std::endl;
}

CIF_TEST_ON_CPU_AND_GPU(ANTSNeighborhoodCorrelationMetricv4, MatchesITK3DFloat, ExpectEveryCaseMatchesITK<float, 3>)
CIF_TEST_ON_CPU_AND_GPU(ANTSNeighborhoodCorrelationMetricv4, MatchesITK3DDouble, ExpectEveryCaseMatchesITK<double, 3>)
CIF_TEST_ON_CPU_AND_GPU(ANTSNeighborhoodCorrelationMetricv4, MatchesITK2DFloat, ExpectEveryCaseMatchesITK<float, 2>)
CIF_TEST_ON_CPU_AND_GPU(ANTSNeighborhoodCorrelationMetricv4, MatchesITK2DDouble, ExpectEveryCaseMatchesITK<double, 2>)

/** With a displacement field the derivative is each voxel's force: every voxel's
 * within 1e-9 of the largest force of ITK's (the same expressions in the same order;
 * measured 1e-12 and below, the differences coming from the samples' last bits). */
void
ExpectEveryVoxelsForceIsITKs(bool useGPU)
{
  for (bool masks : { false, true })
  {
    CorrelationCase c;
    c.masks = masks;
    EXPECT_LE((CompareWithITK<float, 3>(c, useGPU).largestVoxelError), 1e-9) << Describe(c);
    EXPECT_LE((CompareWithITK<double, 2>(c, useGPU).largestVoxelError), 1e-9) << Describe(c);
  }
}
CIF_TEST_ON_CPU_AND_GPU(ANTSNeighborhoodCorrelationMetricv4, EveryVoxelsForceIsITKs, ExpectEveryVoxelsForceIsITKs)

/** The comparison is sharp enough: a window of radius 3 against ITK's radius 2 fails
 * both bounds. */
TEST(ANTSNeighborhoodCorrelationMetricv4CPU, ComparisonCatchesAnotherRadius)
{
  CorrelationCase              c;
  CorrelationFixture<float, 3> fixture(c, FreshSeed());
  auto                         reference = NewITKMetric<float, 3>();
  fixture.Configure(reference.GetPointer(), c);
  auto module = ModuleNeighborhoodCorrelation<float, 3>::New();
  c.radius = 3;
  fixture.Configure(module.GetPointer(), c);
  const Evaluation expected = Evaluate(reference.GetPointer());
  const Evaluation actual = Evaluate(module.GetPointer());
  EXPECT_GT(std::abs(actual.value - expected.value), 1e-5 * std::abs(expected.value));
  double difference = 0.0;
  for (unsigned int k = 0; k < expected.derivative.size(); ++k)
  {
    difference += (actual.derivative[k] - expected.derivative[k]) * (actual.derivative[k] - expected.derivative[k]);
  }
  EXPECT_GT(std::sqrt(difference), 1e-4 * Norm(expected.derivative));
}

CIF_TEST_ON_CPU_AND_GPU(ANTSNeighborhoodCorrelationMetricv4, SameBitsEveryRun, [](bool useGPU) {
  for (MovingKind moving : { MovingKind::Field, MovingKind::Affine })
  {
    CorrelationCase c;
    c.moving = moving;
    c.masks = true;
    CorrelationFixture<float, 3> fixture(c, FreshSeed());
    auto                         module = ModuleNeighborhoodCorrelation<float, 3>::New();
    module->SetUseGPU(useGPU);
    fixture.Configure(module.GetPointer(), c);
    const Evaluation first = Evaluate(module.GetPointer());
    const Evaluation second = Evaluate(module.GetPointer());
    EXPECT_EQ(std::memcmp(&first.value, &second.value, sizeof(double)), 0) << Describe(c);
    ASSERT_EQ(first.derivative.size(), second.derivative.size());
    EXPECT_EQ(std::memcmp(first.derivative.data_block(), second.derivative.data_block(), first.derivative.size() * 8),
              0)
      << Describe(c);
  }
})

/** No voxel maps inside the moving image: ITK's answer (the largest value, a zero
 * derivative, no valid point), not an exception, a crash or NaN. */
CIF_TEST_ON_CPU_AND_GPU(ANTSNeighborhoodCorrelationMetricv4, NoOverlapGivesITKsAnswer, [](bool useGPU) {
  CorrelationCase c;
  c.moving = MovingKind::Affine;
  CorrelationFixture<float, 3> fixture(c, FreshSeed());
  auto                         far = itk::TranslationTransform<double, 3>::New();
  itk::Vector<double, 3>       offset;
  offset.Fill(1000.0);
  far->SetOffset(offset);
  fixture.movingTransform = far.GetPointer();
  auto reference = NewITKMetric<float, 3>();
  fixture.Configure(reference.GetPointer(), c);
  auto module = ModuleNeighborhoodCorrelation<float, 3>::New();
  module->SetUseGPU(useGPU);
  fixture.Configure(module.GetPointer(), c);
  const Evaluation expected = Evaluate(reference.GetPointer());
  const Evaluation actual = Evaluate(module.GetPointer());
  EXPECT_EQ(module->GetLastExecutionPath(), useGPU ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU);
  EXPECT_EQ(actual.validPoints, 0u);
  EXPECT_EQ(actual.value, expected.value);
  EXPECT_EQ(Norm(actual.derivative), 0.0);
})

/** A sampled point set runs ITK's sparse threader, with the reason, and ITK's value. */
TEST(ANTSNeighborhoodCorrelationMetricv4CPU, SampledPointsRunITKsCode)
{
  CorrelationCase              c;
  CorrelationFixture<float, 3> fixture(c, FreshSeed());
  using PointSet = typename ModuleNeighborhoodCorrelation<float, 3>::FixedSampledPointSetType;
  auto points = PointSet::New();
  for (unsigned int n = 0; n < 200; ++n)
  {
    itk::Index<3> index;
    for (unsigned int a = 0; a < 3; ++a)
    {
      index[a] = static_cast<long>(a + (n * (7 + a)) % 18);
    }
    typename PointSet::PointType p;
    fixture.fixed->TransformIndexToPhysicalPoint(index, p);
    points->SetPoint(n, p);
  }
  auto reference = NewITKMetric<float, 3>();
  reference->SetFixedSampledPointSet(points);
  reference->SetUseSampledPointSet(true);
  fixture.Configure(reference.GetPointer(), c);
  auto module = ModuleNeighborhoodCorrelation<float, 3>::New();
  module->SetFixedSampledPointSet(points);
  module->SetUseSampledPointSet(true);
  fixture.Configure(module.GetPointer(), c);
  const Evaluation expected = Evaluate(reference.GetPointer());
  const Evaluation actual = Evaluate(module.GetPointer());
  EXPECT_EQ(module->GetLastExecutionPath(), itk::CudaExecutionPath::ITK);
  EXPECT_NE(module->GetLastExecutionReason().find("sampled point set"), std::string::npos)
    << module->GetLastExecutionReason();
  EXPECT_EQ(actual.value, expected.value);
}

/** The factory gives the twin where ITK's metric is asked for. */
TEST(ANTSNeighborhoodCorrelationMetricv4CPU, FactoryGivesTheTwin)
{
  itk::RegistrationGPUFactory::RegisterOneFactory();
  auto metric = ITKNeighborhoodCorrelation<float, 3>::New();
  using Twin = ModuleNeighborhoodCorrelation<float, 3>;
  EXPECT_NE(dynamic_cast<Twin *>(metric.GetPointer()), nullptr);
}
} // namespace
