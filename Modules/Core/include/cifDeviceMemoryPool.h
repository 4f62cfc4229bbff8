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
#ifndef cifDeviceMemoryPool_h
#define cifDeviceMemoryPool_h

#include "CudaImageFiltersExport.h"

#include <cstddef>

/** \file cifDeviceMemoryPool.h
 * Where DeviceBuffer's memory comes from: one CUDA stream-ordered memory pool per
 * device, owned by this library, that keeps freed memory for the next allocation.
 * A filter that updates again on an image of the same size (a registration loop, a
 * benchmark, a Slicer module re-run) then allocates in microseconds instead of paying
 * cudaMalloc and cudaFree of every buffer (0.4 ms for 512 MiB on an H100, and
 * cudaFree waits for the whole device). As with CuPy's and PyTorch's caching
 * allocators, freed memory stays with the process — here up to a quarter of the
 * device's memory, the rest going back to the driver when the device synchronises —
 * until ReleaseCachedDeviceMemory() or until an allocation would fail without it
 * (the cache is then given back and the allocation tried once more). Devices without
 * memory-pool support use cudaMalloc/cudaFree. Plain C++: no CUDA header. */
namespace cif
{

/** Device memory this library holds for reuse (freed by its buffers, not yet given
 * back) on the current device; 0 without CUDA or without pool support. */
CudaImageFilters_EXPORT std::size_t
                        GetCachedDeviceMemoryBytes();

/** Gives the memory cached on the current device back to the driver (after the work
 * queued on the device has finished), so that other libraries or processes can use
 * it. Nothing to do without CUDA. */
CudaImageFilters_EXPORT void
ReleaseCachedDeviceMemory();

namespace detail
{
/** One block of device memory and where it came from. */
struct DeviceAllocation
{
  void * pointer = nullptr;
  int    device = -1;
  bool   fromPool = false;
};

/** Allocates \a bytes on the current device, stream-ordered on the calling thread's
 * default stream where pools are supported. Returns the CUDA status (as int, to keep CUDA's headers
 * out of this one); on failure the allocation's pointer is null. */
int
AllocateDeviceMemory(std::size_t bytes, DeviceAllocation & allocation);
/** Frees an allocation (ordered after the work the calling thread queued so far on
 * its device). */
void
FreeDeviceMemory(const DeviceAllocation & allocation) noexcept;

/** Lets copies made by device \a reader read the memory of device \a owner's pool
 * directly (peer to peer, over NVLink or PCIe), where the hardware allows; granted
 * once per pair, for the process's life. Returns whether the copies are direct; if
 * not, the driver stages them through host memory. */
bool
LetDeviceReadPool(int reader, int owner);
} // namespace detail

} // namespace cif

#endif
