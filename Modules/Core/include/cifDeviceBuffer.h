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
#ifndef cifDeviceBuffer_h
#define cifDeviceBuffer_h

#include "cifCudaRuntime.h"
#include "cifDeviceMemoryPool.h"

#include <atomic>

namespace cif
{

/** Counts host<->device copies made through DeviceBuffer, so that tests can prove
 * that a chain of GPU filters uploads and downloads exactly once. */
struct CudaImageFilters_EXPORT TransferCounters
{
  std::uint64_t uploads = 0;
  std::uint64_t downloads = 0;
  std::uint64_t uploadedBytes = 0;
  std::uint64_t downloadedBytes = 0;

  static TransferCounters
  Get();
  static void
  Reset();
};

/** \class DeviceBuffer
 * Owns one block of device memory (RAII, move-only). Every CUDA call is checked and
 * becomes CudaError; the memory is released in the destructor, on every path. The
 * memory comes from the library's stream-ordered pool (cifDeviceMemoryPool.h):
 * release is ordered after the work the calling thread already queued on its default
 * stream, and the next allocation of the same size reuses it. Upload and Download of
 * large pageable host buffers go through the pinned staging rings
 * (cifPinnedStaging.h); both are ordered after the calling thread's queued work and
 * return when the data has arrived. */
class CudaImageFilters_EXPORT DeviceBuffer
{
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) { this->Allocate(bytes); }
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &
  operator=(const DeviceBuffer &) = delete;
  DeviceBuffer(DeviceBuffer && other) noexcept;
  DeviceBuffer &
  operator=(DeviceBuffer && other) noexcept;

  /** Allocates \a bytes (releasing what was held). Throws CudaOutOfMemory naming the
   * request and the device's free memory. Does nothing if the size already matches. */
  void
  Allocate(std::size_t bytes);
  /** Returns the memory to the pool (stream-ordered; no wait). */
  void
  Release() noexcept;

  void *
  Data() const
  {
    return m_Allocation.pointer;
  }
  template <typename T>
  T *
  As() const
  {
    return static_cast<T *>(m_Allocation.pointer);
  }
  std::size_t
  Bytes() const
  {
    return m_Bytes;
  }

  /** Host -> device, the first \a bytes (at most Bytes()). */
  void
  Upload(const void * host, std::size_t bytes);
  /** Device -> host, the first \a bytes. */
  void
  Download(void * host, std::size_t bytes) const;

private:
  detail::DeviceAllocation m_Allocation;
  std::size_t              m_Bytes = 0;
};

/** \class OverlappedDownload
 * Downloads a device buffer's contents into a host buffer piece by piece while the
 * device computes the next piece: a filter that writes its output in slabs calls
 * Ready() after queueing each slab's kernels, and Finish() at the end.
 *
 * Into pinned host memory (an output image with a pinned pixel container) each
 * Ready() range is copied on a copy stream of this object's own, ordered after the
 * work the calling thread has queued so far (the kernels writing the range), so the
 * download of slab k runs while slab k + 1 computes; Finish() copies what was never
 * declared ready. Into ordinary memory there is
 * no asynchronous copy to overlap: Ready() does nothing and Finish() downloads the
 * whole buffer at once, through the staging rings, as DeviceBuffer::Download does.
 * Either way TransferCounters count one download of the whole buffer. The object
 * waits for its copies when destroyed (also on an exception), so destroy it before
 * the device buffer it reads. */
class CudaImageFilters_EXPORT OverlappedDownload
{
public:
  OverlappedDownload(void * host, const void * device, std::size_t bytes);
  ~OverlappedDownload();
  OverlappedDownload(const OverlappedDownload &) = delete;
  OverlappedDownload &
  operator=(const OverlappedDownload &) = delete;

  /** The next \a bytes of the buffer (pieces come in order, from the start) are
   * queued on the calling thread's stream. */
  void
  Ready(std::size_t bytes);
  /** Returns when the host buffer holds the whole device buffer. */
  void
  Finish();
  /** Whether the pieces are copied as they become ready (pinned host memory). */
  bool
  Overlaps() const
  {
    return m_Stream != nullptr;
  }

private:
  char *       m_Host;
  const char * m_Device;
  std::size_t  m_Bytes;
  std::size_t  m_ReadyBytes = 0;
  void *       m_Stream = nullptr;
  void *       m_Ready = nullptr;
  bool         m_Finished = false;
};

/** \class DeviceTimer
 * CUDA-event timer on the calling thread's default stream (for benchmarks): Start(), Stop() returns
 * the elapsed milliseconds of the device work queued in between. */
class CudaImageFilters_EXPORT DeviceTimer
{
public:
  DeviceTimer();
  ~DeviceTimer();
  DeviceTimer(const DeviceTimer &) = delete;
  DeviceTimer &
  operator=(const DeviceTimer &) = delete;
  void
  Start();
  double
  StopMilliseconds();

private:
  void * m_Start = nullptr;
  void * m_Stop = nullptr;
};

/** Host -> device copy into memory owned elsewhere (counted like Upload). */
CudaImageFilters_EXPORT void
CopyHostToDevice(void * device, const void * host, std::size_t bytes);

/** Device -> device copy of \a bytes, queued on the calling thread's default stream
 * (a benchmark's bandwidth reference too). */
CudaImageFilters_EXPORT void
CopyDeviceToDevice(void * destination, const void * source, std::size_t bytes);

/** Copy of \a bytes from the memory of device \a sourceDevice to that of device
 * \a destinationDevice (the same device: as CopyDeviceToDevice), queued on the
 * calling thread's default stream of its current device: peer to peer where the two
 * devices reach each other (detail::LetDeviceReadPool), else staged by the driver. */
CudaImageFilters_EXPORT void
CopyBetweenDevices(void * destination, int destinationDevice, const void * source, int sourceDevice, std::size_t bytes);

} // namespace cif

#endif
