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

namespace detail
{
/** The driver's page-locked allocation (cudaHostAlloc, portable), nullptr when it
 * fails; without CUDA always nullptr. */
void *
AllocatePageLocked(std::size_t bytes) noexcept;
/** cudaFreeHost of what AllocatePageLocked returned. */
void
FreePageLocked(void * memory) noexcept;
} // namespace detail

} // namespace cif

#endif
