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
// The runtime settings (cifRuntimeSettings.h): the defaults where no variable is set,
// each variable's accepted values and clamps, and a malformed value reported on
// stderr and replaced by its default; the byte counts' syntax.
#include "cifRuntimeSettings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <thread>

namespace
{
using Environment = std::map<std::string, std::string>;

/** The settings \a environment gives, and what was printed on stderr meanwhile. */
cif::RuntimeSettings
Read(const Environment & environment, std::string * printed = nullptr)
{
  testing::internal::CaptureStderr();
  const cif::RuntimeSettings s = cif::ReadRuntimeSettings([&](const char * name) -> const char * {
    const auto found = environment.find(name);
    return found != environment.end() ? found->second.c_str() : nullptr;
  });
  const std::string          text = testing::internal::GetCapturedStderr();
  if (printed)
  {
    *printed = text;
  }
  return s;
}

constexpr std::size_t kKiB = 1024, kMiB = kKiB << 10, kGiB = kMiB << 10;

TEST(RuntimeSettings, DefaultsWhereNothingIsSet)
{
  std::string                printed;
  const cif::RuntimeSettings s = Read({}, &printed);
  EXPECT_EQ(printed, "");
  EXPECT_EQ(s.stagingChunkBytes, 2048 * kKiB);
  const int threeQuarters = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()) * 3 / 4);
  EXPECT_EQ(s.stagingThreads, std::min(12, threeQuarters));
  EXPECT_EQ(s.stagingRings, 4);
  EXPECT_EQ(s.stagingDirectBelowBytes, 1024 * kKiB);
  EXPECT_GT(s.pinnedHostLimit, 0u);
  EXPECT_LE(s.pinnedHostLimit, 16 * kGiB);
  EXPECT_EQ(s.pinnedOutputMinimumBytes, 16 * kMiB);
  EXPECT_EQ(s.registerInputsAfter, 8u);
  EXPECT_EQ(s.deviceMemoryLimit, 0u);
  EXPECT_EQ(s.prefilterMaxLanes, 32);
  // An empty value is an unset one.
  EXPECT_EQ(Read({ { "CIF_DEVICE_MEMORY_LIMIT", "" }, { "CIF_STAGING_RINGS", "" } }).stagingRings, 4);
}

TEST(RuntimeSettings, EachVariableAndItsClamps)
{
  std::string                printed;
  const cif::RuntimeSettings s = Read({ { "CIF_STAGING_CHUNK_KIB", "4096" },
                                        { "CIF_STAGING_THREADS", "0" },
                                        { "CIF_STAGING_RINGS", "2" },
                                        { "CIF_STAGING_DIRECT_BELOW_KIB", " 512 " },
                                        { "CIF_PINNED_HOST_LIMIT", "4G" },
                                        { "CIF_PINNED_OUTPUT_MIN", "64 MiB" },
                                        { "CIF_REGISTER_INPUTS_AFTER", "0" },
                                        { "CIF_DEVICE_MEMORY_LIMIT", "1.5g" },
                                        { "CIF_PREFILTER_MAX_LANES", "16" } },
                                      &printed);
  EXPECT_EQ(printed, "");
  EXPECT_EQ(s.stagingChunkBytes, 4096 * kKiB);
  EXPECT_EQ(s.stagingThreads, 0);
  EXPECT_EQ(s.stagingRings, 2);
  EXPECT_EQ(s.stagingDirectBelowBytes, 512 * kKiB);
  EXPECT_EQ(s.pinnedHostLimit, 4 * kGiB);
  EXPECT_EQ(s.pinnedOutputMinimumBytes, 64 * kMiB);
  EXPECT_EQ(s.registerInputsAfter, 0u);
  EXPECT_EQ(s.deviceMemoryLimit, 3 * kGiB / 2);
  EXPECT_EQ(s.prefilterMaxLanes, 16);

  const cif::RuntimeSettings clamped = Read({ { "CIF_STAGING_CHUNK_KIB", "1" },
                                              { "CIF_STAGING_THREADS", "-3" },
                                              { "CIF_STAGING_RINGS", "0" },
                                              { "CIF_STAGING_DIRECT_BELOW_KIB", "-1" },
                                              { "CIF_PREFILTER_MAX_LANES", "64" } });
  EXPECT_EQ(clamped.stagingChunkBytes, 64 * kKiB);
  EXPECT_EQ(clamped.stagingThreads, 0);
  EXPECT_EQ(clamped.stagingRings, 1);
  EXPECT_EQ(clamped.stagingDirectBelowBytes, 0u);
  EXPECT_EQ(clamped.prefilterMaxLanes, 32);
  EXPECT_EQ(Read({ { "CIF_PREFILTER_MAX_LANES", "20" } }).prefilterMaxLanes, 16);
  EXPECT_EQ(Read({ { "CIF_PREFILTER_MAX_LANES", "8" } }).prefilterMaxLanes, 8);
  EXPECT_EQ(Read({ { "CIF_PREFILTER_MAX_LANES", "1" } }).prefilterMaxLanes, 8);
}

TEST(RuntimeSettings, MalformedValuesAreReportedAndTheDefaultsKept)
{
  std::string                printed;
  const cif::RuntimeSettings s = Read({ { "CIF_STAGING_THREADS", "many" },
                                        { "CIF_STAGING_CHUNK_KIB", "2M" },
                                        { "CIF_PINNED_HOST_LIMIT", "4 GB of it" },
                                        { "CIF_REGISTER_INPUTS_AFTER", "-1" },
                                        { "CIF_DEVICE_MEMORY_LIMIT", "16X" },
                                        { "CIF_PREFILTER_MAX_LANES", "wide" } },
                                      &printed);
  const cif::RuntimeSettings defaults = Read({});
  EXPECT_EQ(s.stagingThreads, defaults.stagingThreads);
  EXPECT_EQ(s.stagingChunkBytes, defaults.stagingChunkBytes);
  EXPECT_EQ(s.pinnedHostLimit, defaults.pinnedHostLimit);
  EXPECT_EQ(s.registerInputsAfter, 8u);
  EXPECT_EQ(s.deviceMemoryLimit, 0u);
  EXPECT_EQ(s.prefilterMaxLanes, 32);
  EXPECT_EQ(std::count(printed.begin(), printed.end(), '\n'), 6) << printed;
  EXPECT_NE(printed.find("CIF_DEVICE_MEMORY_LIMIT=\"16X\" is not a byte count; ignored."), std::string::npos)
    << printed;
  EXPECT_NE(printed.find("CIF_STAGING_THREADS=\"many\" is not an integer; ignored."), std::string::npos) << printed;
  EXPECT_NE(printed.find("CIF_REGISTER_INPUTS_AFTER=\"-1\""), std::string::npos) << printed;
}

TEST(RuntimeSettings, ByteCounts)
{
  std::size_t bytes = 7;
  EXPECT_TRUE(cif::ParseByteCount("4194304", bytes));
  EXPECT_EQ(bytes, 4194304u);
  EXPECT_TRUE(cif::ParseByteCount("512M", bytes));
  EXPECT_EQ(bytes, 512 * kMiB);
  EXPECT_TRUE(cif::ParseByteCount(" 16 GiB ", bytes));
  EXPECT_EQ(bytes, 16 * kGiB);
  EXPECT_TRUE(cif::ParseByteCount("2kb", bytes));
  EXPECT_EQ(bytes, 2 * kKiB);
  EXPECT_TRUE(cif::ParseByteCount("1T", bytes));
  EXPECT_EQ(bytes, kGiB << 10);
  EXPECT_TRUE(cif::ParseByteCount("0", bytes));
  EXPECT_EQ(bytes, 0u);
  bytes = 7;
  for (const char * bad : { "", "G", "12 apples", "-1", "1e9", "99999999999 TiB" })
  {
    EXPECT_FALSE(cif::ParseByteCount(bad, bytes)) << bad;
    EXPECT_EQ(bytes, 7u) << bad;
  }
}

TEST(RuntimeSettings, ReadOnceForTheProcess) { EXPECT_EQ(&cif::GetRuntimeSettings(), &cif::GetRuntimeSettings()); }
} // namespace
