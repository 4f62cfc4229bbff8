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
#ifndef cifSlabReservation_h
#define cifSlabReservation_h

#include "cifCudaRuntime.h"
#include "cifSlabPlan.h"

#include <algorithm>
#include <cstddef>

/** \file cifSlabReservation.h
 * A slab plan (cifSlabPlan.h) made against what the device can really allocate: the
 * plan's buffers are reserved before any data is touched, and a reservation that
 * fails is planned again finer. Shared by every slabbed job (the prefilter's slabs,
 * the resampler's and the displacement field's); plain C++, so that the CPU path's
 * tests run it with a simulated failure. Kept out of cifSlabPlan.h, which the device
 * kernels include. */
namespace cif
{
/** The device memory a slab plan takes: \a fixedBytes whatever the slabs' size (a
 * transform's coefficients, the whole input's coefficients), \a slabBytes for its
 * largest slab. */
struct PlannedBytes
{
  std::size_t fixedBytes = 0;
  std::size_t slabBytes = 0;
};

/** A plan the device can really allocate: \a plan(budget) plans a job within
 * \a budget bytes (throwing the clear CudaOutOfMemory where its smallest slab does not
 * fit: PlanSlabs), \a bytesOf(plan) says what it takes (PlannedBytes), and
 * \a reserve(plan) allocates its largest slab's buffers before any data is touched.
 * The driver's free memory is not all allocatable (a kernel's first launch loads its
 * module and may grow the local memory reservation; the pool and the driver allocate
 * in granules): measured on an H200, a 32 MiB slab planned for 48 MiB free failed
 * with 33 MiB free. When \a reserve throws CudaOutOfMemory, the job is planned again
 * with half the slab bytes that failed (the fixed bytes kept), down to the smallest
 * slab, whose failure in \a plan is the clear error naming the sizes. \a reserve
 * must leave nothing allocated when it throws. */
template <typename TPlanner, typename TBytesOf, typename TReserve>
auto
PlanAndReserve(std::size_t budget, TPlanner && plan, TBytesOf && bytesOf, TReserve && reserve) -> decltype(plan(budget))
{
  for (;;)
  {
    auto               planned = plan(budget);
    const PlannedBytes bytes = bytesOf(planned);
    try
    {
      reserve(planned);
      return planned;
    }
    catch (const CudaOutOfMemory &)
    {
      if (bytes.slabBytes <= 1)
      {
        throw;
      }
      // Strictly less than what failed, so the plans shrink until plan() refuses.
      budget = bytes.fixedBytes + std::min(bytes.slabBytes, budget - std::min(budget, bytes.fixedBytes)) / 2;
    }
  }
}
} // namespace cif

#endif
