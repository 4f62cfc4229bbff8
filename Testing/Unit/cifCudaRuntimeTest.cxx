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
// The GPU runtime layer: device query, RAII buffers with counted transfers, errors.
#include "cifDeviceBuffer.h"
#include "cifTestHelpers.h"

#include <numeric>
#include <vector>

namespace
{
TEST(CudaRuntime, AvailabilityIsConsistent)
{
  // Holds on every machine: a usable GPU is a device whose probe launch ran (one the
  // build has no kernels for is present but not usable); the reason is given exactly
  // when there is none.
  if (cif::IsGPUAvailable())
  {
    EXPECT_GT(cif::GetDeviceCount(), 0);
    EXPECT_TRUE(cif::DeviceRunsThisBuildsKernels(cif::GetDeviceInfo().index));
  }
  EXPECT_EQ(cif::GetNoDeviceReason().empty(), cif::IsGPUAvailable());
  EXPECT_EQ(cif::BuiltCudaArchitectures().empty(), !cif::BuiltWithCuda());
  EXPECT_FALSE(cif::DeviceRunsThisBuildsKernels(cif::GetDeviceCount() + 2));
  if (!cif::BuiltWithCuda())
  {
    EXPECT_EQ(cif::GetDeviceCount(), 0);
    EXPECT_THROW(cif::DeviceBuffer(16), cif::CudaError);
  }
  if (!cif::IsGPUAvailable())
  {
    EXPECT_EQ(cif::GetCachedDeviceMemoryBytes(), 0u);
    EXPECT_NO_THROW(cif::ReleaseCachedDeviceMemory());
  }
}

TEST(CudaRuntime, DeviceQuery)
{
  CIF_REQUIRE_GPU();
  const cif::DeviceInfo info = cif::GetDeviceInfo();
  EXPECT_FALSE(info.name.empty());
  EXPECT_GT(info.totalMemoryBytes, 0u);
  EXPECT_GT(info.freeMemoryBytes, 0u);
  EXPECT_LE(info.freeMemoryBytes, info.totalMemoryBytes);
  EXPECT_GE(info.computeMajor, 5);
  EXPECT_THROW(cif::SelectDevice(cif::GetDeviceCount() + 3), cif::CudaError);
}

TEST(CudaRuntime, BufferRoundTripIsCounted)
{
  CIF_REQUIRE_GPU();
  std::vector<std::uint32_t> data(1 << 20);
  std::mt19937               rng(cif_test::FreshSeed());
  for (auto & v : data)
  {
    v = rng();
  }
  cif::TransferCounters::Reset();
  cif::DeviceBuffer buffer(data.size() * 4);
  buffer.Upload(data.data(), data.size() * 4);
  cif::DeviceBuffer moved = std::move(buffer);
  EXPECT_EQ(buffer.Data(), nullptr);
  std::vector<std::uint32_t> back(data.size());
  moved.Download(back.data(), back.size() * 4);
  EXPECT_EQ(back, data);
  const auto counters = cif::TransferCounters::Get();
  EXPECT_EQ(counters.uploads, 1u);
  EXPECT_EQ(counters.downloads, 1u);
  EXPECT_EQ(counters.uploadedBytes, data.size() * 4);
  EXPECT_THROW(moved.Upload(data.data(), data.size() * 4 + 1), cif::CudaError);
}

TEST(CudaRuntime, ImpossibleAllocationNamesTheSizes)
{
  CIF_REQUIRE_GPU();
  const std::size_t tooMuch = cif::GetDeviceInfo().totalMemoryBytes * 2;
  try
  {
    cif::DeviceBuffer buffer(tooMuch);
    FAIL() << "allocated twice the device's memory";
  }
  catch (const cif::CudaOutOfMemory & e)
  {
    EXPECT_NE(std::string(e.what()).find("MiB"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cif::RequireDeviceMemory(tooMuch, "a test"), cif::CudaOutOfMemory);
  // The device still works after the failure.
  cif::DeviceBuffer fine(1024);
  EXPECT_NE(fine.Data(), nullptr);
}

TEST(CudaRuntime, FreedMemoryIsKeptForReuseAndCanBeGivenBack)
{
  CIF_REQUIRE_GPU();
  constexpr std::size_t size = std::size_t(256) << 20;
  constexpr std::size_t slack = std::size_t(16) << 20; // the driver's own bookkeeping
  cif::ReleaseCachedDeviceMemory();
  EXPECT_EQ(cif::GetCachedDeviceMemoryBytes(), 0u);
  const std::size_t freeBefore = cif::GetDeviceInfo().freeMemoryBytes;
  {
    cif::DeviceBuffer first(size);
  }
  cif::Synchronize(); // the free is ordered on the stream
  EXPECT_GE(cif::GetCachedDeviceMemoryBytes(), size);
  const std::size_t freeWhileCached = cif::GetDeviceInfo().freeMemoryBytes;
  EXPECT_LE(freeWhileCached + size, freeBefore + slack) << "the freed memory went back to the driver";

  // The next buffer of the size takes the cached memory, not the driver's.
  cif::DeviceBuffer second(size);
  EXPECT_LT(cif::GetCachedDeviceMemoryBytes(), size);
  EXPECT_GE(cif::GetDeviceInfo().freeMemoryBytes + slack, freeWhileCached);
  std::vector<std::uint32_t> data(size / 4);
  std::mt19937               rng(cif_test::FreshSeed());
  for (auto & v : data)
  {
    v = rng();
  }
  second.Upload(data.data(), size);
  std::vector<std::uint32_t> back(data.size());
  second.Download(back.data(), size);
  EXPECT_EQ(back, data);

  // Cached memory counts as available to the library's jobs...
  second.Release();
  cif::Synchronize();
  const std::size_t driverFree = cif::GetDeviceInfo().freeMemoryBytes;
  EXPECT_NO_THROW(cif::RequireDeviceMemory(driverFree + size / 2, "a job that fits in the cache"));
  // ...and goes back to the driver on request.
  cif::ReleaseCachedDeviceMemory();
  EXPECT_EQ(cif::GetCachedDeviceMemoryBytes(), 0u);
  EXPECT_GE(cif::GetDeviceInfo().freeMemoryBytes + slack, driverFree + size);
}
} // namespace
