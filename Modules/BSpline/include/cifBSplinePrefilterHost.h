#ifndef cifBSplinePrefilterHost_h
#define cifBSplinePrefilterHost_h

#include "cifBSplinePrefilterMath.h"
#include "cifStageCallback.h"

#include <vector>

namespace cif
{
/** The CPU path of the prefilter: every axis of a buffer of \a shape, in place.
 * Each line is gathered into a contiguous scratch line (cache friendly on every
 * axis), filtered by the same PrefilterLine the GPU fallback kernel runs, and
 * scattered back. \a parallelFor(count, body) runs body(line) for line in
 * [0, count) on any number of threads (the ITK side passes ITK's threader).
 * \a afterAxis is called once per axis of \a shape, after that axis (also where an
 * axis needs no filtering: one call per axis, whatever the data). */
template <typename T, typename TParallelFor>
void
PrefilterOnHost(T * data, const BufferShape & shape, const SplinePoles & poles, BoundaryMode mode,
                TParallelFor && parallelFor, const StageCallback & afterAxis = {})
{
  for (int axis = 0; axis < shape.dimension; ++axis)
  {
    const AxisLines lines = MakeAxisLines(shape, axis);
    if (poles.count == 0 || lines.length < 2)
    {
      StageDone(afterAxis);
      continue;
    }
    parallelFor(lines.count, [&](std::int64_t line) {
      thread_local std::vector<T> scratch;
      scratch.resize(static_cast<std::size_t>(lines.length));
      const StridedLine<T> source{ data + lines.Start(line), lines.stride };
      for (std::int64_t k = 0; k < lines.length; ++k)
      {
        scratch[k] = source[k];
      }
      T * contiguous = scratch.data();
      PrefilterLine<T>(contiguous, lines.length, poles, mode);
      for (std::int64_t k = 0; k < lines.length; ++k)
      {
        source[k] = scratch[k];
      }
    });
    StageDone(afterAxis);
  }
}
} // namespace cif

#endif
