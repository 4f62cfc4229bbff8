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
// The ITK <-> VTK bridge: images share one host buffer (same pointer, writes seen on
// the other side, the buffer outlives the side that made it), geometry carried
// (extent start <-> index, origin, spacing, direction: same physical points), vector
// pixels and VectorImage, 2-D images, clear errors for what does not fit; and an ITK
// GPU filter feeding vtkCudaImageReslice without a host round trip (on the GPU: one
// upload, one download), with the CPU-path twin of that chain.
#include "cifITKVTKBridge.h"
#include "cifVTKTestSupport.h"
#include "vtkCudaImageBSplineCoefficients.h"
#include "vtkCudaImageReslice.h"

#include "itkBSplinePrefilterGPUImageFilter.h"
#include "itkRGBPixel.h"
#include "itkVector.h"
#include "vtkImageBSplineCoefficients.h"
#include "vtkImageBSplineInterpolator.h"
#include "vtkImageReslice.h"
#include "vtkMatrix4x4.h"
#include "vtkNew.h"
#include "vtkTransform.h"

#include <iostream>

namespace
{
using namespace cif_test;

template <typename TImage>
typename TImage::DirectionType
Rotation(double angle)
{
  typename TImage::DirectionType d;
  d.SetIdentity();
  d(0, 0) = std::cos(angle);
  d(0, 1) = -std::sin(angle);
  d(1, 0) = std::sin(angle);
  d(1, 1) = std::cos(angle);
  return d;
}

template <typename TImage>
typename TImage::Pointer
MakeITKImage(std::uint32_t seed, unsigned int components = 1)
{
  constexpr unsigned int      D = TImage::ImageDimension;
  auto                        image = TImage::New();
  typename TImage::RegionType region;
  for (unsigned int a = 0; a < D; ++a)
  {
    region.SetIndex(a, static_cast<itk::IndexValueType>(a * 4) - 3);
    region.SetSize(a, 5 + 3 * a);
  }
  if constexpr (std::is_same_v<TImage, itk::VectorImage<float, D>>)
  {
    image->SetNumberOfComponentsPerPixel(components);
  }
  image->SetRegions(region);
  typename TImage::SpacingType spacing;
  typename TImage::PointType   origin;
  for (unsigned int a = 0; a < D; ++a)
  {
    spacing[a] = 0.5 + 0.3 * a;
    origin[a] = -7.0 + 2.5 * a;
  }
  image->SetSpacing(spacing);
  image->SetOrigin(origin);
  image->SetDirection(Rotation<TImage>(0.3));
  image->Allocate();
  using Component = typename cif::detail::PixelLayout<TImage>::ComponentType;
  auto *       values = reinterpret_cast<Component *>(image->GetBufferPointer());
  std::size_t  count = region.GetNumberOfPixels() * cif::detail::PixelLayout<TImage>::Components(image);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> unit(0, 250);
  for (std::size_t i = 0; i < count; ++i)
  {
    values[i] = static_cast<Component>(unit(rng));
  }
  return image;
}

/** Same buffer, same geometry, same physical point for every corner voxel. */
template <typename TImage>
void
ExpectShared(TImage * image, vtkImageData * vtk)
{
  constexpr unsigned int D = TImage::ImageDimension;
  EXPECT_EQ(vtk->GetScalarPointer(), static_cast<void *>(cif::detail::RawBuffer(image)));
  const auto & region = image->GetBufferedRegion();
  const int *  e = vtk->GetExtent();
  for (unsigned int a = 0; a < 3; ++a)
  {
    const int start = a < D ? static_cast<int>(region.GetIndex(a)) : 0;
    const int size = a < D ? static_cast<int>(region.GetSize(a)) : 1;
    EXPECT_EQ(e[2 * a], start);
    EXPECT_EQ(e[2 * a + 1], start + size - 1);
  }
  EXPECT_EQ(vtk->GetNumberOfScalarComponents(), static_cast<int>(cif::detail::PixelLayout<TImage>::Components(image)));
  for (int corner = 0; corner < (1 << D); ++corner)
  {
    typename TImage::IndexType index;
    int                        ijk[3] = { 0, 0, 0 };
    for (unsigned int a = 0; a < D; ++a)
    {
      ijk[a] = (corner >> a) & 1 ? e[2 * a + 1] : e[2 * a];
      index[a] = ijk[a];
    }
    typename TImage::PointType point;
    image->TransformIndexToPhysicalPoint(index, point);
    double xyz[3];
    vtk->TransformIndexToPhysicalPoint(ijk, xyz);
    for (unsigned int a = 0; a < D; ++a)
    {
      EXPECT_NEAR(xyz[a], point[a], 1e-12) << "corner " << corner << ", axis " << a;
    }
  }
}

TEST(ITKVTKBridge, ITKImageToVTKSharesTheBufferAndOutlivesTheITKImage)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  using Image = itk::Image<float, 3>;
  auto image = MakeITKImage<Image>(seed);
  auto vtk = cif::ImageToVTK(image.GetPointer());
  ExpectShared(image.GetPointer(), vtk);
  image->GetBufferPointer()[7] = 1234.5f; // one buffer: seen by VTK
  EXPECT_EQ(vtk->GetPointData()->GetScalars()->GetComponent(7, 0), 1234.5);
  std::vector<float> copy(image->GetBufferPointer(),
                          image->GetBufferPointer() + image->GetBufferedRegion().GetNumberOfPixels());
  image = nullptr; // the VTK array keeps the ITK pixel container alive
  vtkDataArray * scalars = vtk->GetPointData()->GetScalars();
  for (std::size_t i = 0; i < copy.size(); ++i)
  {
    ASSERT_EQ(scalars->GetComponent(static_cast<vtkIdType>(i), 0), copy[i]) << i;
  }
}

TEST(ITKVTKBridge, VTKImageToITKSharesTheBufferAndOutlivesTheVTKImage)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto vtk = MakeVTKImage({ -2, 9, 3, 10, -5, -1 }, VTK_SHORT, 1, Content::Random, seed);
  vtk->SetDirectionMatrix(0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0);
  using Image = itk::Image<short, 3>;
  auto image = cif::VTKToImage<Image>(vtk);
  ExpectShared(image.GetPointer(), vtk);
  const std::vector<short> copy(image->GetBufferPointer(),
                                image->GetBufferPointer() + image->GetBufferedRegion().GetNumberOfPixels());
  vtk = nullptr; // the ITK pixel container keeps the VTK array alive
  for (std::size_t i = 0; i < copy.size(); ++i)
  {
    ASSERT_EQ(image->GetBufferPointer()[i], copy[i]) << i;
  }
}

TEST(ITKVTKBridge, VectorPixelsVectorImagesAndTwoDimensions)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  {
    using Image = itk::Image<itk::Vector<float, 3>, 3>;
    auto image = MakeITKImage<Image>(seed);
    auto vtk = cif::ImageToVTK(image.GetPointer());
    ExpectShared(image.GetPointer(), vtk);
    auto back = cif::VTKToImage<Image>(vtk);
    EXPECT_EQ(back->GetBufferPointer(), image->GetBufferPointer());
    EXPECT_EQ(back->GetDirection(), image->GetDirection());
  }
  {
    using Image = itk::VectorImage<float, 3>;
    auto image = MakeITKImage<Image>(seed, 4);
    auto vtk = cif::ImageToVTK(image.GetPointer());
    ExpectShared(image.GetPointer(), vtk);
    auto back = cif::VTKToImage<Image>(vtk);
    EXPECT_EQ(back->GetNumberOfComponentsPerPixel(), 4u);
    EXPECT_EQ(back->GetBufferPointer(), image->GetBufferPointer());
  }
  {
    using Image = itk::Image<itk::RGBPixel<unsigned char>, 2>;
    auto image = MakeITKImage<Image>(seed);
    auto vtk = cif::ImageToVTK(image.GetPointer());
    ExpectShared(image.GetPointer(), vtk);
    EXPECT_EQ(vtk->GetScalarType(), VTK_UNSIGNED_CHAR);
    auto back = cif::VTKToImage<Image>(vtk);
    EXPECT_EQ(back->GetBufferPointer(), image->GetBufferPointer());
    EXPECT_EQ(back->GetOrigin(), image->GetOrigin());
    EXPECT_EQ(back->GetSpacing(), image->GetSpacing());
    EXPECT_EQ(back->GetDirection(), image->GetDirection());
  }
}

TEST(ITKVTKBridge, WhatDoesNotFitIsAnException)
{
  auto vtk = MakeVTKImage({ 0, 4, 0, 3, 0, 2 }, VTK_FLOAT, 3, Content::Random, FreshSeed());
  EXPECT_THROW((cif::VTKToImage<itk::Image<short, 3>>(vtk)), itk::ExceptionObject);                 // type
  EXPECT_THROW((cif::VTKToImage<itk::Image<float, 3>>(vtk)), itk::ExceptionObject);                 // components
  EXPECT_THROW((cif::VTKToImage<itk::Image<itk::Vector<float, 3>, 2>>(vtk)), itk::ExceptionObject); // 3-D
  vtkNew<vtkImageData> empty;
  EXPECT_THROW((cif::VTKToImage<itk::Image<float, 3>>(empty)), itk::ExceptionObject); // no scalars
}

TEST(ITKVTKBridge, CudaImageToVTKAndBack)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  using Image = itk::CudaDeviceImage<float, 3>;
  auto image = MakeITKImage<Image>(seed);
  auto vtk = cif::ImageToVTK(image.GetPointer(), cif::DeviceData::KeepOnDevice);
  ExpectShared(image.GetPointer(), vtk);
  auto back = cif::VTKToImage<Image>(vtk);
  EXPECT_EQ(back->GetBufferPointer(), image->GetBufferPointer());
  EXPECT_EQ(back->GetPixel(back->GetBufferedRegion().GetIndex()),
            image->GetPixel(image->GetBufferedRegion().GetIndex()));
}

/** An ITK GPU filter (the prefilter, with VTK's clamp extension) feeding
 * vtkCudaImageReslice through the bridge, against VTK's two CPU filters. On the GPU
 * the coefficients stay on the device between the two libraries. */
CIF_VTK_TEST_BOTH_PATHS(ITKVTKBridge, ITKPrefilterFeedsVTKReslice)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto                 samples = MakeVTKImage({ -4, 27, 3, 26, -2, 17 }, VTK_FLOAT, 1, Content::Random, seed);
  vtkNew<vtkTransform> axes;
  axes->Translate(samples->GetCenter());
  axes->RotateWXYZ(33.0, 0.2, 0.6, 0.8);

  vtkNew<vtkImageBSplineCoefficients> vtkPrefilter;
  vtkPrefilter->SetInputData(samples);
  vtkNew<vtkImageReslice>             reference;
  vtkNew<vtkImageBSplineInterpolator> referenceInterpolator;
  reference->SetInterpolator(referenceInterpolator);
  reference->SetInputConnection(vtkPrefilter->GetOutputPort());
  reference->SetResliceAxes(axes->GetMatrix());
  reference->Update();

  cif::TransferCounters::Reset();
  using Samples = itk::Image<float, 3>;
  using Coefficients = itk::CudaDeviceImage<float, 3>;
  auto prefilter = itk::BSplinePrefilterGPUImageFilter<Samples, Coefficients>::New();
  prefilter->SetInput(cif::VTKToImage<Samples>(samples));
  prefilter->SetBoundaryMode(cif::BoundaryMode::HalfSampleMirror); // VTK's clamp
  prefilter->SetUseGPU(gpu);
  prefilter->Update();
  auto                        coefficients = cif::ImageToVTK(prefilter->GetOutput(), cif::DeviceData::KeepOnDevice);
  vtkNew<vtkCudaImageReslice> reslice;
  vtkNew<vtkImageBSplineInterpolator> interpolator;
  reslice->SetInterpolator(interpolator);
  reslice->SetInputData(coefficients);
  reslice->SetResliceAxes(axes->GetMatrix());
  reslice->SetUseGPU(gpu);
  reslice->Update();
  const cif::TransferCounters transfers = cif::TransferCounters::Get();
  EXPECT_EQ(reslice->GetLastExecutionPath(), gpu ? VTK_CUDA_PATH_GPU : VTK_CUDA_PATH_CPU);
  if (gpu)
  {
    EXPECT_EQ(transfers.uploads, 1u);   // the samples
    EXPECT_EQ(transfers.downloads, 1u); // the resliced volume
  }
  // ITK's prefilter truncates its start at 1e-10 and sweeps float in float: within
  // a few 1e-6 of VTK's coefficients, well inside the reslice's criterion.
  const ErrorStats stats = CompareImages(reslice->GetOutput(), reference->GetOutput());
  EXPECT_LE(stats.maxAbs, 1e-5 * ValueRange(samples)) << stats;
  std::cout << "ITK prefilter -> vtkCudaImageReslice vs VTK: largest |difference| / input scale "
            << stats.maxAbs / ValueRange(samples) << std::endl;
}

/** And back: VTK's GPU prefilter's coefficients into an itk::CudaDeviceImage, by one
 * device-to-device copy on the GPU (no download until host code reads them). */
CIF_VTK_TEST_BOTH_PATHS(ITKVTKBridge, VTKCoefficientsOnTheDeviceBecomeACudaImage)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto samples = MakeVTKImage({ 0, 20, 0, 15, 0, 10 }, VTK_FLOAT, 1, Content::Random, seed);
  vtkNew<vtkImageBSplineCoefficients> reference;
  reference->SetInputData(samples);
  reference->Update();
  vtkNew<vtkCudaImageBSplineCoefficients> prefilter;
  prefilter->SetInputData(samples);
  prefilter->SetUseGPU(gpu);
  prefilter->KeepOutputOnDeviceOn();
  prefilter->Update();
  auto image = cif::VTKToImage<itk::CudaDeviceImage<float, 3>>(prefilter->GetOutput());
  if (gpu)
  {
    EXPECT_EQ(image->GetDataManager()->GetResidency(), itk::CudaDeviceImageDataManager::Residency::DeviceOnly);
  }
  const float *  values = static_cast<const itk::CudaDeviceImage<float, 3> *>(image.GetPointer())->GetBufferPointer();
  vtkDataArray * expected = reference->GetOutput()->GetPointData()->GetScalars();
  double         worst = 0;
  for (vtkIdType i = 0; i < expected->GetNumberOfValues(); ++i)
  {
    worst = std::max(worst, std::fabs(values[i] - expected->GetComponent(i, 0)));
  }
  EXPECT_LE(worst, 1e-6 * ValueRange(samples));
}
} // namespace
