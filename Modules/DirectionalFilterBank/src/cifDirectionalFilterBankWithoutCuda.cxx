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
// Directional filter bank entry point of a build without the CUDA toolkit (never
// called there: the filters take the CPU path when no device is usable).
#include "cifCudaRuntime.h"
#include "cifDirectionalFilterBankDevice.h"

namespace cif
{
template <typename T>
void
RunDFBOpsOnDevice(const DFBOp *, std::size_t, T * const *, const T *)
{
  throw CudaError("RunDFBOpsOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
CIF_INSTANTIATE_DFB(float)
CIF_INSTANTIATE_DFB(double)
} // namespace cif
