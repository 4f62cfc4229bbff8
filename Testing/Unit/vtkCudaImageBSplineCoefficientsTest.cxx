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
// vtkCudaImageBSplineCoefficients against vtkImageBSplineCoefficients (VTK's CPU
// class, run in the same test): every border mode, float and double output, 1-D to
// 3-D extents starting away from 0, lengths around VTK's switch from the exact to
// the truncated causal start (16 and 28), several components, integer inputs,
// random and smooth data. Criteria: float output within 1e-6 of the input's scale
// (its range, or its largest magnitude where larger: cifVTKTestSupport.h), double
// within 1e-12 of it. Each test runs on the CPU path and on the GPU. Both sides
// compute in double and round to float once per axis, so they agree to the bit but
// where the two double results straddle a float rounding point (one ulp).
#include "cifPinnedHostMemory.h"
#include "cifVTKPinnedScalars.h"
#include "cifVTKTestSupport.h"
#include "vtkCudaDeviceArray.h"
#include "vtkCudaImageBSplineCoefficients.h"

#include "vtkImageBSplineCoefficients.h"
#include "vtkNew.h"

#include <cstring>
#include <iostream>
#include <vector>

namespace
{
using namespace cif_test;

struct Case
{
  std::array<int, 6> extent;
  int                components;
};

const char *
BorderName(int border)
{
  return border == VTK_IMAGE_BORDER_CLAMP ? "clamp" : border == VTK_IMAGE_BORDER_REPEAT ? "repeat" : "mirror";
}

/** The largest error seen, per output type, as a fraction of the input's scale
 * (printed by the tests: the README's accuracy table). */
struct Worst
{
  double asFloat = 0, asDouble = 0;
  ~Worst()
  {
    std::cout << "largest |difference| / input scale: float output " << asFloat << ", double output " << asDouble
              << std::endl;
  }
};

/** Runs both classes on one input and compares. */
void
CheckAgainstVTK(Worst & worst, vtkImageData * input, int border, int outputType, bool gpu, const std::string & what)
{
  SCOPED_TRACE(testing::Message() << what << ", border " << BorderName(border) << ", output "
                                  << (outputType == VTK_FLOAT ? "float" : "double") << ", extent "
                                  << ExtentString(input) << ", components " << input->GetNumberOfScalarComponents());
  vtkNew<vtkImageBSplineCoefficients> reference;
  reference->SetInputData(input);
  reference->SetBorderMode(border);
  reference->SetOutputScalarType(outputType);
  reference->Update();

  vtkNew<vtkCudaImageBSplineCoefficients> tested;
  tested->SetInputData(input);
  tested->SetBorderMode(border);
  tested->SetOutputScalarType(outputType);
  tested->SetUseGPU(gpu);
  tested->Update();
  EXPECT_EQ(tested->GetLastExecutionPath(), gpu ? VTK_CUDA_PATH_GPU : VTK_CUDA_PATH_CPU) << tested->GetFallbackReason();

  vtkImageData * a = tested->GetOutput();
  vtkImageData * b = reference->GetOutput();
  ASSERT_EQ(ExtentString(a), ExtentString(b));
  ASSERT_EQ(a->GetScalarType(), b->GetScalarType());
  ASSERT_EQ(a->GetNumberOfScalarComponents(), b->GetNumberOfScalarComponents());
  EXPECT_STREQ(a->GetPointData()->GetScalars()->GetName(), b->GetPointData()->GetScalars()->GetName());
  for (int i = 0; i < 3; ++i)
  {
    EXPECT_EQ(a->GetSpacing()[i], b->GetSpacing()[i]);
    EXPECT_EQ(a->GetOrigin()[i], b->GetOrigin()[i]);
  }
  const ErrorStats stats = CompareImages(a, b);
  const double     range = ValueRange(input);
  const double     tolerance = (outputType == VTK_FLOAT ? 1e-6 : 1e-12) * range;
  EXPECT_LE(stats.maxAbs, tolerance) << stats << ", input scale " << range;
  double & w = outputType == VTK_FLOAT ? worst.asFloat : worst.asDouble;
  w = std::max(w, stats.maxAbs / range);
}

const Case kCases[] = {
  { { -7, 292, 0, 0, 0, 0 }, 1 },   // 1-D, long line (truncated start), not at 0
  { { 3, 4, 0, 0, 0, 0 }, 1 },      // 1-D, two samples
  { { 5, 37, -3, 14, 0, 0 }, 1 },   // 2-D: 33 x 18
  { { 2, 21, 3, 19, -4, 4 }, 1 },   // 3-D: 20 x 17 x 9
  { { 0, 15, 0, 16, 0, 27 }, 2 },   // lengths 16, 17, 28: VTK's exact/truncated switches
  { { 0, 28, 1, 1, 0, 29 }, 3 },    // 29 x 1 x 30, three components
  { { -10, 30, -5, 25, 1, 26 }, 1 } // 41 x 31 x 26
};

CIF_VTK_TEST_BOTH_PATHS(VTKCoefficients, MatchVTKInEveryBorderModeAndOutputType)
{
  Worst worst;
  for (Content content : { Content::Random, Content::Smooth })
  {
    for (const Case & c : kCases)
    {
      const std::uint32_t seed = FreshSeed();
      auto                input = MakeVTKImage(c.extent, VTK_FLOAT, c.components, content, seed);
      for (int border : { VTK_IMAGE_BORDER_CLAMP, VTK_IMAGE_BORDER_REPEAT, VTK_IMAGE_BORDER_MIRROR })
      {
        for (int type : { VTK_FLOAT, VTK_DOUBLE })
        {
          CheckAgainstVTK(worst,
                          input,
                          border,
                          type,
                          gpu,
                          std::string(ToString(content)) + " float input, seed " + std::to_string(seed));
        }
      }
    }
  }
}

CIF_VTK_TEST_BOTH_PATHS(VTKCoefficients, ConvertIntegerAndDoubleInputsAsVTKDoes)
{
  Worst worst;
  for (int inputType : { VTK_UNSIGNED_CHAR, VTK_SHORT, VTK_DOUBLE })
  {
    const std::uint32_t seed = FreshSeed();
    auto                input = MakeVTKImage({ 1, 30, -2, 20, 0, 11 }, inputType, 1, Content::Random, seed, 0.0, 250.0);
    for (int type : { VTK_FLOAT, VTK_DOUBLE })
    {
      CheckAgainstVTK(worst,
                      input,
                      VTK_IMAGE_BORDER_MIRROR,
                      type,
                      gpu,
                      std::string("input type ") + input->GetScalarTypeAsString() + ", seed " + std::to_string(seed));
    }
  }
}

CIF_VTK_TEST_BOTH_PATHS(VTKCoefficients, GoToVTKForWhatTheyDoNotServe)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto input = MakeVTKImage({ 0, 12, 0, 9, 0, 7 }, VTK_FLOAT, 1, Content::Random, seed);
  for (int degree : { 2, 5 })
  {
    vtkNew<vtkImageBSplineCoefficients> reference;
    reference->SetInputData(input);
    reference->SetSplineDegree(degree);
    reference->Update();
    vtkNew<vtkCudaImageBSplineCoefficients> tested;
    tested->SetInputData(input);
    tested->SetSplineDegree(degree);
    tested->SetUseGPU(gpu);
    tested->Update();
    EXPECT_EQ(tested->GetLastExecutionPath(), VTK_CUDA_PATH_VTK);
    EXPECT_EQ(CompareImages(tested->GetOutput(), reference->GetOutput()).maxAbs, 0.0) << "degree " << degree;
  }
  vtkNew<vtkCudaImageBSplineCoefficients> bypass;
  bypass->SetInputData(input);
  bypass->BypassOn();
  bypass->SetUseGPU(gpu);
  bypass->Update();
  EXPECT_EQ(bypass->GetLastExecutionPath(), VTK_CUDA_PATH_VTK);
  EXPECT_EQ(bypass->GetOutput()->GetPointData()->GetScalars(), input->GetPointData()->GetScalars());
}

CIF_VTK_TEST_BOTH_PATHS(VTKCoefficients, EmptyInputBehavesAsInVTK)
{
  // VTK's class reports no error for an image without voxels (it allocates an empty
  // output); the subclass hands such an input to it, and must not crash either.
  for (bool withScalars : { false, true })
  {
    vtkNew<vtkImageData> empty;
    if (withScalars)
    {
      empty->SetExtent(0, -1, 0, -1, 0, -1);
      empty->AllocateScalars(VTK_FLOAT, 1);
    }
    vtkNew<vtkImageBSplineCoefficients> reference;
    vtkNew<ErrorCounter>                referenceErrors;
    reference->AddObserver(vtkCommand::ErrorEvent, referenceErrors);
    reference->SetInputData(empty);
    reference->Update();
    vtkNew<vtkCudaImageBSplineCoefficients> tested;
    vtkNew<ErrorCounter>                    testedErrors;
    tested->AddObserver(vtkCommand::ErrorEvent, testedErrors);
    tested->SetInputData(empty);
    tested->SetUseGPU(gpu);
    tested->Update();
    EXPECT_EQ(tested->GetLastExecutionPath(), VTK_CUDA_PATH_VTK) << "with scalars: " << withScalars;
    EXPECT_EQ(testedErrors->Count, referenceErrors->Count);
    EXPECT_EQ(tested->GetOutput()->GetNumberOfPoints(), reference->GetOutput()->GetNumberOfPoints());
  }
}

CIF_VTK_TEST_BOTH_PATHS(VTKCoefficients, KeepOutputOnDeviceGivesTheSameCoefficients)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto input = MakeVTKImage({ -3, 40, 2, 30, 0, 20 }, VTK_FLOAT, 1, Content::Random, seed);
  vtkNew<vtkImageBSplineCoefficients> reference;
  reference->SetInputData(input);
  reference->Update();
  vtkNew<vtkCudaImageBSplineCoefficients> tested;
  tested->SetInputData(input);
  tested->SetUseGPU(gpu);
  tested->KeepOutputOnDeviceOn();
  tested->Update();
  vtkDataArray * coefficients = tested->GetOutput()->GetPointData()->GetScalars();
  // On the GPU the values stay there (a device copy, host stale); the CPU path has
  // no device and writes the host as usual.
  EXPECT_EQ(vtkCudaDeviceArray::Get(coefficients) != nullptr, gpu);
  vtkCudaDeviceArray::SynchronizeHost(coefficients);
  EXPECT_LE(CompareImages(tested->GetOutput(), reference->GetOutput()).maxAbs, 1e-6 * ValueRange(input));
}

CIF_VTK_TEST_BOTH_PATHS(VTKCoefficients, InputPinnedByTheProgramGivesTheSameCoefficients)
{
  // cif::vtkmath::PinScalars swaps an input's scalars for a pinned copy: the same
  // type, name, components and values, the image's own scalars from then on, the
  // filters' results unchanged. Where there is no device to pin for, nothing changes.
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto input = MakeVTKImage({ -3, 40, 2, 30, 0, 20 }, VTK_FLOAT, 2, Content::Random, seed);
  input->GetPointData()->GetScalars()->SetName("density");
  vtkNew<vtkImageBSplineCoefficients> reference;
  reference->SetInputData(input);
  reference->Update();

  const vtkSmartPointer<vtkDataArray> before = input->GetPointData()->GetScalars();
  const auto *                        first = static_cast<const float *>(before->GetVoidPointer(0));
  const std::vector<float>            values(first, first + before->GetNumberOfValues());
  vtkDataArray * const                pinned = cif::vtkmath::PinScalars(input);
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(pinned, input->GetPointData()->GetScalars());
  EXPECT_EQ(pinned != before.Get(), cif::IsGPUAvailable()) << "pinned where, and only where, a device is usable";
  EXPECT_EQ(cif::IsPageLockedHostMemory(pinned->GetVoidPointer(0)), cif::IsGPUAvailable());
  EXPECT_EQ(pinned->GetDataType(), VTK_FLOAT);
  EXPECT_EQ(pinned->GetNumberOfComponents(), 2);
  EXPECT_EQ(pinned->GetNumberOfTuples(), before->GetNumberOfTuples());
  EXPECT_STREQ(pinned->GetName(), "density");
  EXPECT_EQ(std::memcmp(pinned->GetVoidPointer(0), values.data(), values.size() * sizeof(float)), 0);
  EXPECT_EQ(cif::vtkmath::PinScalars(input), pinned) << "pinned scalars are kept as they are";

  vtkNew<vtkCudaImageBSplineCoefficients> tested;
  tested->SetInputData(input);
  tested->SetUseGPU(gpu);
  tested->Update();
  EXPECT_EQ(tested->GetLastExecutionPath(), gpu ? VTK_CUDA_PATH_GPU : VTK_CUDA_PATH_CPU);
  EXPECT_LE(CompareImages(tested->GetOutput(), reference->GetOutput()).maxAbs, 1e-6 * ValueRange(input));

  vtkNew<vtkImageData> empty;
  EXPECT_EQ(cif::vtkmath::PinScalars(empty), nullptr);
  EXPECT_EQ(cif::vtkmath::PinScalars(nullptr), nullptr);
}
} // namespace
