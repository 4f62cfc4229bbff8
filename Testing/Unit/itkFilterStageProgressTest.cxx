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
// itk::FilterStageProgress on a bare ProcessObject: 0 at the start, k/n after each
// stage, exactly 1 after the last; ProcessAborted between stages when the abort
// flag is set, never after the last; completions past the last stay at 1.
#include "cifProgressTestSupport.h"
#include "itkFilterStageProgress.h"

namespace
{
using namespace cif_test;

/** The smallest ProcessObject: what the progress is reported on. */
class StagedProcess : public itk::ProcessObject
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(StagedProcess);
  using Self = StagedProcess;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(StagedProcess, ProcessObject);

protected:
  StagedProcess() = default;
  ~StagedProcess() override = default;
};

TEST(FilterStageProgress, ReportsZeroThenEachStageAndExactlyOneAtTheEnd)
{
  auto process = StagedProcess::New();
  auto progress = RecordProgress(process);
  {
    itk::FilterStageProgress stages(process, 3);
    EXPECT_EQ(stages.GetNumberOfStages(), 3u);
    EXPECT_TRUE(stages.IsWatched());
    stages.Completed();
    stages.Completed();
    stages.Completed();
    stages.Completed(); // past the last: stays at 1
    EXPECT_EQ(stages.GetNumberOfCompletedStages(), 3u);
  }
  ASSERT_EQ(progress->size(), 5u);
  EXPECT_EQ((*progress)[0], 0.0f);
  EXPECT_NEAR((*progress)[1], 1.0 / 3, 1e-6);
  EXPECT_NEAR((*progress)[2], 2.0 / 3, 1e-6);
  EXPECT_EQ((*progress)[3], 1.0f);
  EXPECT_EQ((*progress)[4], 1.0f);
}

TEST(FilterStageProgress, AbortThrowsBetweenStagesButNotAfterTheLast)
{
  auto process = StagedProcess::New();
  {
    itk::FilterStageProgress stages(process, 3);
    stages.Completed();
    process->AbortGenerateDataOn();
    EXPECT_THROW(stages.Completed(), itk::ProcessAborted);
  }
  // A request that arrives with the last stage finds the work done.
  process->AbortGenerateDataOff();
  itk::FilterStageProgress last(process, 2);
  last.Completed();
  process->AbortGenerateDataOn();
  EXPECT_NO_THROW(last.Completed());
  EXPECT_THROW(itk::FilterStageProgress(process, 2), itk::ProcessAborted) << "an abort already requested at the start";
}

TEST(FilterStageProgress, CallbacksCountStagesAndUnwatchedFiltersAreNotSynchronized)
{
  auto                     process = StagedProcess::New();
  itk::FilterStageProgress stages(process, 4);
  EXPECT_FALSE(stages.IsWatched());
  const cif::StageCallback host = stages.HostCallback();
  const cif::StageCallback device = stages.DeviceCallback();
  host();
  // Without an observer no wait is added: here that means no CUDA call at all, which
  // would fail on a machine without a device.
  device();
  cif::StageDone(host);
  cif::StageDone(cif::StageCallback{}); // an empty callback does nothing
  EXPECT_EQ(stages.GetNumberOfCompletedStages(), 3u);
  EXPECT_NEAR(process->GetProgress(), 0.75, 1e-6);
}
} // namespace
