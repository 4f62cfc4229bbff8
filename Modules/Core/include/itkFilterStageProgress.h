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
#ifndef itkFilterStageProgress_h
#define itkFilterStageProgress_h

#include "cifCudaRuntime.h"
#include "cifStageCallback.h"
#include "itkEventObject.h"
#include "itkProcessObject.h"

#include <algorithm>
#include <string>

namespace itk
{
/** \class FilterStageProgress
 * \brief ITK progress and abort for a GenerateData() that runs a known number of stages.
 *
 * The module's filters work in a few long stages (an upload, one pass per axis,
 * slabs of a resampling, a download) rather than pixel loops, so ITK's
 * ProgressReporter (per pixel, per thread) does not fit them. This is its stage-wise
 * twin, used by every filter of the module:
 *
 * - The constructor reports 0 through ProcessObject::UpdateProgress, as
 *   ProgressReporter does when a filter starts.
 * - Completed() marks one stage done: it reports k / n and then, unless that was the
 *   last stage, throws ProcessAborted when the filter's AbortGenerateData flag is set
 *   (the check of ProgressReporter::CheckAbortGenerateData). A filter that catches
 *   it leaves its output Initialize()d; ITK's pipeline invokes AbortEvent.
 * - The last stage reports exactly 1 and never throws: the output is complete by
 *   then, and a request to stop that arrives at that point has nothing left to stop.
 *   It must therefore come at the very end of GenerateData().
 * - CompletedOnDevice() is for a stage queued on the GPU (kernel launches return
 *   before the work is done). When the filter has a ProgressEvent observer it waits
 *   for the device first, so that the bar moves when the work is done and not when
 *   it was queued; without an observer it adds no synchronization, and an ordinary
 *   pipeline pays no latency for progress nobody watches.
 * - HostCallback() and DeviceCallback() hand Completed() and CompletedOnDevice() to
 *   plain-C++ routines that run several stages in one call (cif::StageCallback).
 *
 * Stages are counted, not weighted: a filter chooses stages of comparable cost
 * where it can (slabs of a resampling), and the fractions only need to rise.
 *
 * \ingroup CudaImageFilters
 */
class FilterStageProgress
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(FilterStageProgress);

  /** Reports progress 0 for \a filter, which will run \a stages stages (at least 1),
   * and stops at once if an observer asked for an abort on that report. */
  FilterStageProgress(ProcessObject * filter, unsigned int stages)
    : m_Filter(filter)
    , m_Stages(std::max(1u, stages))
    , m_Watched(filter != nullptr && filter->HasObserver(ProgressEvent()))
  {
    if (m_Filter != nullptr)
    {
      m_Filter->UpdateProgress(0.0f);
    }
    this->CheckAbort();
  }

  /** One stage done (host work, or device work already waited for). */
  void
  Completed()
  {
    m_Completed = std::min(m_Completed + 1, m_Stages);
    if (m_Filter == nullptr)
    {
      return;
    }
    // The last stage reports exactly 1.0, not a float quotient near it.
    m_Filter->UpdateProgress(m_Completed == m_Stages ? 1.0f
                                                     : static_cast<float>(m_Completed) / static_cast<float>(m_Stages));
    if (m_Completed < m_Stages)
    {
      this->CheckAbort();
    }
  }

  /** One stage queued on the device done: synchronizes first only when someone
   * watches the progress (throws cif::CudaError on an asynchronous device error, as
   * cif::Synchronize does). */
  void
  CompletedOnDevice()
  {
    if (m_Watched)
    {
      cif::Synchronize();
    }
    this->Completed();
  }

  /** Completed(), as a callback for routines that run several stages per call. */
  cif::StageCallback
  HostCallback()
  {
    return [this] { this->Completed(); };
  }
  /** CompletedOnDevice(), as a callback for device routines that queue several stages. */
  cif::StageCallback
  DeviceCallback()
  {
    return [this] { this->CompletedOnDevice(); };
  }

  /** Throws ProcessAborted when the filter's AbortGenerateData flag is set. */
  void
  CheckAbort() const
  {
    if (m_Filter != nullptr && m_Filter->GetAbortGenerateData())
    {
      ProcessAborted aborted(__FILE__, __LINE__);
      aborted.SetDescription(std::string("Object ") + m_Filter->GetNameOfClass() + ": AbortGenerateDataOn");
      throw aborted;
    }
  }

  unsigned int
  GetNumberOfStages() const
  {
    return m_Stages;
  }
  unsigned int
  GetNumberOfCompletedStages() const
  {
    return m_Completed;
  }
  /** Whether the filter had a ProgressEvent observer when this started. */
  bool
  IsWatched() const
  {
    return m_Watched;
  }

private:
  ProcessObject *    m_Filter;
  const unsigned int m_Stages;
  unsigned int       m_Completed = 0;
  const bool         m_Watched;
};
} // namespace itk

#endif
