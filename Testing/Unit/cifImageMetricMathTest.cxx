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
// The metrics' per-point sampling (cifImageMetricMath.h) against ITK's own image
// functions on fresh random images: linear interpolation (on a sample, on sample
// lines, anywhere, at the buffer's edges, and a NaN neighbour of weight 0 not read),
// the value and gradient read with one set of corners or from one four-component
// buffer, IsInsideBuffer; and the check that keeps the device path's offsets within
// 32 bits. Host code: runs everywhere.
#include "cifImageMetricMath.h"
#include "itkImage.h"
#include "itkImageRegionIterator.h"
#include "itkLinearInterpolateImageFunction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace
{
using ImageType = itk::Image<float, 3>;

/** A random float image of random size and start index, with its MetricImage. */
ImageType::Pointer
RandomImage(std::mt19937_64 & random, cif::MetricImage<float> & metricImage)
{
  std::uniform_int_distribution<int> sizeOf(2, 9), startOf(-5, 5);
  ImageType::RegionType              region;
  for (unsigned int a = 0; a < 3; ++a)
  {
    region.SetIndex(a, startOf(random));
    region.SetSize(a, static_cast<itk::SizeValueType>(sizeOf(random)));
  }
  auto image = ImageType::New();
  image->SetRegions(region);
  image->Allocate();
  std::uniform_real_distribution<float> value(-100.0f, 100.0f);
  for (itk::ImageRegionIterator<ImageType> it(image, region); !it.IsAtEnd(); ++it)
  {
    it.Set(value(random));
  }
  metricImage = cif::MetricImage<float>{};
  metricImage.data = image->GetBufferPointer();
  for (int a = 0; a < 3; ++a)
  {
    metricImage.SetBufferGrid(a, region.GetIndex()[a], static_cast<std::int64_t>(region.GetSize()[a]));
  }
  return image;
}

/** A continuous index inside the buffer: per axis on a sample, at either edge, or
 * anywhere (so that 0 to 3 axes lie on sample lines). */
itk::ContinuousIndex<double, 3>
RandomInsideIndex(std::mt19937_64 & random, const ImageType::RegionType & region)
{
  itk::ContinuousIndex<double, 3>        x;
  std::uniform_int_distribution<int>     kind(0, 3);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (unsigned int a = 0; a < 3; ++a)
  {
    const double low = static_cast<double>(region.GetIndex()[a]) - 0.5;
    const double high = static_cast<double>(region.GetIndex()[a] + static_cast<long>(region.GetSize()[a])) - 0.5;
    switch (kind(random))
    {
      case 0: // on a sample
        x[a] = static_cast<double>(region.GetIndex()[a] +
                                   static_cast<long>(unit(random) * static_cast<double>(region.GetSize()[a])));
        break;
      case 1: // the lower edge, where ITK raises the base to the start
        x[a] = low + 0.5 * unit(random);
        break;
      case 2: // the upper edge, where the upper neighbour is the last sample
        x[a] = std::nextafter(high, low) - 0.5 * unit(random);
        break;
      default:
        x[a] = low + (high - low) * unit(random);
        x[a] = x[a] < high ? x[a] : low;
    }
  }
  return x;
}

TEST(ImageMetricMath, LinearInterpolationIsITKs)
{
  std::random_device device;
  const unsigned int seed = device();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  for (int image = 0; image < 20; ++image)
  {
    cif::MetricImage<float> metricImage;
    const auto              itkImage = RandomImage(random, metricImage);
    auto                    interpolator = itk::LinearInterpolateImageFunction<ImageType, double>::New();
    interpolator->SetInputImage(itkImage);
    for (int point = 0; point < 500; ++point)
    {
      const auto x = RandomInsideIndex(random, itkImage->GetBufferedRegion());
      ASSERT_TRUE(interpolator->IsInsideBuffer(x));
      const double xs[3] = { x[0], x[1], x[2] };
      double       ours;
      cif::MetricLinearInterpolate<3, 1>(metricImage, xs, &ours);
      // ITK's 3-D code interpolates in lerp form, the module in weighted-sum form (the
      // form of ITK's general code): the two round differently in the last bits.
      const double itk = interpolator->EvaluateAtContinuousIndex(x);
      ASSERT_NEAR(ours, itk, 1e-12 * 100.0) << "at " << x;
    }
  }
}

TEST(ImageMetricMath, ValueAndGradientFromOneSetOfCornersAreTheSeparateSums)
{
  std::mt19937_64         random(std::random_device{}());
  cif::MetricImage<float> image;
  const auto              itkImage = RandomImage(random, image);
  // A 3-component "gradient" image on the same grid.
  std::vector<float>                    gradientBuffer(3 * itkImage->GetBufferedRegion().GetNumberOfPixels());
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (float & g : gradientBuffer)
  {
    g = value(random);
  }
  cif::MetricImage<float> gradient = image;
  gradient.data = gradientBuffer.data();
  for (int point = 0; point < 2000; ++point)
  {
    const auto   x = RandomInsideIndex(random, itkImage->GetBufferedRegion());
    const double xs[3] = { x[0], x[1], x[2] };
    double       together, togetherGradient[3], alone, aloneGradient[3];
    cif::MetricLinearInterpolateWithGradient<3>(image, gradient, xs, together, togetherGradient);
    cif::MetricLinearInterpolate<3, 1>(image, xs, &alone);
    cif::MetricLinearInterpolate<3, 3>(gradient, xs, aloneGradient);
    ASSERT_EQ(together, alone);
    for (int c = 0; c < 3; ++c)
    {
      ASSERT_EQ(togetherGradient[c], aloneGradient[c]);
    }
  }
}

/** The value and D gradient components in four components a voxel (the GPU path's
 * buffer, MetricFourComponents) give the bits of the two separate images' sums: 3-D
 * and 2-D (the first slice), anywhere, on samples, at the edges, and with a NaN in a
 * neighbour of weight 0. */
template <int D>
void
ExpectFourComponentsAreTheSeparateSums(std::mt19937_64 & random)
{
  cif::MetricImage<float> image;
  const auto              itkImage = RandomImage(random, image);
  const auto              region = itkImage->GetBufferedRegion();
  // A NaN at the start's +x neighbour, read only where it weighs (see below).
  ImageType::IndexType poisoned = region.GetIndex();
  poisoned[0] += 1;
  itkImage->SetPixel(poisoned, std::numeric_limits<float>::quiet_NaN());
  const std::size_t                     count = region.GetNumberOfPixels();
  std::vector<float>                    gradientBuffer(D * count);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (float & g : gradientBuffer)
  {
    g = value(random);
  }
  std::vector<cif::MetricFourComponents<float>> units(count);
  for (std::size_t n = 0; n < count; ++n)
  {
    units[n].value[0] = image.data[n];
    for (int c = 0; c < 3; ++c)
    {
      units[n].value[1 + c] = c < D ? gradientBuffer[D * n + c] : 0.0f;
    }
  }
  cif::MetricImage<float> gradient = image;
  gradient.data = gradientBuffer.data();
  const auto *        valueAndGradient = &units[0].value[0];
  std::vector<double> points;
  for (int point = 0; point < 2000; ++point)
  {
    const auto x = RandomInsideIndex(random, region);
    points.insert(points.end(), { x[0], x[1], D == 2 ? static_cast<double>(region.GetIndex()[2]) : x[2] });
  }
  // Beside the NaN with weight 0 on it: x on the start's sample line, and on the sample.
  const double base[3] = { static_cast<double>(region.GetIndex()[0]),
                           static_cast<double>(region.GetIndex()[1]),
                           static_cast<double>(region.GetIndex()[2]) };
  points.insert(points.end(), { base[0], base[1] + 0.25, D == 2 ? base[2] : base[2] + 0.75 });
  points.insert(points.end(), { base[0], base[1], base[2] });
  for (std::size_t p = 0; p < points.size() / 3; ++p)
  {
    const double * xs = &points[3 * p];
    double         four, fourGradient[3], separate, separateGradient[3];
    cif::MetricLinearInterpolateValueAndGradient<D>(image, valueAndGradient, xs, four, fourGradient);
    cif::MetricLinearInterpolateWithGradient<D>(image, gradient, xs, separate, separateGradient);
    const bool nearNaN = p >= points.size() / 3 - 2;
    if (nearNaN)
    {
      ASSERT_TRUE(std::isfinite(four)) << "point " << p;
    }
    if (std::isnan(separate))
    {
      ASSERT_TRUE(std::isnan(four)) << "point " << p;
    }
    else
    {
      ASSERT_EQ(four, separate) << "point " << p;
    }
    for (int c = 0; c < D; ++c)
    {
      ASSERT_EQ(fourGradient[c], separateGradient[c]) << "point " << p << ", component " << c;
    }
  }
}

TEST(ImageMetricMath, ValueAndGradientInFourComponentsAreTheSeparateSums)
{
  const unsigned int seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  for (int image = 0; image < 10; ++image)
  {
    ExpectFourComponentsAreTheSeparateSums<3>(random);
    ExpectFourComponentsAreTheSeparateSums<2>(random);
  }
}

TEST(ImageMetricMath, NeighbourOfWeightZeroIsNotRead)
{
  // ITK does not read a neighbour whose weight is 0, so a NaN there leaves the value
  // finite; the module's sum skips it too (on a sample line and on a sample).
  std::mt19937_64         random(std::random_device{}());
  cif::MetricImage<float> image;
  const auto              itkImage = RandomImage(random, image);
  const auto              region = itkImage->GetBufferedRegion();
  ImageType::IndexType    base = region.GetIndex();
  ImageType::IndexType    poisoned = base;
  poisoned[0] += 1;
  itkImage->SetPixel(poisoned, std::numeric_limits<float>::quiet_NaN());
  auto interpolator = itk::LinearInterpolateImageFunction<ImageType, double>::New();
  interpolator->SetInputImage(itkImage);
  itk::ContinuousIndex<double, 3> onLine; // x on a sample line, y and z between samples
  onLine[0] = static_cast<double>(base[0]);
  onLine[1] = static_cast<double>(base[1]) + 0.25;
  onLine[2] = static_cast<double>(base[2]) + 0.75;
  itk::ContinuousIndex<double, 3> onSample;
  for (unsigned int a = 0; a < 3; ++a)
  {
    onSample[a] = static_cast<double>(base[a]);
  }
  for (const auto & x : { onLine, onSample })
  {
    const double xs[3] = { x[0], x[1], x[2] };
    double       ours;
    cif::MetricLinearInterpolate<3, 1>(image, xs, &ours);
    const double itk = interpolator->EvaluateAtContinuousIndex(x);
    ASSERT_TRUE(std::isfinite(itk));
    EXPECT_TRUE(std::isfinite(ours)) << "at " << x;
    EXPECT_NEAR(ours, itk, 1e-12 * 100.0) << "at " << x;
  }
}

TEST(ImageMetricMath, InsideBufferIsITKs)
{
  std::mt19937_64         random(std::random_device{}());
  cif::MetricImage<float> image;
  const auto              itkImage = RandomImage(random, image);
  auto                    interpolator = itk::LinearInterpolateImageFunction<ImageType, double>::New();
  interpolator->SetInputImage(itkImage);
  const auto                             region = itkImage->GetBufferedRegion();
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int                                    inside = 0;
  for (int point = 0; point < 5000; ++point)
  {
    itk::ContinuousIndex<double, 3> x;
    for (unsigned int a = 0; a < 3; ++a)
    {
      // Around the buffer, with points exactly on its limits now and then.
      const double low = static_cast<double>(region.GetIndex()[a]) - 0.5;
      const double high = low + static_cast<double>(region.GetSize()[a]);
      const double r = unit(random);
      x[a] = r < 0.1 ? low : (r < 0.2 ? high : low - 1.0 + (high - low + 2.0) * unit(random));
    }
    const double xs[3] = { x[0], x[1], x[2] };
    const bool   ours = cif::MetricInsideBuffer<3>(image, xs);
    ASSERT_EQ(ours, interpolator->IsInsideBuffer(x)) << "at " << x;
    inside += ours ? 1 : 0;
  }
  EXPECT_GT(inside, 0);
  const double nan[3] = { std::nan(""), 0.0, 0.0 };
  EXPECT_FALSE(cif::MetricInsideBuffer<3>(image, nan));
}

TEST(ImageMetricMath, DeviceOffsetsStayWithin32Bits)
{
  cif::MetricImage<float> image;
  const std::int64_t      start[3] = { -3, 0, 7 };
  const std::int64_t      fits[3] = { 512, 512, 512 };
  for (int a = 0; a < 3; ++a)
  {
    image.SetBufferGrid(a, start[a], fits[a]);
  }
  EXPECT_TRUE(cif::FitsDeviceOffsets(image));
  image.SetBufferGrid(2, 0, 8192); // 512 x 512 x 8192 = 2^31 voxels
  EXPECT_FALSE(cif::FitsDeviceOffsets(image));
  image.SetBufferGrid(2, 0, 8191);
  EXPECT_TRUE(cif::FitsDeviceOffsets(image));
  image.SetBufferGrid(0, std::int64_t(1) << 31, 512); // an index beyond 32 bits
  EXPECT_FALSE(cif::FitsDeviceOffsets(image));
}
} // namespace
