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
// Device entry point of a build without the CUDA toolkit. vtkCudaImageReslice never
// calls it there (cif::IsGPUAvailable() is false); it exists so the library links.
#include "cifVTKResliceDevice.h"
#include "cifCudaRuntime.h"

namespace cif
{
namespace vtkmath
{
void
ResliceOnDevice(const ResliceJob &)
{
  throw CudaError("ResliceOnDevice: CudaImageFiltersVTK was built without the CUDA toolkit");
}
} // namespace vtkmath
} // namespace cif
