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
// The neighbourhood correlation's device pass in a build without the CUDA toolkit: never
// called there (cif::IsGPUAvailable() is false); it exists so the library links.
#include "cifCudaRuntime.h"
#include "cifNeighborhoodCorrelation.h"

namespace cif
{
template <int D, typename TValue>
void
NeighborhoodCorrelationOnDevice(const NeighborhoodCorrelationLaunch<TValue> &, double *)
{
  throw CudaError("NeighborhoodCorrelationOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

template void
NeighborhoodCorrelationOnDevice<2, float>(const NeighborhoodCorrelationLaunch<float> &, double *);
template void
NeighborhoodCorrelationOnDevice<2, double>(const NeighborhoodCorrelationLaunch<double> &, double *);
template void
NeighborhoodCorrelationOnDevice<3, float>(const NeighborhoodCorrelationLaunch<float> &, double *);
template void
NeighborhoodCorrelationOnDevice<3, double>(const NeighborhoodCorrelationLaunch<double> &, double *);
} // namespace cif
