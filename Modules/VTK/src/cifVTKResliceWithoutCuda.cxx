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
