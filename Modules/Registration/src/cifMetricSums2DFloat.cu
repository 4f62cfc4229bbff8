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
// The metrics' sums on the device for 2-D float images (cifMetricSumsKernels.cuh): a
// CUDA module of its own, loaded only by registrations of this image type.
#include "cifMetricSumsKernels.cuh"

namespace cif
{
CIF_INSTANTIATE_METRIC_SUMS_ON_DEVICE(2, float)
} // namespace cif
