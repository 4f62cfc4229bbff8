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
// On the GPU the resampler keeps the coefficients it computes mirror-padded
// (SetMirrorPaddedCoefficients, on by default; cifMirrorPadding.h). The output must be
// the image the dense coefficients give, bit for bit, whichever way the coefficients
// come about: a host input of the coefficients' type (uploaded, then filtered into the
// padded layout), of another type (converted first), a CudaDeviceImage (read in place), host
// coefficients (SetInputIsCoefficients: they stay dense either way), and streamed pieces
// (the padded coefficients kept between pieces); 2-D to 4-D, through an affine (the
// scanline path) and a B-spline transform (one thread per voxel).
#include "cifResampleTestSupport.h"
#include "itkCudaDeviceImage.h"
#include "itkStreamingImageFilter.h"

#include <algorithm>
#include <cstring>
#include <sstream>

using namespace cif_resample_test;

namespace
{
/** The module's resampling on the GPU with the coefficients padded or not, the output
 * computed in \a pieces streamed pieces. */
template <typename TIn, typename TOut>
typename TOut::Pointer
ResampleOnGPU(const TIn *                                                              input,
              const itk::Transform<double, TIn::ImageDimension, TIn::ImageDimension> * transform,
              const TOut *                                                             geometry,
              bool                                                                     padded,
              unsigned int                                                             pieces = 1,
              bool                                                                     inputIsCoefficients = false)
{
  using Filter = itk::CubicResampleGPUImageFilter<TIn, TOut>;
  auto resample = Filter::New();
  ConfigureCubicResample(resample.GetPointer(), transform, geometry, -7.0);
  resample->SetInput(input);
  resample->SetMirrorPaddedCoefficients(padded);
  resample->SetInputIsCoefficients(inputIsCoefficients);
  EXPECT_EQ(resample->GetMirrorPaddedCoefficients(), padded);
  typename TOut::Pointer out;
  if (pieces > 1)
  {
    auto streamer = itk::StreamingImageFilter<TOut, TOut>::New();
    streamer->SetInput(resample->GetOutput());
    streamer->SetNumberOfStreamDivisions(pieces);
    streamer->Update();
    out = streamer->GetOutput();
  }
  else
  {
    resample->Update();
    out = resample->GetOutput();
  }
  EXPECT_EQ(resample->GetLastExecutionPath(), Filter::ExecutionPath::GPU);
  out->DisconnectPipeline();
  return out;
}

template <typename TImage>
std::size_t
DifferingVoxels(const TImage * a, const TImage * b)
{
  const std::size_t count = a->GetBufferedRegion().GetNumberOfPixels();
  EXPECT_EQ(a->GetBufferedRegion(), b->GetBufferedRegion());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < count; ++i)
  {
    differ += std::memcmp(a->GetBufferPointer() + i, b->GetBufferPointer() + i, sizeof(*a->GetBufferPointer())) != 0;
  }
  return differ;
}

/** Dense and padded coefficients through every way in, for D-D images. */
template <unsigned int D>
void
ExpectTheSameBitsPaddedOrNot(const itk::Size<D> & inSize, const itk::Size<D> & outSize)
{
  using FloatImage = itk::Image<float, D>;
  using ByteImage = itk::Image<unsigned char, D>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(D) + "-D");
  std::mt19937 rng(seed);
  auto         input = MakeInput<FloatImage>(inSize, Content::Random, seed);
  auto         geometry = OutputGeometry<FloatImage>(outSize);
  // The output box centred on the input's centre, the affine turning about it: many
  // output voxels map inside, and the box's edges cross the input's faces.
  typename FloatImage::SpacingType spacing;
  for (unsigned int a = 0; a < D; ++a)
  {
    spacing[a] = 0.8 * input->GetSpacing()[a] * inSize[a] / outSize[a]; // 80% of the input's extent
  }
  geometry->SetSpacing(spacing);
  const auto centre = CentreOf(input.GetPointer());
  CentreOn(geometry.GetPointer(), centre);
  auto affine = RandomAffine<D>(rng, 1.0, &centre);
  if (*std::min_element(inSize.begin(), inSize.end()) < 6)
  {
    // A random shift of up to 2 would carry most of the output off an input this thin:
    // a turn and a zoom about its centre only.
    affine = itk::AffineTransform<double, D>::New();
    affine->SetCenter(centre);
    affine->Rotate(0, 1, 0.15);
    affine->Scale(1.05);
  }

  {
    auto dense = ResampleOnGPU(input.GetPointer(), affine.GetPointer(), geometry.GetPointer(), false);
    auto padded = ResampleOnGPU(input.GetPointer(), affine.GetPointer(), geometry.GetPointer(), true);
    EXPECT_EQ(DifferingVoxels(padded.GetPointer(), dense.GetPointer()), 0u) << "float host input, affine";
    const std::size_t count = padded->GetBufferedRegion().GetNumberOfPixels();
    const std::size_t inside =
      count -
      static_cast<std::size_t>(std::count(padded->GetBufferPointer(), padded->GetBufferPointer() + count, -7.0f));
    EXPECT_GT(inside, count / 10) << "too few output voxels inside the input to test anything";
    auto streamedDense = ResampleOnGPU(input.GetPointer(), affine.GetPointer(), geometry.GetPointer(), false, 3);
    auto streamedPadded = ResampleOnGPU(input.GetPointer(), affine.GetPointer(), geometry.GetPointer(), true, 3);
    EXPECT_EQ(DifferingVoxels(streamedPadded.GetPointer(), streamedDense.GetPointer()), 0u) << "in 3 pieces";
    EXPECT_EQ(DifferingVoxels(streamedPadded.GetPointer(), padded.GetPointer()), 0u) << "in 3 pieces vs one";
    auto coefficientsDense =
      ResampleOnGPU(input.GetPointer(), affine.GetPointer(), geometry.GetPointer(), false, 1, true);
    auto coefficientsPadded =
      ResampleOnGPU(input.GetPointer(), affine.GetPointer(), geometry.GetPointer(), true, 1, true);
    EXPECT_EQ(DifferingVoxels(coefficientsPadded.GetPointer(), coefficientsDense.GetPointer()), 0u)
      << "host coefficients";
  }
  {
    auto bytes = MakeInput<ByteImage>(inSize, Content::Random, seed + 1);
    auto dense = ResampleOnGPU(bytes.GetPointer(), affine.GetPointer(), geometry.GetPointer(), false);
    auto padded = ResampleOnGPU(bytes.GetPointer(), affine.GetPointer(), geometry.GetPointer(), true);
    EXPECT_EQ(DifferingVoxels(padded.GetPointer(), dense.GetPointer()), 0u) << "uchar host input";
  }
  {
    using DeviceImage = itk::CudaDeviceImage<float, D>;
    auto onDevice = DeviceImage::New();
    onDevice->CopyInformation(input);
    onDevice->SetRegions(input->GetBufferedRegion());
    onDevice->Allocate();
    std::copy(input->GetBufferPointer(),
              input->GetBufferPointer() + input->GetBufferedRegion().GetNumberOfPixels(),
              onDevice->GetBufferPointer());
    auto dense = ResampleOnGPU(onDevice.GetPointer(), affine.GetPointer(), geometry.GetPointer(), false);
    auto padded = ResampleOnGPU(onDevice.GetPointer(), affine.GetPointer(), geometry.GetPointer(), true);
    EXPECT_EQ(DifferingVoxels(padded.GetPointer(), dense.GetPointer()), 0u) << "CudaDeviceImage input";
  }
  if constexpr (D <= 3)
  {
    auto bspline = RandomBSpline<D>(input.GetPointer(), 4, 2.0, rng);
    auto dense = ResampleOnGPU(input.GetPointer(), bspline.GetPointer(), geometry.GetPointer(), false);
    auto padded = ResampleOnGPU(input.GetPointer(), bspline.GetPointer(), geometry.GetPointer(), true);
    EXPECT_EQ(DifferingVoxels(padded.GetPointer(), dense.GetPointer()), 0u) << "B-spline transform";
  }
}
} // namespace

TEST(CubicResampleGPU, MirrorPaddedCoefficientsGiveTheBitsOfDenseOnes)
{
  CIF_REQUIRE_GPU();
  ExpectTheSameBitsPaddedOrNot<2>(itk::Size<2>{ { 45, 38 } }, itk::Size<2>{ { 70, 61 } });
  ExpectTheSameBitsPaddedOrNot<3>(itk::Size<3>{ { 27, 22, 19 } }, itk::Size<3>{ { 33, 30, 25 } });
  ExpectTheSameBitsPaddedOrNot<3>(itk::Size<3>{ { 5, 3, 2 } }, itk::Size<3>{ { 12, 9, 7 } }); // a thin halo's source
  ExpectTheSameBitsPaddedOrNot<4>(itk::Size<4>{ { 9, 8, 7, 6 } }, itk::Size<4>{ { 11, 9, 8, 7 } });
}

TEST(CubicResampleCPU, MirrorPaddedCoefficientsIsAnITKSetting)
{
  // On by default, switched by Set/Get/On/Off, printed, and a change marks the filter
  // modified (its coefficients are kept per filter MTime).
  using Filter = itk::CubicResampleGPUImageFilter<itk::Image<float, 3>, itk::Image<float, 3>>;
  auto filter = Filter::New();
  EXPECT_TRUE(filter->GetMirrorPaddedCoefficients());
  const itk::Object * object = filter.GetPointer(); // GetMTime is protected in ResampleImageFilter
  const auto          before = object->GetMTime();
  filter->MirrorPaddedCoefficientsOff();
  EXPECT_FALSE(filter->GetMirrorPaddedCoefficients());
  EXPECT_GT(object->GetMTime(), before);
  std::ostringstream printed;
  filter->Print(printed);
  EXPECT_NE(printed.str().find("MirrorPaddedCoefficients: Off"), std::string::npos);
}
