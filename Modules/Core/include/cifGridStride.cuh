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
