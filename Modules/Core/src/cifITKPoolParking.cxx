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
  const unsigned int threads = pool->GetMaximumNumberOfThreads();
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
