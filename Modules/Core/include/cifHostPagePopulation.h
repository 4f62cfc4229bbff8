#ifndef cifHostPagePopulation_h
#define cifHostPagePopulation_h

#include "CudaImageFiltersExport.h"

#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

/** \file cifHostPagePopulation.h
 * A fresh host output's pages mapped ahead of the download that fills it.
 *
 * A GPU filter's first update writes its host output into fresh memory: every page
 * is mapped and zeroed by the kernel at its first write, inside the download (4 GiB
 * into fresh huge pages: 248 ms on an H100 host, against about 90 ms into mapped
 * pages). Nothing else needs the host's cores while the input goes up and the
 * kernels run, so HostPagePopulation maps the buffer's pages then, on threads of its
 * own, with madvise(MADV_POPULATE_WRITE) (Linux 5.14 and later): the kernel maps
 * each page writable and leaves its contents alone, so a writer that comes first
 * (the download, the CPU path) loses nothing and need not wait. Where the call is
 * not supported (an older kernel, another system) nothing happens and the first
 * writes map the pages as before. Plain C++. */
namespace cif
{
/** Outputs from this size on get their pages mapped ahead (default 64 MiB;
 * environment CIF_POPULATE_OUTPUT_MIN, e.g. 256M; 0 turns it off). */
CudaImageFilters_EXPORT std::size_t
GetHostPagePopulationMinimumBytes();
CudaImageFilters_EXPORT void
SetHostPagePopulationMinimumBytes(std::size_t bytes);

/** Maps the pages of [memory, memory + bytes) writable on background threads from
 * construction on; the destructor (or Wait) returns once they are done, so the
 * memory must outlive the object. */
class CudaImageFilters_EXPORT HostPagePopulation
{
public:
  HostPagePopulation(void * memory, std::size_t bytes);
  ~HostPagePopulation();
  HostPagePopulation(const HostPagePopulation &) = delete;
  HostPagePopulation &
  operator=(const HostPagePopulation &) = delete;

  /** Returns once every page is mapped (or the system declined). */
  void
  Wait();

  /** Whether the system maps pages ahead (false: the first writes will). */
  static bool
  Supported();

private:
  void
  Populate();

  char *                   m_Memory;
  std::size_t              m_Bytes;
  std::atomic<std::size_t> m_NextChunk{ 0 };
  std::atomic<bool>        m_Declined{ false };
  std::vector<std::thread> m_Threads;
};
} // namespace cif

#endif
