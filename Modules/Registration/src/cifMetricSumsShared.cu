// The metrics' device entry points that do not depend on the image instance (see
// cifMetricSumsKernels.cuh).
#include "cifMetricSumsKernels.cuh"

#include "cifCudaRuntime.h"

#include <cub/device/device_reduce.cuh>
#include <string>

namespace cif
{
MattesSummary
ReadBackMattesSummary(MetricDeviceWorkspace & workspace, bool readNow)
{
  const double * host =
    readNow ? ReadBack(workspace, kReadbackSums) : workspace.readbackHost.As<double>(kReadbackSums);
  MattesSummary summary;
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
MetricUpload::SendPart(std::size_t begin, std::size_t end, std::size_t total)
{
  if (begin > end || end > total || total > m_Host.Bytes())
  {
    throw CudaError("MetricUpload: part [" + std::to_string(begin) + ", " + std::to_string(end) + ") of " +
                    std::to_string(total) + " bytes, " + std::to_string(m_Host.Bytes()) + " staged");
  }
  if (begin == 0 && m_Device.Bytes() < std::max<std::size_t>(1, total))
  {
    // Stream-ordered: kernels of an earlier evaluation may still read the old copy.
    CIF_CUDA_CHECK(cudaStreamSynchronize(0));
    m_Device.Allocate(std::max<std::size_t>(1, total));
  }
  if (m_Device.Bytes() < total)
  {
    throw CudaError("MetricUpload: a part of " + std::to_string(total) + " bytes sent before its first part");
  }
  if (end > begin)
  {
    CIF_CUDA_CHECK(cudaMemcpyAsync(static_cast<char *>(m_Device.Data()) + begin,
                                   static_cast<const char *>(m_Host.Data()) + begin, end - begin,
                                   cudaMemcpyHostToDevice, 0));
  }
  if (end == total && total > 0)
  {
    // After the last part: Host() waits for it (an event a part would cost each part
    // a call).
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

template void ValueRangeOnDevice<float>(const float *, std::int64_t, float &, float &);
template void ValueRangeOnDevice<double>(const double *, std::int64_t, double &, double &);

namespace
{
template <typename TValue>
__global__ void
InterleaveValueAndGradientKernel(const TValue * values, const TValue * gradient, int components, std::int64_t count,
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
InterleaveValueAndGradientOnDevice(const TValue * values, const TValue * gradient, int components,
                                   std::int64_t count, TValue * valueAndGradient)
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

template void InterleaveValueAndGradientOnDevice<float>(const float *, const float *, int, std::int64_t, float *);
template void InterleaveValueAndGradientOnDevice<double>(const double *, const double *, int, std::int64_t, double *);
} // namespace cif
