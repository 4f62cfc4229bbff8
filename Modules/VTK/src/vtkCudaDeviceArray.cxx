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
#include "vtkCudaDeviceArray.h"

#include "vtkDataArray.h"
#include "vtkInformation.h"
#include "vtkInformationObjectBaseKey.h"
#include "vtkObjectFactory.h"

vtkStandardNewMacro(vtkCudaDeviceArray);
vtkInformationKeyMacro(vtkCudaDeviceArray, DEVICE_ARRAY, ObjectBase);

namespace
{
/** A device buffer of this library holding the values of one array. */
class OwnedBuffer : public vtkCudaDeviceArray::Storage
{
public:
  OwnedBuffer(vtkDataArray * array, cif::DeviceBuffer && buffer)
    : Array(array)
    , Buffer(std::move(buffer))
  {}
  const void *
  DeviceData() override
  {
    return this->Buffer.Data();
  }
  bool
  HostIsCurrent() const override
  {
    return this->HostCurrent;
  }
  void
  SynchronizeHost() override
  {
    if (!this->HostCurrent)
    {
      // the array owns this object through its information, so it outlives it
      this->Buffer.Download(this->Array->GetVoidPointer(0), this->Buffer.Bytes());
      this->HostCurrent = true;
    }
  }

private:
  vtkDataArray *    Array;
  cif::DeviceBuffer Buffer;
  bool              HostCurrent = false;
};
} // namespace

void
vtkCudaDeviceArray::PrintSelf(ostream & os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent << "HostIsCurrent: " << (this->GetHostIsCurrent() ? "true" : "false") << "\n";
}

void
vtkCudaDeviceArray::Attach(vtkDataArray * array, std::shared_ptr<Storage> storage)
{
  if (!array)
  {
    return;
  }
  vtkCudaDeviceArray * device = vtkCudaDeviceArray::New();
  device->DeviceStorage = std::move(storage);
  array->GetInformation()->Set(DEVICE_ARRAY(), device);
  device->AttachedArray = array;
  device->ArrayTimeWhenAttached = array->GetMTime();
  device->Delete();
}

void
vtkCudaDeviceArray::AttachBuffer(vtkDataArray * array, cif::DeviceBuffer && buffer)
{
  Attach(array, std::make_shared<OwnedBuffer>(array, std::move(buffer)));
}

vtkCudaDeviceArray *
vtkCudaDeviceArray::Get(vtkDataArray * array)
{
  if (!array || !array->HasInformation())
  {
    return nullptr;
  }
  auto * device = vtkCudaDeviceArray::SafeDownCast(array->GetInformation()->Get(DEVICE_ARRAY()));
  if (!device || !device->DeviceStorage || device->AttachedArray != array ||
      array->GetMTime() > device->ArrayTimeWhenAttached)
  {
    return nullptr;
  }
  return device;
}

void
vtkCudaDeviceArray::SynchronizeHost(vtkDataArray * array)
{
  if (vtkCudaDeviceArray * device = Get(array))
  {
    device->DeviceStorage->SynchronizeHost();
  }
}

void
vtkCudaDeviceArray::Detach(vtkDataArray * array)
{
  if (!array || !array->HasInformation())
  {
    return;
  }
  SynchronizeHost(array);
  array->GetInformation()->Remove(DEVICE_ARRAY());
}

void
vtkCudaDeviceArray::Discard(vtkDataArray * array)
{
  if (array && array->HasInformation())
  {
    array->GetInformation()->Remove(DEVICE_ARRAY());
  }
}

const void *
vtkCudaDeviceArray::GetDeviceData()
{
  return this->DeviceStorage ? this->DeviceStorage->DeviceData() : nullptr;
}

bool
vtkCudaDeviceArray::GetHostIsCurrent() const
{
  return !this->DeviceStorage || this->DeviceStorage->HostIsCurrent();
}
