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
// The one reader of the library's CIF_* environment variables (cifRuntimeSettings.h).
#include "cifRuntimeSettings.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <thread>

#include <unistd.h>

namespace cif
{
namespace
{
/** A quarter of physical memory, at most 16 GiB: pinned memory cannot be swapped out. */
std::size_t
DefaultPinnedHostLimit()
{
  const long        pages = sysconf(_SC_PHYS_PAGES);
  const long        pageSize = sysconf(_SC_PAGESIZE);
  const std::size_t physical =
    pages > 0 && pageSize > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(pageSize) : 0;
  return std::min<std::size_t>(physical / 4, std::size_t(16) << 30);
}

/** \a text as a whole decimal integer (spaces around it allowed); false otherwise. */
bool
ParseInteger(const char * text, long long & value)
{
  char * end = nullptr;
  errno = 0;
  const long long parsed = std::strtoll(text, &end, 10);
  if (end == text || errno == ERANGE)
  {
    return false;
  }
  while (std::isspace(static_cast<unsigned char>(*end)))
  {
    ++end;
  }
  if (*end != '\0')
  {
    return false;
  }
  value = parsed;
  return true;
}

/** Reads the variables through one lookup and reports what does not parse. */
class Reader
{
public:
  explicit Reader(const std::function<const char *(const char *)> & lookup)
    : m_Lookup(lookup)
  {}

  /** The byte count in \a name (ParseByteCount), else \a fallback. */
  std::size_t
  Bytes(const char * name, std::size_t fallback) const
  {
    const char * text = Text(name);
    std::size_t  bytes = fallback;
    if (text != nullptr && !ParseByteCount(text, bytes))
    {
      Ignored(name, text, "a byte count");
      bytes = fallback;
    }
    return bytes;
  }

  /** The integer in \a name, within [lowest, highest] (clamped), else \a fallback. */
  long long
  Integer(const char * name, long long fallback, long long lowest, long long highest) const
  {
    const char * text = Text(name);
    long long    value = fallback;
    if (text != nullptr && !ParseInteger(text, value))
    {
      Ignored(name, text, "an integer");
      value = fallback;
    }
    return std::clamp(value, lowest, highest);
  }

  /** The whole number in \a name (0 or more), else \a fallback. */
  unsigned
  Count(const char * name, unsigned fallback) const
  {
    const char * text = Text(name);
    long long    value = fallback;
    if (text != nullptr && (!ParseInteger(text, value) || value < 0 || value > UINT_MAX))
    {
      Ignored(name, text, "a count (0 or more)");
      value = fallback;
    }
    return static_cast<unsigned>(value);
  }

private:
  /** The value of \a name; nullptr where it is unset or empty. */
  const char *
  Text(const char * name) const
  {
    const char * text = m_Lookup(name);
    return text != nullptr && *text != '\0' ? text : nullptr;
  }

  static void
  Ignored(const char * name, const char * text, const char * expected)
  {
    std::fprintf(stderr, "CudaImageFilters: %s=\"%s\" is not %s; ignored.\n", name, text, expected);
  }

  const std::function<const char *(const char *)> & m_Lookup;
};
} // namespace

RuntimeSettings
ReadRuntimeSettings(const std::function<const char *(const char *)> & lookup)
{
  const Reader read(lookup);
  // The struct's initializers are the defaults (one place for them); the staging ones
  // come from HostTransferBenchmark --sweep (cifPinnedStaging.cu says why).
  const RuntimeSettings defaults;
  RuntimeSettings       s;
  const int threeQuartersOfTheCores = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()) * 3 / 4);
  constexpr long long kMostKiB = static_cast<long long>(std::numeric_limits<std::size_t>::max() >> 11);
  const auto          KiB = [](std::size_t bytes) { return static_cast<long long>(bytes >> 10); };
  s.stagingChunkBytes =
    static_cast<std::size_t>(read.Integer("CIF_STAGING_CHUNK_KIB", KiB(defaults.stagingChunkBytes), 64, kMostKiB))
    << 10;
  s.stagingThreads =
    static_cast<int>(read.Integer("CIF_STAGING_THREADS", std::min(12, threeQuartersOfTheCores), 0, INT_MAX));
  s.stagingRings = static_cast<int>(read.Integer("CIF_STAGING_RINGS", defaults.stagingRings, 1, INT_MAX));
  s.stagingDirectBelowBytes = static_cast<std::size_t>(read.Integer(
                                "CIF_STAGING_DIRECT_BELOW_KIB", KiB(defaults.stagingDirectBelowBytes), 0, kMostKiB))
                              << 10;
  s.pinnedHostLimit = read.Bytes("CIF_PINNED_HOST_LIMIT", DefaultPinnedHostLimit());
  s.pinnedOutputMinimumBytes = read.Bytes("CIF_PINNED_OUTPUT_MIN", defaults.pinnedOutputMinimumBytes);
  s.registerInputsAfter = read.Count("CIF_REGISTER_INPUTS_AFTER", defaults.registerInputsAfter);
  s.deviceMemoryLimit = read.Bytes("CIF_DEVICE_MEMORY_LIMIT", defaults.deviceMemoryLimit);
  const long long lanes = read.Integer("CIF_PREFILTER_MAX_LANES", defaults.prefilterMaxLanes, LLONG_MIN, LLONG_MAX);
  s.prefilterMaxLanes = lanes >= 32 ? 32 : lanes >= 16 ? 16 : 8;
  return s;
}

const RuntimeSettings &
GetRuntimeSettings()
{
  static const RuntimeSettings settings = ReadRuntimeSettings([](const char * name) { return std::getenv(name); });
  return settings;
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
} // namespace cif
