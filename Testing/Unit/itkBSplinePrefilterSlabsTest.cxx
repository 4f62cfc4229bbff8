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
// The prefilter larger than the device: under a device memory limit of a few MiB
// the filter works in slabs (cifSlabbedPrefilter.h) and gives the bits of one
// piece, on the CPU path (the same plans, run in CI) and on the GPU; a job whose
// smallest slab cannot fit is an ExceptionObject naming the sizes.
#include "cifPrefilterTestSupport.h"
#include "cifSlabbedPrefilter.h"
#include "itkVector.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace
{
using namespace cif_test;

constexpr std::size_t kMiB = std::size_t(1) << 20;

template <typename TOut, typename TIn>
void
ExpectSlabsMatchOnePiece(const TIn *       input,
                         Path              path,
                         std::size_t       limit,
                         cif::BoundaryMode mode = cif::BoundaryMode::Mirror)
{
  auto                   whole = RunPrefilter<TOut>(input, path, 3, mode);
  typename TOut::Pointer slabbed;
  {
    ScopedDeviceMemoryLimit scoped(limit);
    slabbed = RunPrefilter<TOut>(input, path, 3, mode);
  }
  const std::size_t scalars = whole->GetPixelContainer()->Size() * sizeof(typename TOut::PixelType) /
                              sizeof(typename itk::NumericTraits<typename TOut::PixelType>::ValueType);
  using Scalar = typename itk::NumericTraits<typename TOut::PixelType>::ValueType;
  EXPECT_TRUE(SameBits(reinterpret_cast<const Scalar *>(whole->GetBufferPointer()),
                       reinterpret_cast<const Scalar *>(slabbed->GetBufferPointer()),
                       scalars))
    << ToString(path) << ", limit " << limit;
}

void
SlabPlansCutBothPhases()
{
  // 128 x 96 x 80 floats (3.75 MiB) under 1 MiB: 4 slabs of planes, 4 of rows.
  cif::BufferShape shape;
  shape.dimension = 3;
  shape.size[0] = 128;
  shape.size[1] = 96;
  shape.size[2] = 80;
  const auto plan = cif::PlanSlabbedPrefilter(shape, sizeof(float), kMiB, "test");
  EXPECT_FALSE(plan.whole);
  EXPECT_EQ(plan.planes.count, 4);
  EXPECT_EQ(plan.planes.unitsPerSlab, 20);
  EXPECT_EQ(plan.chunks.count, 4);
  EXPECT_EQ(plan.chunks.unitsPerSlab, 24);
}

TEST(BSplinePrefilterSlabs, PlanCutsBothPhases) { SlabPlansCutBothPhases(); }

/** A reservation that fails above \a most scalars, as a device whose free memory is
 * not all allocatable: the plan is cut finer until its largest slab fits. */
TEST(BSplinePrefilterSlabs, AFailedReservationIsPlannedAgainFiner)
{
  cif::BufferShape shape;
  shape.dimension = 3;
  shape.size[0] = 128;
  shape.size[1] = 96;
  shape.size[2] = 80;
  std::vector<float>                    data(static_cast<std::size_t>(shape.ScalarCount()));
  std::mt19937                          rng(FreshSeed());
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::generate(data.begin(), data.end(), [&] { return value(rng); });
  cif::SplinePoles poles;
  cif::MakeSplinePoles(3, poles);
  std::vector<float> onePiece = data;
  cif::PrefilterOnHost(onePiece.data(), shape, poles, cif::BoundaryMode::Mirror, cif::SequentialFor{});

  auto filterLeading =
    [&poles](float * d, const cif::BufferShape & slab, int axisEnd, const cif::StageCallback & afterAxis) {
      cif::PrefilterLeadingAxesOnHost(
        d, slab, axisEnd, poles, cif::BoundaryMode::Mirror, cif::SequentialFor{}, afterAxis);
    };
  using HostExecutor = cif::HostSlabExecutor<float, decltype(filterLeading)>;
  struct FailingAbove : HostExecutor
  {
    FailingAbove(decltype(filterLeading) f, std::int64_t most)
      : HostExecutor(f)
      , m_Most(most)
    {}
    void
    Reserve(std::int64_t scalars)
    {
      ++reservations;
      if (scalars > m_Most)
      {
        throw cif::CudaOutOfMemory("simulated: " + std::to_string(scalars) + " scalars");
      }
      HostExecutor::Reserve(scalars);
    }
    int          reservations = 0;
    std::int64_t m_Most;
  };
  // The budget holds the whole volume (3.75 MiB); only 1 MiB can be reserved.
  FailingAbove executor(filterLeading, std::int64_t{ 1 } << 18);
  const auto   plan = cif::PlanAndReserveSlabs(shape, sizeof(float), 4 * kMiB, "test", executor);
  EXPECT_FALSE(plan.whole);
  EXPECT_LE(cif::LargestSlabScalars(shape, plan), std::int64_t{ 1 } << 18);
  EXPECT_GE(executor.reservations, 2);
  std::vector<float> slabbed = data;
  cif::RunSlabbedPrefilter(slabbed.data(), shape, plan, executor);
  EXPECT_TRUE(SameBits(onePiece.data(), slabbed.data(), onePiece.size()));

  // Less than one plane (48 KiB) can be reserved: the clear error, naming the sizes.
  FailingAbove starved(filterLeading, 1000);
  try
  {
    cif::PlanAndReserveSlabs(shape, sizeof(float), 4 * kMiB, "test", starved);
    ADD_FAILURE() << "a reservation that never fits must fail";
  }
  catch (const cif::CudaOutOfMemory & e)
  {
    EXPECT_NE(std::string(e.what()).find("not enough GPU memory for test"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("MiB"), std::string::npos) << e.what();
  }
}

TEST(BSplinePrefilterSlabs, CPUPathSlabsGiveTheBitsOfOnePiece)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto f3 = MakeImage<itk::Image<float, 3>>({ { 128, 96, 80 } }, { { 2, -1, 0 } }, Content::Random, seed);
  ExpectSlabsMatchOnePiece<itk::Image<float, 3>>(f3.GetPointer(), Path::CPU, kMiB);
  ExpectSlabsMatchOnePiece<itk::Image<float, 3>>(f3.GetPointer(), Path::CPU, 3 * kMiB / 2, cif::BoundaryMode::Periodic);
  auto u3 = MakeImage<itk::Image<unsigned char, 3>>({ { 61, 47, 90 } }, { { 0, 0, 0 } }, Content::Random, seed, 0, 255);
  ExpectSlabsMatchOnePiece<itk::Image<double, 3>>(u3.GetPointer(), Path::CPU, kMiB);
  auto f2 = MakeImage<itk::Image<float, 2>>({ { 700, 900 } }, { { 0, 0 } }, Content::Random, seed);
  ExpectSlabsMatchOnePiece<itk::Image<float, 2>>(f2.GetPointer(), Path::CPU, kMiB);
  auto f4 = MakeImage<itk::Image<float, 4>>({ { 20, 18, 16, 30 } }, { { 0, 0, 0, 0 } }, Content::Smooth, seed);
  ExpectSlabsMatchOnePiece<itk::Image<float, 4>>(f4.GetPointer(), Path::CPU, 256 * 1024);
}

// The slabs reading their samples from a separate source (what the GPU filters do
// for an input of the coefficients' type, so that the output or work area is touched
// once): the destination is never read before it is written (it starts as NaNs), and
// the result has the bits of the in-place run.
TEST(BSplinePrefilterSlabs, SlabsReadingASourceGiveTheBitsOfInPlaceSlabs)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937                          rng(seed);
  std::uniform_real_distribution<float> value(-100.0f, 100.0f);
  cif::BufferShape                      shape;
  shape.dimension = 3;
  shape.size[0] = 128;
  shape.size[1] = 96;
  shape.size[2] = 80;
  const std::size_t  count = static_cast<std::size_t>(shape.ScalarCount());
  std::vector<float> samples(count);
  for (float & v : samples)
  {
    v = value(rng);
  }
  cif::SplinePoles poles;
  cif::MakeSplinePoles(3, poles);
  auto filterLeading =
    [&poles](float * data, const cif::BufferShape & slab, int axisEnd, const cif::StageCallback & afterAxis) {
      cif::PrefilterLeadingAxesOnHost(
        data, slab, axisEnd, poles, cif::BoundaryMode::Mirror, cif::SequentialFor{}, afterAxis);
    };
  for (const std::size_t limit : { kMiB, 64 * kMiB }) // slabs, and one piece
  {
    SCOPED_TRACE(testing::Message() << "limit " << limit);
    const auto plan = cif::PlanSlabbedPrefilter(shape, sizeof(float), limit, "test");
    EXPECT_EQ(plan.whole, limit != kMiB);
    std::vector<float> inPlace = samples;
    {
      cif::HostSlabExecutor<float, decltype(filterLeading)> executor(filterLeading);
      cif::RunSlabbedPrefilter(inPlace.data(), shape, plan, executor);
    }
    std::vector<float> fromSource(count, std::numeric_limits<float>::quiet_NaN());
    {
      cif::HostSlabExecutor<float, decltype(filterLeading)> executor(filterLeading);
      cif::RunSlabbedPrefilter(fromSource.data(), shape, plan, executor, {}, cif::SequentialFor{}, samples.data());
    }
    EXPECT_TRUE(SameBits(inPlace.data(), fromSource.data(), count));
    EXPECT_FALSE(SameBits(inPlace.data(), samples.data(), count)); // it did filter
  }
}

TEST(BSplinePrefilterSlabs, CPUPathSlabsOfVectorPixels)
{
  using VectorImage = itk::Image<itk::Vector<float, 3>, 3>;
  auto                  input = VectorImage::New();
  VectorImage::SizeType size = { { 40, 30, 50 } };
  input->SetRegions(size);
  input->Allocate();
  std::mt19937                          rng(FreshSeed());
  std::uniform_real_distribution<float> value(-10.f, 10.f);
  auto *                                p = input->GetBufferPointer();
  for (std::size_t i = 0; i < input->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    for (unsigned int c = 0; c < 3; ++c)
    {
      p[i][c] = value(rng);
    }
  }
  ExpectSlabsMatchOnePiece<VectorImage>(input.GetPointer(), Path::CPU, 256 * 1024);
}

TEST(BSplinePrefilterSlabs, TooSmallALimitIsAnExceptionNamingTheSizes)
{
  auto line = MakeImage<itk::Image<float, 1>>({ { 400000 } }, { { 0 } }, Content::Random, 1);
  auto plane = MakeImage<itk::Image<float, 3>>({ { 600, 500, 4 } }, { { 0, 0, 0 } }, Content::Random, 1);
  for (Path path : { Path::CPU, Path::GPU })
  {
    if (path == Path::GPU && !cif::IsGPUAvailable())
    {
      continue;
    }
    ScopedDeviceMemoryLimit scoped(kMiB);
    try
    {
      RunPrefilter<itk::Image<float, 1>>(line.GetPointer(), path);
      ADD_FAILURE() << "a 1-D line larger than the limit must fail";
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_NE(std::string(e.GetDescription()).find("1-D line"), std::string::npos) << e.GetDescription();
      EXPECT_NE(std::string(e.GetDescription()).find("1.00 MiB"), std::string::npos) << e.GetDescription();
    }
    try
    {
      RunPrefilter<itk::Image<float, 3>>(plane.GetPointer(), path);
      ADD_FAILURE() << "a plane larger than the limit must fail";
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_NE(std::string(e.GetDescription()).find("1.14 MiB"), std::string::npos) << e.GetDescription();
    }
  }
}

TEST(BSplinePrefilterSlabsGPU, SlabsGiveTheBitsOfOnePiece)
{
  CIF_REQUIRE_GPU();
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto f3 = MakeImage<itk::Image<float, 3>>({ { 128, 96, 80 } }, { { 2, -1, 0 } }, Content::Random, seed);
  ExpectSlabsMatchOnePiece<itk::Image<float, 3>>(f3.GetPointer(), Path::GPU, kMiB);
  ExpectSlabsMatchOnePiece<itk::Image<float, 3>>(f3.GetPointer(), Path::GPU, 3 * kMiB / 2, cif::BoundaryMode::Periodic);
  auto u3 = MakeImage<itk::Image<unsigned char, 3>>({ { 61, 47, 90 } }, { { 0, 0, 0 } }, Content::Random, seed, 0, 255);
  ExpectSlabsMatchOnePiece<itk::Image<double, 3>>(u3.GetPointer(), Path::GPU, kMiB);
  auto f2 = MakeImage<itk::Image<float, 2>>({ { 700, 900 } }, { { 0, 0 } }, Content::Random, seed);
  ExpectSlabsMatchOnePiece<itk::Image<float, 2>>(f2.GetPointer(), Path::GPU, kMiB);
  auto f4 = MakeImage<itk::Image<float, 4>>({ { 20, 18, 16, 30 } }, { { 0, 0, 0, 0 } }, Content::Smooth, seed);
  ExpectSlabsMatchOnePiece<itk::Image<float, 4>>(f4.GetPointer(), Path::GPU, 256 * 1024);
  // Lines longer than a shared-memory tile (the global-memory kernel) along the
  // slowest axis: 20000 planes of 4 x 4.
  auto tall = MakeImage<itk::Image<float, 3>>({ { 4, 4, 20000 } }, { { 0, 0, 0 } }, Content::Random, seed);
  ExpectSlabsMatchOnePiece<itk::Image<float, 3>>(tall.GetPointer(), Path::GPU, 512 * 1024);
}

// ---------------------------------------------------------------- 64-bit sizes
// Large: 1300^3 uchar in, float out: 2.197e9 voxels (past 2^31), 2.2 GB in and 8.8 GB
// out on the host and on the device; about 15 s on an H100 host of 16 cores, most of
// it filling the input and crossing the bus. The CPU path on 2.2e9 voxels would take
// minutes, so the check is the interpolation property at sampled grid points: the
// cubic B-spline of the coefficients, (c[n-1] + 4 c[n] + c[n+1]) / 6 along each axis
// with ITK's mirror (c[-1] = c[1], c[N] = c[N-2]), gives back the samples. The
// samples include the corners and points whose offsets pass 2^31 and 2^32.
TEST(BSplinePrefilterLargeGPU, LargerThan2To31Voxels)
{
  CIF_REQUIRE_GPU();
  using In = itk::Image<unsigned char, 3>;
  using Out = itk::Image<float, 3>;
  constexpr std::int64_t n = 1300;
  auto                   input = In::New();
  input->SetRegions(In::RegionType(In::SizeType{ { n, n, n } }));
  input->Allocate();
  ASSERT_GT(input->GetBufferedRegion().GetNumberOfPixels(), std::size_t(1) << 31);
  // A cheap hash of the index: not zeros, not smooth, the same every run.
  unsigned char * x = input->GetBufferPointer();
  const auto      at = [](std::int64_t i) { return static_cast<unsigned char>((i * 2654435761ull) >> 13); };
  for (std::int64_t i = 0; i < n * n * n; ++i)
  {
    x[i] = at(i);
  }
  auto          coefficients = RunPrefilter<Out>(input.GetPointer(), Path::GPU);
  const float * c = coefficients->GetBufferPointer();
  const auto    mirror = [](std::int64_t i) { return i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i; };
  const double  w[3] = { 1.0 / 6, 4.0 / 6, 1.0 / 6 };
  std::mt19937  rng(FreshSeed());
  std::uniform_int_distribution<std::int64_t> u(0, n - 1);
  std::vector<std::array<std::int64_t, 3>>    points;
  for (std::int64_t corner = 0; corner < 8; ++corner)
  {
    points.push_back({ corner & 1 ? n - 1 : 0, corner & 2 ? n - 1 : 0, corner & 4 ? n - 1 : 0 });
  }
  for (int k = 0; k < 2000; ++k)
  {
    points.push_back({ u(rng), u(rng), u(rng) });
  }
  double worst = 0;
  for (const auto & p : points)
  {
    double value = 0;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
        {
          const std::int64_t i = mirror(p[0] + dx) + n * (mirror(p[1] + dy) + n * mirror(p[2] + dz));
          value += w[dx + 1] * w[dy + 1] * w[dz + 1] * static_cast<double>(c[i]);
        }
    const std::int64_t i = p[0] + n * (p[1] + n * p[2]);
    worst = std::max(worst, std::abs(value - static_cast<double>(x[i])));
  }
  // Float coefficients of hashed (high-frequency) data grow to some thousands, so the
  // 27-term sum carries float rounding of a few 1e-4; a wrong offset anywhere gives
  // errors of the order of the data (tens). 1e-4 of the range sits between the two.
  EXPECT_LE(worst, 1e-4 * 255) << "largest interpolation error at " << points.size() << " sampled points";
}

// Large-ish: an axis longer than 65535 (70000 samples; 2.5 MB). Along the first axis
// it is a line too long for a tile (the global-memory kernel); along the last, 70000
// planes. GPU against the CPU path within the float tolerance of the accuracy tests.
TEST(BSplinePrefilterLargeGPU, AxisLongerThan65535)
{
  CIF_REQUIRE_GPU();
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  using Image = itk::Image<float, 3>;
  for (const auto & size : { Image::SizeType{ { 70000, 3, 3 } }, Image::SizeType{ { 3, 3, 70000 } } })
  {
    SCOPED_TRACE(testing::Message() << "size " << size);
    auto       input = MakeImage<Image>(size, { { 0, 0, 0 } }, Content::Random, seed);
    auto       cpu = RunPrefilter<Image>(input.GetPointer(), Path::CPU);
    auto       gpu = RunPrefilter<Image>(input.GetPointer(), Path::GPU);
    const auto count = input->GetBufferedRegion().GetNumberOfPixels();
    double     range = 0, worst = 0;
    for (std::size_t i = 0; i < count; ++i)
    {
      range = std::max(range, std::abs(static_cast<double>(cpu->GetBufferPointer()[i])));
      worst = std::max(worst, std::abs(static_cast<double>(gpu->GetBufferPointer()[i]) - cpu->GetBufferPointer()[i]));
    }
    EXPECT_LE(worst, Tolerance<float>(range, range)) << "range " << range;
  }
}
} // namespace
