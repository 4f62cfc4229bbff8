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
#ifndef cifWorkerRendezvous_h
#define cifWorkerRendezvous_h

#include <condition_variable>
#include <cstdint>
#include <mutex>

/** \file cifWorkerRendezvous.h
 * A reusable barrier for the host threads of one job (one thread per device) that
 * a failing thread can call off: the others then stop waiting instead of waiting
 * for a thread that will never arrive. (std::barrier is C++20 and cannot be called
 * off.) */
namespace cif
{
class WorkerRendezvous
{
public:
  explicit WorkerRendezvous(int participants)
    : m_Participants(participants)
  {}

  /** Waits until every participant has arrived at this round, or the rendezvous is
   * called off. Returns false when it was called off (before or while waiting): the
   * caller must not go on with work that depends on the others. */
  bool
  ArriveAndWait()
  {
    std::unique_lock<std::mutex> lock(m_Mutex);
    if (m_CalledOff)
    {
      return false;
    }
    const std::uint64_t round = m_Round;
    if (++m_Arrived == m_Participants)
    {
      m_Arrived = 0;
      ++m_Round;
      m_Changed.notify_all();
      return true;
    }
    m_Changed.wait(lock, [&] { return m_Round != round || m_CalledOff; });
    return m_Round != round;
  }

  /** A participant that failed: every wait now returns false (it is not undone). */
  void
  CallOff()
  {
    {
      const std::lock_guard<std::mutex> lock(m_Mutex);
      m_CalledOff = true;
    }
    m_Changed.notify_all();
  }

private:
  const int               m_Participants;
  std::mutex              m_Mutex;
  std::condition_variable m_Changed;
  int                     m_Arrived = 0;
  std::uint64_t           m_Round = 0;
  bool                    m_CalledOff = false;
};
} // namespace cif

#endif
