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
// cif::WorkerRendezvous, the barrier of the one-thread-per-device jobs: no thread
// passes a round before every thread has reached it, rounds can be reused, and a
// thread that fails calls it off, so that the others stop waiting (no hang).
#include "cifWorkerRendezvous.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

TEST(WorkerRendezvous, NoThreadPassesARoundBeforeAllReachIt)
{
  constexpr int            threads = 4, rounds = 200;
  cif::WorkerRendezvous    rendezvous(threads);
  std::atomic<int>         arrivals{ 0 };
  std::atomic<bool>        early{ false };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
  {
    pool.emplace_back([&] {
      for (int r = 0; r < rounds; ++r)
      {
        ++arrivals;
        if (!rendezvous.ArriveAndWait())
        {
          early = true;
          return;
        }
        // Everyone has arrived at round r: at least (r + 1) * threads arrivals.
        if (arrivals.load() < (r + 1) * threads)
        {
          early = true;
        }
        rendezvous.ArriveAndWait(); // nobody counts round r + 1 before all checked round r
      }
    });
  }
  for (auto & t : pool)
  {
    t.join();
  }
  EXPECT_FALSE(early.load());
  EXPECT_EQ(arrivals.load(), threads * rounds);
}

TEST(WorkerRendezvous, CallingItOffReleasesTheWaitingAndTheLate)
{
  cif::WorkerRendezvous    rendezvous(3);
  std::atomic<int>         released{ 0 }, passed{ 0 };
  std::vector<std::thread> waiting;
  for (int t = 0; t < 2; ++t)
  {
    waiting.emplace_back([&] {
      if (rendezvous.ArriveAndWait())
      {
        ++passed;
      }
      ++released;
    });
  }
  // The third participant fails instead of arriving.
  rendezvous.CallOff();
  for (auto & t : waiting)
  {
    t.join();
  }
  EXPECT_EQ(released.load(), 2);
  EXPECT_EQ(passed.load(), 0);
  EXPECT_FALSE(rendezvous.ArriveAndWait()); // a late arrival does not wait either
}
