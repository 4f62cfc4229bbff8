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
// Bad input to CubicResampleGPUImageFilter gets a clear error, or ITK's own behaviour
// where ITK defines one: an empty input or no transform (itk::ExceptionObject), one-
// voxel images and axes, NaN samples and NaN transforms (compared with ITK's
// ResampleImageFilter + BSplineInterpolateImageFunction), an empty output region.
#include "cifResampleTestSupport.h"
#include "itkCompositeTransform.h"

#include <cmath>
#include <limits>

namespace
{
using namespace cif_test;
using namespace cif_resample_test;
using Image2 = itk::Image<float, 2>;
using Filter2 = itk::CubicResampleGPUImageFilter<Image2, Image2>;

/** The module's filter, set up as the tests compare it with ITK's. */
Filter2::Pointer
MakeModuleFilter(const Image2 *                       input,
                 const itk::Transform<double, 2, 2> * transform,
                 const Image2 *                       geometry,
                 Path                                 path)
{
  auto resample = Filter2::New();
  ConfigureCubicResample(resample.GetPointer(), transform, geometry, -1.0);
  resample->SetInput(input);
  resample->SetUseGPU(path == Path::GPU);
  return resample;
}

/** Update() throws an itk::ExceptionObject whose description holds \a words. */
template <typename TFilter>
void
ExpectRefused(TFilter * filter, const std::string & words)
{
  try
  {
    filter->Update();
    ADD_FAILURE() << "accepted; expected an error about \"" << words << "\"";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find(words), std::string::npos) << e.GetDescription();
  }
}

void
CheckEmptyInputAndNoTransform(Path path)
{
  auto empty = Image2::New();
  empty->SetRegions(itk::Size<2>{ { 0, 6 } });
  empty->Allocate();
  auto geometry = OutputGeometry<Image2>({ { 5, 5 } });
  auto identity = itk::AffineTransform<double, 2>::New();
  ExpectRefused(MakeModuleFilter(empty, identity, geometry, path).GetPointer(), "empty");

  auto input = MakeInput<Image2>({ { 9, 8 } }, Content::Random, FreshSeed());
  auto noTransform = MakeModuleFilter(input, identity, geometry, path);
  noTransform->SetTransform(nullptr);
  EXPECT_THROW(noTransform->Update(), itk::ExceptionObject);
}
TEST(CubicResampleCPU, EmptyInputAndMissingTransformAreErrors) { CheckEmptyInputAndNoTransform(Path::CPU); }
TEST(CubicResampleGPU, EmptyInputAndMissingTransformAreErrors)
{
  CIF_REQUIRE_GPU();
  CheckEmptyInputAndNoTransform(Path::GPU);
}

/** One voxel, and one-voxel axes: ITK's interpolator reads the single sample along
 * such an axis; the module matches it, and ITK's inside test. */
void
CheckOneVoxelAxes(Path path)
{
  const std::uint32_t seed = FreshSeed();
  std::mt19937        rng(seed);
  for (const itk::Size<2> & size : { itk::Size<2>{ { 1, 1 } }, itk::Size<2>{ { 1, 11 } }, itk::Size<2>{ { 13, 1 } } })
  {
    SCOPED_TRACE(testing::Message() << size << ", seed " << seed);
    auto input = MakeImage<Image2>(size, {}, Content::Random, seed, 0.0, 200.0);
    // an output grid finer than the input and around it, so that the half-voxel
    // band of ITK's inside test holds output points
    auto geometry = Image2::New();
    geometry->SetRegions(itk::Size<2>{ { 31, 29 } });
    Image2::SpacingType spacing;
    spacing[0] = 0.07 + 0.5 * size[0] / 31.0;
    spacing[1] = 0.06 + 0.5 * size[1] / 29.0;
    geometry->SetSpacing(spacing);
    Image2::PointType origin;
    origin[0] = -0.9;
    origin[1] = -0.8;
    geometry->SetOrigin(origin);
    auto                                              shift = itk::AffineTransform<double, 2>::New();
    itk::AffineTransform<double, 2>::OutputVectorType translation;
    translation[0] = std::uniform_real_distribution<double>(-0.2, 0.2)(rng);
    translation[1] = std::uniform_real_distribution<double>(-0.2, 0.2)(rng);
    shift->Translate(translation);

    auto want = ResampleWithITK<Image2, Image2>(input, shift, geometry, -1.0);
    auto got = MakeModuleFilter(input, shift, geometry, path);
    got->Update();
    const std::size_t count = want->GetBufferedRegion().GetNumberOfPixels();
    std::size_t       inside = 0;
    for (std::size_t i = 0; i < count; ++i)
    {
      const float a = got->GetOutput()->GetBufferPointer()[i], b = want->GetBufferPointer()[i];
      inside += b != -1.0f;
      ASSERT_NEAR(a, b, 4e-6 * 200.0) << "voxel " << i;
    }
    EXPECT_GT(inside, 0u) << "no output point fell inside the input";
    EXPECT_LT(inside, count) << "every output point fell inside the input";
  }
}
TEST(CubicResampleCPU, OneVoxelImagesAndAxesMatchITK) { CheckOneVoxelAxes(Path::CPU); }
TEST(CubicResampleGPU, OneVoxelImagesAndAxesMatchITK)
{
  CIF_REQUIRE_GPU();
  CheckOneVoxelAxes(Path::GPU);
}

/** NaN where ITK has NaN: one NaN sample spreads through the prefilter; a NaN in the
 * transform sends every point outside (ITK's inside test is false for NaN). */
void
CheckNaN(Path path)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937 rng(seed);
  auto         input = MakeInput<Image2>({ { 23, 19 } }, Content::Random, seed);
  input->GetBufferPointer()[7 * 23 + 11] = std::numeric_limits<float>::quiet_NaN();
  auto geometry = OutputGeometry<Image2>({ { 20, 22 } });
  auto affine = RandomAffine<2>(rng);

  auto want = ResampleWithITK<Image2, Image2>(input, affine, geometry, -1.0);
  auto got = MakeModuleFilter(input, affine, geometry, path);
  got->Update();
  const std::size_t count = want->GetBufferedRegion().GetNumberOfPixels();
  std::size_t       nan = 0;
  for (std::size_t i = 0; i < count; ++i)
  {
    const float a = got->GetOutput()->GetBufferPointer()[i], b = want->GetBufferPointer()[i];
    ASSERT_EQ(std::isnan(a), std::isnan(b)) << "voxel " << i << ": " << a << " against ITK's " << b;
    nan += std::isnan(b);
    if (!std::isnan(b))
    {
      ASSERT_NEAR(a, b, 4e-6 * 200.0) << "voxel " << i;
    }
  }
  EXPECT_GT(nan, 0u);

  auto                                              broken = itk::AffineTransform<double, 2>::New();
  itk::AffineTransform<double, 2>::OutputVectorType translation;
  translation[0] = std::numeric_limits<double>::quiet_NaN();
  translation[1] = 0.0;
  broken->Translate(translation);
  auto wantBroken = ResampleWithITK<Image2, Image2>(input, broken, geometry, -1.0);
  auto gotBroken = MakeModuleFilter(input, broken, geometry, path);
  gotBroken->Update();
  for (std::size_t i = 0; i < count; ++i)
  {
    ASSERT_EQ(wantBroken->GetBufferPointer()[i], -1.0f) << "ITK's behaviour changed";
    ASSERT_EQ(gotBroken->GetOutput()->GetBufferPointer()[i], -1.0f) << "voxel " << i;
  }

  // The same NaN points handed on to a BSplineTransform: outside its valid region,
  // so returned unchanged, and outside the input (not compared with ITK, whose
  // B-spline weights would take the floor of NaN there).
  auto chained = itk::CompositeTransform<double, 2>::New();
  chained->AddTransform(RandomBSpline<2>(input.GetPointer(), 4, 2.0, rng)); // applied second
  chained->AddTransform(broken);                                            // applied first
  auto gotChained = MakeModuleFilter(input, chained, geometry, path);
  gotChained->Update();
  for (std::size_t i = 0; i < count; ++i)
  {
    ASSERT_EQ(gotChained->GetOutput()->GetBufferPointer()[i], -1.0f) << "voxel " << i;
  }
}
TEST(CubicResampleCPU, NaNAsInITK) { CheckNaN(Path::CPU); }
TEST(CubicResampleGPU, NaNAsInITK)
{
  CIF_REQUIRE_GPU();
  CheckNaN(Path::GPU);
}

/** An output region of no voxels: an empty output, as ITK gives, and no error. */
void
CheckEmptyOutput(Path path)
{
  auto input = MakeInput<Image2>({ { 9, 8 } }, Content::Random, FreshSeed());
  auto geometry = Image2::New();
  geometry->SetRegions(itk::Size<2>{ { 0, 4 } });
  auto identity = itk::AffineTransform<double, 2>::New();
  auto want = ResampleWithITK<Image2, Image2>(input, identity, geometry, -1.0);
  auto got = MakeModuleFilter(input, identity, geometry, path);
  EXPECT_NO_THROW(got->Update());
  EXPECT_EQ(got->GetOutput()->GetBufferedRegion(), want->GetBufferedRegion());
  EXPECT_EQ(got->GetOutput()->GetBufferedRegion().GetNumberOfPixels(), 0u);
}
TEST(CubicResampleCPU, EmptyOutputRegionAsInITK) { CheckEmptyOutput(Path::CPU); }
TEST(CubicResampleGPU, EmptyOutputRegionAsInITK)
{
  CIF_REQUIRE_GPU();
  CheckEmptyOutput(Path::GPU);
}
} // namespace
