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
// MeanSquaresImageToImageMetricv4GPU against ITK's MeanSquaresImageToImageMetricv4:
// value and derivative on fresh random images for every transform kind, dense and
// sampled points, gradient filter and calculator, masks, linear and cubic moving
// interpolation; run-to-run bits; ITK's behaviour without overlap; ITK's code for a
// transform the module does not take. The CPU path runs everywhere (CI); the GPU
// cases skip without a device.
#include "cifMetricTestSupport.h"
#include "itkDisplacementFieldTransform.h"
#include "itkGradientRecursiveGaussianImageFilter.h"
#include "itkMeanSquaresImageToImageMetricv4GPU.h"
#include "itkPointSet.h"
#include "itkRegistrationGPUFactory.h"

#include <gtest/gtest.h>

namespace
{
using namespace cif_test;
template <typename TPixel, unsigned int D>
void
ExpectEveryCaseMatchesITK(bool useGPU)
{
  using ImageType = itk::Image<TPixel, D>;
  for (const MetricCase & c : EveryMetricCase())
  {
    ExpectMatchesITK<itk::MeanSquaresImageToImageMetricv4<ImageType, ImageType>,
                     itk::MeanSquaresImageToImageMetricv4GPU<ImageType, ImageType>>(c, useGPU);
  }
}

template <typename TPixel, unsigned int D>
void
ExpectCellBoxCases(bool useGPU)
{
  ExpectCellBoxCasesMatchITK<itk::MeanSquaresImageToImageMetricv4<itk::Image<TPixel, D>, itk::Image<TPixel, D>>,
                             itk::MeanSquaresImageToImageMetricv4GPU<itk::Image<TPixel, D>, itk::Image<TPixel, D>>>(
    useGPU);
}

TEST(MeanSquaresMetricv4CPU, CellBoxesWhereTheGridIsAligned)
{
  ExpectCellBoxCases<float, 3>(false);
  ExpectCellBoxCases<float, 2>(false);
}
TEST(MeanSquaresMetricv4GPU, CellBoxesWhereTheGridIsAligned)
{
  CIF_REQUIRE_GPU();
  ExpectCellBoxCases<float, 3>(true);
  ExpectCellBoxCases<double, 3>(true);
  ExpectCellBoxCases<float, 2>(true);
}

CIF_TEST_ON_CPU_AND_GPU(MeanSquaresMetricv4, MatchesITK3DFloat, ExpectEveryCaseMatchesITK<float, 3>)
CIF_TEST_ON_CPU_AND_GPU(MeanSquaresMetricv4, MatchesITK3DDouble, ExpectEveryCaseMatchesITK<double, 3>)
CIF_TEST_ON_CPU_AND_GPU(MeanSquaresMetricv4, MatchesITK2DFloat, ExpectEveryCaseMatchesITK<float, 2>)

using ModuleMeanSquares3D = itk::MeanSquaresImageToImageMetricv4GPU<itk::Image<float, 3>, itk::Image<float, 3>>;
CIF_TEST_ON_CPU_AND_GPU(MeanSquaresMetricv4, SameBitsEveryRun, ExpectSameBitsTwice<ModuleMeanSquares3D>)

TEST(MeanSquaresMetricv4GPU, CoefficientsArrivingWhileTheKernelRunsGiveTheSameBits)
{
  CIF_REQUIRE_GPU();
  ExpectArrivingCoefficientsGiveTheBitsSentBefore<ModuleMeanSquares3D>();
}

/** The GPU path's interleaved moving value and gradient (one load a corner) is built
 * where the device's memory budget has room for it and gives the bits of the two
 * separate images; under a memory cap smaller than it, or where its allocation fails
 * (simulated as the driver's), the path reads the two images, still on the GPU, with
 * the same bits. Affine and B-spline, dense. The gradient comes from ITK's CPU filter
 * here, as a user may set it: the module's GPU filter would refuse the cap itself. */
TEST(MeanSquaresMetricv4GPU, InterleavedMovingSamplesYieldToMemory)
{
  CIF_REQUIRE_GPU();
  enum class Memory
  {
    Enough,
    Capped,
    AllocationFails
  };
  for (auto transform : { MetricTransformKind::Affine, MetricTransformKind::BSpline })
  {
    MetricCase c;
    c.transform = transform;
    const std::uint32_t seed = FreshSeed();
    SCOPED_TRACE(Describe(c) + ", seed " + std::to_string(seed));
    MetricFixture<float, 3> fixture(c, seed);
    // The fixture's moving image has about 30^3 voxels: 16 bytes a voxel interleaved
    // (about 470 KB), 12 for the gradient alone, 4 for each image.
    const std::size_t       voxels = fixture.moving->GetBufferedRegion().GetNumberOfPixels();
    std::vector<Evaluation> results;
    for (Memory memory : { Memory::Enough, Memory::Capped, Memory::AllocationFails })
    {
      SCOPED_TRACE("memory case " + std::to_string(static_cast<int>(memory)));
      ScopedDeviceMemoryLimit       cap(memory == Memory::Capped ? 8 * voxels : 0);
      ScopedAllocationFailuresAbove failures(memory == Memory::AllocationFails ? 14 * voxels : 0);
      auto                          module = ModuleMeanSquares3D::New();
      module->SetUseGPU(true);
      module->SetMovingImageGradientFilter(
        itk::GradientRecursiveGaussianImageFilter<ModuleMeanSquares3D::MovingImageType,
                                                  ModuleMeanSquares3D::MovingImageGradientImageType>::New());
      fixture.Configure(module.GetPointer(), c);
      results.push_back(Evaluate(module.GetPointer()));
      ASSERT_EQ(module->GetLastExecutionPath(), itk::CudaExecutionPath::GPU) << module->GetLastExecutionReason();
      EXPECT_EQ(module->GetInterleavesMovingValueAndGradient(), memory == Memory::Enough);
    }
    for (std::size_t k = 1; k < results.size(); ++k)
    {
      EXPECT_TRUE(SameBits(&results[k].value, &results[0].value, 1)) << "memory case " << k;
      ASSERT_EQ(results[k].derivative.size(), results[0].derivative.size());
      EXPECT_TRUE(
        SameBits(results[k].derivative.data_block(), results[0].derivative.data_block(), results[0].derivative.size()))
        << "memory case " << k;
    }
  }
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
  auto module = itk::MeanSquaresImageToImageMetricv4GPU<itk::Image<float, 3>, itk::Image<float, 3>>::New();
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
CIF_TEST_ON_CPU_AND_GPU(MeanSquaresMetricv4, NoOverlapAsITK, ExpectNoOverlapAsITK)

/** A transform the module does not take (a displacement field) runs ITK's code,
 * says so, and gives ITK's numbers. */
TEST(MeanSquaresMetricv4CPU, OtherTransformRunsITK)
{
  MetricCase              c;
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
  auto reference = itk::MeanSquaresImageToImageMetricv4<itk::Image<float, 3>, itk::Image<float, 3>>::New();
  fixture.Configure(reference.GetPointer(), c);
  auto module = itk::MeanSquaresImageToImageMetricv4GPU<itk::Image<float, 3>, itk::Image<float, 3>>::New();
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
