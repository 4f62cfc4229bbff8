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
// CubicResampleGPUImageFilter inside pipelines: coefficients left on the device by
// BSplinePrefilterGPUImageFilter (InputIsCoefficients, no host round trip, counted
// transfers), a CudaDeviceImage of samples (prefiltered on the device without touching the
// input's buffer), a host image of coefficients (CPU and GPU paths), and ITK's own
// CPU prefilter never run by the filter. Every result is compared with ITK's
// ResampleImageFilter + BSplineInterpolateImageFunction on the samples.
#include "cifDeviceBuffer.h"
#include "cifResampleTestSupport.h"
#include "itkBSplineDecompositionImageFilter.h"
#include "itkBSplinePrefilterGPUImageFilter.h"
#include "itkCudaDeviceImage.h"
#include "itkLinearInterpolateImageFunction.h"

#include <vector>

namespace
{
using namespace cif_test;
using namespace cif_resample_test;

using HostImage = itk::Image<float, 3>;
using DeviceImage = itk::CudaDeviceImage<float, 3>;
constexpr double kDefaultValue = -7.0;
constexpr double kFloatTolerance = 4e-6 * 200.0; // as the float tests of itkCubicResampleTest

/** The samples, a random affine about them and ITK's answer, from one fresh seed. */
struct Case
{
  std::uint32_t                            seed = FreshSeed();
  HostImage::Pointer                       samples = MakeInput<HostImage>({ { 29, 25, 21 } }, Content::Random, seed);
  HostImage::Pointer                       geometry = OutputGeometry<HostImage>({ { 27, 24, 19 } });
  itk::AffineTransform<double, 3>::Pointer affine;
  HostImage::Pointer                       want;

  Case()
  {
    std::mt19937 rng(seed);
    affine = RandomAffine<3>(rng);
    want = ResampleWithITK<HostImage, HostImage>(samples, affine, geometry, kDefaultValue);
  }
};

template <typename TIn, typename TOut>
typename itk::CubicResampleGPUImageFilter<TIn, TOut>::Pointer
MakeResampler(const Case & c, bool inputIsCoefficients, Path path)
{
  auto resample = itk::CubicResampleGPUImageFilter<TIn, TOut>::New();
  ConfigureCubicResample(resample.GetPointer(), c.affine.GetPointer(), c.geometry.GetPointer(), kDefaultValue);
  resample->SetInputIsCoefficients(inputIsCoefficients);
  resample->SetUseGPU(path == Path::GPU);
  return resample;
}

/** A CudaDeviceImage holding the case's samples, current on the device (and the host). */
DeviceImage::Pointer
SamplesOnTheDevice(const Case & c)
{
  auto onDevice = DeviceImage::New();
  onDevice->CopyInformation(c.samples);
  onDevice->SetRegions(c.samples->GetBufferedRegion());
  onDevice->Allocate();
  const std::size_t count = c.samples->GetBufferedRegion().GetNumberOfPixels();
  std::copy(c.samples->GetBufferPointer(), c.samples->GetBufferPointer() + count, onDevice->GetBufferPointer());
  onDevice->GetDeviceBufferForReading();
  return onDevice;
}

/** host samples -> GPU prefilter -> CudaDeviceImage of coefficients -> resampler ->
 * CudaDeviceImage: one upload, nothing downloaded until the result is read, and ITK's
 * values. */
TEST(CubicResampleGPU, ResamplesCoefficientsLeftOnTheDeviceByThePrefilter)
{
  CIF_REQUIRE_GPU();
  const Case c;
  SCOPED_TRACE(testing::Message() << "seed " << c.seed);
  auto prefilter = itk::BSplinePrefilterGPUImageFilter<HostImage, DeviceImage>::New();
  prefilter->SetInput(c.samples);
  auto resample = MakeResampler<DeviceImage, DeviceImage>(c, true, Path::GPU);
  resample->SetInput(prefilter->GetOutput());

  cif::TransferCounters::Reset();
  resample->Update();
  EXPECT_EQ(resample->GetLastExecutionPath(), itk::CudaExecutionPath::GPU);
  EXPECT_EQ(prefilter->GetOutput()->GetDataManager()->GetResidency(),
            itk::CudaDeviceImageDataManager::Residency::DeviceOnly);
  const DeviceImage * result = resample->GetOutput();
  EXPECT_EQ(result->GetDataManager()->GetResidency(), itk::CudaDeviceImageDataManager::Residency::DeviceOnly);
  EXPECT_EQ(cif::TransferCounters::Get().uploads, 1u);
  EXPECT_EQ(cif::TransferCounters::Get().downloads, 0u);

  ExpectSameResample(result, c.want.GetPointer(), kDefaultValue, kFloatTolerance);
  EXPECT_EQ(cif::TransferCounters::Get().downloads, 1u); // reading the result
  EXPECT_EQ(prefilter->GetOutput()->GetDataManager()->GetResidency(),
            itk::CudaDeviceImageDataManager::Residency::DeviceOnly);
}

/** A CudaDeviceImage of samples: prefiltered on the device into the filter's own buffer, so
 * the input still holds its samples afterwards and a second run gives the same. */
TEST(CubicResampleGPU, CudaImageOfSamplesIsPrefilteredWithoutChangingIt)
{
  CIF_REQUIRE_GPU();
  const Case c;
  SCOPED_TRACE(testing::Message() << "seed " << c.seed);
  auto              onDevice = SamplesOnTheDevice(c);
  const std::size_t count = c.samples->GetBufferedRegion().GetNumberOfPixels();

  auto resample = MakeResampler<DeviceImage, HostImage>(c, false, Path::GPU);
  resample->SetInput(onDevice);
  cif::TransferCounters::Reset();
  resample->Update();
  EXPECT_EQ(cif::TransferCounters::Get().uploads, 0u) << "the input was already on the device";
  ExpectSameResample(resample->GetOutput(), c.want.GetPointer(), kDefaultValue, kFloatTolerance);

  // Read the input back from the device: the samples, to the bit.
  onDevice->GetDeviceBufferForWriting(true); // the device copy is now the only current one
  const DeviceImage * input = onDevice;
  const float *       back = input->GetBufferPointer();
  EXPECT_TRUE(std::equal(back, back + count, c.samples->GetBufferPointer())) << "the filter wrote into its input";

  resample->Modified();
  resample->Update();
  ExpectSameResample(resample->GetOutput(), c.want.GetPointer(), kDefaultValue, kFloatTolerance);
}

/** A second update on an input of the same size takes the coefficient buffer the
 * first one freed back from the library's memory pool (cifDeviceMemoryPool.h)
 * instead of allocating anew: the cache holds the freed buffer after the first
 * update and holds the same after the second (a fresh allocation would add to it). */
TEST(CubicResampleGPU, RepeatedUpdatesReuseTheDeviceMemoryTheyFreed)
{
  CIF_REQUIRE_GPU();
  const Case c;
  SCOPED_TRACE(testing::Message() << "seed " << c.seed);
  auto              onDevice = SamplesOnTheDevice(c);
  const std::size_t count = c.samples->GetBufferedRegion().GetNumberOfPixels();

  auto resample = MakeResampler<DeviceImage, DeviceImage>(c, false, Path::GPU);
  resample->SetInput(onDevice);
  cif::ReleaseCachedDeviceMemory();
  resample->Update();
  cif::Synchronize();
  const std::size_t cachedAfterFirst = cif::GetCachedDeviceMemoryBytes();
  EXPECT_GE(cachedAfterFirst, count * sizeof(float)) << "the coefficient buffer did not go back to the pool";

  onDevice->Modified(); // a new input of the same size, as in a registration loop
  resample->Update();
  cif::Synchronize();
  EXPECT_EQ(cif::GetCachedDeviceMemoryBytes(), cachedAfterFirst) << "the second update allocated anew";
  ExpectSameResample(resample->GetOutput(), c.want.GetPointer(), kDefaultValue, kFloatTolerance);
}

/** A host image of coefficients (ITK's own BSplineDecompositionImageFilter) with
 * InputIsCoefficients: ITK's resampling of the samples, on either path. */
void
CheckHostCoefficients(Path path)
{
  const Case c;
  SCOPED_TRACE(testing::Message() << "seed " << c.seed << (path == Path::GPU ? ", GPU" : ", CPU"));
  auto decomposition = itk::BSplineDecompositionImageFilter<HostImage, HostImage>::New();
  decomposition->SetSplineOrder(3);
  decomposition->SetInput(c.samples);
  auto resample = MakeResampler<HostImage, HostImage>(c, true, path);
  resample->SetInput(decomposition->GetOutput());
  resample->Update();
  EXPECT_EQ(resample->GetLastExecutionPath(),
            path == Path::GPU ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU);
  ExpectSameResample(resample->GetOutput(), c.want.GetPointer(), kDefaultValue, kFloatTolerance);
}

TEST(CubicResampleCPU, ResamplesHostCoefficients) { CheckHostCoefficients(Path::CPU); }

/** A B-spline interpolator that counts the images handed to it: ITK's interpolator
 * runs its CPU prefilter over the whole image in SetInputImage. */
class CountingInterpolator : public itk::BSplineInterpolateImageFunction<HostImage, double, double>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CountingInterpolator);
  using Self = CountingInterpolator;
  using Superclass = itk::BSplineInterpolateImageFunction<HostImage, double, double>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  void
  SetInputImage(const HostImage * image) override
  {
    imagesHandedIn += image != nullptr;
    Superclass::SetInputImage(image);
  }
  int imagesHandedIn = 0;

protected:
  CountingInterpolator() = default;
  ~CountingInterpolator() override = default;
};

/** The filter prefilters itself (GPU, or its multithreaded CPU path) and never hands
 * the input to ITK's interpolator, which would run ITK's single-threaded CPU
 * prefilter over it on top (ResampleImageFilter does so in
 * GenerateInputRequestedRegion and BeforeThreadedGenerateData). */
void
CheckNeverRunsITKsPrefilter(Path path)
{
  const Case c;
  SCOPED_TRACE(testing::Message() << "seed " << c.seed << (path == Path::GPU ? ", GPU" : ", CPU"));
  auto resample = MakeResampler<HostImage, HostImage>(c, false, path);
  auto counting = CountingInterpolator::New();
  counting->SetSplineOrder(3);
  resample->SetInterpolator(counting);
  resample->SetInput(c.samples);
  resample->Update();
  EXPECT_EQ(resample->GetLastExecutionPath(),
            path == Path::GPU ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU);
  EXPECT_EQ(counting->imagesHandedIn, 0);
  ExpectSameResample(resample->GetOutput(), c.want.GetPointer(), kDefaultValue, kFloatTolerance);

  // With another interpolator the filter is ITK's own, which does hand it the image.
  auto linear = itk::LinearInterpolateImageFunction<HostImage, double>::New();
  resample->SetInterpolator(linear);
  resample->Update();
  EXPECT_EQ(resample->GetLastExecutionPath(), itk::CudaExecutionPath::ITK);
}

TEST(CubicResampleCPU, NeverRunsITKsPrefilter) { CheckNeverRunsITKsPrefilter(Path::CPU); }
TEST(CubicResampleGPU, NeverRunsITKsPrefilter)
{
  CIF_REQUIRE_GPU();
  CheckNeverRunsITKsPrefilter(Path::GPU);
}
TEST(CubicResampleGPU, ResamplesHostCoefficients)
{
  CIF_REQUIRE_GPU();
  CheckHostCoefficients(Path::GPU);
}
} // namespace
