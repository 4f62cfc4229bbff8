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
#ifndef vtkCudaDeviceArray_h
#define vtkCudaDeviceArray_h

#include "CudaImageFiltersVTKExport.h"
#include "cifDeviceBuffer.h"
#include "vtkObject.h"

#include <cstddef>
#include <memory>

class vtkDataArray;
class vtkInformationObjectBaseKey;

/**
 * @class vtkCudaDeviceArray
 * @brief The device copy of a vtkDataArray's values, carried by the array itself.
 *
 * GPU filters of this module pass data along a VTK pipeline without a host round
 * trip by attaching one of these to the array's vtkInformation (key DEVICE_ARRAY()):
 * vtkCudaImageBSplineCoefficients does it with KeepOutputOnDevice on, and the ITK
 * bridge (cifITKVTKBridge.h) does it for an itk::CudaDeviceImage whose pixels live on the
 * GPU. vtkCudaImageReslice reads such an array on the device, uploading nothing.
 *
 * While the device copy is the current one the array's host memory is stale. Code
 * that reads the array on the host must first call SynchronizeHost(array) (this
 * module's own CPU paths and VTK fallbacks do); code that writes the array on the
 * host must call array->Modified(), which retires the device copy.
 */
class CudaImageFiltersVTK_EXPORT vtkCudaDeviceArray : public vtkObject
{
public:
  static vtkCudaDeviceArray *
  New();
  vtkTypeMacro(vtkCudaDeviceArray, vtkObject);
  void
  PrintSelf(ostream & os, vtkIndent indent) override;

  /** Where the device values live: a buffer this object owns, or another owner's
   * (an itk::CudaDeviceImage's data manager). */
  class Storage
  {
  public:
    virtual ~Storage() = default;
    /** The device values, current (uploaded first if the host held newer ones). */
    virtual const void *
    DeviceData() = 0;
    /** True when the host memory of the array holds the current values. */
    virtual bool
    HostIsCurrent() const = 0;
    /** Brings the host memory of the array up to date. */
    virtual void
    SynchronizeHost() = 0;
  };

  /** The information key under which an array carries its device copy. */
  static vtkInformationObjectBaseKey *
  DEVICE_ARRAY();

  /** Attaches \a storage to \a array as its current device copy (replacing any). */
  static void
  Attach(vtkDataArray * array, std::shared_ptr<Storage> storage);
  /** Attaches \a buffer, which holds \a array's values on the device; the host copy
   * is stale until SynchronizeHost(array) downloads it. */
  static void
  AttachBuffer(vtkDataArray * array, cif::DeviceBuffer && buffer);
  /** The device copy of \a array, or nullptr when there is none, when the array
   * was modified after it was attached (host writes retire it), or when the key came
   * along with information copied from another array. */
  static vtkCudaDeviceArray *
  Get(vtkDataArray * array);
  /** Downloads the device copy of \a array into its host memory if that is stale;
   * does nothing otherwise. */
  static void
  SynchronizeHost(vtkDataArray * array);
  /** Removes the device copy (after SynchronizeHost, so no values are lost). */
  static void
  Detach(vtkDataArray * array);
  /** Removes the device copy without downloading it: for a producer about to write
   * new values into an array it reuses. */
  static void
  Discard(vtkDataArray * array);

  const void *
  GetDeviceData();
  bool
  GetHostIsCurrent() const;

protected:
  vtkCudaDeviceArray() = default;
  ~vtkCudaDeviceArray() override = default;

private:
  vtkCudaDeviceArray(const vtkCudaDeviceArray &) = delete;
  void
  operator=(const vtkCudaDeviceArray &) = delete;

  std::shared_ptr<Storage> DeviceStorage;
  vtkDataArray *           AttachedArray = nullptr; ///< not owned: the array owns this object
  vtkMTimeType             ArrayTimeWhenAttached = 0;
};

#endif
