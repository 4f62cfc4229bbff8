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
#include "vtkCudaHostBufferOwner.h"

#include "vtkDataArray.h"
#include "vtkInformation.h"
#include "vtkInformationObjectBaseKey.h"
#include "vtkObjectFactory.h"

vtkStandardNewMacro(vtkCudaHostBufferOwner);
vtkInformationKeyMacro(vtkCudaHostBufferOwner, HOST_BUFFER_OWNER, ObjectBase);

void
vtkCudaHostBufferOwner::PrintSelf(ostream & os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent << "Owner: " << (this->Owner ? "set" : "none") << "\n";
}

void
vtkCudaHostBufferOwner::Attach(vtkDataArray * array, std::shared_ptr<void> owner)
{
  if (!array)
  {
    return;
  }
  vtkCudaHostBufferOwner * holder = vtkCudaHostBufferOwner::New();
  holder->Owner = std::move(owner);
  array->GetInformation()->Set(HOST_BUFFER_OWNER(), holder);
  holder->Delete();
}
