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
// ProgressEvent and AbortGenerateData of the directional filter bank's analysis and
// synthesis, on the CPU and the GPU path: the progress rises over the stages (the
// data in, each tree level, the backsampling where the bank has one, the data out)
// to exactly 1 without changing the result; an abort at the first event or midway
// throws ProcessAborted and leaves no subband (analysis) or image (synthesis).
#include "cifDirectionalFilterBankTestSupport.h"
#include "cifProgressTestSupport.h"

namespace
{
using namespace cif_test;
using Image = Image2<float>;
using Analysis = itk::DirectionalFilterBankGPUImageFilter<Image, Image>;
using Synthesis = itk::DirectionalFilterBankSynthesisGPUImageFilter<Image>;

/** The data in, one stage per level, the backsampling (none for 2 levels), the data out. */
unsigned int
Stages(unsigned int levels)
{
  return 1 + levels + (levels == 2 ? 0 : 1) + 1;
}

Analysis::Pointer
MakeAnalysis(bool gpu, unsigned int levels, std::uint32_t seed)
{
  auto image = MakeImage<Image>({ { 64, 48 } }, { { 0, 0 } }, Content::Random, seed);
  auto analysis = Analysis::New();
  analysis->SetInput(image);
  analysis->SetNumberOfLevels(levels);
  analysis->SetUseGPU(gpu);
  return analysis;
}

Synthesis::Pointer
MakeSynthesis(bool gpu, unsigned int levels, std::uint32_t seed)
{
  auto analysis = MakeAnalysis(gpu, levels, seed);
  analysis->Update();
  auto synthesis = Synthesis::New();
  synthesis->SetNumberOfLevels(levels);
  synthesis->SetFilterSet(analysis->GetFilterSet());
  synthesis->SetUseGPU(gpu);
  for (unsigned int b = 0; b < analysis->GetNumberOfSubbands(); ++b)
  {
    synthesis->SetSubband(b, analysis->GetSubband(b));
  }
  return synthesis;
}

void
CheckBank(bool gpu)
{
  for (unsigned int levels : { 2u, 3u })
  {
    const std::uint32_t seed = FreshSeed();
    SCOPED_TRACE(testing::Message() << (gpu ? "GPU" : "CPU") << ", " << levels << " levels, seed " << seed);
    const auto expectedPath = gpu ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU;

    auto analysis = MakeAnalysis(gpu, levels, seed);
    auto analysisProgress = RecordProgress(analysis);
    analysis->Update();
    EXPECT_EQ(analysis->GetLastExecutionPath(), expectedPath);
    ExpectProgressRisesToOne(*analysisProgress, Stages(levels));
    auto unwatched = MakeAnalysis(gpu, levels, seed);
    unwatched->Update();
    for (unsigned int b = 0; b < analysis->GetNumberOfSubbands(); ++b)
    {
      ExpectSameBits(analysis->GetSubband(b), unwatched->GetSubband(b));
    }
    ExpectAbortLeavesNoOutput<2>([&] { return MakeAnalysis(gpu, levels, seed); }, 2);

    auto synthesis = MakeSynthesis(gpu, levels, seed);
    auto synthesisProgress = RecordProgress(synthesis);
    synthesis->Update();
    EXPECT_EQ(synthesis->GetLastExecutionPath(), expectedPath);
    ExpectProgressRisesToOne(*synthesisProgress, Stages(levels));
    auto quiet = MakeSynthesis(gpu, levels, seed);
    quiet->Update();
    ExpectSameBits(synthesis->GetOutput(), quiet->GetOutput());
    ExpectAbortLeavesNoOutput<2>([&] { return MakeSynthesis(gpu, levels, seed); }, 2);
  }
}

/** The plans' stages: one per level plus the backsampling (none for 2 levels),
 * ending at the last operation, and never between a row pass and the column pass
 * the device fuses it with. */
TEST(DirectionalFilterBankPlan, StagesAreTheLevelsAndKeepFusedPassesTogether)
{
  for (int levels = 1; levels <= 5; ++levels)
  {
    for (auto [synthesis, set] : { std::pair{ false, cif::DirectionalFilterSet::LadderPKVA12 },
                                   std::pair{ true, cif::DirectionalFilterSet::LadderPKVA12 },
                                   std::pair{ false, cif::DirectionalFilterSet::QMF8 },
                                   std::pair{ true, cif::DirectionalFilterSet::QMF8 } })
    {
      SCOPED_TRACE(testing::Message() << levels << " levels, " << (synthesis ? "synthesis, " : "analysis, ")
                                      << cif::ToString(set));
      const cif::DFBPlan plan = synthesis ? cif::MakeDirectionalSynthesisPlan(64, 64, levels, set)
                                          : cif::MakeDirectionalAnalysisPlan(64, 64, levels, set);
      ASSERT_EQ(plan.stageEnds.size(), Stages(static_cast<unsigned int>(levels)) - 2);
      EXPECT_EQ(plan.stageEnds.back(), plan.ops.size());
      std::size_t previous = 0;
      for (std::size_t end : plan.stageEnds)
      {
        EXPECT_GT(end, previous);
        EXPECT_NE(plan.ops[end - 1].kind, cif::DFBOpKind::FilterRows) << "a stage ends between a row and a column pass";
        previous = end;
      }
    }
  }
}

TEST(DirectionalFilterBankProgressCPU, RisesToOneAndAborts) { CheckBank(false); }
TEST(DirectionalFilterBankProgressGPU, RisesToOneAndAborts)
{
  CIF_REQUIRE_GPU();
  CheckBank(true);
}
} // namespace
