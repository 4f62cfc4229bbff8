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
