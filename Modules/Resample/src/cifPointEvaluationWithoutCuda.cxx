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
// The device entry point of point evaluation in a build without the CUDA toolkit. The
// ITK evaluator never calls it there (cif::IsGPUAvailable() is false); it exists so
// the library links.
#include "cifCudaRuntime.h"
#include "cifPointEvaluationDevice.h"

namespace cif
{
template <int D, typename TCoefficient>
void
EvaluatePhysicalPointsOnDevice(const TCoefficient *,
                               const CoefficientGrid &,
                               const ImageFrame &,
                               const double *,
                               std::int64_t,
                               double *,
                               double *,
                               PointOrder,
                               const OutsideRule &)
{
  throw CudaError("EvaluatePhysicalPointsOnDevice: CudaImageFilters was built without the CUDA toolkit");
}

CIF_FOR_EACH_POINT_DIMENSION(CIF_INSTANTIATE_PHYSICAL_POINTS)
} // namespace cif
