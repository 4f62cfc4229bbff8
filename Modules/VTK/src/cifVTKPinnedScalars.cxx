#include "cifVTKPinnedScalars.h"

#include "cifPinnedHostMemory.h"

#include "vtkDataArray.h"
#include "vtkImageData.h"
#include "vtkPointData.h"
#include "vtkSmartPointer.h"

namespace cif
{
namespace vtkmath
{
namespace
{
/** VTK's free function for the pinned arrays (a plain function pointer). */
void
FreePinned(void * memory)
{
  FreePinnedHostMemory(memory);
}
} // namespace

vtkDataArray *
PinReusedScalars(vtkImageData * image, bool reused)
{
  vtkDataArray * scalars = image->GetPointData()->GetScalars();
  if (!reused || scalars == nullptr || scalars->GetNumberOfValues() == 0)
  {
    return scalars;
  }
  const std::size_t bytes = static_cast<std::size_t>(scalars->GetNumberOfValues()) * scalars->GetDataTypeSize();
  if (bytes < GetPinnedOutputMinimumBytes() || IsPageLockedHostMemory(scalars->GetVoidPointer(0)))
  {
    return scalars;
  }
  vtkSmartPointer<vtkDataArray> pinned;
  pinned.TakeReference(vtkDataArray::CreateDataArray(scalars->GetDataType()));
  void * memory = pinned ? AllocatePinnedHostMemory(bytes) : nullptr;
  if (memory == nullptr)
  {
    return scalars;
  }
  pinned->SetNumberOfComponents(scalars->GetNumberOfComponents());
  pinned->SetName(scalars->GetName());
  pinned->SetVoidArray(memory, scalars->GetNumberOfValues(), 0, vtkAbstractArray::VTK_DATA_ARRAY_USER_DEFINED);
  pinned->SetArrayFreeFunction(&FreePinned);
  image->GetPointData()->SetScalars(pinned);
  return pinned;
}
} // namespace vtkmath
} // namespace cif
