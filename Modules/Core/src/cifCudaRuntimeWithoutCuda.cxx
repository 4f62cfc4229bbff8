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
// The GPU runtime layer of a build without the CUDA toolkit: the same functions,
// reporting that no device exists, so that every filter takes its CPU path.
#include "cifDeviceBuffer.h"
#include "cifDeviceMemoryPool.h"
#include "cifDeviceRowCopy.h"
#include "cifPinnedHostMemory.h"
#include "cifPinnedStaging.h"

#include <cstdio>

namespace cif
{
namespace
{
const char * const kNoCuda = "CudaImageFilters was built without the CUDA toolkit";

[[noreturn]] void
ThrowNoCuda()
{
  throw CudaError(kNoCuda);
}
} // namespace

bool
BuiltWithCuda()
{
  return false;
}
int
GetDeviceCount()
{
  return 0;
}
std::string
GetNoDeviceReason()
{
  return kNoCuda;
}
bool
IsGPUAvailable()
{
  static const bool once = [] {
    std::fprintf(stderr, "CudaImageFilters: %s; using the CPU path.\n", kNoCuda);
    return false;
  }();
  return once;
}
bool
DeviceRunsThisBuildsKernels(int)
{
  return false;
}
std::string
BuiltCudaArchitectures()
{
  return "";
}
DeviceInfo
GetDeviceInfo(int)
{
  ThrowNoCuda();
}
void
SelectDevice(int)
{
  ThrowNoCuda();
}
void
Synchronize()
{}
std::size_t
GetAvailableDeviceMemory()
{
  ThrowNoCuda();
}
void
RequireDeviceMemory(std::size_t, const std::string &)
{
  ThrowNoCuda();
}

std::size_t
GetCachedDeviceMemoryBytes()
{
  return 0;
}
void
ReleaseCachedDeviceMemory()
{}

namespace detail
{
// Without CUDA there is no second device to read from.
bool
LetDeviceReadPool(int, int)
{
  return false;
}
} // namespace detail

PinnedStagingSettings
GetPinnedStagingSettings()
{
  return {};
}
void
SetPinnedStagingSettings(const PinnedStagingSettings &)
{}
std::size_t
GetPinnedStagingBytes()
{
  return 0;
}
void
ReleasePinnedStagingMemory()
{}

TransferCounters
TransferCounters::Get()
{
  return {};
}
void
TransferCounters::Reset()
{}

DeviceBuffer::~DeviceBuffer() = default;
DeviceBuffer::DeviceBuffer(DeviceBuffer &&) noexcept = default;
DeviceBuffer &
DeviceBuffer::operator=(DeviceBuffer &&) noexcept = default;
void
DeviceBuffer::Allocate(std::size_t)
{
  ThrowNoCuda();
}
void
DeviceBuffer::Release() noexcept
{}
void
DeviceBuffer::Upload(const void *, std::size_t)
{
  ThrowNoCuda();
}
void
DeviceBuffer::Download(void *, std::size_t) const
{
  ThrowNoCuda();
}
void
CopyHostToDevice(void *, const void *, std::size_t)
{
  ThrowNoCuda();
}
void
CopyDeviceToDevice(void *, const void *, std::size_t)
{
  ThrowNoCuda();
}
void
CopyBetweenDevices(void *, int, const void *, int, std::size_t)
{
  ThrowNoCuda();
}
void
CopyRowsBetweenDevices(void *, int, std::size_t, const void *, int, std::size_t, std::size_t, std::size_t)
{
  ThrowNoCuda();
}
OverlappedDownload::OverlappedDownload(void *, const void *, std::size_t) { ThrowNoCuda(); }
OverlappedDownload::~OverlappedDownload() = default;
void
OverlappedDownload::Ready(std::size_t)
{}
void
OverlappedDownload::Finish()
{}
DeviceTimer::DeviceTimer() { ThrowNoCuda(); }
DeviceTimer::~DeviceTimer() = default;
void
DeviceTimer::Start()
{}
double
DeviceTimer::StopMilliseconds()
{
  return 0.0;
}
namespace detail
{
void *
AllocatePageLocked(std::size_t) noexcept
{
  return nullptr;
}
void
FreePageLocked(void *) noexcept
{}
bool
RegisterPageLocked(void *, std::size_t) noexcept
{
  return false;
}
void
UnregisterPageLocked(void *) noexcept
{}
bool
IsPageLocked(const void *) noexcept
{
  return false;
}
} // namespace detail
} // namespace cif
