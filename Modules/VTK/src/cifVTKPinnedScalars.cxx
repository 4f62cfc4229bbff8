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
#include "cifVTKPinnedScalars.h"

#include "cifPinnedHostMemory.h"

#include "vtkDataArray.h"
#include "vtkImageData.h"
#include "vtkPointData.h"
#include "vtkSmartPointer.h"

#include <cstring>

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

/** An array like \a scalars (type, name, components, tuples) whose memory is pinned,
 * its values not set; null where the memory cannot be had. */
vtkSmartPointer<vtkDataArray>
PinnedArrayLike(vtkDataArray * scalars, std::size_t bytes)
{
  vtkSmartPointer<vtkDataArray> pinned;
  pinned.TakeReference(vtkDataArray::CreateDataArray(scalars->GetDataType()));
  void * memory = pinned ? AllocatePinnedHostMemory(bytes) : nullptr;
  if (memory == nullptr)
  {
    return nullptr;
  }
  pinned->SetNumberOfComponents(scalars->GetNumberOfComponents());
  pinned->SetName(scalars->GetName());
  pinned->SetVoidArray(memory, scalars->GetNumberOfValues(), 0, vtkAbstractArray::VTK_DATA_ARRAY_USER_DEFINED);
  pinned->SetArrayFreeFunction(&FreePinned);
  return pinned;
}

std::size_t
BytesOf(vtkDataArray * scalars)
{
  return static_cast<std::size_t>(scalars->GetNumberOfValues()) * scalars->GetDataTypeSize();
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
  const std::size_t bytes = BytesOf(scalars);
  if (bytes < GetPinnedOutputMinimumBytes() || IsPageLockedHostMemory(scalars->GetVoidPointer(0)))
  {
    return scalars;
  }
  const vtkSmartPointer<vtkDataArray> pinned = PinnedArrayLike(scalars, bytes);
  if (!pinned)
  {
    return scalars;
  }
  image->GetPointData()->SetScalars(pinned);
  return pinned;
}

vtkDataArray *
PinScalars(vtkImageData * image)
{
  vtkDataArray * scalars = image ? image->GetPointData()->GetScalars() : nullptr;
  if (scalars == nullptr || scalars->GetNumberOfValues() == 0 || IsPageLockedHostMemory(scalars->GetVoidPointer(0)))
  {
    return scalars;
  }
  const std::size_t                   bytes = BytesOf(scalars);
  const vtkSmartPointer<vtkDataArray> pinned = PinnedArrayLike(scalars, bytes);
  if (!pinned)
  {
    return scalars;
  }
  std::memcpy(pinned->GetVoidPointer(0), scalars->GetVoidPointer(0), bytes);
  image->GetPointData()->SetScalars(pinned);
  return pinned;
}
} // namespace vtkmath
} // namespace cif
