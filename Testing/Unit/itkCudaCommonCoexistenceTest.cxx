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
// ITKCudaCommon (RTK's CUDA base, an ITK remote module) and this module in one
// program: both device images in one translation unit, each its own class. Built
// where ITK has Module_CudaCommon on (inside ITK's build).
#include "cifCudaRuntime.h"
#include "cifPrefilterTestSupport.h"
#include "itkCudaDeviceImage.h" // this module's
#include "itkCudaImage.h"       // ITKCudaCommon's
#include <type_traits>

namespace
{
using CommonImage = itk::CudaImage<float, 3>;
using ModuleImage = itk::CudaDeviceImage<float, 3>;

TEST(CudaCommonCoexistence, TwoDeviceImagesTwoClasses)
{
  static_assert(!std::is_same_v<CommonImage, ModuleImage>, "one class under two names");
  static_assert(std::is_base_of_v<itk::Image<float, 3>, CommonImage>, "ITKCudaCommon's image is an itk::Image");
  static_assert(std::is_base_of_v<itk::Image<float, 3>, ModuleImage>, "the module's image is an itk::Image");
  // The module's image needs no device until its data moves.
  auto image = ModuleImage::New();
  EXPECT_STREQ(image->GetNameOfClass(), "CudaDeviceImage");
}

/** An ITKCudaCommon image (what RTK's CUDA filters produce) into the module's GPU
 * prefilter, its coefficients out in the module's image: ITK's coefficients. The
 * hand-over goes through the host copy of ITKCudaCommon's image. */
TEST(CudaCommonCoexistence, CudaCommonImageThroughTheGPUPrefilter)
{
  if (!cif::IsGPUAvailable())
  {
    GTEST_SKIP() << "no usable CUDA device (" << cif::GetNoDeviceReason()
                 << "): ITKCudaCommon's image selects a CUDA device when it is created";
  }
  const std::uint32_t seed = cif_test::FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto input = cif_test::MakeImage<CommonImage>({ { 24, 20, 16 } }, {}, cif_test::Content::Random, seed, -50.0, 250.0);
  auto output = cif_test::RunPrefilter<ModuleImage>(input.GetPointer(), cif_test::Path::GPU);
  auto reference = cif_test::RunITK(input.GetPointer());
  ASSERT_EQ(output->GetBufferedRegion(), reference->GetBufferedRegion());
  const cif_test::ErrorStats stats = cif_test::Compare(
    output->GetBufferPointer(), reference->GetBufferPointer(), reference->GetBufferedRegion().GetNumberOfPixels());
  EXPECT_LE(stats.maxAbs, cif_test::Tolerance<float>(300.0, stats.maxRef)) << stats;
}
} // namespace
