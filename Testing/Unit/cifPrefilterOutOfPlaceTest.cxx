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
// The device prefilter out of place (PrefilterOnDevice(source, coefficients, ...)):
// the same coefficients as filtering a copy in place, bit for bit, and the source
// left as it was — through the tiled kernels, the long-line fallback (which needs
// the samples copied first) and a shape with no axis to filter. Into another layout
// (PrefilterIntoLayoutOnDevice: the resampler's mirror-padded coefficients) the same
// bits land at the layout's places, and nothing else is written.
#include "cifBSplinePrefilterDevice.h"
#include "cifMirrorPadding.h"
#include "cifDeviceBuffer.h"
#include "cifTestHelpers.h"

#include <vector>

namespace
{
/** Fresh uniform samples in [-1, 1) for every scalar of \a shape. */
std::vector<float>
RandomSamples(const cif::BufferShape & shape, std::uint32_t seed)
{
  std::mt19937                          rng(seed);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<float>                    samples(static_cast<std::size_t>(shape.ScalarCount()));
  for (float & s : samples)
  {
    s = unit(rng);
  }
  return samples;
}

void
CheckOutOfPlace(const cif::BufferShape & shape)
{
  const std::uint32_t seed = cif_test::FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<float> samples = RandomSamples(shape, seed);
  const std::size_t        count = samples.size();
  cif::SplinePoles         poles;
  cif::MakeSplinePoles(3, poles);
  const std::size_t bytes = count * sizeof(float);

  cif::DeviceBuffer inPlace(bytes), source(bytes), outOfPlace(bytes);
  inPlace.Upload(samples.data(), bytes);
  source.Upload(samples.data(), bytes);
  cif::PrefilterOnDevice<float>(inPlace.As<float>(), shape, poles, cif::BoundaryMode::Mirror);
  cif::PrefilterOnDevice<float>(
    source.As<const float>(), outOfPlace.As<float>(), shape, poles, cif::BoundaryMode::Mirror);

  std::vector<float> expected(count), actual(count), sourceAfter(count);
  inPlace.Download(expected.data(), bytes);
  outOfPlace.Download(actual.data(), bytes);
  source.Download(sourceAfter.data(), bytes);
  EXPECT_EQ(actual, expected);
  EXPECT_EQ(sourceAfter, samples);
  if (shape.ScalarCount() > 1)
  {
    EXPECT_NE(actual, samples) << "the prefilter changed nothing";
  }
}

/** PrefilterIntoLayoutOnDevice at the mirror-padded layout of a D-D \a shape: its
 * interior holds PrefilterOnDevice's bits, its halo the poison it started with. */
template <int D>
void
CheckIntoPaddedLayout(const cif::BufferShape & shape)
{
  const std::uint32_t seed = cif_test::FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(D) + "-D");
  const std::vector<float> samples = RandomSamples(shape, seed);
  const std::size_t        count = samples.size();
  cif::SplinePoles         poles;
  cif::MakeSplinePoles(3, poles);
  cif::CoefficientGrid grid;
  for (int a = 0; a < D; ++a)
  {
    grid.size[a] = shape.size[a];
  }
  const cif::BufferLayout layout = cif::MirrorPaddedLayout<D>(grid);
  const auto              paddedCount = static_cast<std::size_t>(cif::MirrorPaddedCount<D>(grid));
  const float             poison = -12345.f;
  std::vector<float>      padded(paddedCount, poison);

  cif::DeviceBuffer dense(count * sizeof(float)), source(count * sizeof(float)), into(paddedCount * sizeof(float));
  dense.Upload(samples.data(), count * sizeof(float));
  source.Upload(samples.data(), count * sizeof(float));
  into.Upload(padded.data(), paddedCount * sizeof(float));
  cif::PrefilterOnDevice<float>(dense.As<float>(), shape, poles, cif::BoundaryMode::Mirror);
  cif::PrefilterIntoLayoutOnDevice<float>(
    source.As<const float>(), into.As<float>(), layout, shape, poles, cif::BoundaryMode::Mirror);
  std::vector<float> expected(count), sourceAfter(count);
  dense.Download(expected.data(), count * sizeof(float));
  into.Download(padded.data(), paddedCount * sizeof(float));
  source.Download(sourceAfter.data(), count * sizeof(float));
  EXPECT_EQ(sourceAfter, samples);
  const cif::AxisLines rows = cif::MakeAxisLines(shape, 0, layout);
  std::vector<bool>    interior(paddedCount, false);
  std::int64_t         wrong = 0;
  for (std::int64_t line = 0; line < rows.count; ++line)
  {
    for (std::int64_t k = 0; k < rows.length; ++k)
    {
      const auto at = static_cast<std::size_t>(rows.Start(line) + k);
      interior[at] = true;
      wrong += padded[at] != expected[static_cast<std::size_t>(line * rows.length + k)];
    }
  }
  EXPECT_EQ(wrong, 0) << "interior samples that differ from the dense prefilter's";
  std::int64_t written = 0;
  for (std::size_t i = 0; i < paddedCount; ++i)
  {
    written += !interior[i] && padded[i] != poison;
  }
  EXPECT_EQ(written, 0) << "halo samples written";
}

cif::BufferShape
Shape(int dimension, std::int64_t x, std::int64_t y = 1, std::int64_t z = 1, int components = 1)
{
  cif::BufferShape shape;
  shape.dimension = dimension;
  shape.size[0] = x;
  shape.size[1] = y;
  shape.size[2] = z;
  shape.components = components;
  return shape;
}
} // namespace

TEST(BSplinePrefilterGPU, OutOfPlaceMatchesInPlaceAndKeepsTheSource)
{
  CIF_REQUIRE_GPU();
  CheckOutOfPlace(Shape(3, 37, 29, 23));   // tiled kernels on every axis
  CheckOutOfPlace(Shape(2, 61, 45, 1, 3)); // three interleaved components
  CheckOutOfPlace(Shape(1, 5000));         // a line too long for a tile: copied, then filtered in place
  CheckOutOfPlace(Shape(2, 5000, 3));      // the long axis first, then a tiled one
  CheckOutOfPlace(Shape(3, 1, 1, 1));      // nothing to filter: the coefficients are the samples
}

TEST(BSplinePrefilterGPU, IntoTheMirrorPaddedLayoutGivesTheSameBitsInPlace)
{
  CIF_REQUIRE_GPU();
  CheckIntoPaddedLayout<3>(Shape(3, 37, 29, 23)); // tiled kernels on every axis
  CheckIntoPaddedLayout<2>(Shape(2, 70, 3));      // short lines along the second axis
  CheckIntoPaddedLayout<2>(Shape(2, 3000, 4));    // a line too long for a tile: copied into the layout first
  CheckIntoPaddedLayout<3>(Shape(3, 9, 1, 6));    // an axis of one sample: no pass along it
  CheckIntoPaddedLayout<3>(Shape(3, 1, 1, 1));    // nothing to filter: the samples copied into the layout
  cif::BufferShape fourD = Shape(4, 11, 7, 5);
  fourD.size[3] = 4;
  CheckIntoPaddedLayout<4>(fourD);
}
