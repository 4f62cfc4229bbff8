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
// The metric twins' random points per evaluation (elastix's NewSamplesEveryIteration
// with its RandomCoordinate sampler): each evaluation draws new points inside the
// virtual domain (and the fixed mask), and its value and derivative are exactly ITK's
// metric over those points, for MeanSquares, Mattes and Correlation, affine and
// B-spline transforms, with and without masks; the seed gives the same points again;
// the settings that cannot go together and a mask that keeps no point are errors.
#include "cifMetricTestSupport.h"
#include "itkCorrelationImageToImageMetricv4GPU.h"
#include "itkMattesMutualInformationImageToImageMetricv4GPU.h"
#include "itkMeanSquaresImageToImageMetricv4GPU.h"

#include <gtest/gtest.h>

#include <random>

namespace
{
using namespace cif_test;
using ImageType = itk::Image<float, 3>;

template <typename TITK, typename TTwin>
void
ExpectEachEvaluationIsITKsOverItsPoints(bool useGPU)
{
  for (auto transform : { MetricTransformKind::Affine, MetricTransformKind::BSpline })
  {
    for (bool masks : { false, true })
    {
      MetricCase c;
      c.transform = transform;
      c.masks = masks;
      c.movingFromFixed = 0.5; // related images (Correlation's value is ill-conditioned otherwise)
      const std::uint32_t seed = FreshSeed();
      SCOPED_TRACE(Describe(c) + ", seed " + std::to_string(seed));
      MetricFixture<float, 3> fixture(c, seed);
      auto                    twin = TTwin::New();
      twin->SetUseGPU(useGPU);
      twin->SetNumberOfRandomPointsPerEvaluation(700);
      twin->SetRandomPointSeed(seed);
      fixture.Configure(twin.GetPointer(), c);

      std::vector<double> firstCoordinates;
      for (int evaluation = 0; evaluation < 2; ++evaluation)
      {
        const Evaluation actual = Evaluate(twin.GetPointer());
        ASSERT_EQ(twin->GetLastExecutionPath(), useGPU ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU)
          << twin->GetLastExecutionReason();
        const auto * points = twin->GetLastRandomPoints();
        ASSERT_NE(points, nullptr);
        ASSERT_EQ(points->GetNumberOfPoints(), 700u);
        std::vector<double> coordinates;
        for (unsigned int n = 0; n < points->GetNumberOfPoints(); ++n)
        {
          const auto                      p = points->GetPoint(n);
          itk::ContinuousIndex<double, 3> index;
          ASSERT_TRUE(fixture.fixed->TransformPhysicalPointToContinuousIndex(p, index)) << "point " << n << " outside";
          const auto region = fixture.fixed->GetLargestPossibleRegion();
          for (unsigned int a = 0; a < 3; ++a)
          {
            // Between the first and the last voxel centre (1e-9: the round trip).
            ASSERT_GE(index[a], region.GetIndex()[a] - 1e-9);
            ASSERT_LE(index[a], region.GetIndex()[a] + static_cast<double>(region.GetSize()[a]) - 1.0 + 1e-9);
            coordinates.push_back(p[a]);
          }
          if (masks)
          {
            ASSERT_TRUE(fixture.fixedMask->IsInsideInWorldSpace(p)) << "point " << n << " outside the fixed mask";
          }
        }
        if (evaluation == 0)
        {
          firstCoordinates = coordinates;
        }
        else
        {
          EXPECT_NE(coordinates, firstCoordinates) << "the second evaluation drew the same points";
        }

        auto reference = OpenedITKMetric<TITK>::New();
        fixture.Configure(reference.GetPointer(), c);
        reference->EvaluateOver(points);
        const Evaluation expected = Evaluate(reference.GetPointer());
        ASSERT_GT(expected.validPoints, 0u);
        EXPECT_EQ(actual.validPoints, expected.validPoints);
        EXPECT_LE(std::abs(actual.value - expected.value), 1e-5 * std::abs(expected.value))
          << "value " << actual.value << " vs ITK " << expected.value;
        const itk::Array<double> difference(actual.derivative - expected.derivative);
        ASSERT_GT(Norm(expected.derivative), 0.0);
        EXPECT_LE(Norm(difference), 1e-4 * Norm(expected.derivative));
      }

      // Initialize() again with the same seed: the same first points.
      twin->Initialize();
      Evaluate(twin.GetPointer());
      std::vector<double> again;
      for (unsigned int n = 0; n < twin->GetLastRandomPoints()->GetNumberOfPoints(); ++n)
      {
        for (unsigned int a = 0; a < 3; ++a)
        {
          again.push_back(twin->GetLastRandomPoints()->GetPoint(n)[a]);
        }
      }
      EXPECT_EQ(again, firstCoordinates);
    }
  }
}

using MeanSquaresITK = itk::MeanSquaresImageToImageMetricv4<ImageType, ImageType>;
using MattesITK = itk::MattesMutualInformationImageToImageMetricv4<ImageType, ImageType>;
using CorrelationITK = itk::CorrelationImageToImageMetricv4<ImageType, ImageType>;
using MeanSquaresTwin = itk::MeanSquaresImageToImageMetricv4GPU<ImageType, ImageType>;
using MattesTwin = itk::MattesMutualInformationImageToImageMetricv4GPU<ImageType, ImageType>;
using CorrelationTwin = itk::CorrelationImageToImageMetricv4GPU<ImageType, ImageType>;

CIF_TEST_ON_CPU_AND_GPU(MetricRandomPoints,
                        MeanSquaresIsITKsOverEachDraw,
                        ExpectEachEvaluationIsITKsOverItsPoints<MeanSquaresITK, MeanSquaresTwin>)
CIF_TEST_ON_CPU_AND_GPU(MetricRandomPoints,
                        MattesIsITKsOverEachDraw,
                        ExpectEachEvaluationIsITKsOverItsPoints<MattesITK, MattesTwin>)
CIF_TEST_ON_CPU_AND_GPU(MetricRandomPoints,
                        CorrelationIsITKsOverEachDraw,
                        ExpectEachEvaluationIsITKsOverItsPoints<CorrelationITK, CorrelationTwin>)

/** elastix's UseRandomSampleRegion: each evaluation's points lie in one box of the
 * size asked for (physical units per axis), the box moves between evaluations, and the
 * value is still exactly ITK's over the points drawn. */
void
ExpectEachDrawInsideARandomBox(bool useGPU)
{
  for (bool masks : { false, true })
  {
    MetricCase c;
    c.masks = masks;
    c.movingFromFixed = 0.5;
    const std::uint32_t seed = FreshSeed();
    SCOPED_TRACE(Describe(c) + ", seed " + std::to_string(seed));
    MetricFixture<float, 3>                fixture(c, seed);
    std::mt19937                           rng(seed);
    std::uniform_real_distribution<double> fraction(0.35, 0.6);
    const auto                             region = fixture.fixed->GetLargestPossibleRegion();
    const auto &                           spacing = fixture.fixed->GetSpacing();
    std::vector<double>                    box(3);
    for (unsigned int a = 0; a < 3; ++a)
    {
      box[a] = fraction(rng) * (region.GetSize()[a] - 1) * spacing[a];
    }
    auto twin = MeanSquaresTwin::New();
    twin->SetUseGPU(useGPU);
    twin->SetNumberOfRandomPointsPerEvaluation(400);
    twin->SetRandomPointSeed(seed);
    twin->SetRandomSampleRegionSize(box);
    fixture.Configure(twin.GetPointer(), c);
    std::vector<std::vector<double>> lows;
    for (int evaluation = 0; evaluation < 4; ++evaluation)
    {
      const Evaluation actual = Evaluate(twin.GetPointer());
      ASSERT_EQ(twin->GetLastExecutionPath(), useGPU ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU);
      const auto * points = twin->GetLastRandomPoints();
      ASSERT_EQ(points->GetNumberOfPoints(), 400u);
      std::vector<double> low(3, 1e300), high(3, -1e300);
      for (unsigned int n = 0; n < points->GetNumberOfPoints(); ++n)
      {
        itk::ContinuousIndex<double, 3> index;
        ASSERT_TRUE(fixture.fixed->TransformPhysicalPointToContinuousIndex(points->GetPoint(n), index));
        for (unsigned int a = 0; a < 3; ++a)
        {
          low[a] = std::min(low[a], index[a]);
          high[a] = std::max(high[a], index[a]);
        }
      }
      for (unsigned int a = 0; a < 3; ++a)
      {
        // float coordinates: 1e-5 of the extent
        EXPECT_LE((high[a] - low[a]) * spacing[a], box[a] * (1 + 1e-5)) << "axis " << a;
        // 400 uniform points leave less than half of a side empty with odds below 1e-100;
        // a fixed mask may cut the box, so only the unmasked case has that bound.
        if (!masks)
        {
          EXPECT_GE((high[a] - low[a]) * spacing[a], 0.5 * box[a]) << "axis " << a << ": the box is hardly filled";
        }
        EXPECT_GE(low[a], region.GetIndex()[a] - 1e-6);
        EXPECT_LE(high[a], region.GetIndex()[a] + region.GetSize()[a] - 1.0 + 1e-6);
      }
      lows.push_back(low);

      auto reference = OpenedITKMetric<itk::MeanSquaresImageToImageMetricv4<ImageType, ImageType>>::New();
      fixture.Configure(reference.GetPointer(), c);
      reference->EvaluateOver(points);
      const Evaluation expected = Evaluate(reference.GetPointer());
      EXPECT_EQ(actual.validPoints, expected.validPoints);
      EXPECT_LE(std::abs(actual.value - expected.value), 1e-5 * std::abs(expected.value));
    }
    EXPECT_NE(lows[1], lows[0]) << "the box did not move";
    EXPECT_NE(lows[3], lows[2]) << "the box did not move";
  }
}

CIF_TEST_ON_CPU_AND_GPU(MetricRandomPoints, InARandomSampleRegion, ExpectEachDrawInsideARandomBox)

/** The points of each evaluation, as ITK's point set holds them. */
template <typename TTwin>
std::vector<double>
LastRandomCoordinates(const TTwin * twin)
{
  std::vector<double> coordinates;
  const auto *        points = twin->GetLastRandomPoints();
  for (unsigned int n = 0; points != nullptr && n < points->GetNumberOfPoints(); ++n)
  {
    for (unsigned int a = 0; a < 3; ++a)
    {
      coordinates.push_back(points->GetPoint(n)[a]);
    }
  }
  return coordinates;
}

/** The GPU path draws each evaluation's successor while the device computes it; the
 * CPU path draws each when it comes. Both give the same sequence of points for a
 * seed, evaluation after evaluation, also across a new Initialize() (which drops a
 * set drawn ahead), with and without a fixed mask. */
TEST(MetricRandomPointsGPU, DrawnAheadTheSequenceIsTheCPUPaths)
{
  CIF_REQUIRE_GPU();
  for (bool masks : { false, true })
  {
    MetricCase c;
    c.transform = MetricTransformKind::BSpline;
    c.masks = masks;
    const std::uint32_t seed = FreshSeed();
    SCOPED_TRACE(Describe(c) + ", seed " + std::to_string(seed));
    MetricFixture<float, 3>          fixture(c, seed);
    std::vector<std::vector<double>> draws[2];
    for (bool useGPU : { false, true })
    {
      auto twin = MattesTwin::New();
      twin->SetUseGPU(useGPU);
      twin->SetNumberOfRandomPointsPerEvaluation(500);
      twin->SetRandomPointSeed(seed);
      fixture.Configure(twin.GetPointer(), c);
      for (int evaluation = 0; evaluation < 5; ++evaluation)
      {
        if (evaluation == 3)
        {
          twin->Initialize();
        }
        Evaluate(twin.GetPointer());
        ASSERT_EQ(twin->GetLastExecutionPath(), useGPU ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU);
        draws[useGPU].push_back(LastRandomCoordinates(twin.GetPointer()));
      }
    }
    for (int evaluation = 0; evaluation < 5; ++evaluation)
    {
      EXPECT_EQ(draws[1][evaluation], draws[0][evaluation]) << "evaluation " << evaluation;
    }
    EXPECT_NE(draws[0][1], draws[0][0]);
    EXPECT_EQ(draws[0][3], draws[0][0]); // after Initialize(): the seed's first points again
  }
}

TEST(MetricRandomPointsCPU, WithASampledPointSetIsAnError)
{
  MetricCase c;
  c.sampling = Sampling::Regular;
  MetricFixture<float, 3> fixture(c, FreshSeed());
  auto                    twin = MeanSquaresTwin::New();
  twin->SetUseGPU(false);
  twin->SetNumberOfRandomPointsPerEvaluation(100);
  EXPECT_THROW(fixture.Configure(twin.GetPointer(), c), itk::ExceptionObject);
}

TEST(MetricRandomPointsCPU, AMaskThatKeepsNoPointIsAnError)
{
  MetricCase c;
  c.masks = true;
  MetricFixture<float, 3> fixture(c, FreshSeed());
  // The mask emptied: no point can land in it.
  auto * maskImage = const_cast<itk::Image<unsigned char, 3> *>(fixture.fixedMask->GetImage());
  maskImage->FillBuffer(0);
  fixture.fixedMask->SetImage(maskImage);
  fixture.fixedMask->Update();
  auto twin = MeanSquaresTwin::New();
  twin->SetUseGPU(false);
  twin->SetNumberOfRandomPointsPerEvaluation(10);
  fixture.Configure(twin.GetPointer(), c);
  try
  {
    Evaluate(twin.GetPointer());
    ADD_FAILURE() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("fixed image mask"), std::string::npos) << e.GetDescription();
  }
}
} // namespace
