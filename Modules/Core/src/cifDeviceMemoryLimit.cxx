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
// The device memory cap: a process-wide value, set by the caller or read once from
// CIF_DEVICE_MEMORY_LIMIT (the Slicer CLI modules have no other way to be told).
#include "cifDeviceMemoryLimit.h"
#include "cifCudaRuntime.h"
#include "cifRuntimeSettings.h"
#include "cifSimulatedOutOfMemory.h"

#include <atomic>
#include <iomanip>
#include <limits>
#include <sstream>

namespace cif
{
namespace
{
constexpr std::size_t    kUnset = std::numeric_limits<std::size_t>::max();
std::atomic<std::size_t> g_Limit{ kUnset };
std::atomic<std::size_t> g_SimulatedCeiling{ 0 };
} // namespace

void
SetDeviceMemoryLimit(std::size_t bytes)
{
  g_Limit = bytes;
}

void
SimulateAllocationFailuresAbove(std::size_t bytes)
{
  g_SimulatedCeiling = bytes;
}

std::size_t
GetSimulatedAllocationCeiling()
{
  return g_SimulatedCeiling;
}

std::size_t
GetDeviceMemoryLimit()
{
  const std::size_t set = g_Limit;
  return set != kUnset ? set : GetRuntimeSettings().deviceMemoryLimit;
}

std::size_t
GetDeviceMemoryBudget(bool onDevice)
{
  const std::size_t limit = GetDeviceMemoryLimit();
  std::size_t       budget = limit != 0 ? limit : std::numeric_limits<std::size_t>::max();
  if (onDevice)
  {
    std::size_t available = GetAvailableDeviceMemory();
    available = available > kDeviceLaunchHeadroomBytes ? available - kDeviceLaunchHeadroomBytes : 0;
    budget = budget < available ? budget : available;
  }
  return budget;
}

std::string
FormatMiB(std::size_t bytes)
{
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << bytes / (1024.0 * 1024.0) << " MiB";
  return s.str();
}
} // namespace cif
