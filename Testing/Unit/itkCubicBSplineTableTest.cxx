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
// CubicBSplineTable against BSplineInterpolateImageFunction (order 3) on an itk::Image
// of the same samples, origin and spacing: values and derivatives, 1-D to 6-D, random
// and smooth tables, float and double coefficients, values from host and device
// arrays of several scalar types, host and device arrays of points, sorted points;
// the rules for points outside the table (ITK's mirror, clamp to the edge, a
// constant: NaN by default); bad input.
#include "cifDeviceBuffer.h"
#include "cifPrefilterTestSupport.h"
#include "cifTestHelpers.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkCubicBSplineTable.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace
{
using namespace cif_test;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/** Where the table's values come from, and where its points go. */
enum class Source
{
  HostFloat,   ///< SetValues(const float *)
  HostUInt16,  ///< SetValues(const std::uint16_t *) of integer samples
  DeviceFloat, ///< SetValuesOnDevice(const float *)
  DeviceInt16  ///< SetValuesOnDevice(const std::int16_t *) of integer samples
};

const char *
ToString(Source s)
{
  switch (s)
  {
    case Source::HostFloat:
      return "host float values";
    case Source::HostUInt16:
      return "host uint16 values";
    case Source::DeviceFloat:
      return "device float values";
    case Source::DeviceInt16:
      return "device int16 values";
  }
  return "?";
}

/** A table's samples as an itk::Image (ITK's reference) and as the plain arrays a
 * table user holds: origin and spacing differ per axis, the direction is identity. */
template <unsigned int D>
struct TableCase
{
  using Image = itk::Image<float, D>;
  typename Image::Pointer            image;
  itk::CubicBSplineTable<>::SizeType size;
  std::vector<double>                origin, spacing;
  std::vector<float>                 values;

  std::int64_t
  Count() const
  {
    return static_cast<std::int64_t>(values.size());
  }
  /** The physical point of continuous index \a c, as ITK maps it. */
  void
  PointOf(const double c[], double p[]) const
  {
    itk::ContinuousIndex<double, D> index;
    for (unsigned int a = 0; a < D; ++a)
    {
      index[a] = c[a];
    }
    typename Image::PointType point;
    image->TransformContinuousIndexToPhysicalPoint(index, point);
    for (unsigned int a = 0; a < D; ++a)
    {
      p[a] = point[a];
    }
  }
};

/** Samples of \a content in [0, 100) (rounded to integers with \a integers: the
 * values of a table of integers). */
template <unsigned int D>
TableCase<D>
MakeCase(const std::array<itk::SizeValueType, D> & n, Content content, std::uint32_t seed, bool integers = false)
{
  TableCase<D> t;
  itk::Size<D> size;
  for (unsigned int a = 0; a < D; ++a)
  {
    size[a] = n[a];
    t.size.push_back(n[a]);
    t.origin.push_back(-1.5 + 0.7 * a);
    t.spacing.push_back(0.3 + 0.15 * a);
  }
  t.image = MakeImage<typename TableCase<D>::Image>(size, {}, content, seed, 0.0, 100.0);
  typename TableCase<D>::Image::PointType   origin;
  typename TableCase<D>::Image::SpacingType spacing;
  for (unsigned int a = 0; a < D; ++a)
  {
    origin[a] = t.origin[a];
    spacing[a] = t.spacing[a];
  }
  t.image->SetOrigin(origin);
  t.image->SetSpacing(spacing);
  float *           buffer = t.image->GetBufferPointer();
  const std::size_t count = t.image->GetBufferedRegion().GetNumberOfPixels();
  if (integers)
  {
    for (std::size_t i = 0; i < count; ++i)
    {
      buffer[i] = std::round(buffer[i]);
    }
  }
  t.values.assign(buffer, buffer + count);
  return t;
}

template <unsigned int D>
auto
MakeReference(const TableCase<D> & t)
{
  auto reference = itk::BSplineInterpolateImageFunction<typename TableCase<D>::Image, double, double>::New();
  reference->SetSplineOrder(3);
  reference->SetInputImage(t.image);
  return reference;
}

/** A table of \a t's samples from \a source. */
template <typename TCoefficient, unsigned int D>
typename itk::CubicBSplineTable<TCoefficient>::Pointer
MakeTable(const TableCase<D> & t, Source source, bool useGPU)
{
  auto table = itk::CubicBSplineTable<TCoefficient>::New();
  table->SetUseGPU(useGPU);
  table->SetSize(t.size);
  table->SetOrigin(t.origin);
  table->SetSpacing(t.spacing);
  switch (source)
  {
    case Source::HostFloat:
      table->SetValues(t.values);
      break;
    case Source::HostUInt16:
    {
      const std::vector<std::uint16_t> integers(t.values.begin(), t.values.end());
      table->SetValues(integers.data());
      break;
    }
    case Source::DeviceFloat:
    {
      cif::DeviceBuffer device(t.values.size() * sizeof(float));
      device.Upload(t.values.data(), device.Bytes());
      table->SetValuesOnDevice(device.As<const float>());
      break;
    }
    case Source::DeviceInt16:
    {
      const std::vector<std::int16_t> integers(t.values.begin(), t.values.end());
      cif::DeviceBuffer               device(integers.size() * sizeof(std::int16_t));
      device.Upload(integers.data(), device.Bytes());
      table->SetValuesOnDevice(device.As<const std::int16_t>());
      break;
    }
  }
  EXPECT_TRUE(table->HasCoefficients());
  EXPECT_EQ(table->GetCoefficientsOnDevice(), useGPU);
  return table;
}

/** The table's values and gradients at \a points (D per point): through host arrays,
 * or through device arrays with EvaluateOnDevice. */
template <typename TTable>
void
Lookup(const TTable *              table,
       const std::vector<double> & points,
       bool                        deviceArrays,
       std::vector<double> &       values,
       std::vector<double> &       gradients)
{
  const std::size_t D = table->GetDimension();
  const std::size_t count = points.size() / D;
  if (!deviceArrays)
  {
    table->Evaluate(points, values, &gradients);
    return;
  }
  cif::DeviceBuffer p(points.size() * sizeof(double)), v(count * sizeof(double)), g(points.size() * sizeof(double));
  p.Upload(points.data(), p.Bytes());
  table->EvaluateOnDevice(p.As<const double>(), static_cast<std::int64_t>(count), v.As<double>(), g.As<double>());
  cif::Synchronize();
  values.resize(count);
  gradients.resize(points.size());
  v.Download(values.data(), v.Bytes());
  g.Download(gradients.data(), g.Bytes());
}

/** Float coefficients: ITK's tolerance for the evaluator (4e-6 of the range 100),
 * grown past 4-D as the prefilter's float rounding grows (FloatPassGrowth); the
 * gradients divide the same errors by the spacing (0.3 and up). */
template <typename TCoefficient>
double
ValueTolerance(unsigned int D)
{
  return std::is_same_v<TCoefficient, float> ? 4e-6 * 100.0 * FloatPassGrowth(D) : 1e-10;
}

template <unsigned int D, typename TCoefficient>
void
CheckAgainstITK(const std::array<itk::SizeValueType, D> & n,
                Content                                   content,
                Source                                    source,
                bool                                      useGPU,
                bool                                      deviceArrays = false,
                bool                                      sortPoints = false)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << D << "-D, " << ToString(content) << ", " << ToString(source) << ", "
                                  << (useGPU ? "GPU" : "CPU") << ", " << typeid(TCoefficient).name()
                                  << (deviceArrays ? ", device arrays" : "") << (sortPoints ? ", sorted" : "")
                                  << ", seed " << seed);
  const bool integers = source == Source::HostUInt16 || source == Source::DeviceInt16;
  const auto t = MakeCase<D>(n, content, seed, integers);
  auto       table = MakeTable<TCoefficient>(t, source, useGPU);
  table->SetSortPoints(sortPoints);
  auto reference = MakeReference(t);

  // Points over the table and a margin around it (mirrored there, as ITK does).
  const std::size_t   count = D >= 6 ? 400 : D == 5 ? 1000 : 4000;
  std::mt19937        rng(seed);
  std::vector<double> points(count * D);
  for (std::size_t i = 0; i < count; ++i)
  {
    double c[D];
    for (unsigned int a = 0; a < D; ++a)
    {
      std::uniform_real_distribution<double> u(-1.2, n[a] - 1 + 1.2);
      c[a] = n[a] > 3 ? u(rng) : 0.5 * (n[a] - 1);
    }
    t.PointOf(c, &points[D * i]);
  }
  std::vector<double> values, gradients;
  Lookup(table.GetPointer(), points, deviceArrays, values, gradients);
  ASSERT_EQ(values.size(), count);
  ASSERT_EQ(gradients.size(), count * D);

  double maxValue = 0, maxGradient = 0, largestGradient = 0;
  for (std::size_t i = 0; i < count; ++i)
  {
    typename TableCase<D>::Image::PointType p;
    for (unsigned int a = 0; a < D; ++a)
    {
      p[a] = points[D * i + a];
    }
    maxValue = std::max(maxValue, std::fabs(values[i] - reference->Evaluate(p)));
    const auto g = reference->EvaluateDerivative(p);
    for (unsigned int a = 0; a < D; ++a)
    {
      maxGradient = std::max(maxGradient, std::fabs(gradients[D * i + a] - g[a]));
      largestGradient = std::max(largestGradient, std::fabs(g[a]));
    }
  }
  std::printf("  %u-D %s %s %s: max |value - ITK| %.3g, max |gradient - ITK| %.3g (largest gradient %.3g)\n",
              D,
              useGPU ? "GPU" : "CPU",
              std::is_same_v<TCoefficient, float> ? "float" : "double",
              ToString(content),
              maxValue,
              maxGradient,
              largestGradient);
  const double tolerance = ValueTolerance<TCoefficient>(D), gradientTolerance = tolerance / 0.3;
  EXPECT_LE(maxValue, tolerance) << "values";
  // The gradient check means something when a gross error, 10 % of the largest
  // gradient, would fail it: a bound from the tolerance, which every draw meets. An
  // absolute bound (1.0) did not: a smooth 1-D table of 7 samples had a largest
  // gradient of 0.85 (seed 3734640643, H100 host, 2026-11-26).
  EXPECT_GT(largestGradient, 10 * gradientTolerance) << "gradients too small for the check to mean anything";
  EXPECT_LE(maxGradient, gradientTolerance) << "gradients (largest " << largestGradient << ")";
}

void
CheckEveryDimension(bool useGPU)
{
  CheckAgainstITK<1, float>({ { 40 } }, Content::Random, Source::HostFloat, useGPU);
  CheckAgainstITK<1, double>({ { 7 } }, Content::Smooth, Source::HostFloat, useGPU);
  CheckAgainstITK<2, float>({ { 23, 17 } }, Content::Smooth, Source::HostFloat, useGPU);
  CheckAgainstITK<3, double>({ { 11, 9, 13 } }, Content::Random, Source::HostFloat, useGPU);
  CheckAgainstITK<4, float>({ { 9, 8, 7, 10 } }, Content::Random, Source::HostFloat, useGPU);
  CheckAgainstITK<4, float>({ { 9, 8, 7, 10 } }, Content::Smooth, Source::HostFloat, useGPU);
  CheckAgainstITK<5, float>({ { 7, 6, 5, 6, 8 } }, Content::Random, Source::HostFloat, useGPU);
  CheckAgainstITK<5, double>({ { 7, 6, 5, 6, 8 } }, Content::Smooth, Source::HostFloat, useGPU);
  CheckAgainstITK<6, float>({ { 6, 5, 4, 5, 6, 7 } }, Content::Random, Source::HostFloat, useGPU);
  CheckAgainstITK<6, float>({ { 6, 5, 4, 5, 6, 7 } }, Content::Smooth, Source::HostFloat, useGPU);
  CheckAgainstITK<6, double>({ { 5, 6, 4, 5, 4, 6 } }, Content::Random, Source::HostFloat, useGPU);
}

TEST(CubicBSplineTableCPU, MatchesITKFrom1DTo6D) { CheckEveryDimension(false); }
TEST(CubicBSplineTableGPU, MatchesITKFrom1DTo6D)
{
  CIF_REQUIRE_GPU();
  CheckEveryDimension(true);
}

/** GetCoefficients: the samples prefiltered along every axis, ITK's coefficients. */
void
CheckCoefficients(bool useGPU)
{
  const auto          t = MakeCase<5>({ { 7, 6, 5, 6, 8 } }, Content::Random, FreshSeed());
  auto                table = MakeTable<double>(t, Source::HostFloat, useGPU);
  std::vector<double> coefficients;
  table->GetCoefficients(coefficients);
  ASSERT_EQ(static_cast<std::int64_t>(coefficients.size()), t.Count());
  auto itkFilter = itk::BSplineDecompositionImageFilter<TableCase<5>::Image, itk::Image<double, 5>>::New();
  itkFilter->SetInput(t.image);
  itkFilter->Update();
  const ErrorStats stats = Compare(coefficients.data(), itkFilter->GetOutput()->GetBufferPointer(), t.values.size());
  EXPECT_LE(stats.maxAbs, 1e-12 * stats.maxRef) << stats;
}
TEST(CubicBSplineTableCPU, CoefficientsAreITKs) { CheckCoefficients(false); }
TEST(CubicBSplineTableGPU, CoefficientsAreITKs)
{
  CIF_REQUIRE_GPU();
  CheckCoefficients(true);
}

/** Values of another scalar type: the table holds what ITK holds for those numbers. */
TEST(CubicBSplineTableCPU, ValuesOfAnotherScalarType)
{
  CheckAgainstITK<4, float>({ { 8, 9, 6, 7 } }, Content::Smooth, Source::HostUInt16, false);
  CheckAgainstITK<6, double>({ { 5, 4, 6, 5, 4, 5 } }, Content::Random, Source::HostUInt16, false);
}

/** Values already in device memory (float, and int16 converted on the device), and
 * points, values and gradients in device arrays. */
TEST(CubicBSplineTableGPU, DeviceValuesAndDeviceArrays)
{
  CIF_REQUIRE_GPU();
  CheckAgainstITK<4, float>({ { 8, 9, 6, 7 } }, Content::Random, Source::DeviceFloat, true, true);
  CheckAgainstITK<5, float>({ { 7, 6, 5, 6, 8 } }, Content::Smooth, Source::DeviceInt16, true);
  CheckAgainstITK<6, double>({ { 5, 4, 6, 5, 4, 5 } }, Content::Random, Source::DeviceInt16, true, true);
  CheckAgainstITK<3, double>({ { 12, 5, 9 } }, Content::Smooth, Source::HostUInt16, true, true);
}

/** SortPoints: ITK's numbers, and the same bits as in the given order. */
TEST(CubicBSplineTableGPU, SortedPointsMatchITKAndTheGivenOrder)
{
  CIF_REQUIRE_GPU();
  CheckAgainstITK<5, float>({ { 7, 6, 5, 6, 8 } }, Content::Random, Source::HostFloat, true, false, true);
  CheckAgainstITK<6, float>({ { 6, 5, 4, 5, 6, 7 } }, Content::Random, Source::HostFloat, true, true, true);

  const auto          t = MakeCase<6>({ { 8, 7, 6, 5, 6, 7 } }, Content::Random, FreshSeed());
  auto                table = MakeTable<float>(t, Source::HostFloat, true);
  std::mt19937        rng(FreshSeed());
  std::vector<double> points(6 * 20000);
  for (std::size_t i = 0; i < points.size(); ++i)
  {
    const unsigned int                     a = i % 6;
    std::uniform_real_distribution<double> u(t.origin[a] - 2 * t.spacing[a],
                                             t.origin[a] + (t.size[a] + 1) * t.spacing[a]);
    points[i] = u(rng);
  }
  points[6 * 777 + 2] = kNaN;
  for (auto mode : { cif::BoundaryMode::Mirror, cif::BoundaryMode::ClampToEdge, cif::BoundaryMode::Constant })
  {
    table->SetBoundaryMode(mode);
    std::vector<double> givenValues, givenGradients, sortedValues, sortedGradients;
    table->SortPointsOff();
    table->Evaluate(points, givenValues, &givenGradients);
    table->SortPointsOn();
    table->Evaluate(points, sortedValues, &sortedGradients);
    EXPECT_EQ(std::memcmp(givenValues.data(), sortedValues.data(), givenValues.size() * sizeof(double)), 0)
      << cif::ToString(mode) << ": values changed with the order";
    EXPECT_EQ(std::memcmp(givenGradients.data(), sortedGradients.data(), givenGradients.size() * sizeof(double)), 0)
      << cif::ToString(mode) << ": gradients changed with the order";
  }
}

/** The rules for points outside the table, against ITK evaluated where each rule
 * says: Mirror at the point itself (ITK's mirror), ClampToEdge at the point clamped
 * into the table (gradient 0 along clamped axes), Constant: the outside value (NaN
 * by default; gradient NaN, or 0 for a finite value), with points on the last
 * sample inside. Points inside, in the margin along one axis or several, far away;
 * a point with a NaN or infinite coordinate is NaN in every mode. */
template <unsigned int D>
void
CheckOutsideRules(const std::array<itk::SizeValueType, D> & n, bool useGPU)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << D << "-D, " << (useGPU ? "GPU" : "CPU") << ", seed " << seed);
  const auto   t = MakeCase<D>(n, Content::Smooth, seed);
  auto         table = MakeTable<float>(t, Source::HostFloat, useGPU);
  auto         reference = MakeReference(t);
  std::mt19937 rng(seed);

  // Continuous indices: inside, past either end by up to 1.5 samples (within one
  // reflection: ITK's mirror), exactly on the first and last sample, far out.
  enum Kind
  {
    Inside,
    Below,
    Above,
    OnFirst,
    OnLast,
    Far,
    PlusInfinity,
    MinusInfinity,
    NotANumber
  };
  std::vector<std::array<double, D>>     indices;
  std::vector<std::array<Kind, D>>       kinds;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 600; ++i)
  {
    std::array<double, D> c;
    std::array<Kind, D>   k;
    for (unsigned int a = 0; a < D; ++a)
    {
      const double r = unit(rng);
      const double last = static_cast<double>(n[a] - 1);
      // mostly inside; a few special points among the first ones
      k[a] = i < 200 ? Kind(static_cast<int>(r * 6)) : r < 0.6 ? Inside : r < 0.8 ? Below : Above;
      if (i >= 580)
      {
        k[a] = a == (i % D) ? Kind(Far + (i % 4)) : Inside;
      }
      switch (k[a])
      {
        case Inside:
          c[a] = last * unit(rng);
          break;
        case Below:
          c[a] = -1e-4 - 1.5 * unit(rng);
          break;
        case Above:
          c[a] = last + 1e-4 + 1.5 * unit(rng);
          break;
        case OnFirst:
          c[a] = 0.0;
          break;
        case OnLast:
          c[a] = last;
          break;
        case Far:
          c[a] = 1e6;
          break;
        case PlusInfinity:
          c[a] = kInf;
          break;
        case MinusInfinity:
          c[a] = -kInf;
          break;
        case NotANumber:
          c[a] = kNaN;
          break;
      }
    }
    indices.push_back(c);
    kinds.push_back(k);
  }
  std::vector<double> points(indices.size() * D);
  for (std::size_t i = 0; i < indices.size(); ++i)
  {
    for (unsigned int a = 0; a < D; ++a)
    {
      const double c = indices[i][a];
      // non-finite and far coordinates straight, the others through ITK's mapping
      points[D * i + a] = std::isfinite(c) && c < 1e5 ? t.origin[a] + c * t.spacing[a] : c;
    }
    double c[D], p[D];
    bool   regular = true;
    for (unsigned int a = 0; a < D; ++a)
    {
      c[a] = indices[i][a];
      regular = regular && std::isfinite(c[a]) && c[a] < 1e5;
    }
    if (regular)
    {
      t.PointOf(c, p);
      std::copy(p, p + D, &points[D * i]);
    }
  }
  const auto itkAt = [&](const std::array<double, D> & c, double & value, double gradient[]) {
    double p[D];
    t.PointOf(c.data(), p);
    typename TableCase<D>::Image::PointType point;
    for (unsigned int a = 0; a < D; ++a)
    {
      point[a] = p[a];
    }
    value = reference->Evaluate(point);
    const auto g = reference->EvaluateDerivative(point);
    for (unsigned int a = 0; a < D; ++a)
    {
      gradient[a] = g[a];
    }
  };
  const double tolerance = ValueTolerance<float>(D);
  const auto   expectNear = [&](double got, double want, const char * what, std::size_t i, double scale) {
    EXPECT_NEAR(got, want, tolerance * scale) << what << " of point " << i;
  };

  for (auto mode : { cif::BoundaryMode::Mirror, cif::BoundaryMode::ClampToEdge, cif::BoundaryMode::Constant })
  {
    for (double outsideValue : { kNaN, -7.0 })
    {
      if (mode != cif::BoundaryMode::Constant && !std::isnan(outsideValue))
      {
        continue;
      }
      SCOPED_TRACE(testing::Message() << cif::ToString(mode) << ", outside value " << outsideValue);
      table->SetBoundaryMode(mode);
      table->SetOutsideValue(outsideValue);
      std::vector<double> values, gradients;
      table->Evaluate(points, values, &gradients);
      for (std::size_t i = 0; i < indices.size(); ++i)
      {
        bool anyNaN = false, outside = false, regular = true;
        for (unsigned int a = 0; a < D; ++a)
        {
          anyNaN = anyNaN || kinds[i][a] >= PlusInfinity;
          outside = outside || kinds[i][a] == Below || kinds[i][a] == Above || kinds[i][a] >= Far;
          regular = regular && kinds[i][a] < Far;
        }
        if (anyNaN)
        {
          EXPECT_TRUE(std::isnan(values[i])) << "non-finite point " << i << ": " << values[i];
          for (unsigned int a = 0; a < D; ++a)
          {
            EXPECT_TRUE(std::isnan(gradients[D * i + a])) << "non-finite point " << i;
          }
          continue;
        }
        double value, gradient[D];
        if (mode == cif::BoundaryMode::Mirror)
        {
          if (!regular)
          {
            continue; // ITK has no answer far out (its indices overflow or leave the buffer)
          }
          itkAt(indices[i], value, gradient);
          expectNear(values[i], value, "mirrored value", i, 1.0);
          for (unsigned int a = 0; a < D; ++a)
          {
            expectNear(gradients[D * i + a], gradient[a], "mirrored gradient", i, 1.0 / 0.3);
          }
        }
        else if (mode == cif::BoundaryMode::ClampToEdge)
        {
          std::array<double, D> clamped = indices[i];
          for (unsigned int a = 0; a < D; ++a)
          {
            clamped[a] = std::clamp(clamped[a], 0.0, static_cast<double>(n[a] - 1));
          }
          itkAt(clamped, value, gradient);
          expectNear(values[i], value, "clamped value", i, 1.0);
          for (unsigned int a = 0; a < D; ++a)
          {
            const bool clampedAxis = kinds[i][a] == Below || kinds[i][a] == Above || kinds[i][a] >= Far;
            if (clampedAxis)
            {
              EXPECT_EQ(gradients[D * i + a], 0.0) << "gradient along clamped axis " << a << " of point " << i;
            }
            else
            {
              expectNear(gradients[D * i + a], gradient[a], "clamped gradient", i, 1.0 / 0.3);
            }
          }
        }
        else if (outside)
        {
          if (std::isnan(outsideValue))
          {
            EXPECT_TRUE(std::isnan(values[i])) << "outside point " << i << ": " << values[i];
          }
          else
          {
            EXPECT_EQ(values[i], outsideValue) << "outside point " << i;
          }
          for (unsigned int a = 0; a < D; ++a)
          {
            if (std::isnan(outsideValue))
            {
              EXPECT_TRUE(std::isnan(gradients[D * i + a])) << "outside point " << i;
            }
            else
            {
              EXPECT_EQ(gradients[D * i + a], 0.0) << "outside point " << i;
            }
          }
        }
        else // inside, on the first or last sample included
        {
          itkAt(indices[i], value, gradient);
          expectNear(values[i], value, "value inside", i, 1.0);
          for (unsigned int a = 0; a < D; ++a)
          {
            expectNear(gradients[D * i + a], gradient[a], "gradient inside", i, 1.0 / 0.3);
          }
        }
      }
    }
  }
}

TEST(CubicBSplineTableCPU, PointsOutsideTheTable)
{
  CheckOutsideRules<2>({ { 9, 7 } }, false);
  CheckOutsideRules<4>({ { 6, 7, 5, 8 } }, false);
  CheckOutsideRules<6>({ { 5, 4, 6, 4, 5, 4 } }, false);
}
TEST(CubicBSplineTableGPU, PointsOutsideTheTable)
{
  CIF_REQUIRE_GPU();
  CheckOutsideRules<2>({ { 9, 7 } }, true);
  CheckOutsideRules<4>({ { 6, 7, 5, 8 } }, true);
  CheckOutsideRules<6>({ { 5, 4, 6, 4, 5, 4 } }, true);
}

/** The GPU and the CPU path run the same math: float tables agree to float rounding
 * (their prefilters round differently, the GPU's sweeping chunks of each line in
 * parallel: each is within the tolerance of ITK used above). */
TEST(CubicBSplineTableGPU, AgreesWithCPUPath)
{
  CIF_REQUIRE_GPU();
  const auto          t = MakeCase<5>({ { 12, 9, 8, 10, 11 } }, Content::Random, FreshSeed());
  auto                gpu = MakeTable<float>(t, Source::HostFloat, true);
  auto                cpu = MakeTable<float>(t, Source::HostFloat, false);
  std::mt19937        rng(FreshSeed());
  std::vector<double> points(5 * 50000);
  for (std::size_t i = 0; i < points.size(); ++i)
  {
    const unsigned int                     a = i % 5;
    std::uniform_real_distribution<double> u(t.origin[a], t.origin[a] + (t.size[a] - 1) * t.spacing[a]);
    points[i] = u(rng);
  }
  std::vector<double> gv, gg, cv, cg;
  gpu->Evaluate(points, gv, &gg);
  cpu->Evaluate(points, cv, &cg);
  const ErrorStats values = Compare(gv.data(), cv.data(), gv.size());
  const ErrorStats gradients = Compare(gg.data(), cg.data(), gg.size());
  EXPECT_LE(values.maxAbs, ValueTolerance<float>(5)) << values;
  EXPECT_LE(gradients.maxAbs, ValueTolerance<float>(5) / 0.3) << gradients;
}

/** Exceptions that say what is wrong, never a crash. */
template <typename F>
void
ExpectError(F && f, const std::string & words)
{
  try
  {
    f();
    ADD_FAILURE() << "accepted; expected an error about \"" << words << "\"";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find(words), std::string::npos) << e.GetDescription();
  }
}

TEST(CubicBSplineTableCPU, BadInputRaisesExceptions)
{
  using Table = itk::CubicBSplineTable<float>;
  const std::vector<float> values(4 * 5 * 6, 1.0f);
  std::vector<double>      points(3 * 4, 0.5), out(4), gradients(12);

  auto table = Table::New();
  table->SetUseGPU(false);
  ExpectError([&] { table->SetValues(values.data()); }, "empty");
  ExpectError([&] { table->Evaluate(points.data(), 4, out.data()); }, "no values");
  ExpectError([&] { table->SetSize({}); }, "empty");
  ExpectError([&] { table->SetSize({ 4, 0, 6 }); }, "axis 1");
  ExpectError([&] { table->SetValues(values.data()); }, "empty"); // the bad size was not taken
  ExpectError([&] { table->SetSize({ 2, 2, 2, 2, 2, 2, 2 }); }, "1 to 6");
  ExpectError([&] { table->SetSize({ 1u << 20, 1u << 20, 1u << 20 }); }, "2^56");
  EXPECT_EQ(table->GetDimension(), 0u);

  table->SetSize({ 4, 5, 6 });
  ExpectError([&] { table->SetValues(static_cast<const float *>(nullptr)); }, "null");
  ExpectError([&] { table->SetValues(std::vector<float>(7)); }, "7 values");
  table->SetSpacing({ 1.0, kNaN, 1.0 });
  ExpectError([&] { table->SetValues(values.data()); }, "spacing of axis 1");
  table->SetSpacing({ 1.0, 0.0, 1.0 });
  ExpectError([&] { table->SetValues(values.data()); }, "spacing of axis 1");
  table->SetSpacing({ 1.0, 1.0, -2.0 });
  ExpectError([&] { table->SetValues(values.data()); }, "spacing of axis 2");
  table->SetSpacing({ 1.0, 1.0, kInf });
  ExpectError([&] { table->SetValues(values.data()); }, "spacing of axis 2");
  table->SetSpacing({ 1.0, 1.0 });
  ExpectError([&] { table->SetValues(values.data()); }, "2 entries");
  table->SetSpacing({});
  table->SetOrigin({ 0.0, -kInf, 0.0 });
  ExpectError([&] { table->SetValues(values.data()); }, "origin of axis 1");
  table->SetOrigin({ 0.0 });
  ExpectError([&] { table->SetValues(values.data()); }, "1 coordinates");
  table->SetOrigin({ 1.0, 2.0, 3.0 });
  EXPECT_FALSE(table->HasCoefficients());
  table->SetValues(values.data());
  EXPECT_TRUE(table->HasCoefficients());

  ExpectError([&] { table->Evaluate(nullptr, 4, out.data()); }, "null");
  ExpectError([&] { table->Evaluate(points.data(), 4, nullptr); }, "null");
  ExpectError([&] { table->Evaluate(points.data(), -1, out.data()); }, "-1 points");
  EXPECT_NO_THROW(table->Evaluate(nullptr, 0, nullptr)); // nothing to do
  ExpectError([&] { table->Evaluate(std::vector<double>(7), out); }, "whole points");
  ExpectError([&] { table->EvaluateOnDevice(points.data(), 4, out.data()); }, "coefficients on the device");
  ExpectError([&] { table->SetBoundaryMode(cif::BoundaryMode::Periodic); }, "Periodic");
  ExpectError([&] { table->SetValuesOnDevice(values.data()); }, "UseGPU is off");
  // a geometry broken after the values were set is found at the lookup
  table->SetSpacing({ 1.0, kNaN, 1.0 });
  ExpectError([&] { table->Evaluate(points.data(), 4, out.data(), gradients.data()); }, "spacing of axis 1");
  table->SetSpacing({});
  EXPECT_NO_THROW(table->Evaluate(points.data(), 4, out.data(), gradients.data()));

  // a new size drops the coefficients
  table->SetSize({ 5, 4, 6 });
  EXPECT_FALSE(table->HasCoefficients());
  ExpectError([&] { table->Evaluate(points.data(), 4, out.data()); }, "no values");

  std::ostringstream printed;
  table->Print(printed);
  EXPECT_NE(printed.str().find("BoundaryMode: Mirror"), std::string::npos) << printed.str();
  EXPECT_NE(printed.str().find("Size: {5, 4, 6}"), std::string::npos) << printed.str();
}

/** Without a usable device, device values are refused with the reason (on a GPU
 * machine: with UseGPU off). */
TEST(CubicBSplineTableCPU, DeviceValuesNeedTheGPU)
{
  auto table = itk::CubicBSplineTable<double>::New();
  table->SetSize({ 3, 3 });
  const float values[9] = {};
  if (cif::IsGPUAvailable())
  {
    table->SetUseGPU(false);
    ExpectError([&] { table->SetValuesOnDevice(values); }, "UseGPU is off");
  }
  else
  {
    ExpectError([&] { table->SetValuesOnDevice(values); }, "CUDA device");
  }
}
} // namespace
