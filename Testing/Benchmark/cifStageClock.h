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
#ifndef cifStageClock_h
#define cifStageClock_h

// A benchmark's view of where an Update() spends its time.
#include "itkCommand.h"
#include "itkProcessObject.h"

#include <chrono>
#include <cstdio>
#include <utility>
#include <vector>

namespace cif_bench
{
/** The time since Update() began at each of the filter's progress reports (upload,
 * prefilter axes, slabs, download); observe StartEvent and ProgressEvent with it. An
 * observer makes the filter wait for the device at each stage, so the stages add up
 * to a little more than an unobserved Update(). */
class StageClock : public itk::Command
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(StageClock);
  using Self = StageClock;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

  void
  Execute(itk::Object * caller, const itk::EventObject & event) override
  {
    Execute(static_cast<const itk::Object *>(caller), event);
  }

  void
  Execute(const itk::Object * caller, const itk::EventObject & event) override
  {
    const auto now = std::chrono::steady_clock::now();
    if (itk::StartEvent().CheckEvent(&event))
    {
      m_Start = now;
      m_Marks.clear();
    }
    else if (const auto * process = dynamic_cast<const itk::ProcessObject *>(caller))
    {
      m_Marks.emplace_back(process->GetProgress(), std::chrono::duration<double, std::milli>(now - m_Start).count());
    }
  }

  std::vector<std::pair<float, double>> m_Marks;

protected:
  StageClock() = default;

private:
  std::chrono::steady_clock::time_point m_Start;
};

/** Prints \a clock's marks on one line after \a title. */
inline void
PrintStages(const char * title, const StageClock & clock)
{
  std::printf("STAGES %s: progress at ms since Update() began:", title);
  for (const auto & [progress, at] : clock.m_Marks)
  {
    std::printf(" %.2f@%.2f", progress, at);
  }
  std::printf("\n");
}
} // namespace cif_bench

#endif
