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
// Perfect reconstruction of the directional filter bank (analysis then synthesis),
// every level count and filter set, square and rectangular images, float and
// double, CPU path and GPU path; and the GPU's subbands against the CPU's.
#include "cifDirectionalFilterBankTestSupport.h"

namespace
{
using namespace cif_test;

const cif::DirectionalFilterSet kSets[] = { cif::DirectionalFilterSet::LadderPKVA12,
                                            cif::DirectionalFilterSet::LadderPKVA8,
                                            cif::DirectionalFilterSet::LadderPKVA6,
                                            cif::DirectionalFilterSet::QMF8,
                                            cif::DirectionalFilterSet::QMF16 };

struct Shape
{
  unsigned int width, height;
};
const Shape kShapes[] = { { 64, 64 }, { 128, 64 }, { 64, 96 } };

template <typename T>
void
CheckPerfectReconstruction(bool useGPU, double tolerance)
{
  for (const Shape shape : kShapes)
  {
    const std::uint32_t seed = FreshSeed();
    auto image = MakeImage<Image2<T>>({ { shape.width, shape.height } }, { { 0, 0 } }, Content::Random, seed);
    for (unsigned int levels = 1; levels <= 5; ++levels)
    {
      if (!cif::DirectionalFilterBankSizeProblem(shape.height, shape.width, levels).empty())
      {
        continue;
      }
      for (const auto set : kSets)
      {
        SCOPED_TRACE(std::to_string(shape.width) + "x" + std::to_string(shape.height) + " levels " +
                     std::to_string(levels) + " " + cif::ToString(set) + " seed " + std::to_string(seed));
        auto       analysis = Analyze<T>(image, levels, set, useGPU);
        const auto expected = useGPU ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU;
        EXPECT_EQ(analysis->GetLastExecutionPath(), expected);
        // every sample lands in exactly one subband (maximal decimation)
        std::size_t samples = 0;
        for (unsigned int b = 0; b < analysis->GetNumberOfSubbands(); ++b)
        {
          samples += analysis->GetSubband(b)->GetBufferedRegion().GetNumberOfPixels();
        }
        EXPECT_EQ(samples, image->GetBufferedRegion().GetNumberOfPixels());
        auto reconstruction = Synthesize<T>(analysis.GetPointer(), useGPU);
        ASSERT_EQ(reconstruction->GetBufferedRegion().GetSize(), image->GetBufferedRegion().GetSize());
        const ErrorStats e = Compare(reconstruction->GetBufferPointer(),
                                     image->GetBufferPointer(),
                                     image->GetBufferedRegion().GetNumberOfPixels());
        // the data range is [-50, 150): tolerance relative to 200
        EXPECT_LE(e.maxAbs, tolerance * 200.0) << e;
        // the subbands carry the signal (not a pass-through of zeros)
        EXPECT_GT(Energy(analysis->GetSubband(0)), 0.0);
      }
    }
  }
}

TEST(DirectionalFilterBank, PerfectReconstructionDoubleCPU) { CheckPerfectReconstruction<double>(false, 1e-10); }

TEST(DirectionalFilterBank, PerfectReconstructionFloatCPU) { CheckPerfectReconstruction<float>(false, 1e-5); }

TEST(DirectionalFilterBankGPU, PerfectReconstructionDouble)
{
  CIF_REQUIRE_GPU();
  CheckPerfectReconstruction<double>(true, 1e-10);
}

TEST(DirectionalFilterBankGPU, PerfectReconstructionFloat)
{
  CIF_REQUIRE_GPU();
  CheckPerfectReconstruction<float>(true, 1e-5);
}

template <typename T>
void
CheckGPUMatchesCPU(double tolerance)
{
  const std::uint32_t seed = FreshSeed();
  auto                image = MakeImage<Image2<T>>({ { 256, 128 } }, { { 0, 0 } }, Content::Random, seed);
  for (unsigned int levels = 1; levels <= 5; ++levels)
  {
    for (const auto set : kSets)
    {
      SCOPED_TRACE(std::string("levels ") + std::to_string(levels) + " " + cif::ToString(set) + " seed " +
                   std::to_string(seed));
      auto gpu = Analyze<T>(image, levels, set, true);
      auto cpu = Analyze<T>(image, levels, set, false);
      for (unsigned int b = 0; b < gpu->GetNumberOfSubbands(); ++b)
      {
        const ErrorStats e = Compare(gpu->GetSubband(b)->GetBufferPointer(),
                                     cpu->GetSubband(b)->GetBufferPointer(),
                                     cpu->GetSubband(b)->GetBufferedRegion().GetNumberOfPixels());
        EXPECT_LE(e.maxAbs, tolerance * std::max(1.0, e.maxRef)) << "subband " << b << ": " << e;
      }
    }
  }
}

TEST(DirectionalFilterBankGPU, SubbandsMatchCPUFloat)
{
  CIF_REQUIRE_GPU();
  CheckGPUMatchesCPU<float>(1e-5);
}

TEST(DirectionalFilterBankGPU, SubbandsMatchCPUDouble)
{
  CIF_REQUIRE_GPU();
  CheckGPUMatchesCPU<double>(1e-12);
}

TEST(DirectionalFilterBankGPU, OneUploadOneDownloadPerFilter)
{
  CIF_REQUIRE_GPU();
  auto image = MakeImage<Image2<float>>({ { 128, 128 } }, { { 0, 0 } }, Content::Random, FreshSeed());
  cif::TransferCounters::Reset();
  auto analysis = Analyze<float>(image, 4, cif::DirectionalFilterSet::LadderPKVA12, true);
  auto c = cif::TransferCounters::Get();
  EXPECT_EQ(c.uploads, 2u); // the image, and the plan's taps
  EXPECT_EQ(c.downloads, 1u);
  cif::TransferCounters::Reset();
  Synthesize<float>(analysis.GetPointer(), true);
  c = cif::TransferCounters::Get();
  EXPECT_EQ(c.uploads, 2u); // all subbands at once, and the taps
  EXPECT_EQ(c.downloads, 1u);
}
} // namespace
