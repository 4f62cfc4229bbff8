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
#ifndef cifDirectionalFilterBankDevice_h
#define cifDirectionalFilterBankDevice_h

#include "CudaImageFiltersExport.h"
#include "cifDirectionalFilterBankPlan.h"
#include "cifDeviceBuffer.h"
#include "cifStageCallback.h"

#include <vector>

namespace cif
{
/** Runs `count` plan operations on the device, one kernel each, in order on the
 * default stream; `deviceBuffers` are the plan's work buffers (device pointers,
 * passed by value), `deviceTaps` its tap table on the device. Asynchronous: the
 * caller synchronizes (a download does). */
template <typename T>
CudaImageFilters_EXPORT void
RunDFBOpsOnDevice(const DFBOp * ops, std::size_t count, T * const * deviceBuffers, const T * deviceTaps);

#define CIF_INSTANTIATE_DFB(T) template void RunDFBOpsOnDevice<T>(const DFBOp *, std::size_t, T * const *, const T *);

/** \class DFBDeviceWorkspace
 * A plan's work buffers and taps on the device (RAII): one upload (the image into
 * buffer 0, or all subbands into their buffer: they lie there one after another),
 * Run(), one download. */
template <typename T>
class DFBDeviceWorkspace
{
public:
  explicit DFBDeviceWorkspace(const DFBPlan & plan)
    : m_Plan(plan)
  {
    for (std::int64_t size : plan.bufferSizes)
    {
      m_Buffers.emplace_back(static_cast<std::size_t>(size) * sizeof(T));
    }
    const std::vector<T> taps(plan.taps.begin(), plan.taps.end());
    m_Taps.Allocate(std::max<std::size_t>(1, taps.size()) * sizeof(T));
    if (!taps.empty())
    {
      m_Taps.Upload(taps.data(), taps.size() * sizeof(T));
    }
    for (auto & b : m_Buffers)
    {
      m_Pointers.push_back(b.template As<T>());
    }
  }

  /** Host → work buffer `buffer`, its first `count` elements (one copy). */
  void
  Upload(int buffer, const T * host, std::int64_t count)
  {
    m_Buffers[buffer].Upload(host, static_cast<std::size_t>(count) * sizeof(T));
  }
  /** Work buffer `buffer` → host, its first `count` elements (one copy). */
  void
  Download(int buffer, T * host, std::int64_t count) const
  {
    m_Buffers[buffer].Download(host, static_cast<std::size_t>(count) * sizeof(T));
  }
  /** Runs `count` operations of the plan (for profiling one at a time). */
  void
  RunOps(const DFBOp * ops, std::size_t count)
  {
    RunDFBOpsOnDevice<T>(ops, count, m_Pointers.data(), m_Taps.template As<T>());
  }
  /** Runs the whole plan, stage by stage (plan.stageEnds); \a afterStage is called
   * after each stage is queued (not waited for). */
  void
  Run(const StageCallback & afterStage = {})
  {
    std::size_t begin = 0;
    for (std::size_t end : m_Plan.stageEnds)
    {
      RunDFBOpsOnDevice<T>(m_Plan.ops.data() + begin, end - begin, m_Pointers.data(), m_Taps.template As<T>());
      StageDone(afterStage);
      begin = end;
    }
    if (begin < m_Plan.ops.size()) // operations after the last stage end (none in the plans built here)
    {
      RunDFBOpsOnDevice<T>(
        m_Plan.ops.data() + begin, m_Plan.ops.size() - begin, m_Pointers.data(), m_Taps.template As<T>());
    }
  }
  T *
  DevicePointer(const DFBArray & array) const
  {
    return m_Pointers[array.buffer] + array.offset;
  }

private:
  const DFBPlan &           m_Plan;
  std::vector<DeviceBuffer> m_Buffers;
  DeviceBuffer              m_Taps;
  std::vector<T *>          m_Pointers;
};
} // namespace cif

#endif
