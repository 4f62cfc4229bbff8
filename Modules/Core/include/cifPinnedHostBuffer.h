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
#ifndef cifPinnedHostBuffer_h
#define cifPinnedHostBuffer_h

#include "cifPinnedHostMemory.h"

#include <cstddef>
#include <memory>

/** \file cifPinnedHostBuffer.h
 * A host buffer for small copies that a loop repeats (a registration's per-iteration
 * parameters and results): pinned memory (cifPinnedHostMemory.h) where the cap
 * allows, so that each copy is one DMA without the driver's bounce through its own
 * staging, else ordinary memory (the same copies, slower). It grows and keeps its
 * memory between uses. Plain C++: no CUDA header. */
namespace cif
{
class PinnedHostBuffer
{
public:
  PinnedHostBuffer() = default;
  PinnedHostBuffer(const PinnedHostBuffer &) = delete;
  PinnedHostBuffer &
  operator=(const PinnedHostBuffer &) = delete;
  ~PinnedHostBuffer() { this->Release(); }

  /** At least \a bytes (the contents are not kept when it grows). */
  void *
  Reserve(std::size_t bytes)
  {
    if (bytes > m_Bytes || m_Data == nullptr)
    {
      this->Release();
      const std::size_t size = bytes > 0 ? bytes : 1;
      m_Data = AllocatePinnedHostMemory(size);
      if (m_Data == nullptr)
      {
        m_Ordinary.reset(new char[size]);
        m_Data = m_Ordinary.get();
      }
      m_Bytes = size;
    }
    return m_Data;
  }

  template <typename T>
  T *
  As(std::size_t count)
  {
    return static_cast<T *>(this->Reserve(count * sizeof(T)));
  }

  void *
  Data() const
  {
    return m_Data;
  }

  std::size_t
  Bytes() const
  {
    return m_Bytes;
  }

  void
  Release() noexcept
  {
    if (m_Data != nullptr && m_Ordinary == nullptr)
    {
      FreePinnedHostMemory(m_Data);
    }
    m_Ordinary.reset();
    m_Data = nullptr;
    m_Bytes = 0;
  }

private:
  void *                  m_Data = nullptr;
  std::size_t             m_Bytes = 0;
  std::unique_ptr<char[]> m_Ordinary;
};
} // namespace cif

#endif
