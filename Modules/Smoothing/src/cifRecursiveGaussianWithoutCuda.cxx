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
#include "cifCudaRuntime.h"
#include "cifRecursiveGaussianDevice.h"

namespace cif
{
template <typename TSrc>
void
RecursiveGaussianPassOnDevice(const TSrc *,
                              double *,
                              const GaussianShape &,
                              int,
                              const RecursiveGaussianCoefficients &,
                              const GaussianPassOutput &)
{
  throw CudaError("RecursiveGaussianPassOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
template <typename T>
void
ConvertFromDoubleOnDevice(const double *, T *, std::int64_t)
{
  throw CudaError("ConvertFromDoubleOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
void
RotateCovariantOnDevice(double *, std::int64_t, int, const double *)
{
  throw CudaError("RotateCovariantOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

CIF_INSTANTIATE_RECURSIVE_GAUSSIAN(float)
CIF_INSTANTIATE_RECURSIVE_GAUSSIAN(double)
} // namespace cif
