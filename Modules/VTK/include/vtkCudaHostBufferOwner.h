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
#ifndef vtkCudaHostBufferOwner_h
#define vtkCudaHostBufferOwner_h

#include "CudaImageFiltersVTKExport.h"
#include "vtkObject.h"

#include <memory>

class vtkDataArray;
class vtkInformationObjectBaseKey;

/**
 * @class vtkCudaHostBufferOwner
 * @brief Keeps alive the foreign memory a vtkDataArray wraps without a copy.
 *
 * The ITK -> VTK bridge (cifITKVTKBridge.h) hands an itk::Image's pixel buffer to a
 * vtkDataArray (SetVoidArray with save on: VTK never frees it). The array then holds
 * one of these in its vtkInformation, owning a reference to the ITK pixel container,
 * so the pixels live as long as the array does, whatever happens to the ITK image.
 */
class CudaImageFiltersVTK_EXPORT vtkCudaHostBufferOwner : public vtkObject
{
public:
  static vtkCudaHostBufferOwner *
  New();
  vtkTypeMacro(vtkCudaHostBufferOwner, vtkObject);
  void
  PrintSelf(ostream & os, vtkIndent indent) override;

  static vtkInformationObjectBaseKey *
  HOST_BUFFER_OWNER();

  /** Makes \a array hold \a owner (any object whose lifetime keeps the memory). */
  static void
  Attach(vtkDataArray * array, std::shared_ptr<void> owner);

protected:
  vtkCudaHostBufferOwner() = default;
  ~vtkCudaHostBufferOwner() override = default;

private:
  vtkCudaHostBufferOwner(const vtkCudaHostBufferOwner &) = delete;
  void
  operator=(const vtkCudaHostBufferOwner &) = delete;

  std::shared_ptr<void> Owner;
};

#endif
