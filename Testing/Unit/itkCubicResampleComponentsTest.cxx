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
// Multi-component cubic resampling (CubicBSplinePerComponent): every component of an
// RGB, vector or VectorImage resampled equals ITK's scalar resampling of that
// component (ResampleImageFilter + BSplineInterpolateImageFunction of order 3), with
// the default pixel's component outside; CPU path always, GPU path on a device.
#include "cifTestHelpers.h"
#include "itkAffineTransform.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkRGBPixel.h"
#include "itkVectorImage.h"

#include <random>

namespace
{
using namespace cif_test;

/** An image of `components`-component pixels, each component fresh random data in
 * [0, 200), on a rotated, anisotropic grid with a non-zero start index. */
template <typename TImage>
typename TImage::Pointer
MakeComponentImage(const typename TImage::SizeType & size, unsigned int components, std::uint32_t seed)
{
  constexpr unsigned int       D = TImage::ImageDimension;
  auto                         image = TImage::New();
  typename TImage::IndexType   start;
  typename TImage::SpacingType spacing;
  for (unsigned int a = 0; a < D; ++a)
  {
    start[a] = static_cast<itk::IndexValueType>(a) * 2 - 1;
    spacing[a] = 0.8 + 0.3 * a;
  }
  image->SetRegions(typename TImage::RegionType(start, size));
  image->SetSpacing(spacing);
  if constexpr (std::is_same_v<TImage, itk::VectorImage<typename TImage::InternalPixelType, D>>)
  {
    image->SetNumberOfComponentsPerPixel(components);
  }
  image->Allocate();
  using Component = typename itk::CudaImageTraits<TImage>::ComponentType;
  auto *                                 p = reinterpret_cast<Component *>(image->GetBufferPointer());
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 200.0);
  for (std::size_t i = 0; i < image->GetBufferedRegion().GetNumberOfPixels() * components; ++i)
  {
    p[i] = static_cast<Component>(unit(rng));
  }
  return image;
}

template <unsigned int D>
typename itk::AffineTransform<double, D>::Pointer
RotationAndScale(std::mt19937 & rng)
{
  auto                                                 affine = itk::AffineTransform<double, D>::New();
  std::uniform_real_distribution<double>               u(-0.06, 0.06);
  typename itk::AffineTransform<double, D>::MatrixType m;
  m.SetIdentity();
  for (unsigned int r = 0; r < D; ++r)
  {
    for (unsigned int c = 0; c < D; ++c)
    {
      m[r][c] += u(rng);
    }
  }
  affine->SetMatrix(m);
  typename itk::AffineTransform<double, D>::OutputVectorType t;
  for (unsigned int a = 0; a < D; ++a)
  {
    t[a] = 2.0 * u(rng);
  }
  affine->SetTranslation(t);
  return affine;
}

template <typename TImage, typename TComponentImage>
void
CheckComponents(unsigned int components, const typename TImage::PixelType & defaultPixel, bool useGPU, double tolerance)
{
  constexpr unsigned int D = TImage::ImageDimension;
  const std::uint32_t    seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << typeid(TImage).name() << " " << (useGPU ? "GPU" : "CPU") << " seed " << seed);
  std::mt19937 rng(seed);
  itk::Size<D> inSize, outSize;
  for (unsigned int a = 0; a < D; ++a)
  {
    inSize[a] = D == 2 ? 47 + 5 * a : 19 + 3 * a;
    outSize[a] = inSize[a] + 4; // the output grid overhangs the input by 2 voxels on every side
  }
  auto input = MakeComponentImage<TImage>(inSize, components, seed);
  auto transform = RotationAndScale<D>(rng);
  auto overhangOrigin = input->GetOrigin();
  for (unsigned int a = 0; a < D; ++a)
  {
    overhangOrigin[a] -= 2.0 * input->GetSpacing()[a];
  }

  using Filter = itk::CubicResampleGPUImageFilter<TImage, TImage>;
  auto resample = Filter::New();
  resample->SetInput(input);
  resample->SetTransform(transform);
  resample->SetSize(outSize);
  resample->SetOutputSpacing(input->GetSpacing());
  resample->SetOutputOrigin(overhangOrigin);
  resample->SetOutputStartIndex(input->GetLargestPossibleRegion().GetIndex());
  resample->SetDefaultPixelValue(defaultPixel);
  resample->SetCubicBSplinePerComponent(true);
  resample->SetUseGPU(useGPU);
  resample->Update();
  EXPECT_EQ(resample->GetLastExecutionPath(), useGPU ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU);
  const TImage * got = resample->GetOutput();
  using Component = typename itk::CudaImageTraits<TImage>::ComponentType;
  const auto * gotComponents = reinterpret_cast<const Component *>(got->GetBufferPointer());

  for (unsigned int c = 0; c < components; ++c)
  {
    // the component as a scalar image, resampled by ITK
    auto scalar = TComponentImage::New();
    scalar->CopyInformation(input);
    scalar->SetRegions(input->GetBufferedRegion());
    scalar->Allocate();
    const auto * in = reinterpret_cast<const Component *>(input->GetBufferPointer());
    for (std::size_t i = 0; i < scalar->GetBufferedRegion().GetNumberOfPixels(); ++i)
    {
      scalar->GetBufferPointer()[i] = in[i * components + c];
    }
    auto itkResample = itk::ResampleImageFilter<TComponentImage, TComponentImage>::New();
    auto interpolator = itk::BSplineInterpolateImageFunction<TComponentImage, double, double>::New();
    interpolator->SetSplineOrder(3);
    itkResample->SetInput(scalar);
    itkResample->SetInterpolator(interpolator);
    itkResample->SetTransform(transform);
    itkResample->SetSize(outSize);
    itkResample->SetOutputSpacing(input->GetSpacing());
    itkResample->SetOutputOrigin(overhangOrigin);
    itkResample->SetOutputStartIndex(input->GetLargestPossibleRegion().GetIndex());
    itkResample->SetDefaultPixelValue(static_cast<Component>(defaultPixel[c]));
    itkResample->Update();
    const TComponentImage * want = itkResample->GetOutput();
    double                  maxAbs = 0;
    std::size_t             outside = 0;
    const std::size_t       count = want->GetBufferedRegion().GetNumberOfPixels();
    for (std::size_t i = 0; i < count; ++i)
    {
      const double a = gotComponents[i * components + c], b = want->GetBufferPointer()[i];
      maxAbs = std::max(maxAbs, std::fabs(a - b));
      outside += b == static_cast<double>(static_cast<Component>(defaultPixel[c]));
    }
    EXPECT_LE(maxAbs, tolerance) << "component " << c;
    EXPECT_GT(outside, 0u) << "the transform should move some voxels outside the input";
    EXPECT_LT(outside, count / 2) << "too few voxels inside to test anything";
  }
}

using RGB2 = itk::Image<itk::RGBPixel<unsigned char>, 2>;
using Vector3 = itk::Image<itk::Vector<float, 3>, 3>;
using VectorImage2 = itk::VectorImage<float, 2>;

itk::RGBPixel<unsigned char>
RGBDefault()
{
  itk::RGBPixel<unsigned char> p;
  p[0] = 250;
  p[1] = 251;
  p[2] = 252;
  return p;
}
itk::Vector<float, 3>
VectorDefault()
{
  itk::Vector<float, 3> v;
  v[0] = -7.f;
  v[1] = -8.f;
  v[2] = -9.f;
  return v;
}
itk::VariableLengthVector<float>
VariableDefault(unsigned int n)
{
  itk::VariableLengthVector<float> v(n);
  for (unsigned int c = 0; c < n; ++c)
  {
    v[c] = -3.f - c;
  }
  return v;
}

// uchar: ITK casts with truncation toward zero; the module's float coefficients may
// land on the other side of an integer: ±1
TEST(CubicResampleComponentsCPU, RGBMatchesITKPerComponent)
{
  CheckComponents<RGB2, itk::Image<unsigned char, 2>>(3, RGBDefault(), false, 1.0);
}
TEST(CubicResampleComponentsCPU, Vector3DMatchesITKPerComponent)
{
  CheckComponents<Vector3, itk::Image<float, 3>>(3, VectorDefault(), false, 4e-6 * 200);
}
TEST(CubicResampleComponentsCPU, VectorImageMatchesITKPerComponent)
{
  CheckComponents<VectorImage2, itk::Image<float, 2>>(5, VariableDefault(5), false, 4e-6 * 200);
}
TEST(CubicResampleComponentsGPU, RGBMatchesITKPerComponent)
{
  CIF_REQUIRE_GPU();
  CheckComponents<RGB2, itk::Image<unsigned char, 2>>(3, RGBDefault(), true, 1.0);
}
TEST(CubicResampleComponentsGPU, Vector3DMatchesITKPerComponent)
{
  CIF_REQUIRE_GPU();
  CheckComponents<Vector3, itk::Image<float, 3>>(3, VectorDefault(), true, 4e-6 * 200);
}
TEST(CubicResampleComponentsGPU, VectorImageMatchesITKPerComponent)
{
  CIF_REQUIRE_GPU();
  CheckComponents<VectorImage2, itk::Image<float, 2>>(5, VariableDefault(5), true, 4e-6 * 200);
}

TEST(CubicResampleComponentsCPU, OffByDefaultRunsITKsInterpolator)
{
  auto input = MakeComponentImage<RGB2>({ { 20, 20 } }, 3, FreshSeed());
  auto resample = itk::CubicResampleGPUImageFilter<RGB2, RGB2>::New();
  resample->SetInput(input);
  resample->SetTransform(itk::AffineTransform<double, 2>::New());
  resample->SetOutputParametersFromImage(input);
  resample->Update();
  EXPECT_EQ(resample->GetLastExecutionPath(), itk::CudaExecutionPath::ITK);
}
} // namespace
