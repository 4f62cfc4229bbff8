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
#ifndef cifHostWorkArea_h
#define cifHostWorkArea_h

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

#if defined(__linux__)
#  include <sys/mman.h>
#endif

/** \file cifHostWorkArea.h
 * Host work areas of gigabytes (the host coefficients of a volume larger than the
 * device, the input boxes of its slabs): memory whose first touch is the cost.
 *
 * A fresh allocation's pages are mapped and zeroed by the kernel on first touch, one
 * 4 KiB page per fault: on the H100 host, converting a 13.5 GiB volume into fresh
 * memory took 2.2 s on 16 threads, about 6 GB/s, where the copy itself runs at bus
 * speed. Large areas are therefore aligned to 2 MiB and advised as transparent huge
 * pages (madvise(MADV_HUGEPAGE): Debian's default THP mode is "madvise"), so that one
 * fault maps 2 MiB; and they are not value-initialised (the caller writes every
 * element before reading it). Plain C++. */
namespace cif
{
struct HostWorkAreaFree
{
  void
  operator()(void * memory) const noexcept
  {
    std::free(memory);
  }
};

template <typename T>
using HostWorkArea = std::unique_ptr<T[], HostWorkAreaFree>;

/** \a count uninitialised elements (trivial types only); std::bad_alloc on failure. */
template <typename T>
HostWorkArea<T>
AllocateHostWorkArea(std::size_t count)
{
  static_assert(std::is_trivially_default_constructible_v<T> && std::is_trivially_destructible_v<T>,
                "a work area holds plain numbers");
  constexpr std::size_t kHugePage = std::size_t(2) << 20;
  const std::size_t     bytes = count * sizeof(T);
  if (count != 0 && bytes / count != sizeof(T))
  {
    throw std::bad_alloc();
  }
  void * memory = nullptr;
  if (bytes >= kHugePage)
  {
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    if (posix_memalign(&memory, kHugePage, rounded) != 0)
    {
      throw std::bad_alloc();
    }
#if defined(MADV_HUGEPAGE)
    madvise(memory, rounded, MADV_HUGEPAGE); // advice only: without THP it changes nothing
#endif
  }
  else
  {
    memory = std::malloc(bytes > 0 ? bytes : 1);
    if (memory == nullptr)
    {
      throw std::bad_alloc();
    }
  }
  return HostWorkArea<T>(static_cast<T *>(memory));
}
} // namespace cif

#endif
