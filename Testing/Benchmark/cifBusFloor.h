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
#ifndef cifBusFloor_h
#define cifBusFloor_h

#include <cstddef>

namespace cif_bench
{
/** Plain cudaMemcpy times of one size, wall clock (what a caller waits), median of
 * the repeats after a warm-up; -1 where not measured (no CUDA in the build or no
 * device). HostTransferBenchmark's bus floor and the pageable copies the library
 * made before its staging rings. */
struct BusTimes
{
  double pinnedUpMs = -1;          ///< cudaMallocHost memory -> device: the bus floor up
  double pinnedDownMs = -1;        ///< device -> cudaMallocHost memory: the bus floor down
  double pageableUpMs = -1;        ///< ordinary (touched) host memory -> device
  double pageableDownMs = -1;      ///< device -> ordinary host memory, touched before
  double pageableDownFreshMs = -1; ///< device -> a fresh allocation, pages not yet touched
};

/** Measures the copies of \a bytes (on the current device). */
BusTimes
MeasureBus(std::size_t bytes, int repeat);

/** The bus floor of several devices at once: \a bytes copied from pinned host memory
 * to each of devices 0 .. \a devices - 1 (and back), all at the same time, one host
 * thread and one pinned buffer per device; wall clock from the first start to the
 * last end, median of the repeats after a warm-up. What a job spread over the devices
 * can at best take to move \a bytes to each (where the host's memory or its links are
 * the bound, less than \a devices times one device's rate). Only the pinned fields are
 * set; -1 where not measured (fewer devices, no CUDA). */
BusTimes
MeasureBusOnDevices(std::size_t bytes, int devices, int repeat);
} // namespace cif_bench

#endif
