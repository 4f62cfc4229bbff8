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
#ifndef cifDirectionalFilterBankHost_h
#define cifDirectionalFilterBankHost_h

// The CPU path of the directional filter bank: runs a plan operation by operation,
// each one's rows spread over `parallelFor` (ITK's threader on the ITK side), with
// the same per-sample code the GPU kernels run.
#include "cifDirectionalFilterBankPlan.h"
#include "cifStageCallback.h"

#include <vector>

namespace cif
{
/** Work buffers of a plan on the host. */
template <typename T>
struct DFBHostBuffers
{
  std::vector<std::vector<T>> storage;
  std::vector<T *>            pointers;

  explicit DFBHostBuffers(const DFBPlan & plan)
  {
    for (std::int64_t size : plan.bufferSizes)
    {
      storage.emplace_back(static_cast<std::size_t>(size));
    }
    for (auto & b : storage)
    {
      pointers.push_back(b.data());
    }
  }
  T *
  At(const DFBArray & a)
  {
    return storage[a.buffer].data() + a.offset;
  }
};

/** Runs \a plan's operations in order; \a afterStage is called at the end of each of
 * the plan's stages (plan.stageEnds: a tree level, the backsampling). */
template <typename T, typename TParallelFor>
void
RunDFBPlanOnHost(const DFBPlan &       plan,
                 DFBHostBuffers<T> &   buffers,
                 TParallelFor &&       parallelFor,
                 const StageCallback & afterStage = {})
{
  const std::vector<T> taps(plan.taps.begin(), plan.taps.end());
  auto                 stageEnd = plan.stageEnds.begin();
  for (std::size_t k = 0; k < plan.ops.size(); ++k)
  {
    const DFBOp &          op = plan.ops[k];
    const DFBOpPointers<T> pointers = ResolveDFBOp(op, buffers.pointers.data());
    DispatchDFBOpKind(op.kind, [&](auto kind) {
      constexpr int K = decltype(kind)::value;
      parallelFor(op.out0.rows, [&](std::int64_t row) {
        for (int j = 0; j < op.out0.cols; ++j)
        {
          RunDFBOpKindAt<K, T>(op, pointers, taps.data(), static_cast<int>(row), j);
        }
      });
    });
    for (; stageEnd != plan.stageEnds.end() && *stageEnd == k + 1; ++stageEnd)
    {
      StageDone(afterStage);
    }
  }
}

} // namespace cif

#endif
