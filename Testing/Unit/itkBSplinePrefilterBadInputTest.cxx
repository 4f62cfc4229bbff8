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
// Bad input gets a clear error, or ITK's own behaviour where ITK defines one.
#include "cifDeviceBuffer.h"
#include "cifPrefilterTestSupport.h"

#include <limits>

namespace
{
using namespace cif_test;
using Image3 = itk::Image<float, 3>;
using Filter3 = itk::BSplinePrefilterGPUImageFilter<Image3, Image3>;

void
ExpectEmptyInputRefused(Path path)
{
  auto input = Image3::New();
  input->SetRegions(itk::Size<3>{ { 0, 5, 5 } });
  input->Allocate();
  auto filter = Filter3::New();
  filter->SetInput(input);
  filter->SetUseGPU(path == Path::GPU);
  try
  {
    filter->Update();
    FAIL() << "an empty image was accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("empty"), std::string::npos) << e.GetDescription();
  }
}
TEST(BSplinePrefilterCPU, EmptyImageIsAnError) { ExpectEmptyInputRefused(Path::CPU); }
TEST(BSplinePrefilterGPU, EmptyImageIsAnError)
{
  CIF_REQUIRE_GPU();
  ExpectEmptyInputRefused(Path::GPU);
}

/** One voxel, and 1-voxel axes: left as they are along those axes, like ITK. */
void
ExpectSingleVoxelAxesLikeITK(Path path)
{
  for (const itk::Size<3> & size : { itk::Size<3>{ { 1, 1, 1 } }, itk::Size<3>{ { 1, 9, 1 } } })
  {
    auto             input = MakeImage<Image3>(size, {}, Content::Random, FreshSeed());
    auto             output = RunPrefilter<Image3>(input.GetPointer(), path);
    auto             reference = RunITK(input.GetPointer());
    const ErrorStats stats = Compare(
      output->GetBufferPointer(), reference->GetBufferPointer(), input->GetBufferedRegion().GetNumberOfPixels());
    EXPECT_LE(stats.maxAbs, kFloatToleranceOfRange * 200.0) << size << ": " << stats;
  }
  auto single = MakeImage<Image3>({ { 1, 1, 1 } }, {}, Content::Random, FreshSeed());
  EXPECT_EQ(RunPrefilter<Image3>(single.GetPointer(), path)->GetBufferPointer()[0], single->GetBufferPointer()[0]);
}
TEST(BSplinePrefilterCPU, SingleVoxelAxesAreLeftAsITKLeavesThem) { ExpectSingleVoxelAxesLikeITK(Path::CPU); }
TEST(BSplinePrefilterGPU, SingleVoxelAxesAreLeftAsITKLeavesThem)
{
  CIF_REQUIRE_GPU();
  ExpectSingleVoxelAxesLikeITK(Path::GPU);
}

/** NaN spreads along the lines through it exactly as in ITK: same NaN pattern, and
 * equal values elsewhere. */
void
ExpectNaNLikeITK(Path path)
{
  auto input = MakeImage<Image3>({ { 30, 25, 20 } }, {}, Content::Random, FreshSeed());
  input->SetPixel({ { 7, 11, 3 } }, std::numeric_limits<float>::quiet_NaN());
  auto        output = RunPrefilter<Image3>(input.GetPointer(), path);
  auto        reference = RunITK(input.GetPointer());
  std::size_t nanCount = 0, mismatches = 0;
  for (std::size_t i = 0; i < input->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    const bool gotNaN = std::isnan(output->GetBufferPointer()[i]);
    const bool refNaN = std::isnan(reference->GetBufferPointer()[i]);
    nanCount += refNaN;
    mismatches += gotNaN != refNaN;
  }
  EXPECT_GT(nanCount, 0u);
  EXPECT_EQ(mismatches, 0u) << "NaN pattern differs from ITK's in " << mismatches << " voxels";
}
TEST(BSplinePrefilterCPU, NaNSpreadsAsInITK) { ExpectNaNLikeITK(Path::CPU); }
TEST(BSplinePrefilterGPU, NaNSpreadsAsInITK)
{
  CIF_REQUIRE_GPU();
  ExpectNaNLikeITK(Path::GPU);
}

TEST(BSplinePrefilterCPU, UnsupportedOrderIsAnError)
{
  auto filter = Filter3::New();
  EXPECT_THROW(filter->SetSplineOrder(6), itk::ExceptionObject);
}

TEST(BSplinePrefilterCPU, ConstantModeIsRefused)
{
  auto input = MakeImage<Image3>({ { 5, 5, 5 } }, {}, Content::Random, FreshSeed());
  auto filter = Filter3::New();
  filter->SetInput(input);
  filter->SetUseGPU(false);
  filter->SetBoundaryMode(cif::BoundaryMode::Constant);
  EXPECT_THROW(filter->Update(), itk::ExceptionObject);
}

/** A volume larger than the free GPU memory runs in slabs (cifSlabbedPrefilter.h) and
 * gives the bits of one piece. The device is first filled so that only a little is
 * free, so the test needs no host memory larger than the GPU's. */
TEST(BSplinePrefilterGPU, VolumeLargerThanFreeMemoryRunsInSlabs)
{
  CIF_REQUIRE_GPU();
  auto input = MakeImage<Image3>({ { 256, 256, 256 } }, {}, Content::Random, FreshSeed()); // 64 MiB of floats
  auto filter = Filter3::New();
  filter->SetInput(input);
  filter->Update();                                     // one piece, the device nearly empty
  const Image3::Pointer onePiece = filter->GetOutput(); // holds it past DisconnectPipeline
  onePiece->DisconnectPipeline();

  const std::size_t leave = 48u << 20; // 48 MiB left free
  DeviceBallast     ballast(leave);
  // What the test needs: a budget below the volume (the driver's free memory is not
  // all allocatable, so the ballast may stop some MiB above what it aimed at).
  ASSERT_LT(cif::GetDeviceMemoryBudget(true), 64u << 20) << "could not fill the device";

  auto slabbed = Filter3::New();
  slabbed->SetInput(input);
  slabbed->Update();
  EXPECT_EQ(slabbed->GetLastExecutionPath(), itk::CudaExecutionPath::GPU);
  EXPECT_TRUE(SameBits(onePiece->GetBufferPointer(),
                       slabbed->GetOutput()->GetBufferPointer(),
                       input->GetBufferedRegion().GetNumberOfPixels()))
    << "a 64 MiB volume prefiltered in slabs under 48 MiB of free device memory differs from one piece";
}

/** A volume whose smallest slab does not fit in the free GPU memory: a clear error
 * naming the sizes, and no output buffer left behind; the filter works again once
 * memory is free. */
TEST(BSplinePrefilterGPU, VolumeWhoseSlabsDoNotFitIsAClearError)
{
  CIF_REQUIRE_GPU();
  const std::size_t leave = 8u << 20; // 8 MiB left free: less than one 2048 x 2048 float plane (16 MiB)
  DeviceBallast     ballast(leave);
  ASSERT_LT(cif::GetDeviceMemoryBudget(true), 16u << 20) << "could not fill the device below one plane";

  auto input = MakeImage<Image3>({ { 2048, 2048, 8 } }, {}, Content::Random, FreshSeed()); // 128 MiB of floats
  auto filter = Filter3::New();
  filter->SetInput(input);
  try
  {
    filter->Update();
    FAIL() << "a 128 MiB job of 16 MiB planes ran with 8 MiB free";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string text = e.GetDescription();
    EXPECT_NE(text.find("MiB"), std::string::npos) << text;
  }
  EXPECT_EQ(filter->GetOutput()->GetBufferPointer(), nullptr) << "a half-computed output was left behind";

  ballast.Release();
  filter->Modified();
  EXPECT_NO_THROW(filter->Update()); // and the filter works again once memory is free
}
/** Whatever memory is left free, a host job runs in one piece or in slabs with the
 * one-piece bits, or fails with the clear out-of-memory error (the sizes in MiB),
 * never another exception: fresh draws of the free memory, from less than one
 * plane to more than the whole volume, each with a fresh volume. */
TEST(BSplinePrefilterGPU, AnyFreeMemoryGivesTheBitsOrTheClearError)
{
  CIF_REQUIRE_GPU();
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937 rng(seed);
  // 96 x 80 x 64 floats: 1.9 MiB in planes of 30 KiB. Left free: from 1 MiB below the
  // launch headroom (a budget of nothing: the error) to 4 MiB above it (one piece).
  std::uniform_int_distribution<std::size_t> leaveDraw(0, std::size_t{ 5 } << 20);
  int                                        ran = 0, refused = 0;
  for (int draw = 0; draw < 6; ++draw)
  {
    auto              input = MakeImage<Image3>({ { 96, 80, 64 } }, {}, Content::Random, rng());
    auto              onePiece = RunPrefilter<Image3>(input.GetPointer(), Path::GPU);
    const std::size_t leave = cif::kDeviceLaunchHeadroomBytes - (std::size_t{ 1 } << 20) + leaveDraw(rng);
    SCOPED_TRACE(testing::Message() << "draw " << draw << ": " << (leave >> 10) << " KiB left free");
    DeviceBallast ballast(leave);
    auto          filter = Filter3::New();
    filter->SetInput(input);
    try
    {
      filter->Update();
      ++ran;
      EXPECT_EQ(filter->GetLastExecutionPath(), itk::CudaExecutionPath::GPU);
      EXPECT_TRUE(SameBits(onePiece->GetBufferPointer(),
                           filter->GetOutput()->GetBufferPointer(),
                           input->GetBufferedRegion().GetNumberOfPixels()));
    }
    catch (const itk::ExceptionObject & e)
    {
      ++refused;
      const std::string text = e.GetDescription();
      EXPECT_NE(text.find("not enough GPU memory"), std::string::npos) << text; // the slab planner's words
      EXPECT_NE(text.find("MiB"), std::string::npos) << text;
    }
  }
  std::printf("  %d draws ran (one piece or slabs), %d refused with the clear error\n", ran, refused);
}
} // namespace
