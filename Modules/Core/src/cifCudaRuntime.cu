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
#include "cifCudaCheck.cuh"
#include "cifDeviceBuffer.h"
#include "cifDeviceRowCopy.h"
#include "cifDeviceMemoryLimit.h"
#include "cifGPUArchitectures.h"
#include "cifPinnedHostMemory.h"
#include "cifPinnedStaging.h"
#include "cifSimulatedUnsupportedGPU.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

namespace cif
{
namespace
{
std::atomic<std::uint64_t> g_Uploads{ 0 }, g_Downloads{ 0 }, g_UploadedBytes{ 0 }, g_DownloadedBytes{ 0 };

std::string
MiB(std::size_t bytes)
{
  std::ostringstream s;
  s.precision(1);
  s << std::fixed << bytes / (1024.0 * 1024.0) << " MiB";
  return s.str();
}
} // namespace

bool
BuiltWithCuda()
{
  return true;
}

int
GetDeviceCount()
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess)
  {
    cudaGetLastError(); // clear the sticky "no driver/no device" status
    return 0;
  }
  return count;
}

namespace
{
// Launched once per device by the availability check: a build without kernels for
// the device's architecture fails here (cudaErrorNoKernelImageForDevice), before any
// filter's work, instead of in the middle of a pipeline.
__global__ void
ProbeKernel()
{}

// Variadic: a list of several architectures ("750,800,860,890,900") is several
// macro arguments.
#define CIF_STRINGIFY_VALUE(...) CIF_STRINGIFY(__VA_ARGS__)
#define CIF_STRINGIFY(...) #__VA_ARGS__
#ifdef __CUDA_ARCH_LIST__
const char * const kBuiltArchitectureList = CIF_STRINGIFY_VALUE(__CUDA_ARCH_LIST__);
#else
const char * const kBuiltArchitectureList = "";
#endif

struct ProbeResult
{
  bool        runsKernels = false;
  std::string reason; // the line to print when it does not
};

ProbeResult
ProbeDevice(int index)
{
  ProbeResult result;
  int         major = 0, minor = 0;
  if (GetSimulatedUnsupportedGPU(major, minor)) // a test's hook (cifSimulatedUnsupportedGPU.h)
  {
    result.reason = DescribeGPUWithoutKernels("(simulated by cif::SimulateUnsupportedGPU)",
                                              major,
                                              minor,
                                              BuiltCudaArchitectures(),
                                              "cudaErrorNoKernelImageForDevice, simulated");
    return result;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, index) != cudaSuccess)
  {
    cudaGetLastError();
    result.reason = "CUDA device " + std::to_string(index) + " does not exist";
    return result;
  }
  int current = 0;
  cudaGetDevice(&current);
  cudaError_t status = cudaSetDevice(index);
  if (status == cudaSuccess)
  {
    ProbeKernel<<<1, 1, 0, cudaStreamPerThread>>>();
    status = cudaGetLastError();
    if (status == cudaSuccess)
    {
      status = cudaStreamSynchronize(cudaStreamPerThread);
    }
  }
  cudaGetLastError(); // a failed launch of a missing image is not sticky; clear it
  cudaSetDevice(current);
  result.runsKernels = status == cudaSuccess;
  if (!result.runsKernels)
  {
    result.reason =
      DescribeGPUWithoutKernels(prop.name,
                                prop.major,
                                prop.minor,
                                BuiltCudaArchitectures(),
                                std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status));
  }
  return result;
}

const ProbeResult &
ProbeOnce(int index)
{
  static std::mutex                 mutex;
  static std::map<int, ProbeResult> results;
  std::lock_guard<std::mutex>       lock(mutex);
  auto                              found = results.find(index);
  if (found == results.end())
  {
    found = results.emplace(index, ProbeDevice(index)).first;
  }
  return found->second;
}

struct Availability
{
  bool        usable = false;
  std::string reason; // "" when usable
};

// Decided once per process: a device, and the current one runs this build's kernels.
const Availability &
CurrentAvailability()
{
  static const Availability availability = [] {
    Availability      a;
    int               count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess)
    {
      cudaGetLastError(); // clear the sticky "no driver/no device" status
    }
    int major = 0, minor = 0;
    if (GetSimulatedUnsupportedGPU(major, minor) || (status == cudaSuccess && count > 0))
    {
      int current = 0;
      if (cudaGetDevice(&current) != cudaSuccess)
      {
        cudaGetLastError(); // no real device (a simulated one): device 0
      }
      const ProbeResult & probe = ProbeOnce(current);
      a.usable = probe.runsKernels;
      a.reason = probe.reason;
      if (!a.usable)
      {
        std::fprintf(stderr, "CudaImageFilters: %s; using the CPU path.\n", a.reason.c_str());
      }
      return a;
    }
    int driverVersion = 0;
    if (status == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driverVersion) == cudaSuccess &&
        driverVersion == 0)
    {
      a.reason = "no NVIDIA driver is installed"; // what the runtime calls an insufficient driver
    }
    else
    {
      a.reason = status != cudaSuccess ? std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status)
                                       : "no CUDA device found";
    }
    std::fprintf(stderr, "CudaImageFilters: no usable CUDA device (%s); using the CPU path.\n", a.reason.c_str());
    return a;
  }();
  return availability;
}
} // namespace

std::string
BuiltCudaArchitectures()
{
  return FormatArchitectureList(kBuiltArchitectureList);
}

std::string
GetNoDeviceReason()
{
  return CurrentAvailability().reason;
}

bool
IsGPUAvailable()
{
  return CurrentAvailability().usable;
}

bool
DeviceRunsThisBuildsKernels(int index)
{
  return ProbeOnce(index).runsKernels;
}

DeviceInfo
GetDeviceInfo(int index)
{
  if (index < 0)
  {
    CIF_CUDA_CHECK(cudaGetDevice(&index));
  }
  cudaDeviceProp prop{};
  CIF_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  DeviceInfo info;
  info.index = index;
  info.name = prop.name;
  info.computeMajor = prop.major;
  info.computeMinor = prop.minor;
  info.totalMemoryBytes = prop.totalGlobalMem;
  info.multiprocessorCount = prop.multiProcessorCount;
  int current = 0;
  CIF_CUDA_CHECK(cudaGetDevice(&current));
  if (current == index)
  {
    std::size_t freeBytes = 0, totalBytes = 0;
    CIF_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    info.freeMemoryBytes = freeBytes;
  }
  return info;
}

void
SelectDevice(int index)
{
  CIF_CUDA_CHECK(cudaSetDevice(index));
}

void
Synchronize()
{
  // The calling thread's stream only: a pipeline in another host thread goes on.
  CIF_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
}

std::size_t
GetAvailableDeviceMemory()
{
  std::size_t freeBytes = 0, totalBytes = 0;
  CIF_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
  return freeBytes + GetCachedDeviceMemoryBytes();
}

void
RequireDeviceMemory(std::size_t bytes, const std::string & what)
{
  std::size_t freeBytes = 0, totalBytes = 0;
  CIF_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
  freeBytes += GetCachedDeviceMemoryBytes(); // held by this library's pool, free to its buffers
  const std::size_t limit = GetDeviceMemoryLimit();
  if (limit != 0 && bytes > limit)
  {
    throw CudaOutOfMemory("not enough GPU memory for " + what + ": it needs " + MiB(bytes) +
                          ", more than the device memory limit of " + MiB(limit) +
                          " (cif::SetDeviceMemoryLimit or CIF_DEVICE_MEMORY_LIMIT)");
  }
  if (bytes > freeBytes)
  {
    throw CudaOutOfMemory("not enough GPU memory for " + what + ": it needs " + MiB(bytes) + ", the device has " +
                          MiB(freeBytes) + " free of " + MiB(totalBytes));
  }
}

// ---------------------------------------------------------------- DeviceBuffer

TransferCounters
TransferCounters::Get()
{
  TransferCounters c;
  c.uploads = g_Uploads;
  c.downloads = g_Downloads;
  c.uploadedBytes = g_UploadedBytes;
  c.downloadedBytes = g_DownloadedBytes;
  return c;
}

void
TransferCounters::Reset()
{
  g_Uploads = 0;
  g_Downloads = 0;
  g_UploadedBytes = 0;
  g_DownloadedBytes = 0;
}

DeviceBuffer::~DeviceBuffer() { this->Release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer && other) noexcept
  : m_Allocation(other.m_Allocation)
  , m_Bytes(other.m_Bytes)
{
  other.m_Allocation = detail::DeviceAllocation{};
  other.m_Bytes = 0;
}

DeviceBuffer &
DeviceBuffer::operator=(DeviceBuffer && other) noexcept
{
  if (this != &other)
  {
    this->Release();
    m_Allocation = other.m_Allocation;
    m_Bytes = other.m_Bytes;
    other.m_Allocation = detail::DeviceAllocation{};
    other.m_Bytes = 0;
  }
  return *this;
}

void
DeviceBuffer::Allocate(std::size_t bytes)
{
  if (bytes == m_Bytes && m_Allocation.pointer)
  {
    return;
  }
  this->Release();
  if (bytes == 0)
  {
    return;
  }
  const auto status = static_cast<cudaError_t>(detail::AllocateDeviceMemory(bytes, m_Allocation));
  if (status != cudaSuccess)
  {
    cudaGetLastError();
    std::size_t freeBytes = 0, totalBytes = 0;
    cudaMemGetInfo(&freeBytes, &totalBytes);
    const std::string message = "GPU allocation of " + MiB(bytes) + " failed (" + MiB(freeBytes) + " free of " +
                                MiB(totalBytes) + "): " + cudaGetErrorString(status);
    if (status == cudaErrorMemoryAllocation)
    {
      throw CudaOutOfMemory(message);
    }
    throw CudaError(message);
  }
  m_Bytes = bytes;
}

void
DeviceBuffer::Release() noexcept
{
  detail::FreeDeviceMemory(m_Allocation);
  m_Allocation = detail::DeviceAllocation{};
  m_Bytes = 0;
}

void
DeviceBuffer::Upload(const void * host, std::size_t bytes)
{
  if (bytes > m_Bytes)
  {
    throw CudaError("DeviceBuffer::Upload: " + std::to_string(bytes) + " bytes into a buffer of " +
                    std::to_string(m_Bytes));
  }
  CopyHostToDevice(m_Allocation.pointer, host, bytes);
}

void
DeviceBuffer::Download(void * host, std::size_t bytes) const
{
  if (bytes > m_Bytes)
  {
    throw CudaError("DeviceBuffer::Download: " + std::to_string(bytes) + " bytes from a buffer of " +
                    std::to_string(m_Bytes));
  }
  detail::StagedCopyToHost(host, m_Allocation.pointer, bytes);
  ++g_Downloads;
  g_DownloadedBytes += bytes;
}

OverlappedDownload::OverlappedDownload(void * host, const void * device, std::size_t bytes)
  : m_Host(static_cast<char *>(host))
  , m_Device(static_cast<const char *>(device))
  , m_Bytes(bytes)
{
  if (bytes > 0 && detail::IsPageLocked(host))
  {
    cudaStream_t stream = nullptr;
    cudaEvent_t  ready = nullptr;
    CIF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    if (cudaEventCreateWithFlags(&ready, cudaEventDisableTiming) != cudaSuccess)
    {
      cudaStreamDestroy(stream);
      CIF_CUDA_CHECK(cudaGetLastError());
    }
    m_Stream = stream;
    m_Ready = ready;
  }
}

OverlappedDownload::~OverlappedDownload()
{
  if (m_Stream != nullptr)
  {
    // Copies may still read the device buffer (an exception between Ready and
    // Finish): wait for them before the buffer can go back to the pool.
    cudaStreamSynchronize(static_cast<cudaStream_t>(m_Stream));
    cudaEventDestroy(static_cast<cudaEvent_t>(m_Ready));
    cudaStreamDestroy(static_cast<cudaStream_t>(m_Stream));
    cudaGetLastError();
  }
}

void
OverlappedDownload::Ready(std::size_t bytes)
{
  if (m_Stream == nullptr || bytes == 0)
  {
    return;
  }
  if (bytes > m_Bytes - m_ReadyBytes)
  {
    throw CudaError("OverlappedDownload::Ready: " + std::to_string(bytes) + " more bytes after " +
                    std::to_string(m_ReadyBytes) + " of a buffer of " + std::to_string(m_Bytes));
  }
  const std::size_t offset = m_ReadyBytes;
  m_ReadyBytes += bytes;
  const auto stream = static_cast<cudaStream_t>(m_Stream);
  const auto ready = static_cast<cudaEvent_t>(m_Ready);
  // One event serves every piece: a wait takes the record made just before it.
  CIF_CUDA_CHECK(cudaEventRecord(ready, cudaStreamPerThread));
  CIF_CUDA_CHECK(cudaStreamWaitEvent(stream, ready, 0));
  CIF_CUDA_CHECK(cudaMemcpyAsync(m_Host + offset, m_Device + offset, bytes, cudaMemcpyDeviceToHost, stream));
}

void
OverlappedDownload::Finish()
{
  if (m_Finished)
  {
    return;
  }
  if (m_Stream != nullptr)
  {
    this->Ready(m_Bytes - m_ReadyBytes);
    CIF_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(m_Stream)));
  }
  else if (m_Bytes > 0)
  {
    detail::StagedCopyToHost(m_Host, m_Device, m_Bytes);
  }
  m_Finished = true;
  ++g_Downloads;
  g_DownloadedBytes += m_Bytes;
}

void
CopyHostToDevice(void * device, const void * host, std::size_t bytes)
{
  detail::StagedCopyToDevice(device, host, bytes);
  ++g_Uploads;
  g_UploadedBytes += bytes;
}

void
CopyDeviceToDevice(void * destination, const void * source, std::size_t bytes)
{
  CIF_CUDA_CHECK(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDeviceToDevice, cudaStreamPerThread));
}

void
CopyBetweenDevices(void * destination, int destinationDevice, const void * source, int sourceDevice, std::size_t bytes)
{
  if (bytes == 0)
  {
    return;
  }
  if (destinationDevice == sourceDevice)
  {
    CopyDeviceToDevice(destination, source, bytes);
    return;
  }
  detail::LetDeviceReadPool(destinationDevice, sourceDevice);
  CIF_CUDA_CHECK(cudaMemcpyPeerAsync(destination, destinationDevice, source, sourceDevice, bytes, cudaStreamPerThread));
}

void
CopyRowsBetweenDevices(void *       destination,
                       int          destinationDevice,
                       std::size_t  destinationPitch,
                       const void * source,
                       int          sourceDevice,
                       std::size_t  sourcePitch,
                       std::size_t  rowBytes,
                       std::size_t  rows)
{
  if (rowBytes == 0 || rows == 0)
  {
    return;
  }
  constexpr std::size_t kMostPitch = (std::size_t(1) << 31) - 1; // cudaDevAttrMaxPitch on current GPUs
  if (rows == 1 || destinationPitch > kMostPitch || sourcePitch > kMostPitch)
  {
    for (std::size_t r = 0; r < rows; ++r)
    {
      CopyBetweenDevices(static_cast<char *>(destination) + r * destinationPitch,
                         destinationDevice,
                         static_cast<const char *>(source) + r * sourcePitch,
                         sourceDevice,
                         rowBytes);
    }
    return;
  }
  if (destinationDevice == sourceDevice)
  {
    CIF_CUDA_CHECK(cudaMemcpy2DAsync(destination,
                                     destinationPitch,
                                     source,
                                     sourcePitch,
                                     rowBytes,
                                     rows,
                                     cudaMemcpyDeviceToDevice,
                                     cudaStreamPerThread));
    return;
  }
  detail::LetDeviceReadPool(destinationDevice, sourceDevice);
  cudaMemcpy3DPeerParms p{};
  p.srcPtr = make_cudaPitchedPtr(const_cast<void *>(source), sourcePitch, rowBytes, rows);
  p.srcDevice = sourceDevice;
  p.dstPtr = make_cudaPitchedPtr(destination, destinationPitch, rowBytes, rows);
  p.dstDevice = destinationDevice;
  p.extent = make_cudaExtent(rowBytes, rows, 1);
  CIF_CUDA_CHECK(cudaMemcpy3DPeerAsync(&p, cudaStreamPerThread));
}

// ----------------------------------------------------------------- DeviceTimer

DeviceTimer::DeviceTimer()
{
  cudaEvent_t start = nullptr, stop = nullptr;
  CIF_CUDA_CHECK(cudaEventCreate(&start));
  const cudaError_t status = cudaEventCreate(&stop);
  if (status != cudaSuccess)
  {
    cudaEventDestroy(start);
    CIF_CUDA_CHECK(status);
  }
  m_Start = start;
  m_Stop = stop;
}

DeviceTimer::~DeviceTimer()
{
  cudaEventDestroy(static_cast<cudaEvent_t>(m_Start));
  cudaEventDestroy(static_cast<cudaEvent_t>(m_Stop));
}

void
DeviceTimer::Start()
{
  CIF_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(m_Start), cudaStreamPerThread));
}

double
DeviceTimer::StopMilliseconds()
{
  CIF_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(m_Stop), cudaStreamPerThread));
  CIF_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(m_Stop)));
  float ms = 0.f;
  CIF_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(m_Start), static_cast<cudaEvent_t>(m_Stop)));
  return ms;
}

namespace detail
{
void *
AllocatePageLocked(std::size_t bytes) noexcept
{
  void * memory = nullptr;
  if (cudaHostAlloc(&memory, bytes, cudaHostAllocPortable) != cudaSuccess)
  {
    cudaGetLastError(); // a refusal is answered with ordinary memory, not an error
    return nullptr;
  }
  return memory;
}

void
FreePageLocked(void * memory) noexcept
{
  if (cudaFreeHost(memory) != cudaSuccess)
  {
    cudaGetLastError(); // e.g. at exit, after the driver has gone: nothing to do
  }
}

bool
RegisterPageLocked(void * memory, std::size_t bytes) noexcept
{
  if (cudaHostRegister(memory, bytes, cudaHostRegisterPortable) != cudaSuccess)
  {
    cudaGetLastError(); // already registered, or refused: the caller copies as before
    return false;
  }
  return true;
}

void
UnregisterPageLocked(void * memory) noexcept
{
  if (cudaHostUnregister(memory) != cudaSuccess)
  {
    cudaGetLastError(); // e.g. at exit, after the driver has gone: nothing to do
  }
}

bool
IsPageLocked(const void * memory) noexcept
{
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, memory) != cudaSuccess)
  {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}
} // namespace detail

} // namespace cif
