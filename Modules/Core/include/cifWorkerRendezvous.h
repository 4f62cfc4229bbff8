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
