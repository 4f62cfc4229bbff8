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
// Device entry points of a build without the CUDA toolkit. The ITK filters never
// call them there (cif::IsGPUAvailable() is false); they exist so the library links.
#include "cifBSplinePrefilterDevice.h"
#include "cifChainedAxisPass.h"
#include "cifScalarTypes.h"
#include "cifCudaRuntime.h"

#include <cstdint>

namespace cif
{
template <typename T>
void
PrefilterOnDevice(T *, const BufferShape &, const SplinePoles &, BoundaryMode, const StageCallback &)
{
  throw CudaError("PrefilterOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
template <typename T>
void
PrefilterOnDevice(const T *, T *, const BufferShape &, const SplinePoles &, BoundaryMode, const StageCallback &)
{
  throw CudaError("PrefilterOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
template <typename T>
void
PrefilterLeadingAxesOnDevice(T *, const BufferShape &, int, const SplinePoles &, BoundaryMode, const StageCallback &)
{
  throw CudaError("PrefilterLeadingAxesOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
template <typename T>
void
PrefilterIntoLayoutOnDevice(const T *,
                            T *,
                            const BufferLayout &,
                            const BufferShape &,
                            const SplinePoles &,
                            BoundaryMode,
                            const StageCallback &)
{
  throw CudaError("PrefilterIntoLayoutOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
void
PrefilterOnDeviceInDouble(const float *,
                          float *,
                          const BufferShape &,
                          const SplinePoles &,
                          BoundaryMode,
                          const StageCallback &)
{
  throw CudaError("PrefilterOnDeviceInDouble: CudaImageFilters was built without the CUDA toolkit");
}
template <typename TIn, typename T>
void
ConvertOnDevice(const TIn *, T *, std::int64_t)
{
  throw CudaError("ConvertOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

template <typename T>
void
PrefilterChainedAxisOnDevice(const ChainedAxisPart *,
                             int,
                             const BufferShape &,
                             const SplinePoles &,
                             BoundaryMode,
                             unsigned int,
                             double)
{
  throw CudaError("PrefilterChainedAxisOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
void
ChainedAxisMailbox::Allocate(std::int64_t, int, std::size_t)
{
  throw CudaError("ChainedAxisMailbox: CudaImageFilters was built without the CUDA toolkit");
}

CIF_INSTANTIATE_PREFILTER(float)
CIF_INSTANTIATE_PREFILTER(double)
CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_CONVERT)
CIF_INSTANTIATE_CHAINED_AXIS(float)
CIF_INSTANTIATE_CHAINED_AXIS(double)
} // namespace cif
