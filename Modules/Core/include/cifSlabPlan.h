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
#ifndef cifSlabPlan_h
#define cifSlabPlan_h

#include "cifCudaRuntime.h"
#include "cifDeviceMemoryLimit.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

/** \file cifSlabPlan.h
 * How a job larger than its memory budget is cut: \a units planes (of the slab
 * axis) of \a bytesPerUnit each, plus \a fixedBytes that every slab needs whatever
 * its size (coefficients kept whole, a transform's parameters), into the fewest
 * slabs of equal size (the last may be smaller) that fit. Plain C++ shared by the
 * device path and the CPU path, so that CI runs the very plans the device runs. */
namespace cif
{
/** A sequential parallelFor(count, body): the default of the routines that take one
 * (the host loops of a slabbed job, which move the whole volume through host memory,
 * as the CPU routines do with itk::MakeParallelFor), for callers without a threader. */
struct SequentialFor
{
  template <typename TBody>
  void
  operator()(std::int64_t count, TBody && body) const
  {
    for (std::int64_t i = 0; i < count; ++i)
    {
      body(i);
    }
  }
};

struct SlabPlan
{
  std::int64_t unitsPerSlab = 0; ///< planes per slab; the last slab may hold fewer
  std::int64_t count = 1;        ///< number of slabs (1: the whole job at once)

  /** First plane of slab \a s and its number of planes. */
  std::int64_t
  First(std::int64_t s) const
  {
    return s * unitsPerSlab;
  }
  std::int64_t
  Size(std::int64_t s, std::int64_t units) const
  {
    return std::min(unitsPerSlab, units - s * unitsPerSlab);
  }
};

/** Plans slabs within \a budget bytes. Throws CudaOutOfMemory, naming \a what and
 * every size, when even a slab of one plane does not fit. */
inline SlabPlan
PlanSlabs(std::int64_t        units,
          std::size_t         bytesPerUnit,
          std::size_t         fixedBytes,
          std::size_t         budget,
          const std::string & what)
{
  SlabPlan plan;
  plan.unitsPerSlab = std::max<std::int64_t>(units, 1);
  if (units <= 1 && fixedBytes + bytesPerUnit * static_cast<std::size_t>(std::max<std::int64_t>(units, 0)) <= budget)
  {
    return plan;
  }
  const std::size_t perUnit = std::max<std::size_t>(bytesPerUnit, 1);
  if (fixedBytes >= budget || (budget - fixedBytes) / perUnit < 1)
  {
    std::ostringstream s;
    s << "not enough GPU memory for " << what << ", even in slabs: the smallest slab (one plane of "
      << FormatMiB(bytesPerUnit) << ", plus " << FormatMiB(fixedBytes) << " the job needs whole) exceeds the "
      << FormatMiB(budget) << " available";
    if (GetDeviceMemoryLimit() != 0)
    {
      s << " (device memory limit " << FormatMiB(GetDeviceMemoryLimit())
        << ": cif::SetDeviceMemoryLimit or CIF_DEVICE_MEMORY_LIMIT)";
    }
    throw CudaOutOfMemory(s.str());
  }
  const std::size_t  fitting = (budget - fixedBytes) / perUnit;
  const std::int64_t most = static_cast<std::int64_t>(
    std::min<std::size_t>(fitting, static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())));
  if (most >= units)
  {
    return plan;
  }
  plan.count = (units + most - 1) / most;
  plan.unitsPerSlab = (units + plan.count - 1) / plan.count; // equal slabs, none empty
  plan.count = (units + plan.unitsPerSlab - 1) / plan.unitsPerSlab;
  return plan;
}
} // namespace cif

#endif
