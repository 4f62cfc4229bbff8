#ifndef cifGatherFloorKernel_h
#define cifGatherFloorKernel_h

#include <cstdint>

namespace cif_bench
{
/** The load floor of exact cubic resampling with one thread per output voxel: each
 * thread of an n^3 grid reads the 4x4x4 block of floats at its own index (clamped
 * inside), so a warp's 64 loads are perfectly coalesced (8 sectors per voxel), adds
 * them and writes the sum. No weights, no transform, no border handling: an exact
 * kernel of this shape (a thread per voxel, its 64 coefficients read through the L1)
 * costs at least this (ResampleBenchmark's "load floor" row).
 * Needs 4 <= n <= 65535. Asynchronous on the default stream. */
void
LaunchCoalescedGatherFloor(const float * coefficients, std::int64_t n, float * output);
} // namespace cif_bench

#endif
