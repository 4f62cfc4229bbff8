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
// BSplinePrefilterGPUImageFilter's ProgressEvent and AbortGenerateData, on the CPU
// and the GPU path: the progress rises over the stages (the samples in, one pass per
// axis, the download on the GPU path) to exactly 1 and leaves the coefficients
// unchanged; an abort at the first event or midway throws ProcessAborted and leaves
// no output.
#include "cifPrefilterTestSupport.h"
#include "cifProgressTestSupport.h"

namespace
{
using namespace cif_test;
using Input = itk::Image<short, 3>;
using Output = itk::Image<float, 3>;
using Filter = itk::BSplinePrefilterGPUImageFilter<Input, Output>;

Filter::Pointer
MakeFilter(Path path, std::uint32_t seed)
{
  auto input = MakeImage<Input>({ { 29, 17, 11 } }, { { 2, -1, 3 } }, Content::Random, seed, -300.0, 900.0);
  auto filter = Filter::New();
  filter->SetInput(input);
  filter->SetSplineOrder(3);
  filter->SetUseGPU(path == Path::GPU);
  return filter;
}

void
CheckProgress(Path path)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << ToString(path) << ", seed " << seed);
  auto watched = MakeFilter(path, seed);
  auto progress = RecordProgress(watched);
  watched->Update();
  EXPECT_EQ(watched->GetLastExecutionPath(),
            path == Path::GPU ? Filter::ExecutionPath::GPU : Filter::ExecutionPath::CPU);
  // the samples in, three axes, and on the GPU the download
  ExpectProgressRisesToOne(*progress, path == Path::GPU ? 5 : 4);

  auto unwatched = MakeFilter(path, seed);
  unwatched->Update();
  ExpectSameBits(watched->GetOutput(), unwatched->GetOutput());
}

void
CheckAbort(Path path)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << ToString(path) << ", seed " << seed);
  ExpectAbortLeavesNoOutput<3>([&] { return MakeFilter(path, seed); }, 2);
}

TEST(BSplinePrefilterProgressCPU, RisesToOneOverTheStages) { CheckProgress(Path::CPU); }
TEST(BSplinePrefilterProgressCPU, AbortLeavesNoOutput) { CheckAbort(Path::CPU); }
TEST(BSplinePrefilterProgressGPU, RisesToOneOverTheStages)
{
  CIF_REQUIRE_GPU();
  CheckProgress(Path::GPU);
}
TEST(BSplinePrefilterProgressGPU, AbortLeavesNoOutput)
{
  CIF_REQUIRE_GPU();
  CheckAbort(Path::GPU);
}
} // namespace
