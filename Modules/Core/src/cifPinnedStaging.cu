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
// The pinned staging rings (see cifPinnedStaging.h).
#include "cifCudaCheck.cuh"
#include "cifPinnedStaging.h"
#include "cifRuntimeSettings.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace cif
{
namespace
{
/** Pinned bytes held by all rings, for GetPinnedStagingBytes(). */
std::atomic<std::size_t> g_PinnedBytes{ 0 };

enum class Direction
{
  ToDevice,
  ToHost
};

/** One staged copy as the ring's threads see it. Chunk c covers the bytes
 * [c * chunkBytes, min((c + 1) * chunkBytes, bytes)). */
struct Job
{
  Direction    direction = Direction::ToDevice;
  char *       device = nullptr;
  char *       host = nullptr;
  std::size_t  bytes = 0;
  std::size_t  chunkBytes = 0;
  std::int64_t chunks = 0;
  int          participants = 0; ///< threads taking part, the caller as participant 0
};

/** Registers, once, the release of every ring at exit (defined with the pool below). */
void
ReleaseAtExit();

/** \class Ring
 * Pinned chunks, a copy stream, its helper threads. Participant p (the calling thread
 * is 0, helper threads 1..threads-1) copies chunks p, p + P, p + 2P, ... (P
 * participants) through chunksPerThread pinned chunks of its own, so no two threads
 * ever touch one chunk and no lock is taken per chunk; the interleaving keeps the DMA
 * queue in nearly ascending order and all participants finishing together. Every DMA
 * goes on the ring's one stream: the bus moves one copy at a time in each direction
 * anyway, and back-to-back copies on one stream keep it busy. A ring serves one copy
 * at a time (the pool below hands it out); it belongs to one device. */
class Ring
{
public:
  Ring(int device, const PinnedStagingSettings & settings, std::uint64_t generation)
    : m_Device(device)
    , m_Settings(AtLeastOneThread(settings))
    , m_Generation(generation)
  {
    try
    {
      // Non-blocking: the copies never wait for the legacy default stream, which other
      // code in the process may use.
      CIF_CUDA_CHECK(cudaStreamCreateWithFlags(&m_Stream, cudaStreamNonBlocking));
      CIF_CUDA_CHECK(cudaEventCreateWithFlags(&m_Ready, cudaEventDisableTiming));
      m_Chunks.resize(static_cast<std::size_t>(m_Settings.threads) * m_Settings.chunksPerThread);
      for (Chunk & chunk : m_Chunks)
      {
        CIF_CUDA_CHECK(cudaEventCreateWithFlags(&chunk.done, cudaEventDisableTiming));
      }
      for (int p = 1; p < m_Settings.threads; ++p)
      {
        m_Threads.emplace_back([this, p] { this->HelperLoop(p); });
      }
    }
    catch (const std::system_error & e)
    {
      this->Destroy();
      throw CudaError(std::string("pinned staging: cannot start a copy thread: ") + e.what());
    }
    catch (...)
    {
      this->Destroy();
      throw;
    }
  }

  ~Ring() { this->Destroy(); }
  Ring(const Ring &) = delete;
  Ring &
  operator=(const Ring &) = delete;

  int
  Device() const
  {
    return m_Device;
  }
  std::uint64_t
  Generation() const
  {
    return m_Generation;
  }

  /** Copies \a bytes in \a direction with the ring's threads, in chunks of the ring's
   * own settings (not the process's, which may have changed since it was made);
   * returns when the data has arrived. */
  void
  Copy(Direction direction, char * device, char * host, std::size_t bytes)
  {
    Job job;
    job.direction = direction;
    job.device = device;
    job.host = host;
    job.bytes = bytes;
    job.chunkBytes = m_Settings.chunkBytes;
    job.chunks = static_cast<std::int64_t>((bytes + job.chunkBytes - 1) / job.chunkBytes);
    job.participants = static_cast<int>(std::min<std::int64_t>(m_Settings.threads, job.chunks));

    // The copy stream first waits for what the calling thread queued before: the
    // kernels writing the source of a download, earlier users of an upload's
    // destination, the stream-ordered allocation of the device buffer itself.
    CIF_CUDA_CHECK(cudaEventRecord(m_Ready, cudaStreamPerThread));
    CIF_CUDA_CHECK(cudaStreamWaitEvent(m_Stream, m_Ready, 0));
    m_Error = nullptr;
    m_Failed = false;
    {
      const std::lock_guard<std::mutex> lock(m_Mutex);
      m_Job = job;
      m_Helping = job.participants - 1;
      ++m_Round;
    }
    if (job.participants > 1)
    {
      m_Start.notify_all();
    }
    this->Run(0, job);
    {
      std::unique_lock<std::mutex> lock(m_Mutex);
      m_Finished.wait(lock, [this] { return m_Helping == 0; });
    }
    // Also after a failure: no DMA may still be writing a chunk or the host buffer.
    const cudaError_t drained = cudaStreamSynchronize(m_Stream);
    if (m_Error)
    {
      cudaGetLastError();
      std::rethrow_exception(m_Error);
    }
    CIF_CUDA_CHECK(drained);
  }

private:
  /** Staging may have been turned off (threads 0) after the copy asking for this
   * ring decided to stage: it still gets a ring that works. */
  static PinnedStagingSettings
  AtLeastOneThread(PinnedStagingSettings settings)
  {
    settings.threads = std::max(1, settings.threads);
    settings.chunksPerThread = std::max(1, settings.chunksPerThread);
    return settings;
  }

  struct Chunk
  {
    void *      pinned = nullptr;
    cudaEvent_t done = nullptr; ///< recorded after the chunk's last DMA
  };

  /** The \a k-th chunk participant \a p uses (its own chunks in turn), allocated on
   * first use: a ring serving only small copies pins little. */
  Chunk &
  ChunkOf(int p, std::int64_t k)
  {
    Chunk & chunk = m_Chunks[static_cast<std::size_t>(p) * m_Settings.chunksPerThread +
                             static_cast<std::size_t>(k % m_Settings.chunksPerThread)];
    if (chunk.pinned == nullptr)
    {
      ReleaseAtExit();
      CIF_CUDA_CHECK(cudaMallocHost(&chunk.pinned, m_Settings.chunkBytes));
      g_PinnedBytes += m_Settings.chunkBytes;
    }
    return chunk;
  }

  static std::size_t
  Offset(const Job & job, std::int64_t chunk)
  {
    return static_cast<std::size_t>(chunk) * job.chunkBytes;
  }
  static std::size_t
  Length(const Job & job, std::int64_t chunk)
  {
    return std::min(job.chunkBytes, job.bytes - Offset(job, chunk));
  }

  /** Host -> pinned on this thread, pinned -> device queued; a chunk is refilled once
   * the event after its previous DMA has passed. */
  void
  Upload(int p, const Job & job)
  {
    std::int64_t k = 0;
    for (std::int64_t c = p; c < job.chunks && !m_Failed; c += job.participants, ++k)
    {
      Chunk & chunk = this->ChunkOf(p, k);
      if (k >= m_Settings.chunksPerThread)
      {
        CIF_CUDA_CHECK(cudaEventSynchronize(chunk.done));
      }
      const std::size_t offset = Offset(job, c), length = Length(job, c);
      std::memcpy(chunk.pinned, job.host + offset, length);
      CIF_CUDA_CHECK(cudaMemcpyAsync(job.device + offset, chunk.pinned, length, cudaMemcpyHostToDevice, m_Stream));
      CIF_CUDA_CHECK(cudaEventRecord(chunk.done, m_Stream));
    }
  }

  /** Device -> pinned queued for all of this thread's chunks first, then each chunk,
   * once its DMA has passed, pinned -> host on this thread and the chunk queued again
   * for this thread's next piece. */
  void
  Download(int p, const Job & job)
  {
    const std::int64_t mine = (job.chunks - p + job.participants - 1) / job.participants;
    const auto         chunkIndex = [&](std::int64_t j) { return p + j * job.participants; };
    const auto         enqueue = [&](std::int64_t j) {
      Chunk &            chunk = this->ChunkOf(p, j);
      const std::int64_t c = chunkIndex(j);
      CIF_CUDA_CHECK(
        cudaMemcpyAsync(chunk.pinned, job.device + Offset(job, c), Length(job, c), cudaMemcpyDeviceToHost, m_Stream));
      CIF_CUDA_CHECK(cudaEventRecord(chunk.done, m_Stream));
    };
    for (std::int64_t j = 0; j < std::min<std::int64_t>(mine, m_Settings.chunksPerThread); ++j)
    {
      enqueue(j);
    }
    for (std::int64_t j = 0; j < mine && !m_Failed; ++j)
    {
      Chunk & chunk = this->ChunkOf(p, j);
      CIF_CUDA_CHECK(cudaEventSynchronize(chunk.done));
      const std::int64_t c = chunkIndex(j);
      std::memcpy(job.host + Offset(job, c), chunk.pinned, Length(job, c));
      if (j + m_Settings.chunksPerThread < mine)
      {
        enqueue(j + m_Settings.chunksPerThread);
      }
    }
  }

  /** One participant's share; the first failure is kept and stops the others. */
  void
  Run(int p, const Job & job) noexcept
  {
    try
    {
      if (job.direction == Direction::ToDevice)
      {
        this->Upload(p, job);
      }
      else
      {
        this->Download(p, job);
      }
    }
    catch (...)
    {
      const std::lock_guard<std::mutex> lock(m_ErrorMutex);
      if (!m_Error)
      {
        m_Error = std::current_exception();
      }
      m_Failed = true;
    }
  }

  void
  HelperLoop(int p)
  {
    // The stream and the pinned chunks belong to the ring's device.
    const cudaError_t selected = cudaSetDevice(m_Device);
    std::uint64_t     seen = 0;
    for (;;)
    {
      Job job;
      {
        std::unique_lock<std::mutex> lock(m_Mutex);
        m_Start.wait(lock, [&] { return m_Stop || m_Round != seen; });
        if (m_Stop)
        {
          return;
        }
        seen = m_Round;
        job = m_Job;
      }
      if (p >= job.participants)
      {
        continue; // a copy of few chunks: not needed this round
      }
      if (selected != cudaSuccess)
      {
        const std::lock_guard<std::mutex> lock(m_ErrorMutex);
        m_Error = m_Error ? m_Error
                          : std::make_exception_ptr(
                              CudaError(std::string("staging thread: cudaSetDevice: ") + cudaGetErrorString(selected)));
        m_Failed = true;
      }
      else
      {
        this->Run(p, job);
      }
      {
        const std::lock_guard<std::mutex> lock(m_Mutex);
        if (--m_Helping == 0)
        {
          m_Finished.notify_all();
        }
      }
    }
  }

  /** Joins the threads and frees everything (errors ignored: nothing to recover). */
  void
  Destroy() noexcept
  {
    {
      const std::lock_guard<std::mutex> lock(m_Mutex);
      m_Stop = true;
    }
    m_Start.notify_all();
    for (std::thread & thread : m_Threads)
    {
      thread.join();
    }
    m_Threads.clear();
    int current = m_Device;
    cudaGetDevice(&current);
    if (current != m_Device)
    {
      cudaSetDevice(m_Device);
    }
    if (m_Stream)
    {
      cudaStreamSynchronize(m_Stream);
      cudaStreamDestroy(m_Stream);
    }
    for (Chunk & chunk : m_Chunks)
    {
      if (chunk.pinned)
      {
        cudaFreeHost(chunk.pinned);
        g_PinnedBytes -= m_Settings.chunkBytes;
      }
      if (chunk.done)
      {
        cudaEventDestroy(chunk.done);
      }
    }
    m_Chunks.clear();
    if (m_Ready)
    {
      cudaEventDestroy(m_Ready);
    }
    cudaGetLastError();
    if (current != m_Device)
    {
      cudaSetDevice(current);
    }
  }

  const int                   m_Device;
  const PinnedStagingSettings m_Settings;
  const std::uint64_t         m_Generation;
  cudaStream_t                m_Stream = nullptr;
  cudaEvent_t                 m_Ready = nullptr;
  std::vector<Chunk>          m_Chunks; ///< participant p owns [p * chunksPerThread, (p + 1) * chunksPerThread)
  std::vector<std::thread>    m_Threads;

  std::mutex              m_Mutex; ///< guards the round: m_Job, m_Round, m_Helping, m_Stop
  std::condition_variable m_Start, m_Finished;
  Job                     m_Job;
  std::uint64_t           m_Round = 0;
  int                     m_Helping = 0; ///< helpers still working on this round
  bool                    m_Stop = false;

  std::mutex         m_ErrorMutex;
  std::exception_ptr m_Error;
  std::atomic<bool>  m_Failed{ false };
};

// ------------------------------------------------------------------ the pool

/** The rings of all devices and the settings. Made once and never destroyed: at exit
 * the statically linked CUDA runtime may already be gone when static destructors
 * run, and the driver frees pinned memory with the process anyway. */
struct Pool
{
  struct DeviceRings
  {
    std::vector<std::unique_ptr<Ring>> idle;
    int                                made = 0; ///< rings of the current generation, idle or busy
  };
  std::mutex                 mutex;
  std::condition_variable    returned;
  PinnedStagingSettings      settings;
  std::uint64_t              generation = 0;
  std::map<int, DeviceRings> devices;
};

Pool &
ThePool()
{
  static Pool * const pool = [] {
    auto * p = new Pool;
    // Defaults from HostTransferBenchmark --sweep: 2 MiB chunks (larger ones were slower
    // at every thread count) and min(12, three quarters of the cores) threads, the count
    // that kept the filters' host-to-host Update() nearest the bus floor without taking
    // a small host over. Figures: commits f31d560 (chunks) and 1ef71e6 (threads).
    // The environment may change them (cifRuntimeSettings.h).
    const RuntimeSettings & environment = GetRuntimeSettings();
    PinnedStagingSettings & s = p->settings;
    s.chunkBytes = environment.stagingChunkBytes;
    s.threads = environment.stagingThreads;
    s.rings = environment.stagingRings;
    s.directBelowBytes = environment.stagingDirectBelowBytes;
    return p;
  }();
  return *pool;
}

/** The rings' pinned chunks are freed at exit, through std::atexit: registered at the
 * first chunk's allocation, after the CUDA runtime has registered its own teardown,
 * so it runs before that teardown and the frees reach a live runtime (a leak check
 * such as compute-sanitizer's then finds nothing left). The Pool itself stays: a
 * static destructor would run too late. */
void
ReleaseAtExit()
{
  static std::once_flag once;
  std::call_once(once, [] {
    std::atexit([] {
      try
      {
        ReleasePinnedStagingMemory();
      }
      catch (...)
      {
        // at exit there is no one to tell; the driver frees what is left
      }
    });
  });
}

/** Starts a new generation: idle rings are handed back to be freed by the caller,
 * busy ones are freed when their copy returns them. Called with the pool locked. */
std::vector<std::unique_ptr<Ring>>
NewGeneration(Pool & pool)
{
  std::vector<std::unique_ptr<Ring>> doomed;
  ++pool.generation;
  for (auto & entry : pool.devices)
  {
    for (auto & ring : entry.second.idle)
    {
      doomed.push_back(std::move(ring));
    }
    entry.second.idle.clear();
    entry.second.made = 0;
  }
  return doomed;
}

/** A ring of the current device for one copy, given back to the pool on scope exit. */
class Lease
{
public:
  explicit Lease(int device)
  {
    Pool &                       pool = ThePool();
    std::unique_lock<std::mutex> lock(pool.mutex);
    for (;;)
    {
      Pool::DeviceRings & rings = pool.devices[device];
      if (!rings.idle.empty())
      {
        m_Ring = std::move(rings.idle.back());
        rings.idle.pop_back();
        return;
      }
      if (rings.made < pool.settings.rings)
      {
        ++rings.made;
        const PinnedStagingSettings settings = pool.settings;
        const std::uint64_t         generation = pool.generation;
        lock.unlock(); // making a ring starts threads: others need not wait for that
        try
        {
          m_Ring = std::make_unique<Ring>(device, settings, generation);
        }
        catch (...)
        {
          lock.lock();
          if (generation == pool.generation)
          {
            --pool.devices[device].made;
          }
          pool.returned.notify_all();
          throw;
        }
        return;
      }
      pool.returned.wait(lock); // every ring busy: the bus is the limit anyway
    }
  }

  ~Lease()
  {
    Pool &                pool = ThePool();
    std::unique_ptr<Ring> stale;
    {
      const std::lock_guard<std::mutex> lock(pool.mutex);
      if (m_Ring->Generation() == pool.generation)
      {
        pool.devices[m_Ring->Device()].idle.push_back(std::move(m_Ring));
      }
      else
      {
        stale = std::move(m_Ring);
      }
    }
    // all: a waiter for another device must not swallow the wake-up of one for this
    pool.returned.notify_all();
    // stale, if any, is freed here, outside the lock
  }

  Lease(const Lease &) = delete;
  Lease &
  operator=(const Lease &) = delete;

  Ring &
  operator*() const
  {
    return *m_Ring;
  }

private:
  std::unique_ptr<Ring> m_Ring;
};

PinnedStagingSettings
CurrentSettings()
{
  Pool &                            pool = ThePool();
  const std::lock_guard<std::mutex> lock(pool.mutex);
  return pool.settings;
}

/** Whether a copy of \a bytes from or to \a host is worth staging: large enough,
 * staging on, and \a host ordinary pageable memory (pinned, registered or managed
 * memory, or a device address, is copied by the DMA engines directly). */
bool
Staged(const void * host, std::size_t bytes, const PinnedStagingSettings & settings)
{
  if (settings.threads <= 0 || bytes < settings.directBelowBytes)
  {
    return false;
  }
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, host) != cudaSuccess)
  {
    cudaGetLastError(); // drivers before CUDA 11 answer so for pageable memory
    return true;
  }
  return attributes.type == cudaMemoryTypeUnregistered;
}

void
StagedCopy(Direction direction, void * device, void * host, std::size_t bytes)
{
  int current = 0;
  CIF_CUDA_CHECK(cudaGetDevice(&current));
  Lease ring(current);
  (*ring).Copy(direction, static_cast<char *>(device), static_cast<char *>(host), bytes);
}
} // namespace

PinnedStagingSettings
GetPinnedStagingSettings()
{
  return CurrentSettings();
}

void
SetPinnedStagingSettings(const PinnedStagingSettings & settings)
{
  PinnedStagingSettings s = settings;
  s.chunkBytes = std::max<std::size_t>(s.chunkBytes, 64u << 10);
  s.threads = std::max(0, s.threads);
  s.chunksPerThread = std::max(1, s.chunksPerThread);
  s.rings = std::max(1, s.rings);
  Pool &                             pool = ThePool();
  std::vector<std::unique_ptr<Ring>> doomed;
  {
    const std::lock_guard<std::mutex> lock(pool.mutex);
    pool.settings = s;
    doomed = NewGeneration(pool);
  }
  pool.returned.notify_all(); // waiting copies may make rings of the new kind now
}

std::size_t
GetPinnedStagingBytes()
{
  return g_PinnedBytes;
}

void
ReleasePinnedStagingMemory()
{
  Pool &                             pool = ThePool();
  std::vector<std::unique_ptr<Ring>> doomed;
  {
    const std::lock_guard<std::mutex> lock(pool.mutex);
    doomed = NewGeneration(pool);
  }
  pool.returned.notify_all();
}

namespace detail
{
void
StagedCopyToDevice(void * device, const void * host, std::size_t bytes)
{
  if (bytes == 0)
  {
    return;
  }
  const PinnedStagingSettings settings = CurrentSettings();
  if (!Staged(host, bytes, settings))
  {
    // On the calling thread's default stream: after the work it queued before.
    CIF_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyDefault, cudaStreamPerThread));
    CIF_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    return;
  }
  StagedCopy(Direction::ToDevice, device, const_cast<void *>(host), bytes);
}

void
StagedCopyToHost(void * host, const void * device, std::size_t bytes)
{
  if (bytes == 0)
  {
    return;
  }
  const PinnedStagingSettings settings = CurrentSettings();
  if (!Staged(host, bytes, settings))
  {
    CIF_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDefault, cudaStreamPerThread));
    CIF_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    return;
  }
  StagedCopy(Direction::ToHost, const_cast<void *>(device), host, bytes);
}
} // namespace detail
} // namespace cif
