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
#ifndef cifControlPlaneArrival_h
#define cifControlPlaneArrival_h

#include "cifHostDevice.h"

#include <cstdint>

/** \file cifControlPlaneArrival.h
 * B-spline coefficients that reach the device while the kernel that reads them
 * already runs. Sending 65856 coefficients (a 256^3 registration's mesh) takes the
 * host 35-55 us of staging and copying, which otherwise precede every evaluation's
 * kernels. The arrays go up in chunks of control planes along their slowest axis
 * (ControlPlaneUpload, cifMetricSumsDevice.h); after each chunk the copy stream
 * writes a counter on the device, and a cell-box kernel's block waits at its start
 * until the chunks holding its cell's support planes have arrived. The blocks run
 * in cell order, slowest axis last, so only the first chunk is waited for. */
namespace cif
{
/** Chunks an upload takes at most: the first covers the first cell's support and
 * the plane after it (WaitForControlPlane), each next one doubles the planes sent,
 * so 16 reach 5 x 2^15 planes (the last takes whatever is left). */
constexpr int kMaxControlPlaneChunks = 16;

/** What a kernel's blocks wait on: chunk c (planes [chunkEnd[c-1], chunkEnd[c])) has
 * arrived once the counter at \a arrived reaches base + c + 1 (compared modulo
 * 2^32: the counter only grows). A null \a arrived: every plane is there. */
struct ControlPlaneArrival
{
  const unsigned int * arrived = nullptr;
  unsigned int         base = 0;
  int                  chunkCount = 0;
  std::int64_t         chunkEnd[kMaxControlPlaneChunks] = {};
};

/** The chunks of \a planes planes in \a chunkEnd (one past each chunk's last plane):
 * 5 planes, then as many as all before; their number. */
inline int
PlanControlPlaneChunks(std::int64_t planes, std::int64_t (&chunkEnd)[kMaxControlPlaneChunks])
{
  int          count = 0;
  std::int64_t end = 0;
  while (end < planes)
  {
    end = count + 1 == kMaxControlPlaneChunks ? planes : end == 0 ? 5 : 2 * end;
    end = end < planes ? end : planes;
    chunkEnd[count++] = end;
  }
  return count;
}

/** The chunk that holds plane \a plane (the last chunk for planes past the end). */
CIF_HD int
ControlPlaneChunkOf(const ControlPlaneArrival & arrival, std::int64_t plane)
{
  int chunk = 0;
  while (chunk + 1 < arrival.chunkCount && arrival.chunkEnd[chunk] <= plane)
  {
    ++chunk;
  }
  return chunk;
}

#if defined(__CUDACC__)
/** Seconds a block waits for its planes before it gives up (__trap: the launch then
 * fails with an error instead of hanging the process). Chunks follow each other
 * within microseconds; only a host that stopped sending waits this long. */
constexpr long long kControlPlaneWaitLimitNs = 20000000000LL;

/** The arrival counter, read relaxed: a block reads it first of all, so that its
 * latency overlaps the block's other first loads (WaitForControlPlane then reads
 * it again only while planes are missing). */
inline __device__ unsigned int
ReadControlPlaneCount(const ControlPlaneArrival & arrival)
{
  unsigned int seen;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(arrival.arrived) : "memory");
  return seen;
}

/** Waits, on the calling thread, until planes up to \a lastPlane have arrived, and
 * the plane after it (\a seen: the counter as ReadControlPlaneCount read it, read
 * again while planes are missing); then the loads that follow (by any thread of the
 * block after a barrier) see them. The counter is read relaxed and followed by a
 * fence (PTX's acquire pattern); the copy stream's counter write is fenced after its
 * copy (cuStreamWriteValue32's default). The plane after: a 32-byte sector that L1 loads
 * for a value of the last plane may hold the first values of the next, which must
 * not be cached from before they came (a plane holds at least 4 control points, so
 * a sector spans at most two planes); plain loads then read the coefficients. */
inline __device__ void
WaitForControlPlane(const ControlPlaneArrival & arrival, std::int64_t lastPlane, unsigned int seen)
{
  const unsigned int target =
    arrival.base + static_cast<unsigned int>(ControlPlaneChunkOf(arrival, lastPlane + 1)) + 1u;
  if (static_cast<int>(seen - target) < 0)
  {
    unsigned long long start;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do
    {
      __nanosleep(200);
      seen = ReadControlPlaneCount(arrival);
      unsigned long long now;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
      if (static_cast<long long>(now - start) > kControlPlaneWaitLimitNs)
      {
        __trap(); // no printf: its argument buffer would cost the kernels stack and spills
      }
    } while (static_cast<int>(seen - target) < 0);
  }
  __threadfence();
}
#endif
} // namespace cif

#endif
