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
#include "cifITKPoolParking.h"

#include "itkThreadPool.h"

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace cif
{
namespace
{
void
ParkPoolThreads()
{
  struct Parking
  {
    std::mutex              mutex;
    std::condition_variable arrived, released;
    unsigned int            parked = 0;
  };
  // Never deleted: the parked threads wait on it until the process ends.
  auto * const parking = new Parking;
  // A reference that is never given back, so that the pool is never destroyed: where
  // ITK's clean-up holds the last reference, ~ThreadPool would join the parked
  // threads and the exit would hang.
  const itk::ThreadPool::Pointer & pool = *new itk::ThreadPool::Pointer(itk::ThreadPool::GetInstance());
  const unsigned int               threads = pool->GetMaximumNumberOfThreads();
  for (unsigned int t = 0; t < threads; ++t)
  {
    // The future is dropped: a packaged task's future does not wait when destroyed.
    pool->AddWork([parking] {
      std::unique_lock<std::mutex> lock(parking->mutex);
      ++parking->parked;
      parking->arrived.notify_all();
      parking->released.wait(lock, [] { return false; });
    });
  }
  std::unique_lock<std::mutex> lock(parking->mutex);
  parking->arrived.wait_for(lock, std::chrono::seconds(1), [&] { return parking->parked >= threads; });
}
} // namespace

void
ParkITKPoolThreadsForExit() noexcept
{
  try
  {
    ParkPoolThreads();
  }
  catch (...)
  {
    // no memory for the tasks: the exit goes on unparked, as it would without this
  }
}
} // namespace cif
