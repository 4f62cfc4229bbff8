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
#include "cifSimulatedOutOfMemory.h"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
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

std::size_t
LimitFromEnvironment()
{
  static const std::size_t fromEnvironment = ByteCountFromEnvironment("CIF_DEVICE_MEMORY_LIMIT", 0);
  return fromEnvironment;
}
} // namespace

std::size_t
ByteCountFromEnvironment(const char * name, std::size_t fallback)
{
  const char * text = std::getenv(name);
  std::size_t  bytes = fallback;
  if (text != nullptr && *text != '\0' && !ParseByteCount(text, bytes))
  {
    std::fprintf(stderr, "CudaImageFilters: %s=\"%s\" is not a byte count; ignored.\n", name, text);
    bytes = fallback;
  }
  return bytes;
}

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
  return set != kUnset ? set : LimitFromEnvironment();
}

bool
ParseByteCount(const std::string & text, std::size_t & bytes)
{
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
  {
    ++i;
  }
  const std::size_t digits = i;
  long double       value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
  {
    value = value * 10 + (text[i] - '0');
    ++i;
  }
  if (i < text.size() && text[i] == '.')
  {
    long double scale = 0.1L;
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i, scale /= 10)
    {
      value += scale * (text[i] - '0');
    }
  }
  if (i == digits)
  {
    return false;
  }
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
  {
    ++i;
  }
  std::string unit;
  for (; i < text.size(); ++i)
  {
    if (!std::isspace(static_cast<unsigned char>(text[i])))
    {
      unit += static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
    }
  }
  long double factor = 1;
  if (unit.empty() || unit == "B")
  {
  }
  else if (unit == "K" || unit == "KB" || unit == "KIB")
  {
    factor = 1024.0L;
  }
  else if (unit == "M" || unit == "MB" || unit == "MIB")
  {
    factor = 1024.0L * 1024;
  }
  else if (unit == "G" || unit == "GB" || unit == "GIB")
  {
    factor = 1024.0L * 1024 * 1024;
  }
  else if (unit == "T" || unit == "TB" || unit == "TIB")
  {
    factor = 1024.0L * 1024 * 1024 * 1024;
  }
  else
  {
    return false;
  }
  const long double result = value * factor;
  if (result >= static_cast<long double>(std::numeric_limits<std::size_t>::max()))
  {
    return false;
  }
  bytes = static_cast<std::size_t>(result);
  return true;
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
