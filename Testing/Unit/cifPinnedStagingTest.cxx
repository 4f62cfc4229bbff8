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
// Host <-> device copies through the pinned staging rings (cifPinnedStaging.h):
// every byte arrives whatever the size, alignment, chunk size and thread count; the
// copies are ordered after the calling thread's queued device work; several host
// threads copy at once, more of them than there are rings; the counters still count
// one transfer per call; the pinned memory can be given back.
#include "cifDeviceBuffer.h"
#include "cifPinnedStaging.h"
#include "cifTestHelpers.h"

#include <thread>
#include <vector>

namespace
{
using cif_test::ScopedStagingSettings;

std::vector<unsigned char>
RandomBytes(std::size_t count, std::uint32_t seed)
{
  std::vector<unsigned char> bytes(count);
  std::mt19937               rng(seed);
  for (auto & b : bytes)
  {
    b = static_cast<unsigned char>(rng());
  }
  return bytes;
}

/** Uploads \a bytes from \a offset into a buffer and downloads them to another
 * offset: the same bytes, and nothing written beyond them. */
void
ExpectRoundTrip(std::size_t bytes, std::size_t offset, std::uint32_t seed)
{
  SCOPED_TRACE(testing::Message() << bytes << " bytes at host offset " << offset << ", seed " << seed);
  const std::vector<unsigned char> data = RandomBytes(bytes + offset, seed);
  cif::DeviceBuffer                buffer(bytes);
  buffer.Upload(data.data() + offset, bytes);
  std::vector<unsigned char> back(bytes + 2 * offset + 1, 0xA5);
  buffer.Download(back.data() + 2 * offset + 1, bytes);
  EXPECT_TRUE(std::equal(data.begin() + offset, data.end(), back.begin() + 2 * offset + 1));
  EXPECT_TRUE(std::all_of(back.begin(), back.begin() + 2 * offset + 1, [](unsigned char b) { return b == 0xA5; }));
}

TEST(PinnedStaging, SettingsAreKeptAndClamped)
{
  // No device needed: settings live on the host.
  cif::PinnedStagingSettings wanted;
  wanted.chunkBytes = 1; // below the smallest chunk: raised
  wanted.threads = 3;
  wanted.chunksPerThread = 0; // at least one
  wanted.rings = 2;
  wanted.directBelowBytes = 12345;
  const ScopedStagingSettings      scoped(wanted);
  const cif::PinnedStagingSettings got = cif::GetPinnedStagingSettings();
  if (!cif::BuiltWithCuda())
  {
    EXPECT_EQ(cif::GetPinnedStagingBytes(), 0u);
    return;
  }
  EXPECT_EQ(got.chunkBytes, std::size_t(64) << 10);
  EXPECT_EQ(got.threads, 3);
  EXPECT_EQ(got.chunksPerThread, 1);
  EXPECT_EQ(got.rings, 2);
  EXPECT_EQ(got.directBelowBytes, 12345u);
}

TEST(PinnedStaging, EveryByteArrivesForAnySizeAndSettings)
{
  CIF_REQUIRE_GPU();
  const std::uint32_t seed = cif_test::FreshSeed();
  for (const int threads : { 1, 2, 4, 7 })
  {
    for (const std::size_t chunk : { std::size_t(64) << 10, std::size_t(1) << 20, std::size_t(3) << 20 })
    {
      cif::PinnedStagingSettings settings = cif::GetPinnedStagingSettings();
      settings.threads = threads;
      settings.chunkBytes = chunk;
      settings.directBelowBytes = 256 << 10;
      const ScopedStagingSettings scoped(settings);
      SCOPED_TRACE(testing::Message() << threads << " threads, chunks of " << chunk << " bytes");
      for (const std::size_t bytes : { std::size_t(100),
                                       (std::size_t(256) << 10) - 1,
                                       chunk,
                                       chunk + 1,
                                       3 * chunk - 5,
                                       7 * chunk + 3 * threads + 1 })
      {
        ExpectRoundTrip(bytes, 0, seed);
        ExpectRoundTrip(bytes, 3, seed + 1); // host buffers not aligned
      }
    }
  }
}

TEST(PinnedStaging, CountsOneTransferPerCallAndGivesTheMemoryBack)
{
  CIF_REQUIRE_GPU();
  const std::size_t                bytes = std::size_t(9) << 20; // staged with the defaults
  const std::vector<unsigned char> data = RandomBytes(bytes, cif_test::FreshSeed());
  cif::DeviceBuffer                buffer(bytes);
  cif::TransferCounters::Reset();
  buffer.Upload(data.data(), bytes);
  std::vector<unsigned char> back(bytes);
  buffer.Download(back.data(), bytes);
  EXPECT_EQ(back, data);
  const auto counters = cif::TransferCounters::Get();
  EXPECT_EQ(counters.uploads, 1u);
  EXPECT_EQ(counters.downloads, 1u);
  EXPECT_EQ(counters.uploadedBytes, bytes);
  EXPECT_EQ(counters.downloadedBytes, bytes);
  EXPECT_GT(cif::GetPinnedStagingBytes(), 0u);
  cif::ReleasePinnedStagingMemory();
  EXPECT_EQ(cif::GetPinnedStagingBytes(), 0u);
  buffer.Download(back.data(), bytes); // a ring is made again
  EXPECT_EQ(back, data);
}

/** A download right after device work queued by the same thread (no Synchronize in
 * between) sees that work's result; an upload right after queued work reading its
 * destination does not overtake it. */
TEST(PinnedStaging, CopiesAreOrderedAfterTheThreadsQueuedWork)
{
  CIF_REQUIRE_GPU();
  const std::size_t                bytes = std::size_t(64) << 20;
  const std::uint32_t              seed = cif_test::FreshSeed();
  const std::vector<unsigned char> first = RandomBytes(bytes, seed), second = RandomBytes(bytes, seed + 1);
  cif::DeviceBuffer                a(bytes), b(bytes);
  a.Upload(first.data(), bytes);
  cif::CopyDeviceToDevice(b.Data(), a.Data(), bytes); // queued, not waited for
  a.Upload(second.data(), bytes);                     // must not overtake the read of a
  std::vector<unsigned char> back(bytes);
  b.Download(back.data(), bytes);
  EXPECT_TRUE(back == first) << "the upload overtook the device copy reading its destination";
  cif::CopyDeviceToDevice(b.Data(), a.Data(), bytes);
  b.Download(back.data(), bytes); // must wait for the device copy writing its source
  EXPECT_TRUE(back == second) << "the download did not wait for the device copy writing its source";
}

/** More host threads than rings copying at once: every copy complete and right. */
TEST(PinnedStaging, ManyThreadsCopyAtOnce)
{
  CIF_REQUIRE_GPU();
  cif::PinnedStagingSettings settings = cif::GetPinnedStagingSettings();
  settings.rings = 2;
  const ScopedStagingSettings scoped(settings);
  const std::uint32_t         seed = cif_test::FreshSeed();
  constexpr int               threads = 8;
  std::vector<int>            wrong(threads, -1);
  std::vector<std::string>    errors(threads);
  std::vector<std::thread>    pool;
  for (int t = 0; t < threads; ++t)
  {
    pool.emplace_back([&, t] {
      try
      {
        int bad = 0;
        for (int round = 0; round < 4; ++round)
        {
          const std::size_t bytes = (std::size_t(5 + t) << 20) + 17 * round + t;
          const auto        data = RandomBytes(bytes, seed + 97 * t + round);
          cif::DeviceBuffer buffer(bytes);
          buffer.Upload(data.data(), bytes);
          std::vector<unsigned char> back(bytes);
          buffer.Download(back.data(), bytes);
          bad += back != data;
        }
        wrong[t] = bad;
      }
      catch (const std::exception & e)
      {
        errors[t] = e.what();
      }
    });
  }
  for (auto & thread : pool)
  {
    thread.join();
  }
  for (int t = 0; t < threads; ++t)
  {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    EXPECT_EQ(wrong[t], 0) << "thread " << t << ", seed " << seed;
  }
}
} // namespace
