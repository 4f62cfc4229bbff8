// The prefilter larger than the device: under a device memory limit of a few MiB
// the filter works in slabs (cifSlabbedPrefilter.h) and gives the bits of one
// piece, on the CPU path (the same plans, run in CI) and on the GPU; a job whose
// smallest slab cannot fit is an ExceptionObject naming the sizes.
#include "cifPrefilterTestSupport.h"
#include "cifSlabbedPrefilter.h"
#include "itkVector.h"

namespace
{
using namespace cif_test;

constexpr std::size_t kMiB = std::size_t(1) << 20;

template <typename TOut, typename TIn>
void
ExpectSlabsMatchOnePiece(const TIn * input, Path path, std::size_t limit, cif::BoundaryMode mode = cif::BoundaryMode::Mirror)
{
  auto whole = RunPrefilter<TOut>(input, path, 3, mode);
  typename TOut::Pointer slabbed;
  {
    ScopedDeviceMemoryLimit scoped(limit);
    slabbed = RunPrefilter<TOut>(input, path, 3, mode);
  }
  const std::size_t scalars = whole->GetPixelContainer()->Size() * sizeof(typename TOut::PixelType) /
                              sizeof(typename itk::NumericTraits<typename TOut::PixelType>::ValueType);
  using Scalar = typename itk::NumericTraits<typename TOut::PixelType>::ValueType;
  EXPECT_TRUE(SameBits(reinterpret_cast<const Scalar *>(whole->GetBufferPointer()),
                       reinterpret_cast<const Scalar *>(slabbed->GetBufferPointer()), scalars))
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

TEST(BSplinePrefilterSlabs, CPUPathSlabsOfVectorPixels)
{
  using VectorImage = itk::Image<itk::Vector<float, 3>, 3>;
  auto input = VectorImage::New();
  VectorImage::SizeType size = { { 40, 30, 50 } };
  input->SetRegions(size);
  input->Allocate();
  std::mt19937 rng(FreshSeed());
  std::uniform_real_distribution<float> value(-10.f, 10.f);
  auto * p = input->GetBufferPointer();
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
} // namespace
