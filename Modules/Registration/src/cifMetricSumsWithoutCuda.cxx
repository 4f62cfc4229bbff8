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
// The device entry points of the metrics in a build without the CUDA toolkit. The
// ITK metrics never call them there (cif::IsGPUAvailable() is false); they exist so
// the library links.
#include "cifCudaRuntime.h"
#include "cifMetricSumsDevice.h"

namespace cif
{
template <int D, typename TValue, typename TTerm>
MetricSums
EvaluateMetricSumsOnDevice(const MetricScene<TValue> &,
                           const MetricMovingTransform &,
                           const TTerm &,
                           const MetricPointOrderView *,
                           const double[3],
                           bool,
                           DerivativeScale,
                           MetricDeviceWorkspace &,
                           const double **)
{
  throw CudaError("EvaluateMetricSumsOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

template <int D, typename TValue, typename TTerm>
MetricSums
EvaluateMetricValueSumsOnDevice(const MetricScene<TValue> &,
                                const MetricMovingTransform &,
                                const TTerm &,
                                MetricDeviceWorkspace &)
{
  throw CudaError("EvaluateMetricValueSumsOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

template <int D, typename TValue>
void
MattesFirstPassOnDevice(const MetricScene<TValue> &,
                        const MetricMovingTransform &,
                        const MattesParzen &,
                        MetricDeviceWorkspace &)
{
  throw CudaError("MattesFirstPassOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

MattesSummary
ReadBackMattesSummary(MetricDeviceWorkspace &, bool)
{
  throw CudaError("ReadBackMattesSummary: CudaImageFilters was built without the CUDA toolkit");
}

template <int D, typename TValue>
void
BuildMetricPointOrderOnDevice(const MetricScene<TValue> &, const MetricMovingTransform &, DeviceMetricPointOrder &)
{
  throw CudaError("BuildMetricPointOrderOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

template <int D, typename TValue, typename TTerm>
MetricSums
EvaluateMetricSumsInCellBoxesOnDevice(const MetricScene<TValue> &,
                                      const MetricMovingTransform &,
                                      const TTerm &,
                                      const MetricCellBoxView &,
                                      DerivativeScale,
                                      MetricDeviceWorkspace &,
                                      const double **)
{
  throw CudaError("EvaluateMetricSumsInCellBoxesOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

template <int D, typename TValue>
void
MattesFirstPassInCellBoxesOnDevice(const MetricScene<TValue> &,
                                   const MetricMovingTransform &,
                                   const MattesParzen &,
                                   const MetricCellBoxView &,
                                   MetricDeviceWorkspace &)
{
  throw CudaError("MattesFirstPassInCellBoxesOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

void
UploadMetricCellBoxes(const MetricCellBoxes &, DeviceMetricCellBoxes &)
{
  throw CudaError("UploadMetricCellBoxes: CudaImageFilters was built without the CUDA toolkit");
}

MetricUpload::~MetricUpload() = default;

void *
MetricUpload::Host(std::size_t)
{
  throw CudaError("MetricUpload: CudaImageFilters was built without the CUDA toolkit");
}

const void *
MetricUpload::Send(std::size_t)
{
  throw CudaError("MetricUpload: CudaImageFilters was built without the CUDA toolkit");
}

ControlPlaneUpload::~ControlPlaneUpload() = default;

void
ControlPlaneUpload::Bind(const double * const *, int, std::int64_t, std::int64_t, const double **)
{
  throw CudaError("ControlPlaneUpload: CudaImageFilters was built without the CUDA toolkit");
}

ControlPlaneArrival
ControlPlaneUpload::Arriving()
{
  throw CudaError("ControlPlaneUpload: CudaImageFilters was built without the CUDA toolkit");
}

void
ControlPlaneUpload::Send()
{
  if (m_Pending)
  {
    throw CudaError("ControlPlaneUpload: CudaImageFilters was built without the CUDA toolkit");
  }
}

void
ControlPlaneUpload::SetBehaviourForTesting(bool, int)
{}

template <typename TValue>
void
ValueRangeOnDevice(const TValue *, std::int64_t, TValue &, TValue &)
{
  throw CudaError("ValueRangeOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
template void
ValueRangeOnDevice<float>(const float *, std::int64_t, float &, float &);
template void
ValueRangeOnDevice<double>(const double *, std::int64_t, double &, double &);

template <typename TValue>
void
InterleaveValueAndGradientOnDevice(const TValue *, const TValue *, int, std::int64_t, TValue *)
{
  throw CudaError("InterleaveValueAndGradientOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
template void
InterleaveValueAndGradientOnDevice<float>(const float *, const float *, int, std::int64_t, float *);
template void
InterleaveValueAndGradientOnDevice<double>(const double *, const double *, int, std::int64_t, double *);

CIF_FOR_EACH_METRIC_INSTANCE(CIF_INSTANTIATE_METRIC_SUMS_ON_DEVICE)
} // namespace cif
