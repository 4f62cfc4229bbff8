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
#ifndef cifDeviceThreads_h
#define cifDeviceThreads_h

#include "cifCudaRuntime.h"
#include "cifWorkerRendezvous.h"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>
#include <thread>
#include <vector>

/** \file cifDeviceThreads.h
 * A job spread over several GPUs: which devices (the filters' NumberOfDevices and
 * Devices settings), and one host thread per device. Plain C++. */
namespace cif
{
/** The devices a job spreads over: \a listed when it is not empty (each a visible
 * device; one may be listed twice, two threads on one GPU), else the first
 * \a numberOfDevices visible ones (0: all of them) that run this build's kernels.
 * Fewer than two: empty, the job stays on the calling thread's device. A listed
 * device that does not exist or cannot run the build's kernels is a CudaError
 * naming it. */
inline std::vector<int>
DevicesToSpreadOver(unsigned int numberOfDevices, const std::vector<int> & listed)
{
  const int visible = GetDeviceCount();
  if (!listed.empty())
  {
    for (const int d : listed)
    {
      if (d < 0 || d >= visible)
      {
        throw CudaError("device " + std::to_string(d) + " is not one of the " + std::to_string(visible) +
                        " visible CUDA devices");
      }
      if (!DeviceRunsThisBuildsKernels(d))
      {
        throw CudaError("device " + std::to_string(d) + " cannot run this build's kernels (built for " +
                        BuiltCudaArchitectures() + ")");
      }
    }
    return listed.size() > 1 ? listed : std::vector<int>{};
  }
  const int        n = numberOfDevices == 0 ? visible : std::min(static_cast<int>(numberOfDevices), visible);
  std::vector<int> devices;
  for (int d = 0; n > 1 && d < n; ++d)
  {
    if (DeviceRunsThisBuildsKernels(d)) // a GPU the build has no kernels for is left out
    {
      devices.push_back(d);
    }
  }
  if (devices.size() < 2)
  {
    devices.clear();
  }
  return devices;
}

/** Runs work(k) for every k in [0, devices.size()) on a host thread of its own, with
 * device devices[k] current; the calling thread only waits, so its own current
 * device and stream stay untouched. A work that throws has its thread's stream
 * drained (copies it queued may read another device's memory) and then calls
 * \a rendezvous off, if given, so that no other thread is left waiting for it; once
 * every thread has ended, the first exception (in k order) is rethrown. */
template <typename TWork>
void
RunOnDeviceThreads(const std::vector<int> & devices, WorkerRendezvous * rendezvous, TWork && work)
{
  std::vector<std::exception_ptr> failures(devices.size());
  std::vector<std::thread>        threads;
  threads.reserve(devices.size());
  const auto joinAll = [&threads] {
    for (auto & t : threads)
    {
      t.join();
    }
  };
  try
  {
    for (std::size_t k = 0; k < devices.size(); ++k)
    {
      threads.emplace_back([&, k] {
        try
        {
          SelectDevice(devices[k]);
          work(static_cast<std::int64_t>(k));
        }
        catch (...)
        {
          failures[k] = std::current_exception();
          try
          {
            Synchronize();
          }
          catch (...)
          {}
          if (rendezvous != nullptr)
          {
            rendezvous->CallOff();
          }
        }
      });
    }
  }
  catch (...) // a thread that could not start: the started ones must not wait for it
  {
    if (rendezvous != nullptr)
    {
      rendezvous->CallOff();
    }
    joinAll();
    throw;
  }
  joinAll();
  for (const auto & failure : failures)
  {
    if (failure)
    {
      std::rethrow_exception(failure);
    }
  }
}
} // namespace cif

#endif
