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
#include "vtkCudaImageBSplineCoefficients.h"

#include "cifBSplinePrefilterDevice.h"
#include "cifBSplinePrefilterHost.h"
#include "cifCudaRuntime.h"
#include "cifDeviceBuffer.h"
#include "cifVTKParallelFor.h"
#include "cifVTKPinnedScalars.h"
#include "cifVTKSplinePoles.h"
#include "vtkCudaDeviceArray.h"

#include "vtkDataArray.h"
#include "vtkImageData.h"
#include "vtkInformation.h"
#include "vtkInformationVector.h"
#include "vtkObjectFactory.h"
#include "vtkPointData.h"
#include "vtkStreamingDemandDrivenPipeline.h"

#include <cstring>

vtkStandardNewMacro(vtkCudaImageBSplineCoefficients);

namespace
{
/** Why the module cannot compute this execution itself, or nullptr. */
const char *
WhyNotServed(vtkCudaImageBSplineCoefficients * self, vtkImageData * input, vtkInformation * outInfo)
{
  if (self->GetBypass())
  {
    return "Bypass is on (the superclass passes the input through)";
  }
  if (self->GetSplineDegree() != 3)
  {
    return "the spline degree is not 3";
  }
  if (!input || !input->GetPointData()->GetScalars())
  {
    return "the input has no scalars";
  }
  const int * e = input->GetExtent();
  if (e[1] < e[0] || e[3] < e[2] || e[5] < e[4])
  {
    return "the input is empty";
  }
  int whole[6];
  outInfo->Get(vtkStreamingDemandDrivenPipeline::WHOLE_EXTENT(), whole);
  if (!std::equal(whole, whole + 6, e))
  {
    return "the input's extent is not its whole extent";
  }
  return nullptr;
}

cif::BufferShape
ShapeOf(vtkImageData * image)
{
  const int *      e = image->GetExtent();
  cif::BufferShape shape;
  shape.dimension = 3;
  for (int a = 0; a < 3; ++a)
  {
    shape.size[a] = static_cast<std::int64_t>(e[2 * a + 1]) - e[2 * a] + 1;
  }
  shape.components = image->GetNumberOfScalarComponents();
  return shape;
}
} // namespace

void
vtkCudaImageBSplineCoefficients::PrintSelf(ostream & os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent << "UseGPU: " << (this->UseGPU ? "On\n" : "Off\n");
  os << indent << "KeepOutputOnDevice: " << (this->KeepOutputOnDevice ? "On\n" : "Off\n");
  os << indent << "LastExecutionPath: " << this->GetLastExecutionPathAsString() << "\n";
}

int
vtkCudaImageBSplineCoefficients::RequestData(vtkInformation *        request,
                                             vtkInformationVector ** inputVector,
                                             vtkInformationVector *  outputVector)
{
  vtkInformation * inInfo = inputVector[0]->GetInformationObject(0);
  vtkInformation * outInfo = outputVector->GetInformationObject(0);
  auto *           input = vtkImageData::SafeDownCast(inInfo->Get(vtkDataObject::DATA_OBJECT()));
  auto *           output = vtkImageData::SafeDownCast(outInfo->Get(vtkDataObject::DATA_OBJECT()));
  vtkDataArray *   inScalars = input ? input->GetPointData()->GetScalars() : nullptr;

  if (const char * why = WhyNotServed(this, input, outInfo))
  {
    this->FallbackReason = why;
    this->LastExecutionPath = VTK_CUDA_PATH_VTK;
    vtkCudaDeviceArray::SynchronizeHost(inScalars); // the superclass reads the host copy
    return this->Superclass::RequestData(request, inputVector, outputVector);
  }
  this->FallbackReason.clear();

  // The output as the superclass makes it: the whole extent, float or double.
  if (this->DataWasPassed)
  {
    output->GetPointData()->SetScalars(nullptr);
    this->DataWasPassed = 0;
  }
  output->SetExtent(input->GetExtent());
  const vtkDataArray * scalarsBefore = output->GetPointData()->GetScalars();
  output->AllocateScalars(outInfo);
  vtkDataArray * outScalars = output->GetPointData()->GetScalars();
  vtkCudaDeviceArray::Discard(outScalars); // new values follow; an old device copy is void
  const cif::BufferShape     shape = ShapeOf(output);
  const std::size_t          count = static_cast<std::size_t>(shape.ScalarCount());
  const bool                 isFloat = output->GetScalarType() == VTK_FLOAT;
  const std::size_t          bytes = count * (isFloat ? sizeof(float) : sizeof(double));
  const cif::SplinePoles     poles = cif::vtkmath::MakeVTKSplinePoles(3);
  const cif::BoundaryMode    mode = cif::vtkmath::PrefilterBoundaryOfVTKBorder(this->BorderMode);
  const bool                 sameType = inScalars->GetDataType() == output->GetScalarType();
  vtkCudaDeviceArray * const inDevice = sameType ? vtkCudaDeviceArray::Get(inScalars) : nullptr;

  if (this->UseGPU && cif::IsGPUAvailable())
  {
    if (!this->KeepOutputOnDevice && sameType)
    {
      // Downloaded into: from the second update on in pinned memory (cifVTKPinnedScalars.h).
      outScalars = cif::vtkmath::PinReusedScalars(output, outScalars == scalarsBefore);
    }
    try
    {
      cif::RequireDeviceMemory(bytes, "vtkCudaImageBSplineCoefficients: the coefficients");
      cif::DeviceBuffer coefficients(bytes);
      const void *      source = coefficients.Data();
      if (inDevice)
      {
        source = inDevice->GetDeviceData(); // already on the device: filtered out of place
      }
      else if (sameType)
      {
        coefficients.Upload(inScalars->GetVoidPointer(0), bytes);
      }
      else
      {
        outScalars->DeepCopy(inScalars); // VTK's own conversion to the output type
        coefficients.Upload(outScalars->GetVoidPointer(0), bytes);
      }
      if (isFloat)
      {
        cif::PrefilterOnDeviceInDouble(
          static_cast<const float *>(source), coefficients.As<float>(), shape, poles, mode);
      }
      else
      {
        cif::PrefilterOnDevice<double>(
          static_cast<const double *>(source), coefficients.As<double>(), shape, poles, mode);
      }
      if (this->KeepOutputOnDevice)
      {
        vtkCudaDeviceArray::AttachBuffer(outScalars, std::move(coefficients));
      }
      else
      {
        coefficients.Download(outScalars->GetVoidPointer(0), bytes);
      }
    }
    catch (const cif::CudaError & e)
    {
      vtkErrorMacro(<< "RequestData: " << e.what());
      return 0;
    }
    this->LastExecutionPath = VTK_CUDA_PATH_GPU;
    return 1;
  }

  // CPU path: the same line code, each line in double, threaded by vtkSMPTools.
  vtkCudaDeviceArray::SynchronizeHost(inScalars);
  if (sameType)
  {
    std::memcpy(outScalars->GetVoidPointer(0), inScalars->GetVoidPointer(0), bytes);
  }
  else
  {
    outScalars->DeepCopy(inScalars);
  }
  if (isFloat)
  {
    cif::PrefilterOnHostComputingIn<double>(
      static_cast<float *>(outScalars->GetVoidPointer(0)), shape, poles, mode, cif::vtkmath::SMPParallelFor());
  }
  else
  {
    cif::PrefilterOnHostComputingIn<double>(
      static_cast<double *>(outScalars->GetVoidPointer(0)), shape, poles, mode, cif::vtkmath::SMPParallelFor());
  }
  this->LastExecutionPath = VTK_CUDA_PATH_CPU;
  return 1;
}
