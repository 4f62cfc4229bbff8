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
// Host outputs of the GPU filters (cifPinnedHostMemory.h,
// itkCudaHostImportImageContainer.h): a container that falls back to ordinary memory
// where pinning is declined, keeps its contents when it grows, frees only what it
// allocated; the cap on pinned memory; huge pages on an output's first update and
// pinned memory from its second, for outputs of at least the pinning minimum (16 MiB
// by default; the tests lower it to pin small images); and, on a GPU, filters whose host output is pinned
// give the bits of an ordinary output, keep the buffer across updates and hand the
// pinned memory back when the image goes.
#include "cifPinnedHostMemory.h"
#include "cifTestHelpers.h"
#include "itkBSplinePrefilterGPUImageFilter.h"
#include "itkConvolutionGPUImageFilter.h"
#include "itkCudaHostImportImageContainer.h"

#include <cstdlib>
#include "itkRGBPixel.h"

#include <cstring>
#include <random>

namespace
{
using Image = itk::Image<float, 3>;
using RGBImage = itk::Image<itk::RGBPixel<float>, 2>;
using Container = itk::CudaHostImportImageContainer<itk::SizeValueType, float>;

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
  const cif_test::ScopedPinnedHostLimit limit(std::size_t(1) << 20);
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
  for (const bool askPinned : { false, true })
  {
    for (const std::size_t cap : { std::size_t(0), std::size_t(64) << 20 })
    {
      SCOPED_TRACE(testing::Message() << "pinned asked " << askPinned << ", cap " << cap);
      const cif_test::ScopedPinnedHostLimit limit(cap);
      const std::size_t                     before = cif::GetPinnedHostBytes();
      {
        auto container = Container::New();
        container->SetPinned(askPinned);
        container->Reserve(1000, true); // value-initialised, as new float[1000]()
        for (int i = 0; i < 1000; ++i)
        {
          EXPECT_EQ(container->GetBufferPointer()[i], 0.f);
          container->GetBufferPointer()[i] = static_cast<float>(i) * 0.5f;
        }
        const bool pinned = askPinned && cap != 0 && cif::GetDeviceCount() > 0;
        EXPECT_EQ(container->IsPinned(), pinned);
        container->Reserve(900000); // grows (3.4 MiB: a huge-page work area when not pinned)
        for (int i = 0; i < 1000; ++i)
        {
          ASSERT_EQ(container->GetBufferPointer()[i], static_cast<float>(i) * 0.5f);
        }
        container->GetBufferPointer()[899999] = 1.f;
        EXPECT_EQ(container->IsPinned(), pinned);
        EXPECT_EQ(cif::GetPinnedHostBytes(), before + (pinned ? 900000 * sizeof(float) : 0));
        // An imported buffer is the caller's: the container's allocators leave it alone.
        std::vector<float> own(10, 1.f);
        container->SetImportPointer(own.data(), 10, false);
        EXPECT_FALSE(container->IsPinned());
        EXPECT_EQ(cif::GetPinnedHostBytes(), before);
      }
      EXPECT_EQ(cif::GetPinnedHostBytes(), before);
    }
  }
}

TEST(PinnedHostMemory, HugePagesOnTheFirstUpdatePinnedMemoryFromTheSecond)
{
  // No device needed: the choice of memory is made on the host.
  const cif_test::ScopedPinnedOutputMinimum pinSmallOutputs(0);
  auto                                      image = Image::New();
  image->SetRegions(Image::SizeType{ { 128, 128, 40 } }); // 2.5 MiB
  itk::UseCudaHostPixelContainer(image.GetPointer());
  auto * first = dynamic_cast<Container *>(image->GetPixelContainer());
  ASSERT_NE(first, nullptr);
  EXPECT_FALSE(first->GetPinned()); // a first update: huge pages, not pinned
  image->Allocate();
  EXPECT_FALSE(first->IsPinned());
  itk::UseCudaHostPixelContainer(image.GetPointer());
  ASSERT_EQ(image->GetPixelContainer(), first); // the same container, asked to pin now
  EXPECT_TRUE(first->GetPinned());
  image->Allocate();
  EXPECT_EQ(first->IsPinned(), cif::GetDeviceCount() > 0);
  EXPECT_EQ(image->GetBufferedRegion().GetNumberOfPixels(), 128u * 128u * 40u);
  {
    const cif_test::ScopedPinnedHostLimit off(0);
    auto                                  other = Image::New();
    other->SetRegions(Image::SizeType{ { 128, 128, 40 } });
    other->Allocate(); // ITK's own container, updated before
    itk::UseCudaHostPixelContainer(other.GetPointer());
    const auto * replaced = dynamic_cast<Container *>(other->GetPixelContainer());
    ASSERT_NE(replaced, nullptr);
    EXPECT_FALSE(replaced->GetPinned()); // pinning turned off
  }
  auto small = Image::New();
  small->SetRegions(Image::SizeType{ { 8, 8, 8 } });
  small->Allocate();
  itk::UseCudaHostPixelContainer(small.GetPointer());
  EXPECT_EQ(dynamic_cast<Container *>(small->GetPixelContainer()), nullptr); // below the direct-copy size
}

TEST(PinnedHostMemory, OutputsBelowThePinningMinimumStayInOrdinaryMemory)
{
  // By default 16 MiB: a 2.5 MiB output keeps huge pages on every update; at the
  // minimum it is pinned from its second.
  if (std::getenv("CIF_PINNED_OUTPUT_MIN") == nullptr)
  {
    EXPECT_EQ(cif::GetPinnedOutputMinimumBytes(), std::size_t(16) << 20);
  }
  const cif_test::ScopedPinnedOutputMinimum byDefault(std::size_t(16) << 20);
  auto                                      image = Image::New();
  image->SetRegions(Image::SizeType{ { 128, 128, 40 } }); // 2.5 MiB
  for (int update = 0; update < 3; ++update)
  {
    itk::UseCudaHostPixelContainer(image.GetPointer());
    auto * container = dynamic_cast<Container *>(image->GetPixelContainer());
    ASSERT_NE(container, nullptr);
    EXPECT_FALSE(container->GetPinned()) << "update " << update;
    image->Allocate();
  }
  const cif_test::ScopedPinnedOutputMinimum atThisSize(std::size_t(128) * 128 * 40 * sizeof(float));
  itk::UseCudaHostPixelContainer(image.GetPointer());
  EXPECT_TRUE(dynamic_cast<Container *>(image->GetPixelContainer())->GetPinned());
}

TEST(PinnedHostMemory, OutputsStayOrdinaryOnTheCPUPath)
{
  const auto input = RandomVolume(70, 1); // 70 x 73 x 68 floats: 1.4 MiB
  auto       filter = itk::BSplinePrefilterGPUImageFilter<Image, Image>::New();
  filter->SetInput(input);
  filter->SetUseGPU(false);
  for (int update = 0; update < 2; ++update)
  {
    filter->Modified();
    filter->Update();
    EXPECT_EQ(dynamic_cast<Container *>(filter->GetOutput()->GetPixelContainer()), nullptr);
  }
}

TEST(PinnedHostMemoryGPU, PinnedOutputsGiveTheBitsOfOrdinaryOnesAndAreFreedWithTheImage)
{
  CIF_REQUIRE_GPU();
  const cif_test::ScopedPinnedOutputMinimum pinSmallOutputs(0);
  const auto                                input = RandomVolume(70, 2);
  const std::size_t                         before = cif::GetPinnedHostBytes();
  const auto                                ordinary = Prefiltered(input, true); // one update: huge pages, not pinned
  ASSERT_NE(dynamic_cast<Container *>(ordinary->GetPixelContainer()), nullptr);
  EXPECT_FALSE(dynamic_cast<Container *>(ordinary->GetPixelContainer())->IsPinned());
  EXPECT_EQ(cif::GetPinnedHostBytes(), before);
  {
    auto filter = itk::BSplinePrefilterGPUImageFilter<Image, Image>::New();
    filter->SetInput(input);
    filter->Update();
    filter->Modified();
    filter->Update(); // the second update of the same output: pinned
    const Image * pinned = filter->GetOutput();
    const auto *  container = dynamic_cast<const Container *>(pinned->GetPixelContainer());
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
  const cif_test::ScopedPinnedOutputMinimum pinSmallOutputs(0);
  const auto                                input = RandomVolume(72, 3);
  auto                                      filter = itk::BSplinePrefilterGPUImageFilter<Image, Image>::New();
  filter->SetInput(input);
  filter->Update();
  filter->Modified();
  filter->Update();
  const float * pinned = filter->GetOutput()->GetBufferPointer();
  std::mt19937  rng(4);
  for (int i = 0; i < 3; ++i)
  {
    input->GetBufferPointer()[rng() % 1000] += 1.f; // new data, same size
    input->Modified();
    filter->Update();
    EXPECT_EQ(filter->GetOutput()->GetBufferPointer(), pinned); // the same pinned buffer
    EXPECT_TRUE(SameBits(filter->GetOutput(), Prefiltered(input, true)));
  }
  {
    // Under a cap smaller than the output, the pinned container gets ordinary memory.
    const cif_test::ScopedPinnedHostLimit small(std::size_t(1) << 20);
    auto                                  capped = itk::BSplinePrefilterGPUImageFilter<Image, Image>::New();
    capped->SetInput(input);
    capped->Update();
    capped->Modified();
    capped->Update();
    const auto * container = dynamic_cast<const Container *>(capped->GetOutput()->GetPixelContainer());
    ASSERT_NE(container, nullptr);
    EXPECT_FALSE(container->IsPinned());
    EXPECT_TRUE(SameBits(capped->GetOutput(), filter->GetOutput()));
  }
}

TEST(PinnedHostMemoryGPU, ConvolutionOfRGBImagesIntoPinnedOutputs)
{
  CIF_REQUIRE_GPU();
  const cif_test::ScopedPinnedOutputMinimum pinSmallOutputs(0);
  auto                                      rgb = RGBImage::New();
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
  auto filter = itk::ConvolutionGPUImageFilter<RGBImage, KernelImage, RGBImage>::New();
  filter->SetInput(rgb);
  filter->SetKernelImage(kernel);
  filter->Update();
  RGBImage::Pointer ordinary = filter->GetOutput();
  ordinary->DisconnectPipeline(); // the filter makes a new output image...
  filter->Update();
  filter->Modified();
  filter->Update(); // ...and pins it on its second update
  const RGBImage * pinned = filter->GetOutput();
  using RGBContainer = itk::CudaHostImportImageContainer<itk::SizeValueType, itk::RGBPixel<float>>;
  const auto * container = dynamic_cast<const RGBContainer *>(pinned->GetPixelContainer());
  ASSERT_NE(container, nullptr);
  EXPECT_TRUE(container->IsPinned());
  EXPECT_EQ(std::memcmp(pinned->GetBufferPointer(),
                        ordinary->GetBufferPointer(),
                        pinned->GetBufferedRegion().GetNumberOfPixels() * sizeof(itk::RGBPixel<float>)),
            0);
}
