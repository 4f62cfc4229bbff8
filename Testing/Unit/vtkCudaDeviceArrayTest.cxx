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
// The protocol of device copies carried by VTK arrays (vtkCudaDeviceArray), checked
// without a GPU: a stand-in storage keeps the "device" values in host memory and the
// array's own host memory holds NaN until SynchronizeHost copies them over. A
// consumer that forgets to synchronize reads NaN and fails the comparison.
#include "cifVTKTestSupport.h"
#include "vtkCudaDeviceArray.h"
#include "vtkCudaImageBSplineCoefficients.h"
#include "vtkCudaImageReslice.h"

#include "vtkFloatArray.h"
#include "vtkImageBSplineCoefficients.h"
#include "vtkImageBSplineInterpolator.h"
#include "vtkImageInterpolator.h"
#include "vtkImageReslice.h"
#include "vtkInformation.h"
#include "vtkInformationVector.h"
#include "vtkNew.h"
#include "vtkObjectFactory.h"
#include "vtkStreamingDemandDrivenPipeline.h"
#include "vtkTransform.h"

#include <limits>
#include <vector>

namespace
{
using namespace cif_test;

/** "Device" values kept on the host; the array's host memory is stale (NaN). */
class StandInStorage : public vtkCudaDeviceArray::Storage
{
public:
  explicit StandInStorage(vtkDataArray * array)
    : m_Array(array)
    , m_Values(static_cast<float *>(array->GetVoidPointer(0)),
               static_cast<float *>(array->GetVoidPointer(0)) + array->GetNumberOfValues())
  {
    std::fill_n(static_cast<float *>(array->GetVoidPointer(0)),
                array->GetNumberOfValues(),
                std::numeric_limits<float>::quiet_NaN());
  }
  const void *
  DeviceData() override
  {
    return m_Values.data();
  }
  bool
  HostIsCurrent() const override
  {
    return m_HostCurrent;
  }
  void
  SynchronizeHost() override
  {
    std::copy(m_Values.begin(), m_Values.end(), static_cast<float *>(m_Array->GetVoidPointer(0)));
    m_HostCurrent = true;
    ++m_Synchronizations;
  }
  int m_Synchronizations = 0;

private:
  vtkDataArray *     m_Array;
  std::vector<float> m_Values;
  bool               m_HostCurrent = false;
};

/** VTK's prefilter whose output ends up "on the device" (through the stand-in). */
class StandInDevicePrefilter : public vtkImageBSplineCoefficients
{
public:
  static StandInDevicePrefilter *
  New();
  vtkTypeMacro(StandInDevicePrefilter, vtkImageBSplineCoefficients);
  std::shared_ptr<StandInStorage> Storage;

protected:
  int
  RequestData(vtkInformation * request, vtkInformationVector ** in, vtkInformationVector * out) override
  {
    const int      rval = this->Superclass::RequestData(request, in, out);
    auto *         output = vtkImageData::SafeDownCast(out->GetInformationObject(0)->Get(vtkDataObject::DATA_OBJECT()));
    vtkDataArray * scalars = output->GetPointData()->GetScalars();
    this->Storage = std::make_shared<StandInStorage>(scalars);
    vtkCudaDeviceArray::Attach(scalars, this->Storage);
    return rval;
  }
};
vtkStandardNewMacro(StandInDevicePrefilter);

TEST(VTKDeviceArray, ADeviceCopySurvivesThePipelineAndIsSynchronizedBeforeHostReads)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto                 samples = MakeVTKImage({ -4, 27, 3, 26, -2, 17 }, VTK_FLOAT, 1, Content::Random, seed);
  vtkNew<vtkTransform> axes;
  axes->Translate(samples->GetCenter());
  axes->RotateWXYZ(25.0, 0.5, 0.1, 0.8);
  auto run = [&](vtkImageReslice * reslice, vtkAbstractImageInterpolator * interpolator, vtkAlgorithm * source) {
    reslice->SetInterpolator(interpolator);
    reslice->SetInputConnection(source->GetOutputPort());
    reslice->SetResliceAxes(axes->GetMatrix());
    reslice->Update();
  };
  vtkNew<vtkImageBSplineCoefficients> vtkPrefilter;
  vtkPrefilter->SetInputData(samples);
  vtkNew<vtkImageReslice>             reference;
  vtkNew<vtkImageBSplineInterpolator> referenceInterpolator;
  run(reference, referenceInterpolator, vtkPrefilter);

  // the module's CPU path: finds the device copy through the pipeline, synchronizes
  vtkNew<StandInDevicePrefilter> standIn;
  standIn->SetInputData(samples);
  vtkNew<vtkCudaImageReslice>         tested;
  vtkNew<vtkImageBSplineInterpolator> interpolator;
  tested->UseGPUOff();
  run(tested, interpolator, standIn);
  EXPECT_EQ(tested->GetLastExecutionPath(), VTK_CUDA_PATH_CPU);
  EXPECT_EQ(standIn->Storage->m_Synchronizations, 1);
  EXPECT_EQ(CompareImages(tested->GetOutput(), reference->GetOutput()).maxAbs, 0.0);

  // a VTK fallback (another interpolator) synchronizes too
  vtkNew<StandInDevicePrefilter> standIn2;
  standIn2->SetInputData(samples);
  vtkNew<vtkCudaImageReslice>  fallback;
  vtkNew<vtkImageInterpolator> linear;
  run(fallback, linear, standIn2);
  EXPECT_EQ(fallback->GetLastExecutionPath(), VTK_CUDA_PATH_VTK);
  EXPECT_EQ(standIn2->Storage->m_Synchronizations, 1);
  vtkNew<vtkImageReslice>      linearReference;
  vtkNew<vtkImageInterpolator> linear2;
  run(linearReference, linear2, vtkPrefilter);
  EXPECT_EQ(CompareImages(fallback->GetOutput(), linearReference->GetOutput()).maxAbs, 0.0);
}

TEST(VTKDeviceArray, HostWritesAndCopiedInformationRetireTheDeviceCopy)
{
  vtkNew<vtkFloatArray> array;
  array->SetNumberOfValues(10);
  array->FillValue(1.0f);
  vtkCudaDeviceArray::Attach(array, std::make_shared<StandInStorage>(array));
  ASSERT_NE(vtkCudaDeviceArray::Get(array), nullptr);
  vtkNew<vtkFloatArray> copy; // copies the information, not the ownership of the device copy
  copy->DeepCopy(array);
  EXPECT_EQ(vtkCudaDeviceArray::Get(copy), nullptr);
  vtkCudaDeviceArray::SynchronizeHost(array);
  EXPECT_EQ(array->GetValue(3), 1.0f);
  array->SetValue(3, 2.0f);
  array->Modified();
  EXPECT_EQ(vtkCudaDeviceArray::Get(array), nullptr);
}
} // namespace
