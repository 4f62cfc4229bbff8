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
// The resampler and the displacement field over several devices (SetNumberOfDevices,
// SetDevices): each device computes a run of the output's slabs (the resampler from
// coefficients of the whole input, its shares exchanged between the devices), and the
// output has the bits of one device, for an affine and a
// B-spline transform, an input of another scalar type and many slabs. On a one-GPU
// machine the devices are the same GPU listed twice (two host threads, two streams:
// the split and the threads are what is tested); with two or more GPUs, devices 0
// and 1. A device that does not exist is an error that leaves no output. The CPU path
// takes no devices (CI).
#include "cifResampleTestSupport.h"
#include "itkAffineTransform.h"
#include "itkTransformToDisplacementFieldGPUFilter.h"

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace
{
using namespace cif_resample_test;
using FloatImage = itk::Image<float, 3>;
using ByteImage = itk::Image<unsigned char, 3>;
constexpr double kDefault = -3.0;

template <typename TIn>
FloatImage::Pointer
Resampled(const TIn *                          input,
          const itk::Transform<double, 3, 3> * transform,
          const FloatImage *                   geometry,
          bool                                 gpu,
          const std::vector<int> &             devices,
          unsigned int                         numberOfDevices)
{
  auto resample = itk::CubicResampleGPUImageFilter<TIn, FloatImage>::New();
  ConfigureCubicResample(resample.GetPointer(), transform, geometry, kDefault);
  resample->SetInput(input);
  resample->SetUseGPU(gpu);
  resample->SetMinimumVoxelsPerSlab(20000); // 5 slabs of 14 planes
  resample->SetDevices(devices);
  resample->SetNumberOfDevices(numberOfDevices);
  resample->Update();
  FloatImage::Pointer out = resample->GetOutput();
  out->DisconnectPipeline();
  return out;
}

/** The resampler with its default devices (NumberOfDevices 0: every visible one). */
FloatImage::Pointer
ResampledOnDefaultDevices(const FloatImage *                   input,
                          const itk::Transform<double, 3, 3> * transform,
                          const FloatImage *                   geometry,
                          bool                                 gpu)
{
  auto resample = itk::CubicResampleGPUImageFilter<FloatImage, FloatImage>::New();
  ConfigureCubicResample(resample.GetPointer(), transform, geometry, kDefault);
  resample->SetInput(input);
  resample->SetUseGPU(gpu);
  resample->SetMinimumVoxelsPerSlab(20000); // 5 slabs of 14 planes
  resample->Update();
  EXPECT_EQ(resample->GetLastExecutionPath(), gpu ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU);
  FloatImage::Pointer out = resample->GetOutput();
  out->DisconnectPipeline();
  return out;
}

bool
SameImage(const FloatImage * a, const FloatImage * b)
{
  return a->GetBufferedRegion() == b->GetBufferedRegion() &&
         SameBits(a->GetBufferPointer(), b->GetBufferPointer(), a->GetBufferedRegion().GetNumberOfPixels());
}

using Field = itk::Image<itk::Vector<double, 3>, 3>;

/** The displacement field of \a transform over \a domain's grid, in slabs of 2000
 * voxels (11 slabs of 2 planes), spread over \a devices. */
Field::Pointer
FieldOf(const itk::Transform<double, 3, 3> * transform,
        const FloatImage *                   domain,
        bool                                 gpu,
        const std::vector<int> &             devices,
        unsigned int                         numberOfDevices)
{
  auto filter = itk::TransformToDisplacementFieldGPUFilter<Field, double>::New();
  filter->SetTransform(transform);
  filter->SetReferenceImage(domain);
  filter->SetUseReferenceImage(true);
  filter->SetUseGPU(gpu);
  filter->SetMinimumVoxelsPerSlab(2000);
  filter->SetDevices(devices);
  filter->SetNumberOfDevices(numberOfDevices);
  filter->Update();
  Field::Pointer out = filter->GetOutput();
  out->DisconnectPipeline();
  return out;
}

/** The field with its default devices (every visible one), in 11 slabs. */
Field::Pointer
FieldOnDefaultDevices(const itk::Transform<double, 3, 3> * transform, const FloatImage * domain, bool gpu)
{
  auto filter = itk::TransformToDisplacementFieldGPUFilter<Field, double>::New();
  filter->SetTransform(transform);
  filter->SetReferenceImage(domain);
  filter->SetUseReferenceImage(true);
  filter->SetUseGPU(gpu);
  filter->SetMinimumVoxelsPerSlab(2000);
  filter->Update();
  Field::Pointer out = filter->GetOutput();
  out->DisconnectPipeline();
  return out;
}

bool
SameField(const Field * a, const Field * b)
{
  return a->GetBufferedRegion() == b->GetBufferedRegion() &&
         SameBits(reinterpret_cast<const double *>(a->GetBufferPointer()),
                  reinterpret_cast<const double *>(b->GetBufferPointer()),
                  3 * a->GetBufferedRegion().GetNumberOfPixels());
}

/** The devices a test spreads over: 0 and 1, or device 0 twice on one GPU. */
std::vector<int>
TwoDevices()
{
  return cif::GetDeviceCount() >= 2 ? std::vector<int>{ 0, 1 } : std::vector<int>{ 0, 0 };
}
} // namespace

TEST(CubicResampleDevices, CPUPathTakesNoDevicesAndPrintsTheSetting)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937 rng(seed);
  const auto   input = MakeInput<FloatImage>({ { 40, 36, 30 } }, Content::Random, seed);
  const auto   geometry = OutputGeometry<FloatImage>({ { 44, 40, 66 } });
  const auto   affine = RandomAffine<3>(rng);
  const auto   one = Resampled(input.GetPointer(), affine.GetPointer(), geometry.GetPointer(), false, {}, 1);
  const auto   listed = Resampled(input.GetPointer(), affine.GetPointer(), geometry.GetPointer(), false, { 0, 7 }, 4);
  EXPECT_TRUE(SameImage(listed, one)); // no device is looked at on the CPU path
  auto resample = itk::CubicResampleGPUImageFilter<FloatImage, FloatImage>::New();
  EXPECT_EQ(resample->GetNumberOfDevices(), 0u); // every visible device by default
  EXPECT_TRUE(resample->GetDevices().empty());
  resample->SetNumberOfDevices(2);
  resample->SetDevices({ 1, 0 });
  std::ostringstream printed;
  resample->Print(printed);
  EXPECT_NE(printed.str().find("NumberOfDevices: 2"), std::string::npos);
  EXPECT_NE(printed.str().find("Devices: 1 0"), std::string::npos);
}

TEST(CubicResampleDevicesGPU, TwoDevicesGiveTheBitsOfOne)
{
  CIF_REQUIRE_GPU();
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << cif::GetDeviceCount() << " device(s)");
  std::mt19937 rng(seed);
  const auto   input = MakeInput<FloatImage>({ { 40, 36, 30 } }, Content::Random, seed);
  const auto   geometry = OutputGeometry<FloatImage>({ { 44, 40, 66 } });
  const auto   affine = RandomAffine<3>(rng);
  const auto   bspline = RandomBSpline<3>(input.GetPointer(), 5, 1.5, rng);
  for (const itk::Transform<double, 3, 3> * transform :
       { static_cast<const itk::Transform<double, 3, 3> *>(affine.GetPointer()),
         static_cast<const itk::Transform<double, 3, 3> *>(bspline.GetPointer()) })
  {
    SCOPED_TRACE(transform->GetNameOfClass());
    const auto one = Resampled(input.GetPointer(), transform, geometry.GetPointer(), true, {}, 1);
    EXPECT_TRUE(SameImage(Resampled(input.GetPointer(), transform, geometry.GetPointer(), true, TwoDevices(), 0), one));
    // Four shares of 5 slabs (uneven); every visible device.
    EXPECT_TRUE(
      SameImage(Resampled(input.GetPointer(), transform, geometry.GetPointer(), true, { 0, 0, 0, 0 }, 0), one));
    EXPECT_TRUE(SameImage(Resampled(input.GetPointer(), transform, geometry.GetPointer(), true, {}, 0), one));
  }
  // An input of another scalar type: converted on each device.
  auto bytes = ByteImage::New();
  bytes->CopyInformation(input);
  bytes->SetRegions(input->GetLargestPossibleRegion());
  bytes->Allocate();
  for (std::size_t i = 0; i < bytes->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    bytes->GetBufferPointer()[i] = static_cast<unsigned char>(rng());
  }
  const auto one = Resampled(bytes.GetPointer(), affine.GetPointer(), geometry.GetPointer(), true, {}, 1);
  EXPECT_TRUE(
    SameImage(Resampled(bytes.GetPointer(), affine.GetPointer(), geometry.GetPointer(), true, TwoDevices(), 0), one));
}

TEST(CubicResampleDevicesGPU, FieldOnTwoDevicesHasTheBitsOfOne)
{
  CIF_REQUIRE_GPU();
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << cif::GetDeviceCount() << " device(s)");
  std::mt19937 rng(seed);
  const auto   domain = MakeInput<FloatImage>({ { 40, 25, 22 } }, Content::Random, seed);
  const auto   affine = RandomAffine<3>(rng);
  const auto   bspline = RandomBSpline<3>(domain.GetPointer(), 5, 1.5, rng);
  for (const itk::Transform<double, 3, 3> * transform :
       { static_cast<const itk::Transform<double, 3, 3> *>(affine.GetPointer()),
         static_cast<const itk::Transform<double, 3, 3> *>(bspline.GetPointer()) })
  {
    SCOPED_TRACE(transform->GetNameOfClass());
    const auto one = FieldOf(transform, domain.GetPointer(), true, {}, 1);
    EXPECT_TRUE(SameField(FieldOf(transform, domain.GetPointer(), true, TwoDevices(), 0), one));
    EXPECT_TRUE(SameField(FieldOf(transform, domain.GetPointer(), true, { 0, 0, 0 }, 0), one));
    // and against the CPU path's arithmetic, which takes no devices
    EXPECT_TRUE(SameField(FieldOf(transform, domain.GetPointer(), false, { 0, 0 }, 0),
                          FieldOf(transform, domain.GetPointer(), false, {}, 1)));
  }
  auto filter = itk::TransformToDisplacementFieldGPUFilter<Field, double>::New();
  EXPECT_EQ(filter->GetNumberOfDevices(), 0u);
  filter->SetTransform(affine);
  filter->SetReferenceImage(domain);
  filter->SetUseReferenceImage(true);
  filter->SetMinimumVoxelsPerSlab(2000);
  filter->SetDevices({ 0, cif::GetDeviceCount() + 1 });
  EXPECT_THROW(filter->Update(), itk::ExceptionObject);
}

TEST(CubicResampleDevicesGPU, ADeviceThatDoesNotExistIsAnErrorAndLeavesNoOutput)
{
  CIF_REQUIRE_GPU();
  std::mt19937 rng(11);
  const auto   input = MakeInput<FloatImage>({ { 40, 36, 30 } }, Content::Random, 11);
  const auto   geometry = OutputGeometry<FloatImage>({ { 44, 40, 66 } });
  const auto   affine = RandomAffine<3>(rng);
  auto         resample = itk::CubicResampleGPUImageFilter<FloatImage, FloatImage>::New();
  ConfigureCubicResample(resample.GetPointer(), affine.GetPointer(), geometry.GetPointer(), kDefault);
  resample->SetInput(input);
  resample->SetMinimumVoxelsPerSlab(20000);
  resample->SetDevices({ 0, cif::GetDeviceCount() + 3 });
  EXPECT_THROW(resample->Update(), itk::ExceptionObject);
  EXPECT_EQ(resample->GetOutput()->GetBufferPointer(), nullptr);
}

// The default (NumberOfDevices 0) on however many devices the machine has: every
// visible device on a machine of several (the spread), the one-device path on a
// machine of one; the bits of NumberOfDevices 1 either way, for the resampler and
// the field, affine and B-spline. The CPU path takes no devices by default either.
TEST(CubicResampleDevices, DefaultDevicesOnTheCPUPathGiveTheBitsOfOne)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937 rng(seed);
  const auto   input = MakeInput<FloatImage>({ { 40, 36, 30 } }, Content::Random, seed);
  const auto   geometry = OutputGeometry<FloatImage>({ { 44, 40, 66 } });
  const auto   affine = RandomAffine<3>(rng);
  EXPECT_TRUE(
    SameImage(ResampledOnDefaultDevices(input.GetPointer(), affine.GetPointer(), geometry.GetPointer(), false),
              Resampled(input.GetPointer(), affine.GetPointer(), geometry.GetPointer(), false, {}, 1)));
  EXPECT_TRUE(SameField(FieldOnDefaultDevices(affine.GetPointer(), input.GetPointer(), false),
                        FieldOf(affine.GetPointer(), input.GetPointer(), false, {}, 1)));
}

TEST(CubicResampleDevicesGPU, DefaultDevicesGiveTheBitsOfOne)
{
  CIF_REQUIRE_GPU();
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << cif::GetDeviceCount() << " device(s)");
  std::printf("  %d visible device(s): the default %s\n",
              cif::GetDeviceCount(),
              cif::GetDeviceCount() > 1 ? "spreads over all of them" : "takes the one-device path");
  std::mt19937 rng(seed);
  const auto   input = MakeInput<FloatImage>({ { 40, 36, 30 } }, Content::Random, seed);
  const auto   geometry = OutputGeometry<FloatImage>({ { 44, 40, 66 } });
  const auto   domain = MakeInput<FloatImage>({ { 40, 25, 22 } }, Content::Random, seed);
  const auto   affine = RandomAffine<3>(rng);
  const auto   bspline = RandomBSpline<3>(input.GetPointer(), 5, 1.5, rng);
  for (const itk::Transform<double, 3, 3> * transform :
       { static_cast<const itk::Transform<double, 3, 3> *>(affine.GetPointer()),
         static_cast<const itk::Transform<double, 3, 3> *>(bspline.GetPointer()) })
  {
    SCOPED_TRACE(transform->GetNameOfClass());
    EXPECT_TRUE(SameImage(ResampledOnDefaultDevices(input.GetPointer(), transform, geometry.GetPointer(), true),
                          Resampled(input.GetPointer(), transform, geometry.GetPointer(), true, {}, 1)));
    EXPECT_TRUE(SameField(FieldOnDefaultDevices(transform, domain.GetPointer(), true),
                          FieldOf(transform, domain.GetPointer(), true, {}, 1)));
  }
}

TEST(CubicResampleDevicesGPU, DefaultDevicesNeedTwoGPUsToSpread)
{
  CIF_REQUIRE_GPU();
  if (cif::GetDeviceCount() < 2)
  {
    GTEST_SKIP() << "one visible GPU: the default takes the one-device path (DefaultDevicesGiveTheBitsOfOne)";
  }
  // The default's devices are every visible one that runs this build's kernels: at
  // least two here, so the spread is what the default runs.
  EXPECT_GE(cif::DevicesToSpreadOver(0, {}).size(), 2u);
  EXPECT_TRUE(cif::DevicesToSpreadOver(1, {}).empty());
}
