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
// HostTransferBenchmark's bus floor (cifBusFloor.h): cudaMemcpy from and to pinned
// and pageable host memory, with nothing of the library in between.
#include "cifBusFloor.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace cif_bench
{
namespace
{
bool
Check(cudaError_t status, const char * what)
{
  if (status != cudaSuccess)
  {
    std::fprintf(stderr, "cifBusFloor: %s: %s\n", what, cudaGetErrorString(status));
    return false;
  }
  return true;
}

template <typename F>
double
MedianWallMs(int repeat, F && f)
{
  std::vector<double> t;
  f(); // warm-up
  for (int r = 0; r < repeat; ++r)
  {
    const auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
}
} // namespace

BusTimes
MeasureBus(std::size_t bytes, int repeat)
{
  BusTimes times;
  void *   device = nullptr;
  void *   pinned = nullptr;
  if (!Check(cudaMalloc(&device, bytes), "cudaMalloc") || !Check(cudaMallocHost(&pinned, bytes), "cudaMallocHost"))
  {
    cudaFree(device);
    return times;
  }
  std::vector<unsigned char> pageable(bytes, 1); // touched: resident pages
  std::memset(pinned, 2, bytes);
  bool       ok = true;
  const auto copy = [&](void * to, const void * from, cudaMemcpyKind kind) {
    ok = Check(cudaMemcpy(to, from, bytes, kind), "cudaMemcpy") && ok;
  };
  times.pinnedUpMs = MedianWallMs(repeat, [&] { copy(device, pinned, cudaMemcpyHostToDevice); });
  times.pinnedDownMs = MedianWallMs(repeat, [&] { copy(pinned, device, cudaMemcpyDeviceToHost); });
  times.pageableUpMs = MedianWallMs(repeat, [&] { copy(device, pageable.data(), cudaMemcpyHostToDevice); });
  times.pageableDownMs = MedianWallMs(repeat, [&] { copy(pageable.data(), device, cudaMemcpyDeviceToHost); });
  pageable = {};
  // new[] of unsigned char leaves the pages untouched, as in an image buffer ITK has
  // just allocated for a filter's output (its first Update). Allocation and release
  // are not timed.
  std::vector<double> fresh;
  for (int r = 0; r < repeat; ++r)
  {
    const std::unique_ptr<unsigned char[]> buffer(new unsigned char[bytes]);
    const auto                             start = std::chrono::steady_clock::now();
    copy(buffer.get(), device, cudaMemcpyDeviceToHost);
    fresh.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(fresh.begin(), fresh.end());
  times.pageableDownFreshMs = fresh[fresh.size() / 2];
  cudaFreeHost(pinned);
  cudaFree(device);
  if (!ok)
  {
    return BusTimes{};
  }
  return times;
}

BusTimes
MeasureBusOnDevices(std::size_t bytes, int devices, int repeat)
{
  BusTimes times;
  int      visible = 0;
  if (devices < 1 || cudaGetDeviceCount(&visible) != cudaSuccess || visible < devices)
  {
    return times;
  }
  std::vector<void *> device(devices, nullptr), pinned(devices, nullptr);
  bool                ok = true;
  for (int d = 0; d < devices && ok; ++d)
  {
    ok = Check(cudaSetDevice(d), "cudaSetDevice") && Check(cudaMalloc(&device[d], bytes), "cudaMalloc") &&
         Check(cudaMallocHost(&pinned[d], bytes), "cudaMallocHost");
    if (ok)
    {
      std::memset(pinned[d], 2, bytes);
    }
  }
  // every device's copy at once, a thread each (the copies block their thread)
  const auto together = [&](bool up) {
    std::vector<std::thread> threads;
    std::vector<char>        fine(devices, 1);
    for (int d = 0; d < devices; ++d)
    {
      threads.emplace_back([&, d] {
        fine[d] = cudaSetDevice(d) == cudaSuccess &&
                  cudaMemcpy(up ? device[d] : pinned[d],
                             up ? pinned[d] : device[d],
                             bytes,
                             up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost) == cudaSuccess;
      });
    }
    for (auto & t : threads)
    {
      t.join();
    }
    ok = ok && std::all_of(fine.begin(), fine.end(), [](char f) { return f != 0; });
  };
  if (ok)
  {
    times.pinnedUpMs = MedianWallMs(repeat, [&] { together(true); });
    times.pinnedDownMs = MedianWallMs(repeat, [&] { together(false); });
  }
  for (int d = 0; d < devices; ++d)
  {
    cudaSetDevice(d);
    cudaFree(device[d]);
    cudaFreeHost(pinned[d]);
  }
  cudaSetDevice(0);
  return ok ? times : BusTimes{};
}
} // namespace cif_bench
