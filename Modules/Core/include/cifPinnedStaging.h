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
#ifndef cifPinnedStaging_h
#define cifPinnedStaging_h

#include "CudaImageFiltersExport.h"

#include <cstddef>

/** \file cifPinnedStaging.h
 * How large host <-> device copies reach the bus's speed when the host buffer is
 * ordinary (pageable) memory, as every itk::Image's is.
 *
 * A pageable cudaMemcpy runs at a fraction of the bus (512 MiB on an H100: 67 ms up,
 * 39 ms down, against 11 ms and 10.6 ms from pinned memory): the driver copies
 * through small bounce buffers of its own, on one host thread, one piece after the
 * other. A staging ring does that better: chunks of pinned (page-locked) host memory,
 * several host threads copying pageable <-> pinned at once, each chunk's DMA queued
 * (cudaMemcpyAsync, on a stream of the ring's own) while the next chunk is being
 * copied on the host. See Modules/Core/README.md, "Host copies".
 *
 * DeviceBuffer::Upload/Download and CopyHostToDevice go through here; copies below
 * GetPinnedStagingSettings().directBelowBytes, and host buffers that are already
 * pinned or registered (cudaHostRegister), take the direct cudaMemcpy.
 *
 * Thread safety: several host threads may copy at once. Each copy takes a ring of
 * its own from a small pool per device (a ring is never shared by two copies); when
 * every ring is busy the copy waits for one, since the bus is the limit then anyway.
 * Plain C++: no CUDA header. */
namespace cif
{

/** The staging knobs. Defaults (measured: see cifPinnedStaging.cu): 2 MiB chunks,
 * min(12, three quarters of the host's cores) threads, 4 rings, direct below 1 MiB; overridden by
 * the environment, read once: CIF_STAGING_CHUNK_KIB, CIF_STAGING_THREADS,
 * CIF_STAGING_RINGS, CIF_STAGING_DIRECT_BELOW_KIB; CIF_STAGING_THREADS=0 turns staging
 * off (every copy direct, the behaviour before staging). */
struct PinnedStagingSettings
{
  /** Bytes of one pinned chunk. */
  std::size_t chunkBytes = 2u << 20;
  /** Host threads copying into/out of chunks for one transfer (the calling thread is
   * one of them); 0 turns staging off. (The pool's default is min(12, three
   * quarters of the host's cores).) */
  int threads = 4;
  /** Chunks per thread: 2 lets a thread fill one while the other is on the bus. */
  int chunksPerThread = 2;
  /** Rings per device, i.e. staged copies running at once; more copies wait. */
  int rings = 4;
  /** Copies smaller than this go direct (staging's set-up is not worth it). */
  std::size_t directBelowBytes = 1u << 20;
};

/** The settings in effect. */
CudaImageFilters_EXPORT PinnedStagingSettings
GetPinnedStagingSettings();

/** Changes the settings (benchmarks sweep them). Rings made with the old settings are
 * freed as soon as no copy uses them; later copies use the new ones. Thread safe. */
CudaImageFilters_EXPORT void
SetPinnedStagingSettings(const PinnedStagingSettings & settings);

/** Pinned host memory held by the staging rings, all devices (0 without CUDA). */
CudaImageFilters_EXPORT std::size_t
                        GetPinnedStagingBytes();

/** Frees the rings (their pinned memory and threads): idle ones at once, busy ones
 * when their copy ends; the next large copy makes a ring again. Nothing to do
 * without CUDA. */
CudaImageFilters_EXPORT void
ReleasePinnedStagingMemory();

namespace detail
{
/** Host -> device copy of \a bytes through a staging ring, or direct (see above).
 * Returns when the data is on the device; ordered after the work the calling thread
 * queued before it on its default stream (the destination may still be in use
 * there). Throws CudaError. */
void
StagedCopyToDevice(void * device, const void * host, std::size_t bytes);
/** Device -> host copy, likewise: ordered after the calling thread's queued work
 * (the kernels writing the source), returns when the host buffer holds the data. */
void
StagedCopyToHost(void * host, const void * device, std::size_t bytes);
} // namespace detail

} // namespace cif

#endif
