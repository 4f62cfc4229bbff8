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
// The bookkeeping of pinned host memory: which pointers are ours (so that a pixel
// container frees only what it pinned, and only registered ranges are unregistered),
// how many bytes are held, and the cap. The driver's calls are detail::
// AllocatePageLocked and RegisterPageLocked (cifCudaRuntime.cu, or the build without
// CUDA, where they always fail).
#include "cifPinnedHostMemory.h"
#include "cifRuntimeSettings.h"

#include <limits>
#include <mutex>
#include <unordered_map>

namespace cif
{
namespace
{
constexpr std::size_t kUnset = std::numeric_limits<std::size_t>::max();

struct Registry
{
  std::mutex                              mutex;
  std::unordered_map<void *, std::size_t> sizes;      // allocations
  std::unordered_map<void *, std::size_t> registered; // ranges page-locked in place
  std::size_t                             held = 0;
  std::size_t                             limit = kUnset;
  std::size_t                             outputMinimum = kUnset;
};

Registry &
TheRegistry()
{
  // Never destroyed: images freed during static destruction still find it.
  static Registry * registry = new Registry;
  return *registry;
}

std::size_t
LimitLocked(const Registry & r)
{
  return r.limit != kUnset ? r.limit : GetRuntimeSettings().pinnedHostLimit;
}

/** Reserves \a bytes under the cap; false when they do not fit. */
bool
ReserveLocked(Registry & r, std::size_t bytes)
{
  const std::size_t limit = LimitLocked(r);
  if (bytes > limit || r.held > limit - bytes)
  {
    return false;
  }
  r.held += bytes;
  return true;
}

/** After the driver's (slow) call for the \a bytes ReserveLocked reserved: keeps
 * \a memory in \a kept, or gives the bytes back where the call failed. */
void
SettleLocked(Registry &                                r,
             std::unordered_map<void *, std::size_t> & kept,
             void *                                    memory,
             bool                                      succeeded,
             std::size_t                               bytes)
{
  if (succeeded)
  {
    kept.emplace(memory, bytes);
  }
  else
  {
    r.held -= bytes;
  }
}

/** Takes \a memory out of \a kept and its bytes off the held count; false where
 * \a kept does not hold it. */
bool
ForgetLocked(Registry & r, std::unordered_map<void *, std::size_t> & kept, void * memory)
{
  const auto found = kept.find(memory);
  if (found == kept.end())
  {
    return false;
  }
  r.held -= found->second;
  kept.erase(found);
  return true;
}

const detail::PageLocking *&
PageLockingReplacement()
{
  static const detail::PageLocking * replacement = nullptr;
  return replacement;
}
} // namespace

void *
AllocatePinnedHostMemory(std::size_t bytes)
{
  if (bytes == 0)
  {
    return nullptr;
  }
  Registry & r = TheRegistry();
  {
    const std::lock_guard<std::mutex> lock(r.mutex);
    if (!ReserveLocked(r, bytes)) // before the (slow) allocation, so two threads cannot both pass the cap
    {
      return nullptr;
    }
  }
  void *                            memory = detail::AllocatePageLocked(bytes);
  const std::lock_guard<std::mutex> lock(r.mutex);
  SettleLocked(r, r.sizes, memory, memory != nullptr, bytes);
  return memory;
}

bool
FreePinnedHostMemory(void * memory) noexcept
{
  if (memory == nullptr)
  {
    return false;
  }
  Registry & r = TheRegistry();
  {
    const std::lock_guard<std::mutex> lock(r.mutex);
    if (!ForgetLocked(r, r.sizes, memory))
    {
      return false;
    }
  }
  detail::FreePageLocked(memory);
  return true;
}

std::size_t
GetPinnedHostBytes()
{
  Registry &                        r = TheRegistry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  return r.held;
}

std::size_t
GetPinnedHostLimit()
{
  Registry &                        r = TheRegistry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  return LimitLocked(r);
}

void
SetPinnedHostLimit(std::size_t bytes)
{
  Registry &                        r = TheRegistry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.limit = bytes;
}

std::size_t
GetPinnedOutputMinimumBytes()
{
  Registry &                        r = TheRegistry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  return r.outputMinimum != kUnset ? r.outputMinimum : GetRuntimeSettings().pinnedOutputMinimumBytes;
}

void
SetPinnedOutputMinimumBytes(std::size_t bytes)
{
  Registry &                        r = TheRegistry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.outputMinimum = bytes;
}

bool
RegisterHostMemory(void * memory, std::size_t bytes)
{
  if (memory == nullptr || bytes == 0)
  {
    return false;
  }
  Registry & r = TheRegistry();
  {
    const std::lock_guard<std::mutex> lock(r.mutex);
    if (r.registered.count(memory) != 0 || !ReserveLocked(r, bytes))
    {
      return false;
    }
  }
  const detail::PageLocking * replacement = PageLockingReplacement();
  const bool                  locked =
    replacement != nullptr ? replacement->lock(memory, bytes) : detail::RegisterPageLocked(memory, bytes);
  const std::lock_guard<std::mutex> lock(r.mutex);
  SettleLocked(r, r.registered, memory, locked, bytes);
  return locked;
}

bool
UnregisterHostMemory(void * memory) noexcept
{
  Registry & r = TheRegistry();
  {
    const std::lock_guard<std::mutex> lock(r.mutex);
    if (!ForgetLocked(r, r.registered, memory))
    {
      return false;
    }
  }
  const detail::PageLocking * replacement = PageLockingReplacement();
  if (replacement != nullptr)
  {
    replacement->unlock(memory);
  }
  else
  {
    detail::UnregisterPageLocked(memory);
  }
  return true;
}

bool
IsPageLockedHostMemory(const void * memory) noexcept
{
  const detail::PageLocking * replacement = PageLockingReplacement();
  return replacement != nullptr ? replacement->isLocked(memory) : detail::IsPageLocked(memory);
}

namespace detail
{
void
SetPageLockingForTesting(const PageLocking * replacement)
{
  PageLockingReplacement() = replacement;
}
} // namespace detail
} // namespace cif
