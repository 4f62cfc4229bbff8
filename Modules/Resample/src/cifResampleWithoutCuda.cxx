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
#include "cifResampleDevice.h"
#include "cifScalarTypes.h"

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

template <int D, typename TCoefficient, typename TOut>
void
ResampleOnDevice(const TCoefficient *,
                 const ResampleGeometry &,
                 const TransformChain &,
                 const double *,
                 bool,
                 TOut,
                 TOut *,
                 const ResampleSlabs &,
                 const StageCallback &)
{
  ThrowNoCuda("ResampleOnDevice");
}
template <int D>
void
RowEndpointsOnDevice(const ResampleGeometry &, const TransformChain &, double *)
{
  ThrowNoCuda("RowEndpointsOnDevice");
}
template <int D, typename TOut>
void
DisplacementFieldOnDevice(const ResampleGeometry &,
                          const TransformChain &,
                          TOut *,
                          const ResampleSlabs &,
                          const StageCallback &)
{
  ThrowNoCuda("DisplacementFieldOnDevice");
}
template <int D, typename T>
void
FillMirrorHaloOnDevice(T *, const CoefficientGrid &)
{
  ThrowNoCuda("FillMirrorHaloOnDevice");
}
CIF_INSTANTIATE_MIRROR_HALO
CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_RESAMPLE)
CIF_INSTANTIATE_FIELD(2)
CIF_INSTANTIATE_FIELD(3)
} // namespace cif
