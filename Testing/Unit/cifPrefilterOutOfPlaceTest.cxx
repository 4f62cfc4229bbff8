// The device prefilter out of place (PrefilterOnDevice(source, coefficients, ...)):
// the same coefficients as filtering a copy in place, bit for bit, and the source
// left as it was — through the tiled kernels, the long-line fallback (which needs
// the samples copied first) and a shape with no axis to filter.
#include "cifBSplinePrefilterDevice.h"
#include "cifDeviceBuffer.h"
#include "cifTestHelpers.h"

#include <vector>

namespace
{
void
CheckOutOfPlace(const cif::BufferShape & shape)
{
  const std::uint32_t seed = cif_test::FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937                          rng(seed);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  const auto                            count = static_cast<std::size_t>(shape.ScalarCount());
  std::vector<float>                    samples(count);
  for (float & s : samples)
  {
    s = unit(rng);
  }
  cif::SplinePoles poles;
  cif::MakeSplinePoles(3, poles);
  const std::size_t bytes = count * sizeof(float);

  cif::DeviceBuffer inPlace(bytes), source(bytes), outOfPlace(bytes);
  inPlace.Upload(samples.data(), bytes);
  source.Upload(samples.data(), bytes);
  cif::PrefilterOnDevice<float>(inPlace.As<float>(), shape, poles, cif::BoundaryMode::Mirror);
  cif::PrefilterOnDevice<float>(source.As<const float>(), outOfPlace.As<float>(), shape, poles,
                                cif::BoundaryMode::Mirror);

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
  CheckOutOfPlace(Shape(3, 37, 29, 23));      // tiled kernels on every axis
  CheckOutOfPlace(Shape(2, 61, 45, 1, 3));    // three interleaved components
  CheckOutOfPlace(Shape(1, 5000));            // a line too long for a tile: copied, then filtered in place
  CheckOutOfPlace(Shape(2, 5000, 3));         // the long axis first, then a tiled one
  CheckOutOfPlace(Shape(3, 1, 1, 1));         // nothing to filter: the coefficients are the samples
}
