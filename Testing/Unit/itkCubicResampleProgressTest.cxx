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
// ProgressEvent and AbortGenerateData of CubicResampleGPUImageFilter (scalar and
// multi-component, exact mode and, on a device, the texture mode) and of
// TransformToDisplacementFieldGPUFilter, on the CPU and the GPU path: the progress
// rises over the stages (input, prefilter axes, host-mapped points, slabs, output)
// to exactly 1 without changing the result; an abort at the first event or midway
// throws ProcessAborted and leaves no output.
#include "cifProgressTestSupport.h"
#include "cifResampleTestSupport.h"
#include "itkRGBPixel.h"
#include "itkTransformToDisplacementFieldGPUFilter.h"

#include <random>

namespace
{
using namespace cif_test;
using namespace cif_resample_test;

using Image = itk::Image<float, 3>;
using Resampler = itk::CubicResampleGPUImageFilter<Image, Image>;

/** A resampler of fresh random data through a random affine, in 6 forced slabs. */
Resampler::Pointer
MakeResampler(Path path, std::uint32_t seed, bool textures = false)
{
  std::mt19937 rng(seed);
  auto         input = MakeInput<Image>({ { 23, 27, 31 } }, Content::Random, seed);
  auto         geometry = OutputGeometry<Image>({ { 26, 23, 6 } });
  auto         filter = Resampler::New();
  ConfigureCubicResample(filter.GetPointer(), RandomAffine<3>(rng).GetPointer(), geometry.GetPointer(), -7.0);
  filter->SetInput(input);
  filter->SetUseGPU(path == Path::GPU);
  filter->SetUseTextureInterpolation(textures);
  filter->SetMinimumVoxelsPerSlab(1);
  return filter;
}

void
CheckResampleProgress(Path path, bool textures = false)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << (path == Path::GPU ? "GPU" : "CPU") << (textures ? ", textures" : "") << ", seed "
                                  << seed);
  auto watched = MakeResampler(path, seed, textures);
  auto progress = RecordProgress(watched);
  watched->Update();
  EXPECT_EQ(watched->GetLastExecutionPath(),
            path == Path::GPU ? Resampler::ExecutionPath::GPU : Resampler::ExecutionPath::CPU);
  // the input, three prefilter axes, six slabs (the texture mode: one piece), and
  // on the GPU the download
  ExpectProgressRisesToOne(*progress, 1 + 3 + (textures ? 1 : 6) + (path == Path::GPU ? 1 : 0));

  auto unwatched = MakeResampler(path, seed, textures);
  unwatched->Update();
  ExpectSameBits(watched->GetOutput(), unwatched->GetOutput());
}

void
CheckResampleAbort(Path path)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << (path == Path::GPU ? "GPU" : "CPU") << ", seed " << seed);
  // midway: event 6 follows the second slab (0 the start, 1 the input, 2-4 the axes)
  ExpectAbortLeavesNoOutput<3>([&] { return MakeResampler(path, seed); }, 6);
}

using RGBImage = itk::Image<itk::RGBPixel<float>, 2>;
using RGBResampler = itk::CubicResampleGPUImageFilter<RGBImage, RGBImage>;

RGBResampler::Pointer
MakeRGBResampler(Path path, std::uint32_t seed)
{
  std::mt19937 rng(seed);
  auto         input = RGBImage::New();
  input->SetRegions(RGBImage::RegionType({ { 2, -3 } }, { { 37, 29 } }));
  input->Allocate();
  std::uniform_real_distribution<float> unit(0.0f, 255.0f);
  for (itk::ImageRegionIterator<RGBImage> it(input, input->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    const float rgb[3] = { unit(rng), unit(rng), unit(rng) };
    it.Set(itk::RGBPixel<float>(rgb));
  }
  auto filter = RGBResampler::New();
  filter->SetInput(input);
  filter->SetTransform(RandomAffine<2>(rng));
  filter->SetOutputParametersFromImage(OutputGeometry<RGBImage>({ { 33, 4 } }));
  filter->CubicBSplinePerComponentOn();
  filter->SetUseGPU(path == Path::GPU);
  filter->SetMinimumVoxelsPerSlab(1);
  return filter;
}

void
CheckComponentProgress(Path path)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "RGB, " << (path == Path::GPU ? "GPU" : "CPU") << ", seed " << seed);
  auto filter = MakeRGBResampler(path, seed);
  auto progress = RecordProgress(filter);
  filter->Update();
  // per component: the input, two axes, four slabs, the output
  ExpectProgressRisesToOne(*progress, 3 * (1 + 2 + 4 + 1));
  ExpectAbortLeavesNoOutput<2>([&] { return MakeRGBResampler(path, seed); }, 9);
}

using Field = itk::Image<itk::Vector<double, 3>, 3>;
using FieldFilter = itk::TransformToDisplacementFieldGPUFilter<Field, double>;

FieldFilter::Pointer
MakeFieldFilter(Path path, std::uint32_t seed)
{
  std::mt19937 rng(seed);
  auto         domain = MakeInput<Image>({ { 18, 15, 12 } }, Content::Smooth, seed);
  auto         filter = FieldFilter::New();
  filter->SetTransform(RandomBSpline<3>(domain.GetPointer(), 3, 3.0, rng));
  filter->SetReferenceImage(domain);
  filter->SetUseReferenceImage(true);
  filter->SetUseGPU(path == Path::GPU);
  filter->SetMinimumVoxelsPerSlab(1); // 12 slabs of one plane
  return filter;
}

void
CheckFieldProgress(Path path)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "displacement field, " << (path == Path::GPU ? "GPU" : "CPU") << ", seed "
                                  << seed);
  auto watched = MakeFieldFilter(path, seed);
  auto progress = RecordProgress(watched);
  watched->Update();
  EXPECT_EQ(watched->GetLastExecutionPath(),
            path == Path::GPU ? FieldFilter::ExecutionPath::GPU : FieldFilter::ExecutionPath::CPU);
  ExpectProgressRisesToOne(*progress, 12 + (path == Path::GPU ? 1 : 0));
  auto unwatched = MakeFieldFilter(path, seed);
  unwatched->Update();
  ExpectSameBits(watched->GetOutput(), unwatched->GetOutput());
  ExpectAbortLeavesNoOutput<3>([&] { return MakeFieldFilter(path, seed); }, 5);
}

/** A small field with the default slab size is one slab: the first event is the
 * start, so an abort there still stops the filter before any work. */
TEST(DisplacementFieldProgressCPU, OneSlabStillStartsAtZeroAndStops)
{
  const std::uint32_t seed = FreshSeed();
  auto                filter = MakeFieldFilter(Path::CPU, seed);
  filter->SetMinimumVoxelsPerSlab(itk::NumericTraits<itk::SizeValueType>::max());
  auto progress = RecordProgress(filter);
  filter->Update();
  ExpectProgressRisesToOne(*progress, 1);
  EXPECT_EQ(progress->size(), 2u);
  ExpectAbortLeavesNoOutput<3>(
    [&] {
      auto f = MakeFieldFilter(Path::CPU, seed);
      f->SetMinimumVoxelsPerSlab(itk::NumericTraits<itk::SizeValueType>::max());
      return f;
    },
    0);
}

TEST(CubicResampleProgressCPU, RisesToOneOverTheStages) { CheckResampleProgress(Path::CPU); }
TEST(CubicResampleProgressCPU, AbortLeavesNoOutput) { CheckResampleAbort(Path::CPU); }
TEST(CubicResampleProgressCPU, ComponentsRiseToOneAndAbort) { CheckComponentProgress(Path::CPU); }
TEST(DisplacementFieldProgressCPU, RisesToOneAndAborts) { CheckFieldProgress(Path::CPU); }

TEST(CubicResampleProgressGPU, RisesToOneOverTheStages)
{
  CIF_REQUIRE_GPU();
  CheckResampleProgress(Path::GPU);
}
TEST(CubicResampleProgressGPU, TextureModeRisesToOneInOnePiece)
{
  CIF_REQUIRE_GPU();
  CheckResampleProgress(Path::GPU, true);
}
TEST(CubicResampleProgressGPU, AbortLeavesNoOutput)
{
  CIF_REQUIRE_GPU();
  CheckResampleAbort(Path::GPU);
}
TEST(CubicResampleProgressGPU, ComponentsRiseToOneAndAbort)
{
  CIF_REQUIRE_GPU();
  CheckComponentProgress(Path::GPU);
}
TEST(DisplacementFieldProgressGPU, RisesToOneAndAborts)
{
  CIF_REQUIRE_GPU();
  CheckFieldProgress(Path::GPU);
}
} // namespace
