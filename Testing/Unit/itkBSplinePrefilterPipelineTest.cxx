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
// The prefilter inside ITK pipelines: data stays on the device between GPU filters
// (counted transfers), the object factory substitutes the GPU filter for ITK's, and
// repeated updates give the same result.
#include "cifDeviceBuffer.h"
#include "cifPrefilterTestSupport.h"
#include "itkBSplinePrefilterGPUFactory.h"
#include "itkCudaDeviceImage.h"

namespace
{
using namespace cif_test;

/** host image -> prefilter -> CudaDeviceImage -> second GPU prefilter -> CudaDeviceImage -> host:
 * exactly one upload and one download, and the same numbers as the CPU chain. */
TEST(BSplinePrefilterGPU, TwoFilterChainUploadsOnceAndDownloadsOnce)
{
  CIF_REQUIRE_GPU();
  using HostImage = itk::Image<float, 3>;
  using DeviceImage = itk::CudaDeviceImage<float, 3>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto input = MakeImage<HostImage>({ { 64, 48, 40 } }, { { 3, 0, -2 } }, Content::Random, seed);

  auto first = itk::BSplinePrefilterGPUImageFilter<HostImage, DeviceImage>::New();
  first->SetInput(input);
  auto second = itk::BSplinePrefilterGPUImageFilter<DeviceImage, DeviceImage>::New();
  second->SetInput(first->GetOutput());
  second->SetBoundaryMode(cif::BoundaryMode::Periodic);

  cif::TransferCounters::Reset();
  second->Update();
  const DeviceImage * result = second->GetOutput();
  EXPECT_EQ(result->GetDataManager()->GetResidency(), itk::CudaDeviceImageDataManager::Residency::DeviceOnly);
  const float * host = result->GetBufferPointer(); // the one download
  const auto    transfers = cif::TransferCounters::Get();
  EXPECT_EQ(transfers.uploads, 1u);
  EXPECT_EQ(transfers.downloads, 1u);
  EXPECT_EQ(transfers.uploadedBytes, input->GetBufferedRegion().GetNumberOfPixels() * sizeof(float));

  auto cpuFirst = RunPrefilter<HostImage>(input.GetPointer(), Path::CPU);
  auto cpuSecond = RunPrefilter<HostImage>(cpuFirst.GetPointer(), Path::CPU, 3, cif::BoundaryMode::Periodic);
  const ErrorStats stats =
    Compare(host, cpuSecond->GetBufferPointer(), cpuSecond->GetBufferedRegion().GetNumberOfPixels());
  EXPECT_LE(stats.maxAbs, 2e-6 * stats.maxRef) << stats;

  // Reading again downloads nothing more.
  result->GetBufferPointer();
  EXPECT_EQ(cif::TransferCounters::Get().downloads, 1u);
}

/** A CudaDeviceImage fed from the host through a CPU-path filter still works (the host copy
 * is current, the GPU filter uploads it once). */
TEST(BSplinePrefilterGPU, CudaImageWithHostDataIsUploadedOnce)
{
  CIF_REQUIRE_GPU();
  using DeviceImage = itk::CudaDeviceImage<double, 2>;
  auto input = MakeImage<DeviceImage>({ { 77, 31 } }, { { 0, 0 } }, Content::Smooth, FreshSeed());
  cif::TransferCounters::Reset();
  auto gpu = RunPrefilter<itk::Image<double, 2>>(input.GetPointer(), Path::GPU);
  EXPECT_EQ(cif::TransferCounters::Get().uploads, 1u);
  EXPECT_EQ(cif::TransferCounters::Get().downloads, 1u);
  auto             reference = RunITK(input.GetPointer());
  const ErrorStats stats = Compare(gpu->GetBufferPointer(), reference->GetBufferPointer(), 77 * 31);
  EXPECT_LE(stats.maxAbs, 1e-12 * stats.maxRef) << stats;
}

/** After registering the factory, ITK's New() hands out the GPU filter for the
 * supported types and ITK's own filter for the rest; results match ITK's. */
TEST(BSplinePrefilterFactory, SubstitutesTheModuleFilter)
{
  using Image = itk::Image<float, 3>;
  auto input = MakeImage<Image>({ { 21, 22, 23 } }, { { 0, 0, 0 } }, Content::Random, FreshSeed());
  auto reference = RunITK(input.GetPointer()); // before the factory: ITK's own filter

  const ScopedFactory<itk::BSplinePrefilterGPUFactory> factory;
  auto   filter = itk::BSplineDecompositionImageFilter<Image, Image>::New();
  auto * substituted = dynamic_cast<itk::BSplinePrefilterGPUImageFilter<Image, Image> *>(filter.GetPointer());
  ASSERT_NE(substituted, nullptr) << "factory did not substitute " << filter->GetNameOfClass();
  filter->SetInput(input);
  filter->Update();
  using Substituted = itk::BSplinePrefilterGPUImageFilter<Image, Image>;
  EXPECT_NE(substituted->GetLastExecutionPath(), Substituted::ExecutionPath::ITK);
  const ErrorStats stats = Compare(filter->GetOutput()->GetBufferPointer(),
                                   reference->GetBufferPointer(),
                                   input->GetBufferedRegion().GetNumberOfPixels());
  EXPECT_LE(stats.maxAbs, kFloatToleranceOfRange * 200.0) << stats;

  // 5-D is not in the factory: ITK's own class.
  using Image5 = itk::Image<float, 5>;
  auto plain = itk::BSplineDecompositionImageFilter<Image5, Image5>::New();
  EXPECT_STREQ(plain->GetNameOfClass(), "BSplineDecompositionImageFilter");
}

/** RegisterOneFactory registers once however often it is called, and again after the
 * factory was unregistered (so this test also passes when repeated in one process). */
TEST(BSplinePrefilterFactory, RegisterOneFactoryRegistersOnce)
{
  auto count = [] {
    int n = 0;
    for (auto * f : itk::ObjectFactoryBase::GetRegisteredFactories())
    {
      n += dynamic_cast<itk::BSplinePrefilterGPUFactory *>(f) != nullptr;
    }
    return n;
  };
  auto unregister = [] {
    for (auto * f : itk::ObjectFactoryBase::GetRegisteredFactories())
    {
      if (dynamic_cast<itk::BSplinePrefilterGPUFactory *>(f))
      {
        itk::ObjectFactoryBase::UnRegisterFactory(f); // leave ITK's filter to the tests after this one
        return;
      }
    }
  };
  itk::BSplinePrefilterGPUFactory::RegisterOneFactory();
  itk::BSplinePrefilterGPUFactory::RegisterOneFactory();
  EXPECT_EQ(count(), 1);
  unregister();
  EXPECT_EQ(count(), 0);
  itk::BSplinePrefilterGPUFactory::RegisterOneFactory();
  EXPECT_EQ(count(), 1) << "not registered again after it was unregistered";
  unregister();
}

/** Types the module does not handle go to the superclass, never to a wrong answer. */
TEST(BSplinePrefilterCPU, UnhandledTypesFallBackToITK)
{
  using Image7 = itk::Image<float, 7>;
  using Filter = itk::BSplinePrefilterGPUImageFilter<Image7, Image7>;
  static_assert(!Filter::TypesSupported, "7-D is outside the module's kernels");
  auto input = MakeImage<Image7>({ { 4, 3, 5, 2, 3, 1, 2 } }, {}, Content::Random, FreshSeed());
  auto filter = Filter::New();
  filter->SetInput(input);
  filter->Update();
  EXPECT_EQ(filter->GetLastExecutionPath(), Filter::ExecutionPath::ITK);
  auto reference = itk::BSplineDecompositionImageFilter<Image7, Image7>::New();
  reference->SetInput(input);
  reference->Update();
  const ErrorStats stats = Compare(filter->GetOutput()->GetBufferPointer(),
                                   reference->GetOutput()->GetBufferPointer(),
                                   input->GetBufferedRegion().GetNumberOfPixels());
  EXPECT_EQ(stats.maxAbs, 0.0);

  // ...and a mode ITK lacks is refused there rather than silently mirrored.
  auto clamped = Filter::New();
  clamped->SetInput(input);
  clamped->SetBoundaryMode(cif::BoundaryMode::ClampToEdge);
  EXPECT_THROW(clamped->Update(), itk::ExceptionObject);
}

TEST(BSplinePrefilterCPU, RepeatedUpdatesAreStable)
{
  using Image = itk::Image<float, 2>;
  auto input = MakeImage<Image>({ { 40, 30 } }, {}, Content::Random, FreshSeed());
  auto filter = itk::BSplinePrefilterGPUImageFilter<Image, Image>::New();
  filter->SetInput(input);
  filter->SetUseGPU(false);
  filter->Update();
  std::vector<float> first(filter->GetOutput()->GetBufferPointer(), filter->GetOutput()->GetBufferPointer() + 1200);
  input->Modified();
  filter->Update();
  EXPECT_TRUE(std::equal(first.begin(), first.end(), filter->GetOutput()->GetBufferPointer()));
}
} // namespace
