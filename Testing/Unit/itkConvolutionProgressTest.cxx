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
// ProgressEvent and AbortGenerateData of ConvolutionGPUImageFilter (separable and
// general kernels) and ZoomGPUImageFilter (gray with an enhancement kernel, RGB
// without), on the CPU and the GPU path: the progress rises over the stages to
// exactly 1 without changing the result; an abort at the first event or midway
// throws ProcessAborted and leaves no output.
#include "cifConvolutionTestSupport.h"
#include "cifKernelPresets.h"
#include "cifProgressTestSupport.h"
#include "itkConvolutionGPUImageFilter.h"
#include "itkConvolutionKernelImage.h"
#include "itkRGBPixel.h"
#include "itkZoomGPUImageFilter.h"

#include <random>

namespace
{
using namespace cif_test;
using Image3 = itk::Image<float, 3>;
using Convolution = itk::ConvolutionGPUImageFilter<Image3, Image3, Image3>;

Convolution::Pointer
MakeConvolution(bool gpu, bool separable, std::uint32_t seed)
{
  auto                         input = MakeImage<Image3>({ { 33, 27, 19 } }, { { 1, -2, 0 } }, Content::Random, seed);
  const cif::ConvolutionKernel kernel =
    separable ? cif::MakePresetKernel("gaussian", 7, 2.0) : RandomKernel(5, 3, 3, seed + 1);
  auto filter = Convolution::New();
  filter->SetInput(input);
  filter->SetKernelImage(itk::MakeKernelImage<Image3>(kernel));
  filter->SetUseGPU(gpu);
  return filter;
}

void
CheckConvolution(bool gpu)
{
  for (bool separable : { true, false })
  {
    const std::uint32_t seed = FreshSeed();
    SCOPED_TRACE(testing::Message() << (gpu ? "GPU" : "CPU") << (separable ? ", separable" : ", general") << ", seed "
                                    << seed);
    auto watched = MakeConvolution(gpu, separable, seed);
    auto progress = RecordProgress(watched);
    watched->Update();
    EXPECT_EQ(watched->GetLastExecutionPath(), gpu ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU);
    EXPECT_EQ(watched->GetLastRunWasSeparable(), separable);
    ExpectProgressRisesToOne(*progress, 3); // the input, the convolution, the output
    auto unwatched = MakeConvolution(gpu, separable, seed);
    unwatched->Update();
    ExpectSameBits(watched->GetOutput(), unwatched->GetOutput());
    ExpectAbortLeavesNoOutput<3>([&] { return MakeConvolution(gpu, separable, seed); }, 1);
  }
}

using Gray = itk::Image<float, 2>;
using RGB = itk::Image<itk::RGBPixel<unsigned char>, 2>;

itk::ZoomGPUImageFilter<Gray>::Pointer
MakeGrayZoom(bool gpu, std::uint32_t seed)
{
  auto input = MakeImage<Gray>({ { 70, 50 } }, { { 7, -4 } }, Content::Random, seed, 0.0, 255.0);
  auto filter = itk::ZoomGPUImageFilter<Gray>::New();
  filter->SetInput(input);
  filter->SetCutOutCenter({ { 40, 20 } });
  filter->SetCutOutSize({ { 21, 17 } });
  filter->SetZoomFactor(2.5);
  filter->SetInterpolation(cif::ZoomInterpolation::Cubic);
  filter->SetKernel(cif::MakePresetKernel("gaussian", 7, 2.0));
  filter->SetUseGPU(gpu);
  return filter;
}

itk::ZoomGPUImageFilter<RGB>::Pointer
MakeRGBZoom(bool gpu, std::uint32_t seed)
{
  std::mt19937 rng(seed);
  auto         input = RGB::New();
  input->SetRegions(RGB::RegionType({ { 0, 0 } }, { { 48, 40 } }));
  input->Allocate();
  std::uniform_int_distribution<int> byte(0, 255);
  for (itk::ImageRegionIterator<RGB> it(input, input->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    const unsigned char rgb[3] = { static_cast<unsigned char>(byte(rng)),
                                   static_cast<unsigned char>(byte(rng)),
                                   static_cast<unsigned char>(byte(rng)) };
    it.Set(itk::RGBPixel<unsigned char>(rgb));
  }
  auto filter = itk::ZoomGPUImageFilter<RGB>::New();
  filter->SetInput(input);
  filter->SetCutOutCenter({ { 20, 22 } });
  filter->SetCutOutSize({ { 15, 12 } });
  filter->SetZoomFactor(3.0);
  filter->SetInterpolation(cif::ZoomInterpolation::Cubic);
  filter->SetUseGPU(gpu);
  return filter;
}

void
CheckZoom(bool gpu)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << (gpu ? "GPU" : "CPU") << ", seed " << seed);
  {
    auto watched = MakeGrayZoom(gpu, seed);
    auto progress = RecordProgress(watched);
    watched->Update();
    EXPECT_EQ(watched->GetLastExecutionPath(), gpu ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU);
    // the region, two prefilter axes, the zoom, the enhancement, the output
    ExpectProgressRisesToOne(*progress, 6);
    auto unwatched = MakeGrayZoom(gpu, seed);
    unwatched->Update();
    ExpectSameBits(watched->GetOutput(), unwatched->GetOutput());
    ExpectAbortLeavesNoOutput<2>([&] { return MakeGrayZoom(gpu, seed); }, 3);
  }
  {
    auto watched = MakeRGBZoom(gpu, seed);
    auto progress = RecordProgress(watched);
    watched->Update();
    // the region, two axes of three components, the zoom, the output
    ExpectProgressRisesToOne(*progress, 9);
    ExpectAbortLeavesNoOutput<2>([&] { return MakeRGBZoom(gpu, seed); }, 4);
  }
}

TEST(ConvolutionProgressCPU, RisesToOneAndAborts) { CheckConvolution(false); }
TEST(ZoomProgressCPU, RisesToOneAndAborts) { CheckZoom(false); }
TEST(ConvolutionProgressGPU, RisesToOneAndAborts)
{
  CIF_REQUIRE_GPU();
  CheckConvolution(true);
}
TEST(ZoomProgressGPU, RisesToOneAndAborts)
{
  CIF_REQUIRE_GPU();
  CheckZoom(true);
}
} // namespace
