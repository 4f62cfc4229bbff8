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
// The library's stream-ordered device memory pools (see cifDeviceMemoryPool.h).
#include "cifCudaCheck.cuh"
#include "cifDeviceMemoryPool.h"
#include "cifSimulatedOutOfMemory.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace cif
{
namespace
{
/** Whether any pool was made: without one there is nothing cached to give back, and
 * asking would start CUDA (a context: hundreds of milliseconds) in a process that
 * never used the device, such as a CLI module answering --help. */
std::atomic<bool> poolsMade{ false };

/** The pool of \a device, created on first use; null where the device has no
 * memory-pool support (cudaMalloc then). Pools live as long as the process: the
 * driver frees them with the context. */
cudaMemPool_t
PoolOf(int device)
{
  static std::mutex                 mutex;
  static std::vector<cudaMemPool_t> pools;
  static std::vector<bool>          known;
  const std::lock_guard<std::mutex> lock(mutex);
  if (static_cast<std::size_t>(device) >= pools.size())
  {
    pools.resize(device + 1, nullptr);
    known.resize(device + 1, false);
  }
  if (!known[device])
  {
    known[device] = true;
    int supported = 0;
    if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess || !supported)
    {
      cudaGetLastError();
      return nullptr;
    }
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = nullptr;
    if (cudaMemPoolCreate(&pool, &props) != cudaSuccess)
    {
      cudaGetLastError();
      return nullptr;
    }
    // Keep freed memory for reuse instead of returning it at every synchronisation
    // (the default threshold, 0, would make each update map its buffers again), up
    // to a quarter of the device: the rest of a host application (a viewer's
    // rendering, other GPU libraries) is not starved by memory cached here.
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess)
    {
      cudaGetLastError();
    }
    std::uint64_t keep = totalBytes / 4;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    pools[device] = pool;
    poolsMade = true;
  }
  return pools[device];
}

int
CurrentDevice()
{
  int device = 0;
  CIF_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

/** The current device's pool; null without a device or without pool support. */
cudaMemPool_t
CurrentPool()
{
  return IsGPUAvailable() ? PoolOf(CurrentDevice()) : nullptr;
}

/** Gives the cached memory of \a pool back to the driver once queued work is done. */
void
Trim(cudaMemPool_t pool)
{
  CIF_CUDA_CHECK(cudaDeviceSynchronize()); // pending frees reach the pool
  CIF_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
}
} // namespace

std::size_t
GetCachedDeviceMemoryBytes()
{
  const cudaMemPool_t pool = CurrentPool();
  if (!pool)
  {
    return 0;
  }
  std::uint64_t reserved = 0, used = 0;
  CIF_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  CIF_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  return reserved > used ? static_cast<std::size_t>(reserved - used) : 0;
}

void
ReleaseCachedDeviceMemory()
{
  if (!poolsMade)
  {
    return;
  }
  if (const cudaMemPool_t pool = CurrentPool())
  {
    Trim(pool);
  }
}

namespace detail
{
int
AllocateDeviceMemory(std::size_t bytes, DeviceAllocation & allocation)
{
  allocation = DeviceAllocation{};
  const std::size_t ceiling = GetSimulatedAllocationCeiling();
  if (ceiling != 0 && bytes > ceiling) // a test's simulated failure (cifSimulatedOutOfMemory.h)
  {
    return cudaErrorMemoryAllocation;
  }
  allocation.device = CurrentDevice();
  const cudaMemPool_t pool = PoolOf(allocation.device);
  if (!pool)
  {
    const cudaError_t status = cudaMalloc(&allocation.pointer, bytes);
    if (status != cudaSuccess)
    {
      allocation.pointer = nullptr;
    }
    return status;
  }
  allocation.fromPool = true;
  cudaError_t status = cudaMallocFromPoolAsync(&allocation.pointer, bytes, pool, cudaStreamPerThread);
  if (status == cudaErrorMemoryAllocation)
  {
    // Memory this library cached may be what is missing (or it is fragmented):
    // give it back and try once more.
    cudaGetLastError();
    Trim(pool);
    status = cudaMallocFromPoolAsync(&allocation.pointer, bytes, pool, cudaStreamPerThread);
  }
  if (status != cudaSuccess)
  {
    allocation.pointer = nullptr;
  }
  return status;
}

void
FreeDeviceMemory(const DeviceAllocation & allocation) noexcept
{
  if (!allocation.pointer)
  {
    return;
  }
  // Failures cannot be reported from destructors; a failing free leaves nothing to recover.
  if (!allocation.fromPool)
  {
    cudaFree(allocation.pointer);
    return;
  }
  // Stream-ordered: the memory returns to the pool once the work the calling thread
  // queued so far on its default stream of the allocating device has used it. Work of
  // another thread is not waited for: every filter drains its thread's stream before
  // it returns (cif::Synchronize), so a buffer changing hands between threads is idle.
  int current = allocation.device;
  cudaGetDevice(&current);
  if (current != allocation.device)
  {
    cudaSetDevice(allocation.device);
  }
  if (cudaFreeAsync(allocation.pointer, cudaStreamPerThread) != cudaSuccess)
  {
    cudaGetLastError(); // not left for the next launch check to misreport
  }
  if (current != allocation.device)
  {
    cudaSetDevice(current);
  }
}

bool
LetDeviceReadPool(int reader, int owner)
{
  if (reader == owner)
  {
    return true;
  }
  static std::mutex                          mutex;
  static std::map<std::pair<int, int>, bool> granted; // (reader, owner) -> direct
  const std::lock_guard<std::mutex>          lock(mutex);
  const auto                                 known = granted.find({ reader, owner });
  if (known != granted.end())
  {
    return known->second;
  }
  bool direct = false;
  int  canAccess = 0;
  if (cudaDeviceCanAccessPeer(&canAccess, reader, owner) == cudaSuccess && canAccess)
  {
    if (const cudaMemPool_t pool = PoolOf(owner))
    {
      // Pool memory is reached by peers through the pool's access list, not through
      // cudaDeviceEnablePeerAccess.
      cudaMemAccessDesc access{};
      access.location.type = cudaMemLocationTypeDevice;
      access.location.id = reader;
      access.flags = cudaMemAccessFlagsProtReadWrite;
      direct = cudaMemPoolSetAccess(pool, &access, 1) == cudaSuccess;
    }
  }
  cudaGetLastError(); // a refusal leaves staged copies, not an error for the next call
  granted[{ reader, owner }] = direct;
  return direct;
}
} // namespace detail
} // namespace cif
