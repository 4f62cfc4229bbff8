#include "cifHostPagePopulation.h"

#include "cifDeviceMemoryLimit.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <mutex>

#if defined(__linux__)
#  include <sys/mman.h>
#  include <unistd.h>
#endif

namespace cif
{
namespace
{
#if defined(__linux__)
// Debian 12's headers predate it; the value is Linux's (include/uapi/asm-generic/mman-common.h).
constexpr int kPopulateWrite =
#  if defined(MADV_POPULATE_WRITE)
  MADV_POPULATE_WRITE;
#  else
  23;
#  endif
#endif

/** Pieces handed to the threads: each madvise call maps this much (32 huge pages). */
constexpr std::size_t kChunkBytes = std::size_t(64) << 20;

/** Threads per buffer: enough to map a few GiB while the input goes up, and at most
 * half the host's cores (the staging rings copy at the same time). */
unsigned int
ThreadCount(std::size_t chunks)
{
  const unsigned int cores = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned int>(std::min<std::size_t>({ chunks, 8, std::max(1u, cores / 2) }));
}

std::mutex  g_Mutex;
bool        g_MinimumSet = false;
std::size_t g_Minimum = 0;
} // namespace

std::size_t
GetHostPagePopulationMinimumBytes()
{
  static const std::size_t fromEnvironment = ByteCountFromEnvironment("CIF_POPULATE_OUTPUT_MIN", std::size_t(64) << 20);
  const std::lock_guard<std::mutex> lock(g_Mutex);
  return g_MinimumSet ? g_Minimum : fromEnvironment;
}

void
SetHostPagePopulationMinimumBytes(std::size_t bytes)
{
  const std::lock_guard<std::mutex> lock(g_Mutex);
  g_MinimumSet = true;
  g_Minimum = bytes;
}

bool
HostPagePopulation::Supported()
{
#if defined(__linux__)
  // Asked once, on a page of our own: EINVAL where the kernel lacks the advice.
  static const bool supported = [] {
    const long  page = sysconf(_SC_PAGESIZE);
    void *      probe = mmap(nullptr, static_cast<std::size_t>(page), PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (probe == MAP_FAILED)
    {
      return false;
    }
    const bool ok = madvise(probe, static_cast<std::size_t>(page), kPopulateWrite) == 0;
    munmap(probe, static_cast<std::size_t>(page));
    return ok;
  }();
  return supported;
#else
  return false;
#endif
}

HostPagePopulation::HostPagePopulation(void * memory, std::size_t bytes)
  : m_Memory(static_cast<char *>(memory))
  , m_Bytes(bytes)
{
  if (memory == nullptr || bytes == 0 || !Supported())
  {
    return;
  }
  const std::size_t chunks = (bytes + kChunkBytes - 1) / kChunkBytes;
  const unsigned int threads = ThreadCount(chunks);
  try
  {
    for (unsigned int t = 0; t < threads; ++t)
    {
      m_Threads.emplace_back([this] { this->Populate(); });
    }
  }
  catch (...) // no thread to spare: the threads started do the work, or the first writes
  {
  }
}

HostPagePopulation::~HostPagePopulation()
{
  this->Wait();
}

void
HostPagePopulation::Wait()
{
  for (auto & t : m_Threads)
  {
    if (t.joinable())
    {
      t.join();
    }
  }
}

void
HostPagePopulation::Populate()
{
#if defined(__linux__)
  const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  for (;;)
  {
    const std::size_t chunk = m_NextChunk.fetch_add(1);
    const std::size_t begin = chunk * kChunkBytes;
    if (begin >= m_Bytes || m_Declined.load())
    {
      return;
    }
    const std::size_t end = std::min(m_Bytes, begin + kChunkBytes);
    // madvise takes a page-aligned start: round it down (the page is the buffer's,
    // or its allocation's, which the buffer's first bytes share).
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(m_Memory + begin) / page * page;
    const std::uintptr_t last = reinterpret_cast<std::uintptr_t>(m_Memory + end);
    if (madvise(reinterpret_cast<void *>(first), last - first, kPopulateWrite) != 0 && errno != EINTR)
    {
      m_Declined.store(true); // e.g. ENOMEM: the host is short of memory; the writes will map what they can
    }
  }
#endif
}
} // namespace cif
