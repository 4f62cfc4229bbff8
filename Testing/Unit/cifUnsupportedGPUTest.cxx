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
// A GPU that the build has no kernels for (issue: "The GPUs users have"): the
// availability check finds it once, with an empty probe launch, before any work,
// prints one line naming the device's architecture and the built ones, and every
// filter then takes the CPU path. cif::SimulateUnsupportedGPU (a test hook) makes the
// probe fail as on such a GPU, so the case runs here without one, and on a GPU machine
// too.
//
// A binary of its own: the check is made once per process, so the hook must be set
// before anything asks whether a GPU is usable.
#include "cifCudaRuntime.h"
#include "cifDeviceThreads.h"
#include "cifGPUArchitectures.h"
#include "cifSimulatedUnsupportedGPU.h"
#include "cifTestHelpers.h"
#include "itkBSplineDecompositionImageFilter.h"
#include "itkBSplinePrefilterGPUImageFilter.h"

#include <string>

namespace
{
using namespace cif_test;

TEST(GPUArchitectures, ListAndArchitectureWords)
{
  EXPECT_EQ(cif::FormatArchitectureList("750,800,860,890,900"), "sm_75, sm_80, sm_86, sm_89, sm_90");
  EXPECT_EQ(cif::FormatArchitectureList("1000"), "sm_100");
  EXPECT_EQ(cif::FormatArchitectureList(""), "");
  int major = 0, minor = 0;
  EXPECT_TRUE(cif::ParseArchitecture("sm_61", major, minor));
  EXPECT_EQ(major, 6);
  EXPECT_EQ(minor, 1);
  EXPECT_TRUE(cif::ParseArchitecture("120", major, minor));
  EXPECT_EQ(major, 12);
  EXPECT_EQ(minor, 0);
  EXPECT_FALSE(cif::ParseArchitecture("sm_x1", major, minor));
  EXPECT_FALSE(cif::ParseArchitecture("7", major, minor));
  EXPECT_FALSE(cif::ParseArchitecture("", major, minor));

  const std::string line = cif::DescribeGPUWithoutKernels(
    "NVIDIA H100 80GB HBM3", 9, 0, "sm_100", "cudaErrorNoKernelImageForDevice: no kernel image");
  EXPECT_NE(line.find("NVIDIA H100 80GB HBM3 (sm_90)"), std::string::npos) << line;
  EXPECT_NE(line.find("built for sm_100"), std::string::npos) << line;
  EXPECT_NE(line.find("cudaErrorNoKernelImageForDevice"), std::string::npos) << line;
  EXPECT_NE(line.find("-DCMAKE_CUDA_ARCHITECTURES=90"), std::string::npos) << line;
}

TEST(GPUArchitectures, SimulatedArchitectureHookTakesOnlyArchitectures)
{
  // The hook is process-wide: under --gtest_repeat the test below left sm_61 set.
  int        major = 0, minor = 0;
  const bool wasSet = cif::GetSimulatedUnsupportedGPU(major, minor);
  const auto previous = "sm_" + std::to_string(major) + std::to_string(minor);
  ASSERT_TRUE(cif::SimulateUnsupportedGPU(""));
  EXPECT_FALSE(cif::SimulateUnsupportedGPU("sm_x1"));
  EXPECT_FALSE(cif::GetSimulatedUnsupportedGPU(major, minor));
  ASSERT_TRUE(cif::SimulateUnsupportedGPU("sm_75"));
  EXPECT_TRUE(cif::GetSimulatedUnsupportedGPU(major, minor));
  EXPECT_EQ(major, 7);
  EXPECT_EQ(minor, 5);
  ASSERT_TRUE(cif::SimulateUnsupportedGPU(""));
  EXPECT_FALSE(cif::GetSimulatedUnsupportedGPU(major, minor));
  if (wasSet)
  {
    ASSERT_TRUE(cif::SimulateUnsupportedGPU(previous));
  }
}

TEST(UnsupportedGPU, FoundOnceBeforeAnyWorkThenTheCPUPathGivesITKsAnswer)
{
  if (!cif::BuiltWithCuda())
  {
    GTEST_SKIP() << "built without the CUDA toolkit: no probe to fail";
  }
  ASSERT_TRUE(cif::SimulateUnsupportedGPU("sm_61"));

  // The check runs once per process: under --gtest_repeat the later repeats see what
  // the first one printed.
  static const std::string printed = [] {
    testing::internal::CaptureStderr();
    cif::IsGPUAvailable();
    cif::IsGPUAvailable();
    return testing::internal::GetCapturedStderr();
  }();
  const bool available = cif::IsGPUAvailable();
  const bool again = cif::IsGPUAvailable();
  EXPECT_FALSE(available);
  EXPECT_FALSE(again);
  // One line, printed once: the device's architecture, the built ones, the CPU path,
  // and how to rebuild.
  EXPECT_EQ(std::count(printed.begin(), printed.end(), '\n'), 1) << printed;
  EXPECT_NE(printed.find("(sm_61)"), std::string::npos) << printed;
  EXPECT_FALSE(cif::BuiltCudaArchitectures().empty());
  EXPECT_NE(printed.find("built for " + cif::BuiltCudaArchitectures()), std::string::npos) << printed;
  EXPECT_NE(printed.find("using the CPU path"), std::string::npos) << printed;
  EXPECT_NE(printed.find("-DCMAKE_CUDA_ARCHITECTURES=61"), std::string::npos) << printed;
  EXPECT_NE(cif::GetNoDeviceReason().find("(sm_61)"), std::string::npos) << cif::GetNoDeviceReason();
  EXPECT_FALSE(cif::DeviceRunsThisBuildsKernels(0));
  EXPECT_TRUE(cif::DevicesToSpreadOver(0, {}).empty());

  // A filter asked for the GPU runs the CPU path, without an exception, and gives
  // ITK's coefficients.
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  using Image = itk::Image<float, 3>;
  auto image = MakeImage<Image>(itk::Size<3>{ { 23, 17, 19 } }, itk::Index<3>{ { 0, 0, 0 } }, Content::Random, seed);
  auto filter = itk::BSplinePrefilterGPUImageFilter<Image, Image>::New();
  filter->SetInput(image);
  ASSERT_NO_THROW(filter->Update());
  EXPECT_EQ(filter->GetLastExecutionPath(), itk::CudaExecutionPath::CPU);

  auto reference = itk::BSplineDecompositionImageFilter<Image, itk::Image<double, 3>>::New();
  reference->SetInput(image);
  reference->Update();
  const ErrorStats error = Compare(filter->GetOutput()->GetBufferPointer(),
                                   reference->GetOutput()->GetBufferPointer(),
                                   image->GetBufferedRegion().GetNumberOfPixels());
  EXPECT_LE(error.maxAbs, 4e-6 * error.maxRef) << error;
}
} // namespace
