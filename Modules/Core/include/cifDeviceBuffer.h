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

} // namespace cif

#endif
