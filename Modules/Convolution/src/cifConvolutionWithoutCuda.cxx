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
#include "cifConvolutionDevice.h"
#include "cifCudaRuntime.h"

namespace cif
{
namespace
{
[[noreturn]] void
ThrowNoCuda(const char * what)
{
  throw CudaError(std::string(what) + ": CudaImageFilters was built without the CUDA toolkit");
}
} // namespace

void
ConvolveGeneralOnDevice(const float *, const ConvolutionGeometry &, const float *, float *)
{
  ThrowNoCuda("ConvolveGeneralOnDevice");
}
void
ConvolveSeparableOnDevice(const float *, const ConvolutionGeometry &, const float *, float *, float *)
{
  ThrowNoCuda("ConvolveSeparableOnDevice");
}
template <typename T>
void
ToPlanarOnDevice(const T *, std::int64_t, int, float *)
{
  ThrowNoCuda("ToPlanarOnDevice");
}
template <typename T>
void
FromPlanarOnDevice(const float *, std::int64_t, int, T *)
{
  ThrowNoCuda("FromPlanarOnDevice");
}
void
ZoomOnDevice(const float *, const ZoomGeometry &, float *)
{
  ThrowNoCuda("ZoomOnDevice");
}

CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_PLANAR)
} // namespace cif
