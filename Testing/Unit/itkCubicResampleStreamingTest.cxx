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
// The resampler in ITK streaming and larger than the device: StreamingImageFilter
// with 1 to 64 divisions and a streaming MetaImage writer give the bits of one
// piece (the whole input's coefficients are kept between pieces); under a device
// memory limit the filter resamples in output slabs, each reading the input box it
// needs (linear transforms) or the whole coefficients (others), with the same bits.
// CPU path everywhere (CI), GPU twins where a device is present.
#include "cifProgressTestSupport.h"
#include "cifResampleTestSupport.h"
#include "cifStreamingWriterTestSupport.h"
#include "itkAffineTransform.h"
#include "itkBSplinePrefilterGPUImageFilter.h"
#include "itkCastImageFilter.h"
#include "itkStreamingImageFilter.h"
#include "itkTransformToDisplacementFieldGPUFilter.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace
{
using namespace cif_resample_test;
using InputImage = itk::Image<float, 3>;
using OutputImage = itk::Image<float, 3>;
using Resampler = itk::CubicResampleGPUImageFilter<InputImage, OutputImage>;
constexpr double kDefault = -7.0;

Resampler::Pointer
MakeResampler(const InputImage *                   input,
              const itk::Transform<double, 3, 3> * transform,
              const OutputImage *                  geometry,
              Path                                 path)
{
  auto resample = Resampler::New();
  ConfigureCubicResample(resample.GetPointer(), transform, geometry, kDefault);
  resample->SetInput(input);
  resample->SetUseGPU(path == Path::GPU);
  return resample;
}

OutputImage::Pointer
OnePiece(const InputImage *                   input,
         const itk::Transform<double, 3, 3> * transform,
         const OutputImage *                  geometry,
         Path                                 path)
{
  auto resample = MakeResampler(input, transform, geometry, path);
  resample->Update();
  OutputImage::Pointer out = resample->GetOutput();
  out->DisconnectPipeline();
  return out;
}

void
ExpectSameBits(const OutputImage * a, const OutputImage * b, const std::string & what)
{
  ASSERT_EQ(a->GetBufferedRegion(), b->GetBufferedRegion()) << what;
  EXPECT_TRUE(SameBits(a->GetBufferPointer(), b->GetBufferPointer(), a->GetBufferedRegion().GetNumberOfPixels()))
    << what;
}

struct Case
{
  InputImage::Pointer                   input;
  OutputImage::Pointer                  geometry;
  itk::Transform<double, 3, 3>::Pointer affine;
  itk::Transform<double, 3, 3>::Pointer bspline;
};

Case
MakeCase(std::uint32_t seed)
{
  std::mt19937 rng(seed);
  Case         c;
  c.input = MakeInput<InputImage>({ { 64, 60, 50 } }, Content::Random, seed);
  c.geometry = OutputGeometry<OutputImage>({ { 70, 52, 66 } });
  c.affine = RandomAffine<3>(rng).GetPointer();
  c.bspline = RandomBSpline<3>(c.input.GetPointer(), 5, 1.5, rng).GetPointer();
  return c;
}

void
ExpectStreamingMatchesOnePiece(Path path)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  const Case c = MakeCase(seed);
  for (const auto * transform : { c.affine.GetPointer(), c.bspline.GetPointer() })
  {
    const auto whole = OnePiece(c.input.GetPointer(), transform, c.geometry.GetPointer(), path);
    for (unsigned int divisions : { 1u, 2u, 3u, 7u, 16u, 64u })
    {
      auto resample = MakeResampler(c.input.GetPointer(), transform, c.geometry.GetPointer(), path);
      auto streamer = itk::StreamingImageFilter<OutputImage, OutputImage>::New();
      streamer->SetInput(resample->GetOutput());
      streamer->SetNumberOfStreamDivisions(divisions);
      streamer->Update();
      ExpectSameBits(streamer->GetOutput(),
                     whole.GetPointer(),
                     std::string(transform->GetNameOfClass()) + ", " + std::to_string(divisions) + " divisions");
    }
  }
}

void
ExpectStreamingWriterMatchesOnePiece(Path path)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  const Case c = MakeCase(seed);
  const auto whole = OnePiece(c.input.GetPointer(), c.affine.GetPointer(), c.geometry.GetPointer(), path);
  auto       resample = MakeResampler(c.input.GetPointer(), c.affine.GetPointer(), c.geometry.GetPointer(), path);
  const auto read = WriteStreamedAndReadBack(resample->GetOutput(), 9, std::to_string(seed));
  EXPECT_TRUE(
    SameBits(read->GetBufferPointer(), whole->GetBufferPointer(), whole->GetBufferedRegion().GetNumberOfPixels()));
}

void
ExpectSlabsUnderALimitMatchOnePiece(Path path)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  const Case c = MakeCase(seed);
  // 750 KiB of input coefficients, 940 KiB of output: the affine case fits 1 MiB
  // only in slabs with input boxes, the B-spline case in slabs of the output with the
  // whole coefficients.
  for (const auto * transform : { c.affine.GetPointer(), c.bspline.GetPointer() })
  {
    const auto whole = OnePiece(c.input.GetPointer(), transform, c.geometry.GetPointer(), path);
    for (std::size_t limit : { std::size_t(1) << 20, std::size_t(3) << 19 })
    {
      ScopedDeviceMemoryLimit scoped(limit);
      const auto              slabbed = OnePiece(c.input.GetPointer(), transform, c.geometry.GetPointer(), path);
      ExpectSameBits(slabbed.GetPointer(),
                     whole.GetPointer(),
                     std::string(transform->GetNameOfClass()) + ", limit " + std::to_string(limit));
      // and streamed under the limit too
      auto resample = MakeResampler(c.input.GetPointer(), transform, c.geometry.GetPointer(), path);
      auto streamer = itk::StreamingImageFilter<OutputImage, OutputImage>::New();
      streamer->SetInput(resample->GetOutput());
      streamer->SetNumberOfStreamDivisions(5);
      streamer->Update();
      ExpectSameBits(streamer->GetOutput(),
                     whole.GetPointer(),
                     std::string(transform->GetNameOfClass()) + ", streamed, limit " + std::to_string(limit));
    }
  }
  // The B-spline transform reads the whole input: 256 KiB cannot hold it.
  ScopedDeviceMemoryLimit scoped(std::size_t(256) << 10);
  try
  {
    OnePiece(c.input.GetPointer(), c.bspline.GetPointer(), c.geometry.GetPointer(), path);
    ADD_FAILURE() << "the whole coefficients cannot fit 256 KiB";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string text = e.GetDescription();
    EXPECT_NE(text.find("0.74 MiB"), std::string::npos) << text; // the coefficients and the transform's arrays
    EXPECT_NE(text.find("0.25 MiB"), std::string::npos) << text; // the budget
  }
}

/** The slabbed path (forced by a limit of 1 MiB) on a device whose allocations above
 * 192 KiB fail although the plan fits: the slabs are planned again finer until their
 * buffers can be allocated, and give the bits of one piece (the affine case: boxes of
 * the input). The B-spline case needs the whole coefficients (0.73 MiB) in one
 * allocation: planned finer down to one plane, then the clear error. */
void
ExpectFailedReservationsArePlannedFiner()
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  const Case c = MakeCase(seed);
  const auto whole = OnePiece(c.input.GetPointer(), c.affine.GetPointer(), c.geometry.GetPointer(), Path::GPU);
  const auto wholeBSpline = OnePiece(c.input.GetPointer(), c.bspline.GetPointer(), c.geometry.GetPointer(), Path::GPU);
  ScopedDeviceMemoryLimit       limit(std::size_t(1) << 20);
  ScopedAllocationFailuresAbove failures(std::size_t(192) << 10);
  auto resample = MakeResampler(c.input.GetPointer(), c.affine.GetPointer(), c.geometry.GetPointer(), Path::GPU);
  resample->Update();
  EXPECT_EQ(resample->GetLastExecutionPath(), itk::CudaExecutionPath::GPU);
  ExpectSameBits(resample->GetOutput(), whole.GetPointer(), "affine, allocations above 192 KiB failing");
  try
  {
    OnePiece(c.input.GetPointer(), c.bspline.GetPointer(), c.geometry.GetPointer(), Path::GPU);
    ADD_FAILURE() << "the whole coefficients cannot be allocated";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string text = e.GetDescription();
    EXPECT_NE(text.find("not enough GPU memory"), std::string::npos) << text;
    EXPECT_NE(text.find("MiB"), std::string::npos) << text;
  }
  // and once allocations succeed again, the B-spline case runs (in slabs, under the limit)
  ScopedAllocationFailuresAbove none(0);
  ExpectSameBits(OnePiece(c.input.GetPointer(), c.bspline.GetPointer(), c.geometry.GetPointer(), Path::GPU),
                 wholeBSpline.GetPointer(),
                 "B-spline, allocations succeeding again");
}

/** TransformToDisplacementFieldGPUFilter under StreamingImageFilter: each piece is
 * the field of the requested region only (the filter maps the output's buffered
 * region, index and all), so 1, 3 and 16 pieces give the bits of one. */
void
ExpectFieldStreamingMatchesOnePiece(Path path)
{
  using Field = itk::Image<itk::Vector<float, 3>, 3>;
  using FieldFilter = itk::TransformToDisplacementFieldGPUFilter<Field, double>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  const Case c = MakeCase(seed);
  for (const auto * transform : { c.affine.GetPointer(), c.bspline.GetPointer() })
  {
    const auto make = [&] {
      auto filter = FieldFilter::New();
      filter->SetTransform(transform);
      filter->SetReferenceImage(c.geometry);
      filter->SetUseReferenceImage(true);
      filter->SetUseGPU(path == Path::GPU);
      return filter;
    };
    auto one = make();
    one->Update();
    EXPECT_EQ(one->GetLastExecutionPath(),
              path == Path::GPU ? FieldFilter::ExecutionPath::GPU : FieldFilter::ExecutionPath::CPU);
    Field::Pointer whole = one->GetOutput();
    whole->DisconnectPipeline();
    for (unsigned int divisions : { 1u, 3u, 16u })
    {
      auto filter = make();
      auto streamer = itk::StreamingImageFilter<Field, Field>::New();
      streamer->SetInput(filter->GetOutput());
      streamer->SetNumberOfStreamDivisions(divisions);
      streamer->Update();
      const std::string what =
        std::string(transform->GetNameOfClass()) + ", " + std::to_string(divisions) + " divisions";
      EXPECT_EQ(filter->GetLastExecutionPath(), one->GetLastExecutionPath()) << what;
      ASSERT_EQ(streamer->GetOutput()->GetBufferedRegion(), whole->GetBufferedRegion()) << what;
      if (divisions > 1)
      {
        // the last piece alone was computed: a slab of the output, not all of it
        EXPECT_LT(filter->GetOutput()->GetBufferedRegion().GetNumberOfPixels(),
                  whole->GetBufferedRegion().GetNumberOfPixels())
          << what;
      }
      EXPECT_TRUE(SameBits(streamer->GetOutput()->GetBufferPointer()->GetDataPointer(),
                           whole->GetBufferPointer()->GetDataPointer(),
                           3 * whole->GetBufferedRegion().GetNumberOfPixels()))
        << what;
    }
  }
}

/** Coefficients given (InputIsCoefficients) behind a filter that streams (a cast,
 * which computes only its requested region): under StreamingImageFilter an affine
 * resampling asks upstream only for the input box of each piece, and each piece,
 * evaluated against that box, has the bits of one piece from the whole coefficients. */
void
ExpectCoefficientBoxesMatchOnePiece(Path path)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  const Case c = MakeCase(seed);
  auto       prefilter = itk::BSplinePrefilterGPUImageFilter<InputImage, InputImage>::New();
  prefilter->SetInput(c.input);
  prefilter->SetUseGPU(false);
  prefilter->Update();
  const InputImage::Pointer coefficients = prefilter->GetOutput();
  auto                      fromCoefficients = [&](const InputImage * input) {
    auto resample = MakeResampler(input, c.affine.GetPointer(), c.geometry.GetPointer(), path);
    resample->InputIsCoefficientsOn();
    return resample;
  };
  auto whole = fromCoefficients(coefficients.GetPointer());
  whole->Update();
  for (unsigned int divisions : { 1u, 3u, 7u, 16u })
  {
    auto cast = itk::CastImageFilter<InputImage, InputImage>::New();
    cast->SetInput(coefficients);
    auto resample = fromCoefficients(cast->GetOutput());
    auto streamer = itk::StreamingImageFilter<OutputImage, OutputImage>::New();
    streamer->SetInput(resample->GetOutput());
    streamer->SetNumberOfStreamDivisions(divisions);
    streamer->Update();
    ExpectSameBits(streamer->GetOutput(), whole->GetOutput(), std::to_string(divisions) + " divisions");
    // The last piece's request upstream: its input box, not the whole input.
    const auto requested = cast->GetOutput()->GetRequestedRegion();
    EXPECT_TRUE(coefficients->GetLargestPossibleRegion().IsInside(requested));
    if (divisions > 1)
    {
      EXPECT_LT(requested.GetNumberOfPixels(), coefficients->GetLargestPossibleRegion().GetNumberOfPixels());
    }
  }
}

/** TransformToDisplacementFieldGPUFilter under memory pressure: a 2.75 MiB field
 * under a device memory limit of 1 MiB runs in slabs that fit (the CPU path too: the
 * same plans), and on the GPU, with allocations above 512 KiB failing although the
 * budget holds the whole field, its slabs are planned again finer; the bits of one
 * piece either way, and more progress steps than one piece. A limit below one plane
 * (43 KiB) is the clear error. */
void
ExpectFieldUnderMemoryPressureMatchesOnePiece(Path path)
{
  using Field = itk::Image<itk::Vector<float, 3>, 3>;
  using FieldFilter = itk::TransformToDisplacementFieldGPUFilter<Field, double>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  const Case c = MakeCase(seed);
  for (const auto * transform : { c.affine.GetPointer(), c.bspline.GetPointer() })
  {
    SCOPED_TRACE(transform->GetNameOfClass());
    std::size_t steps = 0;
    const auto  run = [&] {
      auto filter = FieldFilter::New();
      filter->SetTransform(transform);
      filter->SetReferenceImage(c.geometry);
      filter->SetUseReferenceImage(true);
      filter->SetUseGPU(path == Path::GPU);
      filter->SetNumberOfDevices(1);
      auto progress = RecordProgress(filter.GetPointer());
      filter->Update();
      EXPECT_EQ(filter->GetLastExecutionPath(),
                path == Path::GPU ? FieldFilter::ExecutionPath::GPU : FieldFilter::ExecutionPath::CPU);
      steps = progress->size();
      Field::Pointer out = filter->GetOutput();
      out->DisconnectPipeline();
      return out;
    };
    const Field::Pointer whole = run();
    const std::size_t    wholeSteps = steps;
    const auto           same = [&](const Field * field) {
      return field->GetBufferedRegion() == whole->GetBufferedRegion() &&
             SameBits(reinterpret_cast<const float *>(field->GetBufferPointer()),
                      reinterpret_cast<const float *>(whole->GetBufferPointer()),
                      3 * whole->GetBufferedRegion().GetNumberOfPixels());
    };
    {
      ScopedDeviceMemoryLimit limit(std::size_t(1) << 20);
      EXPECT_TRUE(same(run()));
      EXPECT_GT(steps, wholeSteps);
    }
    if (path == Path::GPU)
    {
      ScopedAllocationFailuresAbove failures(std::size_t(512) << 10);
      EXPECT_TRUE(same(run()));
      EXPECT_GT(steps, wholeSteps);
    }
    ScopedDeviceMemoryLimit tooSmall(std::size_t(16) << 10);
    try
    {
      run();
      ADD_FAILURE() << "one plane does not fit 16 KiB";
    }
    catch (const itk::ExceptionObject & e)
    {
      const std::string text = e.GetDescription();
      EXPECT_NE(text.find("not enough GPU memory for a displacement field"), std::string::npos) << text;
      EXPECT_NE(text.find("0.02 MiB"), std::string::npos) << text; // the limit
    }
  }
}

TEST(DisplacementFieldStreaming, MemoryPressureGivesTheBitsOfOnePiece)
{
  ExpectFieldUnderMemoryPressureMatchesOnePiece(Path::CPU);
}
TEST(DisplacementFieldStreamingGPU, MemoryPressureGivesTheBitsOfOnePiece)
{
  CIF_REQUIRE_GPU();
  ExpectFieldUnderMemoryPressureMatchesOnePiece(Path::GPU);
}
TEST(CubicResampleStreaming, StreamingFilterGivesTheBitsOfOnePiece) { ExpectStreamingMatchesOnePiece(Path::CPU); }
TEST(CubicResampleStreaming, GivenCoefficientsAreRequestedAsInputBoxes)
{
  ExpectCoefficientBoxesMatchOnePiece(Path::CPU);
}
TEST(CubicResampleStreamingGPU, GivenCoefficientsAreRequestedAsInputBoxes)
{
  CIF_REQUIRE_GPU();
  ExpectCoefficientBoxesMatchOnePiece(Path::GPU);
}
TEST(DisplacementFieldStreaming, StreamingFilterGivesTheBitsOfOnePiece)
{
  ExpectFieldStreamingMatchesOnePiece(Path::CPU);
}
TEST(DisplacementFieldStreamingGPU, StreamingFilterGivesTheBitsOfOnePiece)
{
  CIF_REQUIRE_GPU();
  ExpectFieldStreamingMatchesOnePiece(Path::GPU);
}
TEST(CubicResampleStreaming, StreamingWriterGivesTheBitsOfOnePiece) { ExpectStreamingWriterMatchesOnePiece(Path::CPU); }
TEST(CubicResampleStreaming, SlabsUnderADeviceMemoryLimitGiveTheBitsOfOnePiece)
{
  ExpectSlabsUnderALimitMatchOnePiece(Path::CPU);
}

TEST(CubicResampleStreamingGPU, StreamingFilterGivesTheBitsOfOnePiece)
{
  CIF_REQUIRE_GPU();
  ExpectStreamingMatchesOnePiece(Path::GPU);
}
TEST(CubicResampleStreamingGPU, StreamingWriterGivesTheBitsOfOnePiece)
{
  CIF_REQUIRE_GPU();
  ExpectStreamingWriterMatchesOnePiece(Path::GPU);
}
TEST(CubicResampleStreamingGPU, FailedSlabReservationsArePlannedFiner)
{
  CIF_REQUIRE_GPU();
  ExpectFailedReservationsArePlannedFiner();
}
TEST(CubicResampleStreamingGPU, SlabsUnderADeviceMemoryLimitGiveTheBitsOfOnePiece)
{
  CIF_REQUIRE_GPU();
  ExpectSlabsUnderALimitMatchOnePiece(Path::GPU);
}

// Large-ish: an axis longer than 65535 (70000 samples) through the cubic resampler
// with an affine transform (ResampleImageFilter's linear row path on the device),
// along the first and along the last axis: the GPU against the CPU path within the
// float tolerance (a few 1e-6 of the range), and the output covers the whole axis.
TEST(CubicResampleLargeGPU, AxisLongerThan65535)
{
  CIF_REQUIRE_GPU();
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  for (unsigned int longAxis : { 0u, 2u })
  {
    InputImage::SizeType size{ { 3, 3, 3 } };
    size[longAxis] = 70000;
    auto input = MakeInput<InputImage>(size, Content::Random, seed);
    // Near the identity, so that most output voxels map inside the 3-voxel-thin axes
    // whatever the input's direction: an isotropic scale (points move along the line
    // to the origin, close to the long axis), a slight shear, a sub-voxel shift.
    auto affine = itk::AffineTransform<double, 3>::New();
    auto matrix = affine->GetMatrix();
    for (unsigned int a = 0; a < 3; ++a)
    {
      matrix[a][a] = 0.9993;
    }
    matrix[0][1] = 0.002;
    affine->SetMatrix(matrix);
    itk::AffineTransform<double, 3>::OutputVectorType shift;
    shift.Fill(0.05);
    affine->SetTranslation(shift);
    const auto * geometry = input.GetPointer(); // the output on the input's grid
    auto         cpu = OnePiece(input.GetPointer(), affine.GetPointer(), geometry, Path::CPU);
    auto         gpu = OnePiece(input.GetPointer(), affine.GetPointer(), geometry, Path::GPU);
    ASSERT_EQ(gpu->GetBufferedRegion(), cpu->GetBufferedRegion());
    const auto  count = cpu->GetBufferedRegion().GetNumberOfPixels();
    double      range = 0, worst = 0;
    std::size_t inside = 0;
    for (std::size_t i = 0; i < count; ++i)
    {
      const double a = cpu->GetBufferPointer()[i], b = gpu->GetBufferPointer()[i];
      range = std::max(range, std::abs(a));
      worst = std::max(worst, std::abs(a - b));
      inside += a != kDefault;
    }
    EXPECT_GT(inside, count / 4) << "too few output voxels map inside the input";
    EXPECT_LE(worst, 1e-5 * range) << "long axis " << longAxis << ", range " << range;
  }
}
} // namespace
