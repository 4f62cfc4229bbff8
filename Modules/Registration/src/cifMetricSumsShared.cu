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
// The metrics' device entry points that do not depend on the image instance (see
// cifMetricSumsKernels.cuh).
#include "cifMetricSumsKernels.cuh"

#include "cifCudaRuntime.h"

#include <cub/device/device_reduce.cuh>
#include <cuda.h> // the driver's types, for cuStreamWriteValue32 found at run time

#include <chrono>
#include <string>
#include <thread>

namespace cif
{
MattesSummary
ReadBackMattesSummary(MetricDeviceWorkspace & workspace, bool readNow)
{
  const double * host = readNow ? ReadBack(workspace, kReadbackSums) : workspace.readbackHost.As<double>(kReadbackSums);
  MattesSummary  summary;
  summary.value = host[kReadbackMattesSummary];
  summary.validPoints = static_cast<std::int64_t>(host[kReadbackMattesSummary + 1]);
  summary.jointPDFSum = host[kReadbackMattesSummary + 2];
  return summary;
}

void
UploadMetricCellBoxes(const MetricCellBoxes & boxes, DeviceMetricCellBoxes & device)
{
  const auto upload = [](DeviceBuffer & buffer, const void * data, std::size_t bytes) {
    buffer = DeviceBuffer(std::max<std::size_t>(1, bytes));
    if (bytes > 0)
    {
      buffer.Upload(data, bytes);
    }
  };
  MetricCellBoxView & view = device.view;
  view = HostView(boxes);
  for (int a = 0; a < 3; ++a)
  {
    upload(device.weights[a], boxes.weights[a].data(), boxes.weights[a].size() * sizeof(double));
    upload(device.inside[a], boxes.inside[a].data(), boxes.inside[a].size());
    upload(device.range[a], boxes.range[a].data(), boxes.range[a].size() * sizeof(std::int64_t));
    view.weights[a] = device.weights[a].As<const double>();
    view.inside[a] = device.inside[a].As<const std::uint8_t>();
    view.range[a] = device.range[a].As<const std::int64_t>();
  }
  upload(device.items, boxes.items.data(), boxes.items.size() * sizeof(MetricWorkItem));
  upload(device.cellItemBegin, boxes.cellItemBegin.data(), boxes.cellItemBegin.size() * sizeof(std::int64_t));
  view.items = device.items.As<const MetricWorkItem>();
  view.cellItemBegin = device.cellItemBegin.As<const std::int64_t>();
}

MetricUpload::~MetricUpload()
{
  if (m_Copied != nullptr)
  {
    cudaEventSynchronize(static_cast<cudaEvent_t>(m_Copied)); // the copy must leave the host memory first
    cudaEventDestroy(static_cast<cudaEvent_t>(m_Copied));
  }
}

void *
MetricUpload::Host(std::size_t bytes)
{
  if (m_Copied != nullptr)
  {
    CIF_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(m_Copied)));
  }
  if (bytes > m_Host.Bytes())
  {
    m_Host.Reserve(bytes);
  }
  return m_Host.Data();
}

const void *
MetricUpload::Send(std::size_t bytes)
{
  if (bytes > m_Host.Bytes())
  {
    throw CudaError("MetricUpload: " + std::to_string(bytes) + " bytes sent, " + std::to_string(m_Host.Bytes()) +
                    " staged");
  }
  if (m_Device.Bytes() < std::max<std::size_t>(1, bytes))
  {
    // Stream-ordered: kernels of an earlier evaluation may still read the old copy.
    CIF_CUDA_CHECK(cudaStreamSynchronize(0));
    m_Device.Allocate(std::max<std::size_t>(1, bytes));
  }
  if (bytes > 0)
  {
    CIF_CUDA_CHECK(cudaMemcpyAsync(m_Device.Data(), m_Host.Data(), bytes, cudaMemcpyHostToDevice, 0));
    // Host() waits for it.
    if (m_Copied == nullptr)
    {
      cudaEvent_t event = nullptr;
      CIF_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
      m_Copied = event;
    }
    CIF_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(m_Copied), 0));
  }
  return m_Device.Data();
}

namespace
{
/** cuStreamWriteValue32, found through the runtime once (no link to the driver
 * library, which machines without a GPU lack); null where the driver has none. */
using StreamWriteValue32 = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

StreamWriteValue32
StreamWriteValue()
{
  static StreamWriteValue32 function = [] {
    void *                          found = nullptr;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", &found, CUDART_VERSION, cudaEnableDefault, &status) !=
          cudaSuccess ||
        status != cudaDriverEntryPointSuccess)
    {
      cudaGetLastError();
      found = nullptr;
    }
    return reinterpret_cast<StreamWriteValue32>(found);
  }();
  return function;
}

struct ControlPlaneTesting
{
  bool pipelined = true;
  int  pauseMicroseconds = 0;
};

ControlPlaneTesting &
ControlPlaneTestingBehaviour()
{
  static ControlPlaneTesting behaviour;
  return behaviour;
}

cudaEvent_t
NewEvent()
{
  cudaEvent_t event = nullptr;
  CIF_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  return event;
}
} // namespace

void
ControlPlaneUpload::SetBehaviourForTesting(bool pipelined, int pauseMicroseconds)
{
  ControlPlaneTestingBehaviour() = ControlPlaneTesting{ pipelined, pauseMicroseconds };
}

ControlPlaneUpload::~ControlPlaneUpload()
{
  if (m_Stream != nullptr)
  {
    // The copies must leave the host memory, and the device buffers, first.
    cudaStreamSynchronize(static_cast<cudaStream_t>(m_Stream));
    cudaStreamDestroy(static_cast<cudaStream_t>(m_Stream));
  }
  for (void * event : { m_Earlier, m_Sent })
  {
    if (event != nullptr)
    {
      cudaEventDestroy(static_cast<cudaEvent_t>(event));
    }
  }
  if (m_Arrived != nullptr)
  {
    cudaFree(m_Arrived);
  }
  cudaGetLastError();
}

void
ControlPlaneUpload::Bind(const double * const * host,
                         int                    arrays,
                         std::int64_t           planeValues,
                         std::int64_t           planes,
                         const double **        device)
{
  if (arrays <= 0 || planeValues <= 0 || planes <= 0)
  {
    throw CudaError("ControlPlaneUpload: " + std::to_string(arrays) + " arrays of " + std::to_string(planes) +
                    " planes of " + std::to_string(planeValues) + " values");
  }
  if (m_Stream == nullptr)
  {
    cudaStream_t stream = nullptr;
    CIF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    m_Stream = stream;
    m_Earlier = NewEvent();
    m_Sent = NewEvent();
    // Not from the pool: the driver refuses stream memory operations on the pool's
    // memory (CUDA_ERROR_INVALID_VALUE, driver 580 on an H200).
    void * arrived = nullptr;
    CIF_CUDA_CHECK(cudaMalloc(&arrived, sizeof(unsigned int)));
    m_Arrived = arrived;
    CIF_CUDA_CHECK(cudaMemset(m_Arrived, 0, sizeof(unsigned int)));
    m_Counter = 0;
    // One write before any kernel waits for one: where the driver refuses it, every
    // send goes before its kernels.
    m_CanSignal = StreamWriteValue() != nullptr &&
                  StreamWriteValue()(static_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(m_Arrived), 0u, 0) ==
                    CUDA_SUCCESS;
  }
  const std::size_t bytes = static_cast<std::size_t>(arrays * planeValues * planes) * sizeof(double);
  if (m_Device.Bytes() < bytes)
  {
    // Kernels of an earlier evaluation may still read the old copy, and copies write it.
    CIF_CUDA_CHECK(cudaStreamSynchronize(0));
    CIF_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(m_Stream)));
    m_Device.Allocate(bytes);
  }
  // The pinned memory is free once the previous send's last copy has left it; sized
  // here, before any kernel waits for a send (freeing pinned memory synchronises).
  CIF_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(m_Sent)));
  m_Host.Reserve(bytes);
  const std::size_t arrayValues = static_cast<std::size_t>(planeValues * planes);
  for (int a = 0; a < arrays; ++a)
  {
    device[a] = m_Device.As<const double>() + a * arrayValues;
  }
  m_HostArrays = host;
  m_Arrays = arrays;
  m_PlaneValues = planeValues;
  m_Planes = planes;
  m_Pending = true;
  m_Signalled = false;
}

ControlPlaneArrival
ControlPlaneUpload::Arriving()
{
  if (!m_Pending)
  {
    return {};
  }
  if (!ControlPlaneTestingBehaviour().pipelined || !m_CanSignal)
  {
    this->Send();
    return {};
  }
  this->PlanSend(); // before the kernel that will wait
  m_Arrival.arrived = static_cast<const unsigned int *>(m_Arrived);
  m_Signalled = true;
  return m_Arrival;
}

void
ControlPlaneUpload::PlanSend()
{
  // The copies follow the launch stream's earlier work (kernels of an earlier
  // evaluation read the device copy).
  CIF_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(m_Earlier), 0));
  CIF_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(m_Stream), static_cast<cudaEvent_t>(m_Earlier), 0));
  m_Arrival = ControlPlaneArrival{};
  m_Arrival.base = m_Counter;
  m_Arrival.chunkCount = PlanControlPlaneChunks(m_Planes, m_Arrival.chunkEnd);
}

void
ControlPlaneUpload::Send()
{
  if (!m_Pending)
  {
    return;
  }
  m_Pending = false;
  if (!m_Signalled)
  {
    this->PlanSend();
  }
  this->SendChunks(m_Signalled);
}

void
ControlPlaneUpload::SendChunks(bool signal)
{
  const auto         stream = static_cast<cudaStream_t>(m_Stream);
  const std::size_t  planeBytes = static_cast<std::size_t>(m_PlaneValues) * sizeof(double);
  const std::size_t  arrayBytes = planeBytes * static_cast<std::size_t>(m_Planes);
  const std::int64_t arrayValues = m_PlaneValues * m_Planes;
  auto *             staging = static_cast<double *>(m_Host.Data()); // sized by Bind()
  const int          pause = ControlPlaneTestingBehaviour().pauseMicroseconds;
  std::int64_t       begin = 0;
  for (int chunk = 0; chunk < m_Arrival.chunkCount; ++chunk)
  {
    const std::int64_t end = m_Arrival.chunkEnd[chunk];
    const std::int64_t first = begin * m_PlaneValues, count = (end - begin) * m_PlaneValues;
    for (int a = 0; a < m_Arrays; ++a)
    {
      std::copy_n(m_HostArrays[a] + first, count, staging + a * arrayValues + first);
    }
    // One copy for the chunk's planes of every array: rows of the arrays' pitch.
    CIF_CUDA_CHECK(cudaMemcpy2DAsync(m_Device.As<char>() + begin * planeBytes,
                                     arrayBytes,
                                     reinterpret_cast<const char *>(staging) + begin * planeBytes,
                                     arrayBytes,
                                     (end - begin) * planeBytes,
                                     static_cast<std::size_t>(m_Arrays),
                                     cudaMemcpyHostToDevice,
                                     stream));
    if (signal)
    {
      // Fenced after the copy (the default flags): a block that sees the count sees the planes.
      const CUresult written = StreamWriteValue()(
        stream, reinterpret_cast<CUdeviceptr>(m_Arrived), m_Arrival.base + static_cast<unsigned int>(chunk) + 1u, 0);
      if (written != CUDA_SUCCESS)
      {
        throw CudaError("ControlPlaneUpload: cuStreamWriteValue32 failed (CUresult " + std::to_string(written) + ")");
      }
      m_Counter = m_Arrival.base + static_cast<unsigned int>(chunk) + 1u;
      if (pause > 0)
      {
        std::this_thread::sleep_for(std::chrono::microseconds(pause));
      }
    }
    begin = end;
  }
  CIF_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(m_Sent), stream));
  CIF_CUDA_CHECK(cudaStreamWaitEvent(0, static_cast<cudaEvent_t>(m_Sent), 0));
}

template <typename TValue>
void
ValueRangeOnDevice(const TValue * values, std::int64_t count, TValue & minimum, TValue & maximum)
{
  if (count <= 0 || count >= (std::int64_t(1) << 31)) // CUB counts in int
  {
    throw CudaError("ValueRangeOnDevice: " + std::to_string(count) + " values (1 to 2^31 - 1 taken)");
  }
  DeviceBuffer result(2 * sizeof(TValue));
  auto *       out = result.As<TValue>();
  std::size_t  minBytes = 0, maxBytes = 0;
  CIF_CUDA_CHECK(cub::DeviceReduce::Min(nullptr, minBytes, values, out, static_cast<int>(count)));
  CIF_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, maxBytes, values, out + 1, static_cast<int>(count)));
  DeviceBuffer scratch(std::max<std::size_t>(1, std::max(minBytes, maxBytes)));
  CIF_CUDA_CHECK(cub::DeviceReduce::Min(scratch.Data(), minBytes, values, out, static_cast<int>(count)));
  CIF_CUDA_CHECK(cub::DeviceReduce::Max(scratch.Data(), maxBytes, values, out + 1, static_cast<int>(count)));
  TValue both[2];
  result.Download(both, sizeof(both));
  minimum = both[0];
  maximum = both[1];
}

template void
ValueRangeOnDevice<float>(const float *, std::int64_t, float &, float &);
template void
ValueRangeOnDevice<double>(const double *, std::int64_t, double &, double &);

namespace
{
template <typename TValue>
__global__ void
InterleaveValueAndGradientKernel(const TValue *                 values,
                                 const TValue *                 gradient,
                                 int                            components,
                                 std::int64_t                   count,
                                 MetricFourComponents<TValue> * out)
{
  for (std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < count;
       n += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    MetricFourComponents<TValue> unit;
    unit.value[0] = values[n];
    for (int c = 0; c < 3; ++c)
    {
      unit.value[1 + c] = c < components ? gradient[n * components + c] : TValue(0);
    }
    out[n] = unit;
  }
}
} // namespace

template <typename TValue>
void
InterleaveValueAndGradientOnDevice(const TValue * values,
                                   const TValue * gradient,
                                   int            components,
                                   std::int64_t   count,
                                   TValue *       valueAndGradient)
{
  if (components < 1 || components > 3)
  {
    throw CudaError("InterleaveValueAndGradientOnDevice: " + std::to_string(components) +
                    " gradient components (1 to 3 taken)");
  }
  if (count <= 0)
  {
    return;
  }
  const int          threads = 256;
  const std::int64_t blocks = std::min<std::int64_t>((count + threads - 1) / threads, 65536);
  InterleaveValueAndGradientKernel<TValue><<<static_cast<unsigned int>(blocks), threads>>>(
    values, gradient, components, count, reinterpret_cast<MetricFourComponents<TValue> *>(valueAndGradient));
  CIF_CUDA_CHECK_LAUNCH();
}

template void
InterleaveValueAndGradientOnDevice<float>(const float *, const float *, int, std::int64_t, float *);
template void
InterleaveValueAndGradientOnDevice<double>(const double *, const double *, int, std::int64_t, double *);
} // namespace cif
