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
// The chained pass along the slowest axis (cifChainedAxisPass.h): a buffer cut into
// parts along its slowest axis, each part filtering its own planes with only the
// recursion's states passed between the parts, gives the bits of the one-piece
// prefilter — parts of one device in one launch, parts on two devices each launched
// on its own, runs repeated over the same mailboxes — and a part whose neighbour
// never runs fails with a clear error instead of hanging. Where a cut can be
// chained is plain host code, tested without a GPU.
#include "cifChainedAxisPass.h"
#include "cifBSplinePrefilterDevice.h"
#include "cifDeviceBuffer.h"
#include "cifDeviceMemoryPool.h"
#include "cifDeviceThreads.h"
#include "cifTestHelpers.h"

#include <random>
#include <vector>

namespace
{
cif::BufferShape
Shape(std::int64_t x, std::int64_t y, std::int64_t z, int components = 1)
{
  cif::BufferShape shape;
  shape.dimension = 3;
  shape.size[0] = x;
  shape.size[1] = y;
  shape.size[2] = z;
  shape.components = components;
  return shape;
}

template <typename T>
std::vector<T>
RandomSamples(const cif::BufferShape & shape, std::uint32_t seed)
{
  std::mt19937                      rng(seed);
  std::uniform_real_distribution<T> unit(T(-1), T(1));
  std::vector<T>                    samples(static_cast<std::size_t>(shape.ScalarCount()));
  for (T & s : samples)
  {
    s = unit(rng);
  }
  return samples;
}

/** The one-piece prefilter's coefficients of \a samples. */
template <typename T>
std::vector<T>
OnePiece(const std::vector<T> &   samples,
         const cif::BufferShape & shape,
         const cif::SplinePoles & poles,
         cif::BoundaryMode        mode)
{
  const std::size_t bytes = samples.size() * sizeof(T);
  cif::DeviceBuffer data(bytes);
  data.Upload(samples.data(), bytes);
  cif::PrefilterOnDevice<T>(data.As<T>(), shape, poles, mode);
  std::vector<T> result(samples.size());
  data.Download(result.data(), bytes);
  return result;
}

/** The leading axes in one piece, then the slowest axis chained over parts cut at
 * \a bounds, every part in one launch on the current device; \a runs runs over the
 * same mailboxes (epochs 1, 2, ...). */
template <typename T>
void
CheckPartsOfOneDevice(const cif::BufferShape &          shape,
                      const std::vector<std::int64_t> & bounds,
                      unsigned int                      order,
                      cif::BoundaryMode                 mode,
                      int                               runs = 1)
{
  const std::uint32_t seed = cif_test::FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(bounds.size() - 1) + " parts, order " +
               std::to_string(order));
  cif::SplinePoles poles;
  ASSERT_TRUE(cif::MakeSplinePoles(order, poles));
  ASSERT_TRUE(cif::CanChainSlowestAxis(shape, bounds, poles, mode, sizeof(T)));
  const std::vector<T> samples = RandomSamples<T>(shape, seed);
  const std::vector<T> expected = OnePiece(samples, shape, poles, mode);
  const std::int64_t   plane = shape.ScalarCount() / shape.size[2];
  const std::size_t    bytes = samples.size() * sizeof(T);
  const std::size_t    parts = bounds.size() - 1;

  std::vector<cif::ChainedAxisMailbox> mailboxes(parts);
  for (auto & mailbox : mailboxes)
  {
    mailbox.Allocate(plane, poles.count, sizeof(T));
  }
  cif::DeviceBuffer data(bytes);
  for (int run = 1; run <= runs; ++run)
  {
    data.Upload(samples.data(), bytes);
    cif::PrefilterLeadingAxesOnDevice<T>(data.As<T>(), shape, 2, poles, mode);
    std::vector<cif::ChainedAxisPart> chain;
    for (std::size_t k = 0; k < parts; ++k)
    {
      chain.push_back(
        cif::ChainedAxisMailbox::Part(mailboxes, k, data.As<T>() + bounds[k] * plane, bounds[k], bounds[k + 1]));
    }
    cif::PrefilterChainedAxisOnDevice<T>(
      chain.data(), static_cast<int>(parts), shape, poles, mode, static_cast<unsigned int>(run));
    std::vector<T> actual(samples.size());
    data.Download(actual.data(), bytes);
    std::size_t differing = 0;
    for (std::size_t i = 0; i < actual.size(); ++i)
    {
      differing += actual[i] != expected[i]; // bits: no NaN here
    }
    EXPECT_EQ(differing, 0u) << "run " << run << ": coefficients that differ from one piece's";
  }
}
} // namespace

TEST(ChainedAxisPass, CutsThatCanBeChained)
{
  cif::SplinePoles cubic;
  cif::MakeSplinePoles(3, cubic);
  const cif::BufferShape shape = Shape(8, 8, 256); // chunks of 16 samples
  const auto             mirror = cif::BoundaryMode::Mirror;
  EXPECT_EQ(cif::ChainedAxisChunkLength(256), 16);
  EXPECT_EQ(cif::ChainedAxisChunkLength(1000), 63);
  EXPECT_TRUE(cif::CanChainSlowestAxis(shape, { 0, 128, 256 }, cubic, mirror, 4));
  EXPECT_TRUE(cif::CanChainSlowestAxis(shape, { 0, 32, 48, 256 }, cubic, mirror, 4));
  EXPECT_FALSE(cif::CanChainSlowestAxis(shape, { 0, 120, 256 }, cubic, mirror, 4)) << "off a chunk bound";
  EXPECT_FALSE(cif::CanChainSlowestAxis(shape, { 0, 256 }, cubic, mirror, 4)) << "one part";
  EXPECT_FALSE(cif::CanChainSlowestAxis(shape, { 0, 128, 200 }, cubic, mirror, 4)) << "not the whole axis";
  EXPECT_FALSE(cif::CanChainSlowestAxis(shape, { 0, 128, 128, 256 }, cubic, mirror, 4)) << "an empty part";
  EXPECT_FALSE(cif::CanChainSlowestAxis(shape, { 0, 128, 256 }, cubic, cif::BoundaryMode::Periodic, 4))
    << "a periodic start reads the other end";
  EXPECT_FALSE(cif::CanChainSlowestAxis(shape, { 0, 16, 256 }, cubic, mirror, 4))
    << "the causal start reads " << cubic.horizon[0] << " samples, past a first part of 16";
  EXPECT_FALSE(cif::CanChainSlowestAxis(Shape(4, 4, 6000), { 0, 3000, 6000 }, cubic, mirror, 4))
    << "lines too long for a tile: the one-piece pass is not the tiled one";
  // Float parts of up to 760 samples take tiles of 32 lines, longer ones of 16: a cut
  // whose parts would group their lines differently is refused.
  EXPECT_TRUE(cif::CanChainSlowestAxis(Shape(4, 4, 1536), { 0, 768, 1536 }, cubic, mirror, 4));
  EXPECT_FALSE(cif::CanChainSlowestAxis(Shape(4, 4, 1536), { 0, 672, 1536 }, cubic, mirror, 4))
    << "tiles of 32 lines on one part, 16 on the other";
  cif::SplinePoles linear;
  cif::MakeSplinePoles(1, linear);
  EXPECT_FALSE(cif::CanChainSlowestAxis(shape, { 0, 128, 256 }, linear, mirror, 4)) << "nothing to filter";
}

TEST(ChainedAxisPassGPU, PartsOfOneDeviceGiveTheBitsOfOnePiece)
{
  CIF_REQUIRE_GPU();
  const auto mirror = cif::BoundaryMode::Mirror;
  CheckPartsOfOneDevice<float>(Shape(37, 29, 256), { 0, 128, 256 }, 3, mirror, 3);
  CheckPartsOfOneDevice<float>(Shape(37, 29, 256), { 0, 64, 192, 256 }, 3, mirror);
  CheckPartsOfOneDevice<float>(Shape(33, 7, 1000), { 0, 252, 504, 756, 1000 }, 3, mirror); // chunks of 63
  CheckPartsOfOneDevice<float>(Shape(21, 13, 200, 2), { 0, 104, 200 }, 3, mirror);         // two components
  CheckPartsOfOneDevice<double>(Shape(19, 11, 512), { 0, 256, 512 }, 3, mirror);
  CheckPartsOfOneDevice<float>(Shape(23, 9, 320), { 0, 160, 320 }, 5, mirror); // two poles
  CheckPartsOfOneDevice<float>(Shape(23, 9, 320), { 0, 100, 320 }, 3, cif::BoundaryMode::HalfSampleMirror);
  CheckPartsOfOneDevice<float>(Shape(23, 9, 320), { 0, 200, 320 }, 3, cif::BoundaryMode::ClampToEdge);
}

TEST(ChainedAxisPassGPU, PartsOnTwoDevicesGiveTheBitsOfOnePiece)
{
  CIF_REQUIRE_GPU();
  if (cif::GetDeviceCount() < 2)
  {
    GTEST_SKIP() << "one visible GPU: the parts of two devices need two";
  }
  if (!cif::detail::LetDeviceReadPool(0, 1) || !cif::detail::LetDeviceReadPool(1, 0))
  {
    GTEST_SKIP() << "devices 0 and 1 cannot reach each other's memory directly";
  }
  const std::uint32_t seed = cif_test::FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const cif::BufferShape          shape = Shape(67, 45, 512);
  const std::vector<std::int64_t> bounds{ 0, 256, 512 };
  cif::SplinePoles                poles;
  cif::MakeSplinePoles(3, poles);
  const auto                           mode = cif::BoundaryMode::Mirror;
  const std::vector<float>             samples = RandomSamples<float>(shape, seed);
  const std::vector<float>             expected = OnePiece(samples, shape, poles, mode);
  const std::int64_t                   plane = shape.ScalarCount() / shape.size[2];
  std::vector<float>                   actual(samples.size());
  std::vector<cif::ChainedAxisMailbox> mailboxes(2);
  std::vector<cif::DeviceBuffer>       data(2);
  cif::RunOnDeviceThreads(
    { 0, 1 }, nullptr, [&](std::int64_t k) { mailboxes[k].Allocate(plane, poles.count, sizeof(float)); });
  for (unsigned int run = 1; run <= 2; ++run)
  {
    cif::RunOnDeviceThreads({ 0, 1 }, nullptr, [&](std::int64_t k) {
      const std::int64_t planes = bounds[k + 1] - bounds[k];
      const std::size_t  bytes = static_cast<std::size_t>(planes * plane) * sizeof(float);
      data[k].Allocate(bytes);
      data[k].Upload(samples.data() + bounds[k] * plane, bytes);
      cif::BufferShape share = shape;
      share.size[2] = planes;
      cif::PrefilterLeadingAxesOnDevice<float>(data[k].As<float>(), share, 2, poles, mode);
      const cif::ChainedAxisPart part =
        cif::ChainedAxisMailbox::Part(mailboxes, static_cast<std::size_t>(k), data[k].Data(), bounds[k], bounds[k + 1]);
      cif::PrefilterChainedAxisOnDevice<float>(&part, 1, shape, poles, mode, run);
      data[k].Download(actual.data() + bounds[k] * plane, bytes);
    });
    EXPECT_EQ(actual, expected) << "run " << run;
  }
  cif::RunOnDeviceThreads({ 0, 1 }, nullptr, [&](std::int64_t k) {
    data[k].Release();
    mailboxes[k].Release();
  });
}

TEST(ChainedAxisPassGPU, APartWhoseNeighbourNeverRunsIsAClearError)
{
  CIF_REQUIRE_GPU();
  const cif::BufferShape shape = Shape(16, 8, 256);
  cif::SplinePoles       poles;
  cif::MakeSplinePoles(3, poles);
  const std::int64_t                   plane = 16 * 8;
  std::vector<cif::ChainedAxisMailbox> mailboxes(2);
  for (auto & mailbox : mailboxes)
  {
    mailbox.Allocate(plane, poles.count, sizeof(float));
  }
  cif::DeviceBuffer        data(static_cast<std::size_t>(shape.ScalarCount()) * sizeof(float));
  const std::vector<float> samples = RandomSamples<float>(shape, cif_test::FreshSeed());
  data.Upload(samples.data(), data.Bytes());
  // Only the second part: its causal fold never comes.
  const cif::ChainedAxisPart second =
    cif::ChainedAxisMailbox::Part(mailboxes, 1, data.As<float>() + 128 * plane, 128, 256);
  EXPECT_THROW(cif::PrefilterChainedAxisOnDevice<float>(&second, 1, shape, poles, cif::BoundaryMode::Mirror, 1, 0.2),
               cif::CudaError);
}
