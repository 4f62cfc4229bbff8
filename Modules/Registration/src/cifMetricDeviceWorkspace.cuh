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
// The metric passes' device workspace: its buffers grown, the readback, the coefficients left to arrive.
#ifndef cifMetricDeviceWorkspace_cuh
#define cifMetricDeviceWorkspace_cuh

#include "cifCudaCheck.cuh"
#include "cifMetricSumsDevice.h"

#include <cuda_runtime.h>

#include <chrono>
#include <cstddef>
#include <functional>

namespace cif
{
namespace
{
/** The valid-point count that the work kernels add to for \a scale
 * (DerivativeScale::PerValidPoint), zeroed on the launch stream; null for sums. */
unsigned long long *
ZeroedValidCount(DerivativeScale scale, MetricDeviceWorkspace & workspace)
{
  if (scale != DerivativeScale::PerValidPoint)
  {
    return nullptr;
  }
  if (workspace.validCount.Bytes() < sizeof(unsigned long long))
  {
    workspace.validCount.Allocate(sizeof(unsigned long long));
  }
  CIF_CUDA_CHECK(cudaMemsetAsync(workspace.validCount.Data(), 0, sizeof(unsigned long long), 0));
  return workspace.validCount.As<unsigned long long>();
}

/** What a cell-box pass's first kernel waits on where the workspace's caller left
 * the B-spline's coefficients to arrive while it runs (a null arrival otherwise). */
ControlPlaneArrival
ArrivingCoefficients(MetricDeviceWorkspace & workspace)
{
  return workspace.arrivingCoefficients != nullptr ? workspace.arrivingCoefficients->Arriving() : ControlPlaneArrival{};
}

/** Sends the coefficients left to arrive, after the kernel that waits for them was
 * queued (or where none was); the launch stream's later work waits for them. */
void
SendArrivingCoefficients(MetricDeviceWorkspace & workspace)
{
  if (ControlPlaneUpload * upload = workspace.arrivingCoefficients)
  {
    workspace.arrivingCoefficients = nullptr;
    upload->Send();
  }
}

void
Reserve(DeviceBuffer & buffer, std::size_t bytes)
{
  if (buffer.Bytes() < bytes)
  {
    buffer.Allocate(bytes);
  }
}

/** The readback with room for \a derivativeValues derivative values; what it holds
 * is kept when it grows (a first pass may have written Mattes' summary). */
double *
ReserveReadback(MetricDeviceWorkspace & workspace, std::size_t derivativeValues)
{
  const std::size_t bytes = (kReadbackDerivative + derivativeValues) * sizeof(double);
  if (workspace.readback.Bytes() < bytes)
  {
    DeviceBuffer grown(bytes);
    if (workspace.readback.Bytes() > 0)
    {
      CIF_CUDA_CHECK(cudaMemcpyAsync(
        grown.Data(), workspace.readback.Data(), workspace.readback.Bytes(), cudaMemcpyDeviceToDevice, 0));
    }
    workspace.readback = std::move(grown);
  }
  return workspace.readback.As<double>();
}

/** The readback's first \a values doubles on the host: one copy, into pinned memory,
 * after the host work queued for the device's time. */
const double *
ReadBack(MetricDeviceWorkspace & workspace, std::size_t values)
{
  double * host = workspace.readbackHost.As<double>(values);
  if (workspace.whileTheDeviceWorks)
  {
    const std::function<void()> work = std::move(workspace.whileTheDeviceWorks);
    workspace.whileTheDeviceWorks = nullptr;
    work();
  }
  const auto start = std::chrono::steady_clock::now();
  workspace.readback.Download(host, values * sizeof(double));
  workspace.readbackSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return host;
}
} // namespace
} // namespace cif

#endif
