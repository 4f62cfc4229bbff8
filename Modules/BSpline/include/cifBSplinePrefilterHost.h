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
#ifndef cifBSplinePrefilterHost_h
#define cifBSplinePrefilterHost_h

#include "cifBSplinePrefilterMath.h"
#include "cifStageCallback.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace cif
{
/** The CPU path of the prefilter: every axis of a buffer of \a shape, in place.
 * Each line is gathered into a contiguous scratch line of TCompute (cache friendly on
 * every axis), filtered by the same PrefilterLine the GPU fallback kernel runs, and
 * scattered back. \a parallelFor(count, body) runs body(line) for line in
 * [0, count) on any number of threads (the ITK side passes ITK's threader).
 * TCompute is T for the module's filters; double for float data computed in double
 * (the CPU twin of PrefilterOnDeviceInDouble). \a afterAxis is called once per axis
 * of \a shape below \a axisEnd, after that axis (also where an axis needs no
 * filtering: one call per axis, whatever the data). */
template <typename TCompute, typename T, typename TParallelFor>
void
PrefilterLeadingAxesOnHostComputingIn(T *                   data,
                                      const BufferShape &   shape,
                                      int                   axisEnd,
                                      const SplinePoles &   poles,
                                      BoundaryMode          mode,
                                      TParallelFor &&       parallelFor,
                                      const StageCallback & afterAxis)
{
  for (int axis = 0; axis < std::min(axisEnd, shape.dimension); ++axis)
  {
    const AxisLines lines = MakeAxisLines(shape, axis);
    if (poles.count == 0 || lines.length < 2)
    {
      StageDone(afterAxis);
      continue;
    }
    parallelFor(lines.count, [&](std::int64_t line) {
      thread_local std::vector<TCompute> scratch;
      scratch.resize(static_cast<std::size_t>(lines.length));
      const StridedLine<T> source{ data + lines.Start(line), lines.stride };
      for (std::int64_t k = 0; k < lines.length; ++k)
      {
        scratch[k] = static_cast<TCompute>(source[k]);
      }
      TCompute * contiguous = scratch.data();
      PrefilterLine<TCompute>(contiguous, lines.length, poles, mode);
      for (std::int64_t k = 0; k < lines.length; ++k)
      {
        source[k] = static_cast<T>(scratch[k]);
      }
    });
    StageDone(afterAxis);
  }
}

/** Every axis (see above). */
template <typename TCompute, typename T, typename TParallelFor>
void
PrefilterOnHostComputingIn(T *                   data,
                           const BufferShape &   shape,
                           const SplinePoles &   poles,
                           BoundaryMode          mode,
                           TParallelFor &&       parallelFor,
                           const StageCallback & afterAxis = {})
{
  PrefilterLeadingAxesOnHostComputingIn<TCompute>(
    data, shape, shape.dimension, poles, mode, std::forward<TParallelFor>(parallelFor), afterAxis);
}

/** The passes along axes [0, \a axisEnd) only, in the type of the data: the CPU twin
 * of PrefilterLeadingAxesOnDevice (cifSlabbedPrefilter.h). */
template <typename T, typename TParallelFor>
void
PrefilterLeadingAxesOnHost(T *                   data,
                           const BufferShape &   shape,
                           int                   axisEnd,
                           const SplinePoles &   poles,
                           BoundaryMode          mode,
                           TParallelFor &&       parallelFor,
                           const StageCallback & afterAxis = {})
{
  PrefilterLeadingAxesOnHostComputingIn<T>(
    data, shape, axisEnd, poles, mode, std::forward<TParallelFor>(parallelFor), afterAxis);
}

/** The CPU path of the prefilter, computed in the type of the data. */
template <typename T, typename TParallelFor>
void
PrefilterOnHost(T *                   data,
                const BufferShape &   shape,
                const SplinePoles &   poles,
                BoundaryMode          mode,
                TParallelFor &&       parallelFor,
                const StageCallback & afterAxis = {})
{
  PrefilterOnHostComputingIn<T>(data, shape, poles, mode, std::forward<TParallelFor>(parallelFor), afterAxis);
}
} // namespace cif

#endif
