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
#ifndef cifSlabbedPrefilter_h
#define cifSlabbedPrefilter_h

#include "cifBSplinePrefilterDevice.h"
#include "cifBSplinePrefilterMath.h"
#include "cifDeviceBuffer.h"
#include "cifHostWorkArea.h"
#include "cifSlabPlan.h"
#include "cifSlabReservation.h"
#include "cifStageCallback.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

/** \file cifSlabbedPrefilter.h
 * The prefilter of a host buffer larger than the device (or than the device memory
 * limit, cifDeviceMemoryLimit.h), in slabs. A recursive filter needs whole lines, so
 * no slab may cut the axis it filters:
 *  - phase A: slabs of the slowest axis (contiguous planes), each filtered along
 *    every other axis;
 *  - phase B: slabs of the next slowest axis (a chunk of every plane, gathered into
 *    one contiguous block), each filtered along the slowest axis.
 * Every line is filtered by the same code as in one piece, and the axes in the same
 * order (0, 1, ..., D-1, each cast to the coefficients' type after its pass, as ITK
 * does), so slabs give the bits of one piece. A 1-D buffer cannot be cut.
 *
 * Plain C++ over an executor, so that the CPU path runs the very plans and copies
 * the device runs (CI has no GPU): the executor holds a work area of scalars and
 * offers Reserve(scalars), Upload(host, scalars), Download(host, scalars) (host
 * buffers contiguous) and Filter(shape, axisEnd) (PrefilterLeadingAxesOn*). */
namespace cif
{
/** How a buffer of \a shape is prefiltered within \a budget bytes. */
struct SlabbedPrefilterPlan
{
  bool     whole = true; ///< the buffer fits: one piece
  SlabPlan planes;       ///< phase A: slabs of axis D-1
  SlabPlan chunks;       ///< phase B: slabs of axis D-2
};

/** Plans phase A and phase B; throws CudaOutOfMemory (naming the sizes and \a what)
 * where one plane, or the slowest axis's lines through one row of axis D-2, does not
 * fit in \a budget. */
inline SlabbedPrefilterPlan
PlanSlabbedPrefilter(const BufferShape & shape, std::size_t scalarBytes, std::size_t budget, const std::string & what)
{
  SlabbedPrefilterPlan plan;
  const std::int64_t   total = shape.ScalarCount();
  if (static_cast<std::size_t>(total) * scalarBytes <= budget)
  {
    return plan;
  }
  plan.whole = false;
  const int D = shape.dimension;
  if (D < 2)
  {
    PlanSlabs(1, static_cast<std::size_t>(total) * scalarBytes, 0, budget, what + " (a 1-D line is filtered whole)");
  }
  const std::int64_t slow = shape.size[D - 1];
  const std::int64_t plane = total / slow;
  plan.planes = PlanSlabs(slow, static_cast<std::size_t>(plane) * scalarBytes, 0, budget, what);
  const std::int64_t inner = plane / shape.size[D - 2]; // scalars below axis D-2 (components included)
  plan.chunks = PlanSlabs(shape.size[D - 2],
                          static_cast<std::size_t>(inner * slow) * scalarBytes,
                          0,
                          budget,
                          what + " (lines of the slowest axis)");
  // Phase B describes a block as lines of the slowest axis with one "component" per
  // sample of a plane's chunk: an int.
  const std::int64_t mostUnits = std::max<std::int64_t>(1, INT_MAX / inner);
  if (plan.chunks.unitsPerSlab > mostUnits)
  {
    plan.chunks.unitsPerSlab = mostUnits;
    plan.chunks.count = (shape.size[D - 2] + mostUnits - 1) / mostUnits;
  }
  return plan;
}

/** The scalars of the largest slab of \a plan, over both phases (the whole buffer in
 * one piece). */
inline std::int64_t
LargestSlabScalars(const BufferShape & shape, const SlabbedPrefilterPlan & plan)
{
  const std::int64_t total = shape.ScalarCount();
  if (plan.whole)
  {
    return total;
  }
  const int          D = shape.dimension;
  const std::int64_t slow = shape.size[D - 1];
  const std::int64_t plane = total / slow;
  const std::int64_t inner = plane / shape.size[D - 2];
  return std::max(plan.planes.unitsPerSlab * plane, slow >= 2 ? plan.chunks.unitsPerSlab * inner * slow : 0);
}

/** Plans the slabs within \a budget and reserves \a executor's device buffer for the
 * largest of them before any data is touched; a reservation that fails is planned
 * again finer, down to one plane (PlanAndReserve, cifSlabReservation.h). */
template <typename TExecutor>
SlabbedPrefilterPlan
PlanAndReserveSlabs(const BufferShape & shape,
                    std::size_t         scalarBytes,
                    std::size_t         budget,
                    const std::string & what,
                    TExecutor &         executor)
{
  return PlanAndReserve(
    budget,
    [&](std::size_t b) { return PlanSlabbedPrefilter(shape, scalarBytes, b, what); },
    [&](const SlabbedPrefilterPlan & plan) {
      return PlannedBytes{ 0, static_cast<std::size_t>(LargestSlabScalars(shape, plan)) * scalarBytes };
    },
    [&](const SlabbedPrefilterPlan & plan) { executor.Reserve(LargestSlabScalars(shape, plan)); });
}

/** Runs \a plan on \a data (host, \a shape) with \a executor; \a afterAxis once per
 * axis, as the one-piece prefilter calls it. \a parallelFor runs phase B's gathers
 * and scatters (one plane's chunk each: the whole volume goes through them twice)
 * on several host threads. \a source, when given, holds the samples to filter (same
 * shape and type): the first phase reads its slabs from there, so \a data need not
 * hold a copy of them first (every element of \a data is written before it is read:
 * a fresh work area, or the filter's output, is touched once instead of twice). */
template <typename T, typename TExecutor, typename TParallelFor = SequentialFor>
void
RunSlabbedPrefilter(T *                          data,
                    const BufferShape &          shape,
                    const SlabbedPrefilterPlan & plan,
                    TExecutor &                  executor,
                    const StageCallback &        afterAxis = {},
                    TParallelFor &&              parallelFor = TParallelFor{},
                    const T *                    source = nullptr)
{
  const T *          samples = source != nullptr ? source : data;
  const int          D = shape.dimension;
  const std::int64_t total = shape.ScalarCount();
  if (plan.whole)
  {
    executor.Reserve(total);
    executor.Upload(samples, total);
    executor.Filter(shape, D, afterAxis);
    executor.Download(data, total);
    return;
  }
  const std::int64_t slow = shape.size[D - 1];
  const std::int64_t plane = total / slow;

  // Phase A: planes [first, first + n) of axis D-1 are contiguous.
  executor.Reserve(plan.planes.unitsPerSlab * plane);
  for (std::int64_t s = 0; s < plan.planes.count; ++s)
  {
    const std::int64_t first = plan.planes.First(s), n = plan.planes.Size(s, slow);
    BufferShape        slab = shape;
    slab.size[D - 1] = n;
    executor.Upload(samples + first * plane, n * plane);
    executor.Filter(slab, D - 1, StageCallback{});
    executor.Download(data + first * plane, n * plane);
  }
  for (int axis = 0; axis < D - 1; ++axis)
  {
    StageDone(afterAxis);
  }

  // Phase B: rows [first, first + n) of axis D-2 in every plane, gathered.
  if (slow >= 2)
  {
    const std::int64_t rows = shape.size[D - 2];
    const std::int64_t inner = plane / rows;
    // Up to the whole budget, every byte written by the gather (cifHostWorkArea.h).
    const HostWorkArea<T> block =
      AllocateHostWorkArea<T>(static_cast<std::size_t>(plan.chunks.unitsPerSlab * inner * slow));
    executor.Reserve(plan.chunks.unitsPerSlab * inner * slow);
    for (std::int64_t s = 0; s < plan.chunks.count; ++s)
    {
      const std::int64_t first = plan.chunks.First(s), n = plan.chunks.Size(s, rows);
      const std::int64_t chunk = n * inner;
      parallelFor(slow, [&](std::int64_t z) {
        std::memcpy(block.get() + z * chunk, data + z * plane + first * inner, chunk * sizeof(T));
      });
      BufferShape lines;
      lines.dimension = 1;
      lines.size[0] = slow;
      lines.components = static_cast<int>(chunk);
      executor.Upload(block.get(), chunk * slow);
      executor.Filter(lines, 1, StageCallback{});
      executor.Download(block.get(), chunk * slow);
      parallelFor(slow, [&](std::int64_t z) {
        std::memcpy(data + z * plane + first * inner, block.get() + z * chunk, chunk * sizeof(T));
      });
    }
  }
  StageDone(afterAxis);
}

/** The executor of the CPU path: a host work area, PrefilterLeadingAxesOnHost. */
template <typename T, typename TFilterLeading>
class HostSlabExecutor
{
public:
  explicit HostSlabExecutor(TFilterLeading filterLeading)
    : m_FilterLeading(std::move(filterLeading))
  {}
  void
  Reserve(std::int64_t scalars)
  {
    m_Work.resize(static_cast<std::size_t>(scalars));
  }
  void
  Upload(const T * host, std::int64_t scalars)
  {
    std::memcpy(m_Work.data(), host, static_cast<std::size_t>(scalars) * sizeof(T));
  }
  void
  Download(T * host, std::int64_t scalars)
  {
    std::memcpy(host, m_Work.data(), static_cast<std::size_t>(scalars) * sizeof(T));
  }
  void
  Filter(const BufferShape & shape, int axisEnd, const StageCallback & afterAxis)
  {
    m_FilterLeading(m_Work.data(), shape, axisEnd, afterAxis);
  }

private:
  TFilterLeading m_FilterLeading;
  std::vector<T> m_Work;
};
/** The executor of the GPU path: one device buffer of the largest slab, reused by
 * every slab of a phase; PrefilterLeadingAxesOnDevice. */
template <typename T>
class DeviceSlabExecutor
{
public:
  DeviceSlabExecutor(const SplinePoles & poles, BoundaryMode mode)
    : m_Poles(poles)
    , m_Mode(mode)
  {}
  /** A buffer of at least \a scalars: the one already held where it is large enough
   * (PlanAndReserveSlabs allocates the largest slab of both phases up front), else a
   * new one in place of the old: never two at once. */
  void
  Reserve(std::int64_t scalars)
  {
    const std::size_t bytes = static_cast<std::size_t>(scalars) * sizeof(T);
    if (m_Work.Bytes() >= bytes)
    {
      return;
    }
    m_Work.Release();
    m_Work.Allocate(bytes);
  }
  void
  Upload(const T * host, std::int64_t scalars)
  {
    m_Work.Upload(host, static_cast<std::size_t>(scalars) * sizeof(T));
  }
  void
  Download(T * host, std::int64_t scalars)
  {
    m_Work.Download(host, static_cast<std::size_t>(scalars) * sizeof(T));
  }
  void
  Filter(const BufferShape & shape, int axisEnd, const StageCallback & afterAxis)
  {
    PrefilterLeadingAxesOnDevice<T>(m_Work.As<T>(), shape, axisEnd, m_Poles, m_Mode, afterAxis);
  }

private:
  SplinePoles  m_Poles;
  BoundaryMode m_Mode;
  DeviceBuffer m_Work;
};
} // namespace cif

#endif
