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
// The watch over host input buffers: upload counts per pixel container, the
// registration at the (N+1)-th upload, and its end before the buffer can be freed.
// See itkCudaHostInputRegistration.h for why each event ends it.
#include "itkCudaHostInputRegistration.h"

#include "cifPinnedHostMemory.h"
#include "cifRuntimeSettings.h"

#include <chrono>
#include <limits>
#include <mutex>
#include <unordered_map>

namespace cif
{
namespace
{
constexpr unsigned kUnset = std::numeric_limits<unsigned>::max();

/** One watched container: the buffer its uploads came from, and where it stands. */
struct WatchedBuffer
{
  enum class State
  {
    Counting,   ///< staged uploads so far; registered when the count passes N
    Registered, ///< page-locked by us: unregistered before the buffer can go
    Declined    ///< already pinned, or the driver or the cap refused: left alone
  };
  void *      buffer = nullptr;
  std::size_t bytes = 0;
  bool        owned = false;
  unsigned    uploads = 0;
  State       state = State::Counting;
  void (*current)(const itk::Object *, void *&, std::size_t &, bool &) = nullptr;
};

struct Watch
{
  std::mutex                                             mutex;
  std::unordered_map<const itk::Object *, WatchedBuffer> watched;
  unsigned                                               uploadsBefore = kUnset;
  HostInputRegistrationStatistics                        statistics;
};

Watch &
TheWatch()
{
  // Never destroyed: containers freed during static destruction still find it.
  static Watch * watch = new Watch;
  return *watch;
}

unsigned
UploadsBeforeLocked(const Watch & w)
{
  return w.uploadsBefore != kUnset ? w.uploadsBefore : GetRuntimeSettings().registerInputsAfter;
}

double
MillisecondsSince(std::chrono::steady_clock::time_point start)
{
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/** Ends the registration of \a b, if we made one; it counts from zero again. */
void
EndRegistrationLocked(Watch & w, WatchedBuffer & b) noexcept
{
  if (b.state == WatchedBuffer::State::Registered)
  {
    const auto start = std::chrono::steady_clock::now();
    UnregisterHostMemory(b.buffer);
    w.statistics.unregisterMilliseconds += MillisecondsSince(start);
    w.statistics.registeredBytes -= b.bytes;
  }
  b.state = WatchedBuffer::State::Counting;
  b.uploads = 0;
}

void
ContainerDeleted(const itk::Object * container) noexcept
{
  Watch &                           w = TheWatch();
  const std::lock_guard<std::mutex> lock(w.mutex);
  const auto                        found = w.watched.find(container);
  if (found != w.watched.end())
  {
    EndRegistrationLocked(w, found->second);
    w.watched.erase(found);
  }
}

void
ContainerModified(const itk::Object * container) noexcept
{
  Watch &                           w = TheWatch();
  const std::lock_guard<std::mutex> lock(w.mutex);
  const auto                        found = w.watched.find(container);
  if (found == w.watched.end())
  {
    return;
  }
  WatchedBuffer & b = found->second;
  void *          buffer = nullptr;
  std::size_t     bytes = 0;
  bool            owned = false;
  b.current(container, buffer, bytes, owned);
  if (buffer != b.buffer || bytes != b.bytes || owned != b.owned)
  {
    EndRegistrationLocked(w, b);
    b.buffer = buffer;
    b.bytes = bytes;
    b.owned = owned;
  }
}
} // namespace

unsigned
GetHostInputUploadsBeforeRegistration()
{
  Watch &                           w = TheWatch();
  const std::lock_guard<std::mutex> lock(w.mutex);
  return UploadsBeforeLocked(w);
}

void
SetHostInputUploadsBeforeRegistration(unsigned uploads)
{
  Watch &                           w = TheWatch();
  const std::lock_guard<std::mutex> lock(w.mutex);
  w.uploadsBefore = uploads;
}

HostInputRegistrationStatistics
GetHostInputRegistrationStatistics()
{
  Watch &                           w = TheWatch();
  const std::lock_guard<std::mutex> lock(w.mutex);
  return w.statistics;
}

void
ReleaseHostInputRegistrations()
{
  Watch &                           w = TheWatch();
  const std::lock_guard<std::mutex> lock(w.mutex);
  for (auto & entry : w.watched)
  {
    EndRegistrationLocked(w, entry.second);
  }
}

namespace detail
{
void
NoteHostInputUpload(const HostInputBuffer & upload)
{
  Watch &                           w = TheWatch();
  const std::lock_guard<std::mutex> lock(w.mutex);
  const unsigned                    uploadsBefore = UploadsBeforeLocked(w);
  if (uploadsBefore == 0 || upload.container == nullptr || upload.buffer == nullptr ||
      upload.bytes < kSmallestRegisteredHostInput || !upload.ownedByContainer)
  {
    return;
  }
  auto found = w.watched.find(upload.container);
  if (found == w.watched.end())
  {
    WatchedBuffer b;
    b.buffer = upload.buffer;
    b.bytes = upload.bytes;
    b.owned = true;
    b.uploads = 1;
    b.current = upload.current;
    w.watched.emplace(upload.container, b);
    // Observers for the container's lifetime (they go with it): the registration
    // must end before its buffer is freed or replaced.
    const itk::Object * container = upload.container;
    container->AddObserver(itk::DeleteEvent(), [container](const itk::EventObject &) { ContainerDeleted(container); });
    container->AddObserver(itk::ModifiedEvent(),
                           [container](const itk::EventObject &) { ContainerModified(container); });
    return;
  }
  WatchedBuffer & b = found->second;
  if (b.buffer != upload.buffer || b.bytes != upload.bytes)
  {
    // Every change of an ImportImageContainer's buffer calls Modified(), which has
    // already ended the registration; this only guards a container that did not.
    EndRegistrationLocked(w, b);
    b.buffer = upload.buffer;
    b.bytes = upload.bytes;
  }
  if (b.state != WatchedBuffer::State::Counting || ++b.uploads <= uploadsBefore)
  {
    return;
  }
  if (IsPageLockedHostMemory(b.buffer))
  {
    b.state = WatchedBuffer::State::Declined; // pinned already (e.g. a GPU filter's pinned output)
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  if (RegisterHostMemory(b.buffer, b.bytes))
  {
    b.state = WatchedBuffer::State::Registered;
    w.statistics.registerMilliseconds += MillisecondsSince(start);
    w.statistics.registeredBytes += b.bytes;
    ++w.statistics.registrations;
  }
  else
  {
    b.state = WatchedBuffer::State::Declined;
  }
}
} // namespace detail
} // namespace cif
