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
// CorrelationImageToImageMetricv4GPU against ITK's CorrelationImageToImageMetricv4:
// value and derivative on fresh random images for every transform kind, dense and
// sampled points, gradient filter and calculator, masks, linear and cubic moving
// interpolation; run-to-run bits; that the comparison fails for a slightly wrong
// mean; ITK's answers without overlap, for zero variance and for an empty sampled
// point set; ITK's code (with its means pass) for a transform the module does not
// take. The CPU path runs everywhere (CI); the GPU cases skip without a device.
#include "cifMetricTestSupport.h"
#include "itkCorrelationImageToImageMetricv4GPU.h"
#include "itkDisplacementFieldTransform.h"
#include "itkRegistrationGPUFactory.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <iostream>

namespace
{
using namespace cif_test;

template <typename TPixel, unsigned int D>
using ITKCorrelation = itk::CorrelationImageToImageMetricv4<itk::Image<TPixel, D>, itk::Image<TPixel, D>>;
template <typename TPixel, unsigned int D>
using ModuleCorrelation = itk::CorrelationImageToImageMetricv4GPU<itk::Image<TPixel, D>, itk::Image<TPixel, D>>;

/** The cases' images: the moving one half the fixed one. For unrelated images the
 * correlation r can come out near 0, and -r^2's relative error, from the module's
 * samples differing from ITK's at float level (1e-8 of MeanSquares' value), grows
 * as 1 / |r| (measured 2.8e-6 at r = 9e-3): a relative bound on the value would
 * then test the conditioning, not the metric. Blended, r stays well away from 0. */
MetricCase
Related()
{
  MetricCase c;
  c.movingFromFixed = 0.8;
  return c;
}

void
ReportMeasured(const char * what, const MetricDifferences & d)
{
  std::cout << "[ measure  ] " << what << ": largest relative difference to ITK: value " << d.value << ", derivative "
            << d.derivative << " of its norm" << std::endl;
}

template <typename TPixel, unsigned int D>
void
ExpectEveryCaseMatchesITK(bool useGPU)
{
  MetricDifferences measured;
  for (const MetricCase & c : EveryMetricCase(Related()))
  {
    ExpectMatchesITK<ITKCorrelation<TPixel, D>, ModuleCorrelation<TPixel, D>>(c, useGPU, nullptr, &measured);
  }
  ReportMeasured(useGPU ? "GPU" : "CPU path", measured);
}

template <typename TPixel, unsigned int D>
void
ExpectCellBoxCases(bool useGPU)
{
  MetricDifferences measured;
  ExpectCellBoxCasesMatchITK<ITKCorrelation<TPixel, D>, ModuleCorrelation<TPixel, D>>(useGPU, &measured, Related());
  ReportMeasured(useGPU ? "GPU, cell boxes" : "CPU path, cell boxes", measured);
}

TEST(CorrelationMetricv4CPU, CellBoxesWhereTheGridIsAligned)
{
  ExpectCellBoxCases<float, 3>(false);
  ExpectCellBoxCases<float, 2>(false);
}
TEST(CorrelationMetricv4GPU, CellBoxesWhereTheGridIsAligned)
{
  CIF_REQUIRE_GPU();
  ExpectCellBoxCases<float, 3>(true);
  ExpectCellBoxCases<double, 3>(true);
  ExpectCellBoxCases<float, 2>(true);
}

CIF_TEST_ON_CPU_AND_GPU(CorrelationMetricv4, MatchesITK3DFloat, ExpectEveryCaseMatchesITK<float, 3>)
CIF_TEST_ON_CPU_AND_GPU(CorrelationMetricv4, MatchesITK3DDouble, ExpectEveryCaseMatchesITK<double, 3>)
CIF_TEST_ON_CPU_AND_GPU(CorrelationMetricv4, MatchesITK2DFloat, ExpectEveryCaseMatchesITK<float, 2>)

CIF_TEST_ON_CPU_AND_GPU(CorrelationMetricv4, SameBitsEveryRun, [](bool onGPU) {
  ExpectSameBitsTwice<ModuleCorrelation<float, 3>>(onGPU, Related());
})

/** ITK's Correlation with its fixed mean off by kMeanShift intensity units (the
 * images span 200): a small error of the first pass, which leaves the value nearly
 * unchanged (fm does not move to first order) but moves the derivative by
 * 2 fm / (f2 m2) x kMeanShift x sum grad M J. */
constexpr double kMeanShift = 0.02;

class MeanShiftedCorrelation : public ITKCorrelation<float, 3>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MeanShiftedCorrelation);
  using Self = MeanShiftedCorrelation;
  using Superclass = ITKCorrelation<float, 3>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(MeanShiftedCorrelation, CorrelationImageToImageMetricv4);

protected:
  MeanShiftedCorrelation() = default;
  ~MeanShiftedCorrelation() override = default;

  void
  InitializeForIteration() const override
  {
    Superclass::InitializeForIteration();
    this->m_AverageFix += kMeanShift;
  }
};

/** The comparison is sharp enough: against ITK with a mean off by kMeanShift (1e-4
 * of the images' range) the module's derivative fails it (dense, no mask; 100 seeds
 * here: 9.7x to 24x the bound at least). Translation and rigid transforms are left
 * out: a shifted mean moves their derivative along sum grad M J, for them the sum
 * of the gradient (and its moments for the rotations), which can come out small
 * (1.3x the bound, and below it once in 60 seeds). */
void
ExpectComparisonCatchesShiftedMean(bool useGPU)
{
  for (auto transform : { MetricTransformKind::Affine, MetricTransformKind::BSpline, MetricTransformKind::Composite })
  {
    MetricCase c = Related();
    c.transform = transform;
    ::testing::TestPartResultArray failures;
    {
      ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
      ExpectMatchesITK<MeanShiftedCorrelation, ModuleCorrelation<float, 3>>(c, useGPU);
    }
    bool derivativeFailed = false;
    for (int k = 0; k < failures.size(); ++k)
    {
      derivativeFailed =
        derivativeFailed ||
        std::string(failures.GetTestPartResult(k).message()).find("derivative error") != std::string::npos;
    }
    EXPECT_TRUE(derivativeFailed) << Describe(c) << ": a mean off by " << kMeanShift << " went unnoticed";
    if (failures.size() > 0)
    {
      std::cout << "[ measure  ] " << Describe(c) << ", mean off by " << kMeanShift << ": "
                << failures.GetTestPartResult(failures.size() - 1).message() << std::endl;
    }
  }
}
CIF_TEST_ON_CPU_AND_GPU(CorrelationMetricv4, ComparisonCatchesAShiftedMean, ExpectComparisonCatchesShiftedMean)

/** ITK's metric and the twin on \a fixture (case \a c), evaluated: the pair. */
std::pair<Evaluation, Evaluation>
EvaluateBoth(MetricFixture<float, 3> &              fixture,
             const MetricCase &                     c,
             bool                                   useGPU,
             ModuleCorrelation<float, 3>::Pointer * twin = nullptr)
{
  auto reference = NewITKOwn<ITKCorrelation<float, 3>, ModuleCorrelation<float, 3>>();
  fixture.Configure(reference.GetPointer(), c);
  auto module = ModuleCorrelation<float, 3>::New();
  module->SetUseGPU(useGPU);
  fixture.Configure(module.GetPointer(), c);
  const Evaluation expected = Evaluate(reference.GetPointer());
  const Evaluation actual = Evaluate(module.GetPointer());
  if (twin != nullptr)
  {
    *twin = module;
  }
  return { expected, actual };
}

/** No point maps inside the moving image: ITK's answer (its warnings, the largest
 * value, a zero derivative), not an exception, a crash or NaN. */
void
ExpectNoOverlapAsITK(bool useGPU)
{
  MetricCase              c;
  MetricFixture<float, 3> fixture(c, FreshSeed());
  auto                    far = itk::TranslationTransform<double, 3>::New();
  itk::Vector<double, 3>  offset;
  offset.Fill(1000.0);
  far->SetOffset(offset);
  fixture.transform = far.GetPointer();
  ModuleCorrelation<float, 3>::Pointer twin;
  const auto [expected, actual] = EvaluateBoth(fixture, c, useGPU, &twin);
  EXPECT_EQ(twin->GetLastExecutionPath(), useGPU ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU);
  EXPECT_EQ(expected.validPoints, 0u);
  EXPECT_EQ(actual.validPoints, 0u);
  EXPECT_EQ(expected.value, itk::NumericTraits<double>::max());
  EXPECT_EQ(actual.value, expected.value);
  ASSERT_EQ(actual.derivative.size(), expected.derivative.size());
  for (unsigned int k = 0; k < actual.derivative.size(); ++k)
  {
    EXPECT_EQ(actual.derivative[k], 0.0);
  }
}
CIF_TEST_ON_CPU_AND_GPU(CorrelationMetricv4, NoOverlapAsITK, ExpectNoOverlapAsITK)

/** A constant moving image (m2 = 0, f2 m2 below epsilon): ITK's value 0 and zero
 * derivative, for every point set. */
void
ExpectZeroVarianceAsITK(bool useGPU)
{
  for (auto sampling : { Sampling::Dense, Sampling::Random })
  {
    MetricCase c;
    c.sampling = sampling;
    MetricFixture<float, 3> fixture(c, FreshSeed());
    fixture.moving->FillBuffer(42.0f);
    const auto [expected, actual] = EvaluateBoth(fixture, c, useGPU);
    EXPECT_GT(expected.validPoints, 0u);
    EXPECT_EQ(actual.validPoints, expected.validPoints);
    EXPECT_EQ(expected.value, 0.0);
    EXPECT_EQ(actual.value, 0.0);
    ASSERT_EQ(actual.derivative.size(), expected.derivative.size());
    for (unsigned int k = 0; k < actual.derivative.size(); ++k)
    {
      EXPECT_EQ(actual.derivative[k], 0.0);
      EXPECT_EQ(expected.derivative[k], 0.0);
    }
  }
}
CIF_TEST_ON_CPU_AND_GPU(CorrelationMetricv4, ZeroVarianceAsITK, ExpectZeroVarianceAsITK)

/** An empty sampled point set: ITK's exception, from either metric (ITK's
 * Initialize() refuses it before its InitializeForIteration would). */
void
ExpectEmptyPointSetThrows(bool useGPU)
{
  MetricCase c;
  c.sampling = Sampling::Random;
  MetricFixture<float, 3> fixture(c, FreshSeed());
  fixture.points = MetricFixture<float, 3>::PointSetType::New();
  for (bool itk : { true, false })
  {
    SCOPED_TRACE(itk ? "ITK" : "module");
    ITKCorrelation<float, 3>::Pointer metric;
    if (itk)
    {
      metric = NewITKOwn<ITKCorrelation<float, 3>, ModuleCorrelation<float, 3>>();
    }
    else
    {
      auto module = ModuleCorrelation<float, 3>::New();
      module->SetUseGPU(useGPU);
      metric = module.GetPointer();
    }
    try
    {
      fixture.Configure(metric.GetPointer(), c);
      Evaluate(metric.GetPointer());
      ADD_FAILURE() << "no exception";
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_NE(std::string(e.GetDescription()).find("Fixed Sample point set is empty"), std::string::npos)
        << e.GetDescription();
    }
  }
}
CIF_TEST_ON_CPU_AND_GPU(CorrelationMetricv4, EmptyPointSetThrowsAsITK, ExpectEmptyPointSetThrows)

/** A transform the module does not take (a displacement field) runs ITK's code,
 * with ITK's means pass (which the twin's InitializeForIteration skips), says so,
 * and gives ITK's numbers. */
TEST(CorrelationMetricv4CPU, OtherTransformRunsITK)
{
  MetricCase              c;
  MetricFixture<float, 3> fixture(c, FreshSeed());
  using FieldTransform = itk::DisplacementFieldTransform<double, 3>;
  auto field = FieldTransform::DisplacementFieldType::New();
  field->CopyInformation(fixture.fixed);
  field->SetRegions(fixture.fixed->GetLargestPossibleRegion());
  field->Allocate();
  FieldTransform::OutputVectorType shift;
  shift.Fill(0.25);
  field->FillBuffer(shift);
  auto transform = FieldTransform::New();
  transform->SetDisplacementField(field);
  fixture.transform = transform.GetPointer();
  ModuleCorrelation<float, 3>::Pointer twin;
  const auto [expected, actual] = EvaluateBoth(fixture, c, false, &twin);
  EXPECT_EQ(twin->GetLastExecutionPath(), itk::CudaExecutionPath::ITK);
  EXPECT_NE(twin->GetLastExecutionReason().find("DisplacementFieldTransform"), std::string::npos)
    << twin->GetLastExecutionReason();
  EXPECT_LT(expected.value, 0.0);
  EXPECT_EQ(actual.value, expected.value);
  EXPECT_EQ(actual.validPoints, expected.validPoints);
}

/** With the factory registered, ITK's New() gives the module's metric. */
TEST(CorrelationMetricv4CPU, FactoryGivesTheTwin)
{
  itk::RegistrationGPUFactory::RegisterOneFactory();
  using Twin3D = ModuleCorrelation<float, 3>;
  using Twin2D = ModuleCorrelation<double, 2>;
  auto metric = ITKCorrelation<float, 3>::New();
  EXPECT_NE(dynamic_cast<Twin3D *>(metric.GetPointer()), nullptr);
  auto metric2D = ITKCorrelation<double, 2>::New();
  EXPECT_NE(dynamic_cast<Twin2D *>(metric2D.GetPointer()), nullptr);
}
} // namespace
