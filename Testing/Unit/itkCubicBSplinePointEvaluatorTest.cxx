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
// Batched point evaluation against BSplineInterpolateImageFunction::Evaluate and
// EvaluateDerivative (host vectors, and device buffers that never leave the GPU;
// 1-D to 6-D), its errors, and seed 002's discontinuity check on a B-spline
// deformation.
#include "cifDeviceBuffer.h"
#include "cifDeviceMemoryPool.h"
#include "cifTestHelpers.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkBSplineTransform.h"
#include "itkCubicBSplinePointEvaluatorGPU.h"
#include "itkTransformToDisplacementFieldGPUFilter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

namespace
{
using namespace cif_test;

/** How the points reach the evaluator: host vectors (Evaluate), or device buffers
 * (EvaluateOnDevice: points, values and gradients in device memory). */
enum class Api
{
  HostVectors,
  DeviceBuffers
};

template <unsigned int D, typename TCoefficient>
void
CheckPoints(bool useGPU, Api api = Api::HostVectors, bool sortPoints = false, Content content = Content::Smooth)
{
  using Image = itk::Image<float, D>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << D << "-D, " << (useGPU ? "GPU" : "CPU") << ", " << typeid(TCoefficient).name()
                                  << (api == Api::DeviceBuffers ? ", device buffers" : ", host vectors")
                                  << (sortPoints ? ", sorted" : "") << ", " << ToString(content) << ", seed " << seed);
  itk::Size<D>  size;
  itk::Index<D> start;
  for (unsigned int a = 0; a < D; ++a)
  {
    // 5-D and 6-D small: ITK's reference sums 4^D terms per value and per partial
    size[a] = D >= 5 ? 6 + a : D == 4 ? 12 + 2 * a : 20 + 3 * a;
    start[a] = static_cast<itk::IndexValueType>(a) - 1;
  }
  auto image = MakeImage<Image>(size, start, content, seed, 0.0, 100.0);
  if constexpr (D >= 2)
  {
    auto direction = image->GetDirection();
    direction[0][0] = std::cos(0.3);
    direction[0][1] = -std::sin(0.3);
    direction[1][0] = std::sin(0.3);
    direction[1][1] = std::cos(0.3);
    image->SetDirection(direction);
  }

  auto reference = itk::BSplineInterpolateImageFunction<Image, double, double>::New();
  reference->SetSplineOrder(3);
  reference->SetInputImage(image);

  // Points over the image and a margin around it (mirrored, as ITK does).
  std::mt19937                           rng(seed);
  std::vector<typename Image::PointType> points(D >= 5 ? 1500 : 5000);
  for (auto & p : points)
  {
    itk::ContinuousIndex<double, D> c;
    for (unsigned int a = 0; a < D; ++a)
    {
      std::uniform_real_distribution<double> u(start[a] - 1.4, start[a] + size[a] + 0.4);
      c[a] = u(rng);
    }
    image->TransformContinuousIndexToPhysicalPoint(c, p);
  }

  auto evaluator = itk::CubicBSplinePointEvaluatorGPU<Image, TCoefficient>::New();
  evaluator->SetUseGPU(useGPU);
  evaluator->SetSortPoints(sortPoints);
  evaluator->SetInputImage(image);
  EXPECT_EQ(evaluator->GetCoefficientsOnDevice(), useGPU);
  std::vector<double>                                                                         values;
  std::vector<typename itk::CubicBSplinePointEvaluatorGPU<Image, TCoefficient>::GradientType> gradients;
  if (api == Api::HostVectors)
  {
    evaluator->Evaluate(points, values, &gradients);
  }
  else
  {
    const std::size_t pointBytes = points.size() * D * sizeof(double);
    cif::DeviceBuffer devicePoints(pointBytes), deviceValues(points.size() * sizeof(double)),
      deviceGradients(pointBytes);
    devicePoints.Upload(points.data(), pointBytes);
    cif::TransferCounters::Reset();
    evaluator->EvaluateOnDevice(devicePoints.As<const double>(),
                                static_cast<std::int64_t>(points.size()),
                                deviceValues.As<double>(),
                                deviceGradients.As<double>());
    cif::Synchronize();
    EXPECT_EQ(cif::TransferCounters::Get().uploads + cif::TransferCounters::Get().downloads, 0u);
    values.resize(points.size());
    gradients.resize(points.size());
    deviceValues.Download(values.data(), values.size() * sizeof(double));
    deviceGradients.Download(gradients.data(), pointBytes);
  }
  ASSERT_EQ(values.size(), points.size());
  ASSERT_EQ(gradients.size(), points.size());

  double maxValue = 0, maxGradient = 0, scaleGradient = 0;
  for (std::size_t i = 0; i < points.size(); ++i)
  {
    maxValue = std::max(maxValue, std::fabs(values[i] - reference->Evaluate(points[i])));
    const auto g = reference->EvaluateDerivative(points[i]);
    for (unsigned int a = 0; a < D; ++a)
    {
      maxGradient = std::max(maxGradient, std::fabs(gradients[i][a] - g[a]));
      scaleGradient = std::max(scaleGradient, std::fabs(g[a]));
    }
  }
  const bool single = std::is_same_v<TCoefficient, float>;
  // The margins, for the record (a tolerance is only as good as the spread it covers).
  std::printf("  %u-D %s %s: max |value - ITK| %.3g, max |gradient - ITK| %.3g (largest gradient %.3g)\n",
              D,
              useGPU ? "GPU" : "CPU",
              single ? "float" : "double",
              maxValue,
              maxGradient,
              scaleGradient);
  // float: 4e-6 of the range, grown past 4-D as the float prefilter's rounding grows
  const double tolerance = single ? 4e-6 * 100 * FloatPassGrowth(D) : 1e-10;
  EXPECT_LE(maxValue, tolerance) << "values";
  // The gradient check means something when a gross error, 10 % of the largest
  // gradient, would fail it: a bound from the tolerance, which every draw meets. An
  // absolute bound (1.0) did not: the smooth 6-D content (six cosines of amplitude
  // 0.45/6 and low frequency over 6-11 samples) had largest gradients down to 0.90
  // (4 draws in 300).
  EXPECT_GT(scaleGradient, 10 * tolerance) << "gradients too small for the check to mean anything";
  EXPECT_LE(maxGradient, tolerance) << "gradients (largest " << scaleGradient << ")";
}

TEST(PointEvaluatorCPU, MatchesITK2D) { CheckPoints<2, float>(false); }
TEST(PointEvaluatorCPU, MatchesITK3DDouble) { CheckPoints<3, double>(false); }
TEST(PointEvaluatorCPU, MatchesITK4D) { CheckPoints<4, float>(false); }
TEST(PointEvaluatorCPU, MatchesITK1D) { CheckPoints<1, double>(false); }
// 5-D and 6-D: double coefficients in 6-D only (each instantiation is compile time).
TEST(PointEvaluatorCPU, MatchesITK5D)
{
  CheckPoints<5, float>(false);
  CheckPoints<5, float>(false, Api::HostVectors, false, Content::Random);
}
TEST(PointEvaluatorCPU, MatchesITK6D)
{
  CheckPoints<6, float>(false);
  CheckPoints<6, float>(false, Api::HostVectors, false, Content::Random);
  CheckPoints<6, double>(false);
}
TEST(PointEvaluatorGPU, MatchesITK2D)
{
  CIF_REQUIRE_GPU();
  CheckPoints<2, float>(true);
}
TEST(PointEvaluatorGPU, MatchesITK3D)
{
  CIF_REQUIRE_GPU();
  CheckPoints<3, float>(true);
  CheckPoints<3, double>(true);
}
TEST(PointEvaluatorGPU, MatchesITK4D)
{
  CIF_REQUIRE_GPU();
  CheckPoints<4, float>(true);
}
TEST(PointEvaluatorGPU, MatchesITK5D)
{
  CIF_REQUIRE_GPU();
  CheckPoints<5, float>(true);
  CheckPoints<5, float>(true, Api::DeviceBuffers, false, Content::Random);
}
TEST(PointEvaluatorGPU, MatchesITK6D)
{
  CIF_REQUIRE_GPU();
  CheckPoints<6, float>(true);
  CheckPoints<6, float>(true, Api::HostVectors, false, Content::Random);
  CheckPoints<6, double>(true, Api::DeviceBuffers);
  CheckPoints<1, double>(true);
}
TEST(PointEvaluatorGPU, DeviceBuffersMatchITK)
{
  CIF_REQUIRE_GPU();
  CheckPoints<2, double>(true, Api::DeviceBuffers);
  CheckPoints<3, float>(true, Api::DeviceBuffers);
}

/** SortPoints: the device visits the points in image order (sorted by cell). The
 * results are ITK's, and the same bits as in the given order, in the caller's order:
 * scattered points in and around the image (mirrored, and cells clamped for the
 * sort), anisotropic spacing, and a NaN point (sorted into cell 0). */
TEST(PointEvaluatorGPU, SortedPointsMatchITKAndTheGivenOrderBitForBit)
{
  CIF_REQUIRE_GPU();
  CheckPoints<2, double>(true, Api::DeviceBuffers, true);
  CheckPoints<3, float>(true, Api::HostVectors, true);
  CheckPoints<4, float>(true, Api::HostVectors, true);
  CheckPoints<5, float>(true, Api::HostVectors, true);
  CheckPoints<6, double>(true, Api::DeviceBuffers, true, Content::Random);

  using Image = itk::Image<float, 3>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto               image = MakeImage<Image>({ { 23, 19, 17 } }, { { -2, 1, 0 } }, Content::Random, seed, 0.0, 100.0);
  Image::SpacingType spacing;
  spacing[0] = 0.7;
  spacing[1] = 1.3;
  spacing[2] = 2.1;
  image->SetSpacing(spacing);
  std::mt19937                  rng(seed);
  std::vector<Image::PointType> points(20000);
  for (auto & p : points)
  {
    itk::ContinuousIndex<double, 3> c;
    for (unsigned int a = 0; a < 3; ++a)
    {
      const auto                             start = image->GetBufferedRegion().GetIndex()[a];
      const auto                             size = image->GetBufferedRegion().GetSize()[a];
      std::uniform_real_distribution<double> u(start - 3.0, start + size + 3.0);
      c[a] = u(rng);
    }
    image->TransformContinuousIndexToPhysicalPoint(c, p);
  }
  points[points.size() / 2][1] = std::numeric_limits<double>::quiet_NaN();

  auto evaluator = itk::CubicBSplinePointEvaluatorGPU<Image>::New();
  evaluator->SetInputImage(image);
  std::vector<double>                                                  givenValues, sortedValues;
  std::vector<itk::CubicBSplinePointEvaluatorGPU<Image>::GradientType> givenGradients, sortedGradients;
  evaluator->Evaluate(points, givenValues, &givenGradients);
  evaluator->SortPointsOn();
  evaluator->Evaluate(points, sortedValues, &sortedGradients);
  ASSERT_EQ(sortedValues.size(), points.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < points.size(); ++i)
  {
    differ += std::memcmp(&givenValues[i], &sortedValues[i], sizeof(double)) != 0 ||
              std::memcmp(&givenGradients[i], &sortedGradients[i], sizeof(givenGradients[i])) != 0;
  }
  EXPECT_EQ(differ, 0u) << "points whose value or gradient changed with the order";
}

/** SortPoints when the device has no room for the sort (about 16 bytes per point:
 * keys and order, twice): the points are visited as given, with the same results and no error. The
 * device memory is first filled but for less than the sort needs. */
TEST(PointEvaluatorGPU, SortPointsWithoutRoomVisitsThePointsAsGiven)
{
  CIF_REQUIRE_GPU();
  using Image = itk::Image<float, 3>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto image = MakeImage<Image>({ { 16, 16, 16 } }, { { 0, 0, 0 } }, Content::Smooth, seed, 0.0, 100.0);
  auto evaluator = itk::CubicBSplinePointEvaluatorGPU<Image>::New();
  evaluator->SetInputImage(image);

  constexpr std::int64_t                 count = std::int64_t(1) << 21;
  constexpr std::size_t                  sortBytes = count * 16; // 32 MiB
  std::vector<double>                    points(3 * count);
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> u(0.0, 15.0); // unit spacing, origin 0: indices
  for (auto & x : points)
  {
    x = u(rng);
  }
  const std::size_t pointBytes = points.size() * sizeof(double);
  cif::DeviceBuffer devicePoints(pointBytes), givenValues(count * 8), givenGradients(pointBytes),
    sortedValues(count * 8), sortedGradients(pointBytes);
  devicePoints.Upload(points.data(), pointBytes);
  evaluator->EvaluateOnDevice(
    devicePoints.As<const double>(), count, givenValues.As<double>(), givenGradients.As<double>());
  cif::Synchronize();

  // Ballast until an allocation of what the sort needs fails, leaving about a quarter
  // of that free where the driver grants it. The test is whether that allocation
  // fails, not what cudaMemGetInfo reports: after the other tests of this binary the
  // driver once refused any piece of its last 33.75 MB "free", above the sort's 32 MiB.
  const auto sortFits = [&] {
    try
    {
      cif::DeviceBuffer probe(sortBytes);
      return true;
    }
    catch (const cif::CudaOutOfMemory &)
    {
      return false;
    }
  };
  cif::ReleaseCachedDeviceMemory();
  ASSERT_GT(cif::GetDeviceInfo().freeMemoryBytes, 2 * sortBytes);
  const std::size_t                               mebibyte = std::size_t(1) << 20;
  std::vector<std::unique_ptr<cif::DeviceBuffer>> ballast;
  for (int step = 0; step < 64 && sortFits(); ++step)
  {
    const std::size_t free = cif::GetDeviceInfo().freeMemoryBytes;
    bool              placed = false;
    for (std::size_t piece = free > sortBytes / 4 + mebibyte ? free - sortBytes / 4 : mebibyte;
         piece >= mebibyte && !placed;
         piece /= 2)
    {
      try
      {
        ballast.push_back(std::make_unique<cif::DeviceBuffer>(piece));
        placed = true;
      }
      catch (const cif::CudaOutOfMemory &)
      {}
    }
    if (!placed)
    {
      break;
    }
  }
  ASSERT_FALSE(ballast.empty()) << "could not fill the device";
  ASSERT_FALSE(sortFits()) << "the sort would still fit";

  evaluator->SortPointsOn();
  EXPECT_NO_THROW(evaluator->EvaluateOnDevice(
    devicePoints.As<const double>(), count, sortedValues.As<double>(), sortedGradients.As<double>()));
  cif::Synchronize();
  ballast.clear();
  cif::ReleaseCachedDeviceMemory();

  std::vector<double> given(4 * count), sorted(4 * count);
  givenValues.Download(given.data(), count * 8);
  givenGradients.Download(given.data() + count, pointBytes);
  sortedValues.Download(sorted.data(), count * 8);
  sortedGradients.Download(sorted.data() + count, pointBytes);
  EXPECT_EQ(std::memcmp(given.data(), sorted.data(), given.size() * sizeof(double)), 0)
    << "results changed when the sort had no room";
}

/** Points with a NaN, an infinite or an absurdly large coordinate: NaN value and
 * gradient, no crash (ITK's interpolator has no answer there: its indices overflow),
 * and the other points of the batch as ITK evaluates them. */
void
CheckNonFinitePoints(bool useGPU, bool sortPoints)
{
  using Image = itk::Image<float, 3>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << (useGPU ? "GPU" : "CPU") << (sortPoints ? ", sorted" : "") << ", seed " << seed);
  auto image = MakeImage<Image>({ { 11, 9, 8 } }, { { 0, 1, -1 } }, Content::Smooth, seed, 0.0, 100.0);
  auto evaluator = itk::CubicBSplinePointEvaluatorGPU<Image>::New();
  evaluator->SetUseGPU(useGPU);
  evaluator->SetSortPoints(sortPoints);
  evaluator->SetInputImage(image);

  const double                           nan = std::numeric_limits<double>::quiet_NaN();
  const double                           inf = std::numeric_limits<double>::infinity();
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> u(0.0, 7.0);
  std::vector<Image::PointType>          points(12);
  for (auto & p : points)
  {
    for (unsigned int a = 0; a < 3; ++a)
    {
      p[a] = u(rng);
    }
  }
  const std::vector<std::size_t> bad = { 1, 4, 6, 9, 10 };
  points[1][0] = nan;
  points[4][1] = inf;
  points[6][2] = -inf;
  points[9][0] = 1e300;
  points[10].Fill(nan);
  std::vector<double>                                                  values;
  std::vector<itk::CubicBSplinePointEvaluatorGPU<Image>::GradientType> gradients;
  evaluator->Evaluate(points, values, &gradients);
  ASSERT_EQ(values.size(), points.size());

  auto reference = itk::BSplineInterpolateImageFunction<Image, double, double>::New();
  reference->SetSplineOrder(3);
  reference->SetInputImage(image);
  for (std::size_t i = 0; i < points.size(); ++i)
  {
    if (std::find(bad.begin(), bad.end(), i) != bad.end())
    {
      EXPECT_TRUE(std::isnan(values[i])) << "point " << i << ": " << values[i];
      for (unsigned int a = 0; a < 3; ++a)
      {
        EXPECT_TRUE(std::isnan(gradients[i][a])) << "point " << i << ", axis " << a << ": " << gradients[i][a];
      }
      continue;
    }
    EXPECT_NEAR(values[i], reference->Evaluate(points[i]), 4e-4) << "point " << i;
    const auto g = reference->EvaluateDerivative(points[i]);
    for (unsigned int a = 0; a < 3; ++a)
    {
      EXPECT_NEAR(gradients[i][a], g[a], 4e-4) << "point " << i << ", axis " << a;
    }
  }
}

TEST(PointEvaluatorCPU, NonFinitePointsGiveNaN) { CheckNonFinitePoints(false, false); }
TEST(PointEvaluatorGPU, NonFinitePointsGiveNaN)
{
  CIF_REQUIRE_GPU();
  CheckNonFinitePoints(true, false);
  CheckNonFinitePoints(true, true);
}

/** No input image, or device buffers without coefficients on the device: an
 * itk::ExceptionObject that says so, not a crash. */
TEST(PointEvaluatorCPU, BadUseRaisesExceptions)
{
  using Image = itk::Image<float, 2>;
  auto                          evaluator = itk::CubicBSplinePointEvaluatorGPU<Image>::New();
  std::vector<Image::PointType> points(3);
  std::vector<double>           values;
  EXPECT_THROW(evaluator->Evaluate(points, values), itk::ExceptionObject);
  EXPECT_THROW(evaluator->SetInputImage(Image::New()), itk::ExceptionObject); // empty

  evaluator->SetUseGPU(false);
  evaluator->SetInputImage(MakeImage<Image>({ { 9, 7 } }, { { 0, 0 } }, Content::Random, FreshSeed()));
  double dummy = 0;
  try
  {
    evaluator->EvaluateOnDevice(&dummy, 1, &dummy);
    ADD_FAILURE() << "EvaluateOnDevice ran without coefficients on the device";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("coefficients on the device"), std::string::npos)
      << e.GetDescription();
  }
}

/** Seed 002's check: along a line crossing control-grid cell borders, a cubic
 * B-spline deformation and its first derivative are continuous. Sampled finely, the
 * second differences at cell borders are no larger than inside cells (a jump in the
 * field or its slope would make them orders of magnitude larger). */
void
CheckContinuity(bool useGPU)
{
  constexpr unsigned int D = 2;
  using BSpline = itk::BSplineTransform<double, D, 3>;
  auto                            bspline = BSpline::New();
  BSpline::PhysicalDimensionsType extent;
  BSpline::MeshSizeType           mesh;
  extent.Fill(100.0);
  mesh.Fill(5); // cells of 20 mm
  bspline->SetTransformDomainPhysicalDimensions(extent);
  bspline->SetTransformDomainMeshSize(mesh);
  BSpline::ParametersType                parameters(bspline->GetNumberOfParameters());
  std::mt19937                           rng(FreshSeed());
  std::uniform_real_distribution<double> u(-4, 4);
  for (auto & p : parameters)
  {
    p = u(rng);
  }
  bspline->SetParametersByValue(parameters);

  // One row of the field across the domain, 0.01 mm apart, through 4 cell borders.
  using Field = itk::Image<itk::Vector<double, D>, D>;
  auto filter = itk::TransformToDisplacementFieldGPUFilter<Field, double>::New();
  filter->SetTransform(bspline);
  Field::SizeType size;
  size[0] = 9001;
  size[1] = 1;
  Field::SpacingType spacing;
  spacing.Fill(0.01);
  Field::PointType origin;
  origin[0] = 5.0;
  origin[1] = 37.3;
  filter->SetSize(size);
  filter->SetOutputSpacing(spacing);
  filter->SetOutputOrigin(origin);
  filter->SetUseGPU(useGPU);
  filter->Update();
  const auto * field = filter->GetOutput()->GetBufferPointer();

  for (unsigned int a = 0; a < D; ++a)
  {
    double atBorders = 0, insideCells = 0;
    for (std::size_t i = 1; i + 1 < size[0]; ++i)
    {
      const double second = std::fabs(field[i + 1][a] - 2 * field[i][a] + field[i - 1][a]);
      const double x = origin[0] + i * spacing[0];
      const double toBorder = std::fabs(x / 20.0 - std::round(x / 20.0)) * 20.0;
      (toBorder < 0.02 ? atBorders : insideCells) = std::max(toBorder < 0.02 ? atBorders : insideCells, second);
    }
    EXPECT_GT(insideCells, 0.0);
    EXPECT_LE(atBorders, 1.5 * insideCells + 1e-12)
      << "component " << a << ": a jump at a cell border (max second difference there " << atBorders
      << ", inside cells " << insideCells << ")";
  }
}
TEST(DisplacementFieldCPU, ContinuousAcrossCellBorders) { CheckContinuity(false); }
TEST(DisplacementFieldGPU, ContinuousAcrossCellBorders)
{
  CIF_REQUIRE_GPU();
  CheckContinuity(true);
}
} // namespace
