// Pinned host outputs (cifPinnedHostMemory.h, itkCudaPinnedImportImageContainer.h):
// a container that falls back to ordinary memory where pinning is declined, keeps
// its contents when it grows, frees only what it pinned; the cap on pinned memory;
// and, on a GPU, filters whose host output is pinned give the bits of an ordinary
// output and hand the pinned memory back when the image goes.
#include "cifPinnedHostMemory.h"
#include "cifTestHelpers.h"
#include "itkBSplinePrefilterGPUImageFilter.h"
#include "itkConvolutionGPUImageFilter.h"
#include "itkCudaPinnedImportImageContainer.h"
#include "itkRGBPixel.h"

#include <cstring>
#include <random>

namespace
{
using Image = itk::Image<float, 3>;
using RGBImage = itk::Image<itk::RGBPixel<float>, 2>;
using Container = itk::CudaPinnedImportImageContainer<itk::SizeValueType, float>;

/** Restores the pinned-memory cap when a test ends. */
class ScopedPinnedHostLimit
{
public:
  explicit ScopedPinnedHostLimit(std::size_t bytes)
    : m_Saved(cif::GetPinnedHostLimit())
  {
    cif::SetPinnedHostLimit(bytes);
  }
  ~ScopedPinnedHostLimit() { cif::SetPinnedHostLimit(m_Saved); }

private:
  std::size_t m_Saved;
};

Image::Pointer
RandomVolume(unsigned int n, std::uint32_t seed)
{
  auto image = Image::New();
  image->SetRegions(Image::SizeType{ { n, n + 3, n - 2 } });
  image->Allocate();
  std::mt19937                          rng(seed);
  std::uniform_real_distribution<float> u(-50.f, 50.f);
  for (std::size_t i = 0; i < image->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    image->GetBufferPointer()[i] = u(rng);
  }
  return image;
}

Image::Pointer
Prefiltered(const Image * input, bool useGPU)
{
  auto filter = itk::BSplinePrefilterGPUImageFilter<Image, Image>::New();
  filter->SetInput(input);
  filter->SetUseGPU(useGPU);
  filter->Update();
  Image::Pointer output = filter->GetOutput();
  output->DisconnectPipeline();
  return output;
}

bool
SameBits(const Image * a, const Image * b)
{
  const std::size_t n = a->GetBufferedRegion().GetNumberOfPixels();
  return n == b->GetBufferedRegion().GetNumberOfPixels() &&
         std::memcmp(a->GetBufferPointer(), b->GetBufferPointer(), n * sizeof(float)) == 0;
}
} // namespace

TEST(PinnedHostMemory, CapIsHonouredAndForeignPointersAreNotFreed)
{
  const ScopedPinnedHostLimit limit(std::size_t(1) << 20);
  EXPECT_EQ(cif::GetPinnedHostLimit(), std::size_t(1) << 20);
  EXPECT_EQ(cif::AllocatePinnedHostMemory((std::size_t(1) << 20) + 1), nullptr); // past the cap
  EXPECT_EQ(cif::AllocatePinnedHostMemory(0), nullptr);
  std::vector<float> ordinary(16);
  EXPECT_FALSE(cif::FreePinnedHostMemory(ordinary.data()));
  EXPECT_FALSE(cif::FreePinnedHostMemory(nullptr));
  const std::size_t before = cif::GetPinnedHostBytes();
  void *            pinned = cif::AllocatePinnedHostMemory(4096);
  if (cif::GetDeviceCount() == 0)
  {
    EXPECT_EQ(pinned, nullptr); // no driver, no pinned memory
    return;
  }
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(cif::GetPinnedHostBytes(), before + 4096);
  void * second = cif::AllocatePinnedHostMemory((std::size_t(1) << 20) - 2048); // cap counts what is held
  EXPECT_EQ(second, nullptr);
  EXPECT_TRUE(cif::FreePinnedHostMemory(pinned));
  EXPECT_EQ(cif::GetPinnedHostBytes(), before);
  EXPECT_FALSE(cif::FreePinnedHostMemory(pinned)); // not twice
}

TEST(PinnedHostMemory, ContainerKeepsItsContentsWhenItGrowsAndFallsBackWhenDeclined)
{
  for (const std::size_t cap : { std::size_t(0), std::size_t(64) << 20 })
  {
    SCOPED_TRACE(testing::Message() << "cap " << cap);
    const ScopedPinnedHostLimit limit(cap);
    const std::size_t           before = cif::GetPinnedHostBytes();
    {
      auto container = Container::New();
      container->Reserve(1000, true); // value-initialised, as new float[1000]()
      for (int i = 0; i < 1000; ++i)
      {
        EXPECT_EQ(container->GetBufferPointer()[i], 0.f);
        container->GetBufferPointer()[i] = static_cast<float>(i) * 0.5f;
      }
      const bool pinned = cap != 0 && cif::GetDeviceCount() > 0;
      EXPECT_EQ(container->IsPinned(), pinned);
      container->Reserve(300000); // grows: the first 1000 are copied over
      for (int i = 0; i < 1000; ++i)
      {
        ASSERT_EQ(container->GetBufferPointer()[i], static_cast<float>(i) * 0.5f);
      }
      EXPECT_EQ(container->IsPinned(), pinned);
      EXPECT_EQ(cif::GetPinnedHostBytes(), before + (pinned ? 300000 * sizeof(float) : 0));
      // An imported buffer is the caller's: freeing it is not the pinned allocator's.
      std::vector<float> own(10, 1.f);
      container->SetImportPointer(own.data(), 10, false);
      EXPECT_FALSE(container->IsPinned());
      EXPECT_EQ(cif::GetPinnedHostBytes(), before);
    }
    EXPECT_EQ(cif::GetPinnedHostBytes(), before);
  }
}

TEST(PinnedHostMemory, OutputsStayOrdinaryOnTheCPUPathAndWhenSmall)
{
  const auto input = RandomVolume(70, 1); // 70 x 73 x 68 floats: 1.4 MiB
  const auto cpu = Prefiltered(input, false);
  EXPECT_EQ(dynamic_cast<Container *>(cpu->GetPixelContainer()), nullptr);
  auto small = Image::New();
  small->SetRegions(Image::SizeType{ { 8, 8, 8 } });
  itk::UsePinnedPixelContainer(small.GetPointer());
  EXPECT_EQ(dynamic_cast<Container *>(small->GetPixelContainer()), nullptr); // below the direct-copy size
}

TEST(PinnedHostMemoryGPU, PinnedOutputsGiveTheBitsOfOrdinaryOnesAndAreFreedWithTheImage)
{
  CIF_REQUIRE_GPU();
  const auto        input = RandomVolume(70, 2);
  const std::size_t before = cif::GetPinnedHostBytes();
  Image::Pointer    ordinary;
  {
    const ScopedPinnedHostLimit off(0);
    ordinary = Prefiltered(input, true);
    EXPECT_EQ(dynamic_cast<Container *>(ordinary->GetPixelContainer()), nullptr);
  }
  {
    const auto  pinned = Prefiltered(input, true);
    const auto * container = dynamic_cast<Container *>(pinned->GetPixelContainer());
    ASSERT_NE(container, nullptr);
    EXPECT_TRUE(container->IsPinned());
    EXPECT_EQ(cif::GetPinnedHostBytes(), before + input->GetBufferedRegion().GetNumberOfPixels() * sizeof(float));
    EXPECT_TRUE(SameBits(pinned, ordinary));
    // A pinned image as the next GPU filter's input (uploaded directly): the same
    // coefficients of coefficients as from the ordinary image.
    EXPECT_TRUE(SameBits(Prefiltered(pinned, true), Prefiltered(ordinary, true)));
  }
  EXPECT_EQ(cif::GetPinnedHostBytes(), before); // the image went, and its pinned memory with it
}

TEST(PinnedHostMemoryGPU, AFilterReusesItsPinnedOutputAcrossUpdatesAndRespectsTheCap)
{
  CIF_REQUIRE_GPU();
  const auto input = RandomVolume(72, 3);
  auto       filter = itk::BSplinePrefilterGPUImageFilter<Image, Image>::New();
  filter->SetInput(input);
  filter->Update();
  const float * first = filter->GetOutput()->GetBufferPointer();
  std::mt19937  rng(4);
  for (int i = 0; i < 3; ++i)
  {
    input->GetBufferPointer()[rng() % 1000] += 1.f; // new data, same size
    input->Modified();
    filter->Update();
    EXPECT_EQ(filter->GetOutput()->GetBufferPointer(), first); // the same pinned buffer
  }
  {
    // Under a cap smaller than the output, a new filter's output is ordinary memory.
    const ScopedPinnedHostLimit small(std::size_t(1) << 20);
    const auto                  capped = Prefiltered(input, true);
    EXPECT_EQ(dynamic_cast<Container *>(capped->GetPixelContainer())->IsPinned(), false);
    EXPECT_TRUE(SameBits(capped, filter->GetOutput()));
  }
}

TEST(PinnedHostMemoryGPU, ConvolutionOfRGBImagesIntoPinnedOutputs)
{
  CIF_REQUIRE_GPU();
  auto rgb = RGBImage::New();
  rgb->SetRegions(RGBImage::SizeType{ { 400, 300 } });
  rgb->Allocate();
  std::mt19937                          rng(5);
  std::uniform_real_distribution<float> u(0.f, 255.f);
  for (std::size_t i = 0; i < rgb->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    rgb->GetBufferPointer()[i].Set(u(rng), u(rng), u(rng));
  }
  using KernelImage = itk::Image<float, 2>;
  auto kernel = KernelImage::New();
  kernel->SetRegions(KernelImage::SizeType{ { 5, 3 } });
  kernel->Allocate();
  for (std::size_t i = 0; i < 15; ++i)
  {
    kernel->GetBufferPointer()[i] = u(rng) / 255.f;
  }
  auto run = [&](std::size_t cap) {
    const ScopedPinnedHostLimit limit(cap);
    auto filter = itk::ConvolutionGPUImageFilter<RGBImage, KernelImage, RGBImage>::New();
    filter->SetInput(rgb);
    filter->SetKernelImage(kernel);
    filter->Update();
    RGBImage::Pointer out = filter->GetOutput();
    out->DisconnectPipeline();
    return out;
  };
  const auto ordinary = run(0);
  const auto pinned = run(std::size_t(64) << 20);
  using RGBContainer = itk::CudaPinnedImportImageContainer<itk::SizeValueType, itk::RGBPixel<float>>;
  ASSERT_NE(dynamic_cast<RGBContainer *>(pinned->GetPixelContainer()), nullptr);
  EXPECT_TRUE(dynamic_cast<RGBContainer *>(pinned->GetPixelContainer())->IsPinned());
  EXPECT_EQ(std::memcmp(pinned->GetBufferPointer(), ordinary->GetBufferPointer(),
                        pinned->GetBufferedRegion().GetNumberOfPixels() * sizeof(itk::RGBPixel<float>)),
            0);
}
