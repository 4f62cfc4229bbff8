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
