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
// Exact resampling (2-D to 4-D, float and double coefficients) into every output
// scalar type of CIF_FOR_EACH_SCALAR: one CUDA module, which lazy loading loads at
// the first resample. The kernels convert at the store (ScalarOutput), so the module
// holds one kernel family, not one per output type.
#include "cifResampleKernels.cuh"

namespace cif
{
CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_RESAMPLE)
} // namespace cif
