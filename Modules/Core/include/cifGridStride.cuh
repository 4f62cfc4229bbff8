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
#ifndef cifGridStride_cuh
#define cifGridStride_cuh

#include <algorithm>
#include <cstdint>

/** \file cifGridStride.cuh
 * For .cu files only: the launch size of a grid-stride kernel (one thread per item,
 * each thread looping by the grid's size): enough blocks of \a threadsPerBlock for
 * \a count items, at most 2^20 — the loop covers the rest, and the count of blocks
 * stays far inside CUDA's limit whatever the item count. */
namespace cif
{
inline unsigned int
GridStrideBlocks(std::int64_t count, int threadsPerBlock)
{
  return static_cast<unsigned int>(std::min<std::int64_t>((count + threadsPerBlock - 1) / threadsPerBlock, 1 << 20));
}
} // namespace cif

#endif
