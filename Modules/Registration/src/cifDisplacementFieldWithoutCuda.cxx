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
// SyN's field steps on the device in a build without the CUDA toolkit: never called
// there (cif::IsGPUAvailable() is false); they exist so the library links.
#include "cifCudaRuntime.h"
#include "cifDisplacementFieldMath.h"

namespace cif
{
template <typename TFunctor>
void
ForEachVoxelOnDevice(const TFunctor &, std::int64_t)
{
  throw CudaError("ForEachVoxelOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

template <typename TFunctor>
void
ReduceVoxelsOnDevice(const TFunctor &, std::int64_t, double &, double &)
{
  throw CudaError("ReduceVoxelsOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

CIF_INSTANTIATE_FIELD_STEPS(2);
CIF_INSTANTIATE_FIELD_STEPS(3);
} // namespace cif
