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
#ifndef cifPinnedHostMemory_h
#define cifPinnedHostMemory_h

#include "CudaImageFiltersExport.h"

#include <cstddef>

/** \file cifPinnedHostMemory.h
 * Page-locked (pinned) host memory for the host images the GPU filters write.
 *
 * A download into pinned memory is one DMA at the bus's speed; into ordinary
 * (pageable) memory it goes through the staging rings (cifPinnedStaging.h), which
 * add host copies on top of the bus (about 1.15x the pinned time, more on hosts with
 * slow memcpy). So a GPU filter whose output is an ordinary itk::Image of at least
 * GetPinnedOutputMinimumBytes(), updated a second time, gives that image a pinned
 * pixel container
 * (itkCudaHostImportImageContainer.h), which ITK keeps and reuses across updates,
 * and which the next GPU filter of a pipeline uploads from directly.
 *
 * Pinned memory cannot be swapped out, so the library caps what it holds at once:
 * GetPinnedHostLimit() bytes (default: a quarter of the host's physical memory, at
 * most 16 GiB; environment CIF_PINNED_HOST_LIMIT, e.g. "4G", read once; 0 turns
 * pinned outputs off). An allocation past the cap, or one the driver refuses, is
 * answered with nullptr, and the caller falls back to ordinary memory.
 * Plain C++: no CUDA header. Thread safe. */
namespace cif
{

/** \a bytes of pinned host memory (portable: pinned for every device), or nullptr
 * when the cap would be exceeded, the driver refuses, or there is no CUDA. */
CudaImageFilters_EXPORT void *
AllocatePinnedHostMemory(std::size_t bytes);

/** Frees \a memory if AllocatePinnedHostMemory returned it and returns true;
 * returns false (and does nothing) for any other pointer. */
CudaImageFilters_EXPORT bool
FreePinnedHostMemory(void * memory) noexcept;

/** Bytes currently held by AllocatePinnedHostMemory's allocations. */
CudaImageFilters_EXPORT std::size_t
                        GetPinnedHostBytes();

/** The cap on GetPinnedHostBytes() (see above). */
CudaImageFilters_EXPORT std::size_t
                        GetPinnedHostLimit();

/** Changes the cap; 0 turns pinned allocations off. Memory already held stays. */
CudaImageFilters_EXPORT void
SetPinnedHostLimit(std::size_t bytes);

/** Host outputs smaller than this stay in ordinary memory however often their filter
 * updates (itkCudaHostImportImageContainer.h); larger ones are pinned from their
 * second update on. Default 16 MiB; environment CIF_PINNED_OUTPUT_MIN (e.g. "64M"),
 * read once. Pinning costs about 0.4-0.6 ms per MiB once and saves per later update
 * only what the staged download costs over a pinned one: measured on an H100 host
 * (2026-11-25), 0.08 ms for a 4 MiB output (pinning it made the second update of a
 * 128x128x64 resample 3.3-3.9 ms instead of 1.2), 0.2-0.3 ms at 8 MiB, 2 ms at 64 MiB,
 * 28 ms at 512 MiB: small outputs would need 20 to 30 more updates to win back their
 * pinning. */
CudaImageFilters_EXPORT std::size_t
                        GetPinnedOutputMinimumBytes();

/** Changes that size (0: pin every output the filters would pin). */
CudaImageFilters_EXPORT void
SetPinnedOutputMinimumBytes(std::size_t bytes);

/** Page-locks \a bytes of ordinary host memory at \a memory in place
 * (cudaHostRegister, portable), counted against GetPinnedHostLimit() like an
 * allocation. Returns false, changing nothing, past the cap, when the driver refuses
 * (e.g. the range is already pinned or registered) or without CUDA. The memory must
 * be unregistered before it is freed: a registration outlives a free(), and a later
 * allocation at the same address would be copied from the old pages
 * (itkCudaHostInputRegistration.h keeps that order for input images). */
CudaImageFilters_EXPORT bool
RegisterHostMemory(void * memory, std::size_t bytes);

/** Undoes RegisterHostMemory(\a memory); returns false for a pointer it did not
 * register. */
CudaImageFilters_EXPORT bool
UnregisterHostMemory(void * memory) noexcept;

/** Whether \a memory is page-locked host memory the driver knows (allocated pinned,
 * or registered); false without CUDA. */
CudaImageFilters_EXPORT bool
IsPageLockedHostMemory(const void * memory) noexcept;

namespace detail
{
/** The driver's page-locked allocation (cudaHostAlloc, portable), nullptr when it
 * fails; without CUDA always nullptr. */
void *
AllocatePageLocked(std::size_t bytes) noexcept;
/** cudaFreeHost of what AllocatePageLocked returned. */
void
FreePageLocked(void * memory) noexcept;

/** The driver's side of page-locking in place: cudaHostRegister (portable), false
 * when it fails; cudaHostUnregister; and cudaPointerGetAttributes' "host" type.
 * Without CUDA: false, nothing, false. */
bool
RegisterPageLocked(void * memory, std::size_t bytes) noexcept;
void
UnregisterPageLocked(void * memory) noexcept;
bool
IsPageLocked(const void * memory) noexcept;

/** Tests of the input registration's bookkeeping replace the driver's three calls
 * with recorders (nullptr: the driver again). Not for production use. */
struct PageLocking
{
  bool (*lock)(void * memory, std::size_t bytes) = nullptr;
  void (*unlock)(void * memory) = nullptr;
  bool (*isLocked)(const void * memory) = nullptr;
};
CudaImageFilters_EXPORT void
SetPageLockingForTesting(const PageLocking * replacement);
} // namespace detail

} // namespace cif

#endif
