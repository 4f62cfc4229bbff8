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
// ZoomGPUImageFilter against ITK's CPU composition: extract the interpolation region,
// resample it onto the zoom canvas (BSplineInterpolateImageFunction of order 3,
// linear or nearest neighbour), convolve with ConvolutionImageFilter, crop to the
// enlarged cut-out. Gray and RGB, cut-outs in the middle and at the image's edges,
// integer and non-integer zooms; the seed's pixel replication; parameter validation;
// the GPU against the CPU path. Streaming: pieces of StreamingImageFilter, a streaming
// writer and a requested region alone give the bits of a one-piece run (CPU path in
// CI, GPU twins where a device is present).
#include "cifConvolutionTestSupport.h"
#include "cifDeviceBuffer.h"
#include "cifKernelPresets.h"
#include "cifStreamingWriterTestSupport.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkConvolutionKernelImage.h"
#include "itkExtractImageFilter.h"
#include "itkFlipImageFilter.h"
#include "itkLinearInterpolateImageFunction.h"
#include "itkNearestNeighborInterpolateImageFunction.h"
#include "itkRGBPixel.h"
#include "itkResampleImageFilter.h"
#include "itkStreamingImageFilter.h"
#include "itkZoomGPUImageFilter.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace
{
using namespace cif_test;
using Gray = itk::Image<float, 2>;
using RGB8 = itk::Image<itk::RGBPixel<unsigned char>, 2>;
using Interpolation = cif::ZoomInterpolation;
constexpr double Tolerance = 1e-5;
/** The inputs' grey levels span 0 to 255 (MakeImage's range in every test here). */
constexpr double InputValueRange = 255.0;

/** The largest difference between \a a and \a b over the larger of \a b's span and
 * the inputs' value range: float rounding scales with the values (up to 255), not with
 * the span of a small smooth cut-out, which can be a few grey levels (a 7x6 cut-out at
 * a corner once gave 1.5e-5 of its span, seed 820619625). */
template <typename TA, typename TB>
double
ErrorOverValueRange(const TA * a, const TB * b, std::size_t count)
{
  double       span = 0;
  const double relative = RelativeError(a, b, count, &span);
  return relative * span / std::max(span, InputValueRange);
}

struct ZoomCase
{
  itk::Index<2> center;
  itk::Size<2>  size;
  double        zoom;
  Interpolation interpolation;
  const char *  kernel; // preset name or nullptr
};

std::string
Describe(const ZoomCase & c)
{
  std::ostringstream s;
  s << "centre " << c.center << ", size " << c.size << ", zoom " << c.zoom << ", " << cif::ToString(c.interpolation)
    << ", kernel " << (c.kernel ? c.kernel : "none");
  return s.str();
}

template <typename TImage>
void
Configure(itk::ZoomGPUImageFilter<TImage> * filter, const TImage * input, const ZoomCase & c, bool gpu)
{
  filter->SetInput(input);
  filter->SetCutOutCenter(c.center);
  filter->SetCutOutSize(c.size);
  filter->SetZoomFactor(c.zoom);
  filter->SetInterpolation(c.interpolation);
  filter->SetUseGPU(gpu);
  if (c.kernel)
  {
    filter->SetKernel(cif::MakePresetKernel(c.kernel, 15, 5.0));
  }
}

/** ITK's composition for one gray channel, on the regions the filter reports. */
Gray::Pointer
ITKComposition(const Gray *                input,
               const ZoomCase &            c,
               const itk::ImageRegion<2> & cutOut,
               const itk::ImageRegion<2> & interpolationRegion,
               const itk::ImageRegion<2> & canvas,
               const itk::Size<2> &        outSize)
{
  auto extract = itk::ExtractImageFilter<Gray, Gray>::New();
  extract->SetInput(input);
  extract->SetExtractionRegion(interpolationRegion);
  extract->SetDirectionCollapseToSubmatrix();
  extract->Update();

  auto resample = itk::ResampleImageFilter<Gray, Gray>::New();
  resample->SetInput(extract->GetOutput());
  if (c.interpolation == Interpolation::Cubic)
  {
    resample->SetInterpolator(itk::BSplineInterpolateImageFunction<Gray, double, double>::New());
  }
  else if (c.interpolation == Interpolation::Linear)
  {
    resample->SetInterpolator(itk::LinearInterpolateImageFunction<Gray, double>::New());
  }
  else
  {
    resample->SetInterpolator(itk::NearestNeighborInterpolateImageFunction<Gray, double>::New());
  }
  // The canvas: output sample i at input index cut + (i + 1/2) / zoom - 1/2.
  itk::ContinuousIndex<double, 2> first;
  Gray::SpacingType               spacing;
  for (unsigned a = 0; a < 2; ++a)
  {
    first[a] = cutOut.GetIndex()[a] + (canvas.GetIndex()[a] + 0.5) / c.zoom - 0.5;
    spacing[a] = input->GetSpacing()[a] / c.zoom;
  }
  Gray::PointType origin;
  input->TransformContinuousIndexToPhysicalPoint(first, origin);
  resample->SetOutputOrigin(origin);
  resample->SetOutputSpacing(spacing);
  resample->SetOutputDirection(input->GetDirection());
  resample->SetSize(canvas.GetSize());
  resample->SetDefaultPixelValue(-12345); // must never show
  resample->Update();
  Gray::Pointer canvasImage = resample->GetOutput();
  if (c.kernel)
  {
    auto convolve = itk::ConvolutionImageFilter<Gray, Gray, Gray>::New();
    convolve->SetInput(canvasImage);
    convolve->SetKernelImage(itk::MakeKernelImage<Gray>(cif::MakePresetKernel(c.kernel, 15, 5.0)));
    convolve->Update();
    canvasImage = convolve->GetOutput();
  }
  // Crop: output index o is canvas index o - canvasStart.
  auto out = Gray::New();
  out->SetRegions(outSize);
  out->Allocate();
  for (itk::ImageRegionIteratorWithIndex<Gray> it(out, out->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    itk::Index<2> i;
    for (unsigned a = 0; a < 2; ++a)
    {
      i[a] = it.GetIndex()[a] - canvas.GetIndex()[a];
    }
    it.Set(canvasImage->GetPixel(i));
  }
  return out;
}

std::vector<bool>
Paths()
{
  std::vector<bool> paths{ false };
  if (cif::IsGPUAvailable())
  {
    paths.push_back(true);
  }
  return paths;
}

void
ExpectGrayMatchesITK(const Gray * input, const ZoomCase & c)
{
  SCOPED_TRACE(Describe(c));
  for (bool gpu : Paths())
  {
    SCOPED_TRACE(gpu ? "GPU" : "CPU");
    auto filter = itk::ZoomGPUImageFilter<Gray>::New();
    Configure(filter.GetPointer(), input, c, gpu);
    filter->Update();
    EXPECT_EQ(filter->GetLastExecutionPath(), gpu ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU);
    const auto outSize = filter->GetOutput()->GetLargestPossibleRegion().GetSize();
    for (unsigned a = 0; a < 2; ++a)
    {
      EXPECT_EQ(outSize[a], static_cast<itk::SizeValueType>(std::floor(c.size[a] * c.zoom + 1e-9)));
      EXPECT_DOUBLE_EQ(filter->GetOutput()->GetSpacing()[a], input->GetSpacing()[a] / c.zoom);
    }
    auto expected = ITKComposition(
      input, c, filter->GetCutOutRegion(), filter->GetInterpolationRegion(), filter->GetCanvasRegion(), outSize);
    EXPECT_LE(ErrorOverValueRange(filter->GetOutput()->GetBufferPointer(),
                                  expected->GetBufferPointer(),
                                  expected->GetBufferedRegion().GetNumberOfPixels()),
              Tolerance);
    if (c.interpolation == Interpolation::Cubic)
    {
      // The spline fitted on the interpolation region is the spline of the whole image.
      auto whole = ITKComposition(
        input, c, filter->GetCutOutRegion(), input->GetLargestPossibleRegion(), filter->GetCanvasRegion(), outSize);
      EXPECT_LE(ErrorOverValueRange(filter->GetOutput()->GetBufferPointer(),
                                    whole->GetBufferPointer(),
                                    whole->GetBufferedRegion().GetNumberOfPixels()),
                Tolerance);
    }
    // The output's first pixel sits where ITK's does.
    itk::Point<double, 2> p, q;
    filter->GetOutput()->TransformIndexToPhysicalPoint({ { 0, 0 } }, p);
    itk::ContinuousIndex<double, 2> first;
    for (unsigned a = 0; a < 2; ++a)
    {
      first[a] = filter->GetCutOutRegion().GetIndex()[a] + 0.5 / c.zoom - 0.5;
    }
    input->TransformContinuousIndexToPhysicalPoint(first, q);
    EXPECT_LT(p.EuclideanDistanceTo(q), 1e-9);
  }
}

Gray::Pointer
TestPicture(std::uint32_t seed, Content content = Content::Smooth)
{
  return MakeImage<Gray>({ { 120, 90 } }, { { 0, 0 } }, content, seed, 0.0, 255.0);
}

/** An 8-bit RGB picture of independent random bytes (the seed's pixel type). */
RGB8::Pointer
RandomRGB8(const itk::Size<2> & size, std::uint32_t seed)
{
  auto input = RGB8::New();
  input->SetRegions(size);
  input->Allocate();
  std::mt19937 rng(seed);
  auto *       bytes = reinterpret_cast<unsigned char *>(input->GetBufferPointer());
  for (std::size_t i = 0; i < input->GetBufferedRegion().GetNumberOfPixels() * 3; ++i)
  {
    bytes[i] = static_cast<unsigned char>(rng());
  }
  return input;
}

TEST(Zoom, CubicInTheMiddleMatchesITK)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = TestPicture(seed, Content::Random);
  ExpectGrayMatchesITK(input, { { { 60, 45 } }, { { 30, 20 } }, 2.0, Interpolation::Cubic, nullptr });
  ExpectGrayMatchesITK(input, { { { 61, 40 } }, { { 17, 24 } }, 3.0, Interpolation::Cubic, "gaussian" });
  ExpectGrayMatchesITK(input, { { { 50, 50 } }, { { 21, 11 } }, 2.5, Interpolation::Cubic, "sharpen" });
}

TEST(Zoom, AtTheImageEdgesMatchesITK)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = TestPicture(seed);
  // Cut-outs touching each corner: the canvas is clipped there and the convolution
  // repeats the image's own edge; elsewhere it reads real neighbouring pixels.
  ExpectGrayMatchesITK(input, { { { 5, 4 } }, { { 10, 8 } }, 2.0, Interpolation::Cubic, "gaussian" });
  ExpectGrayMatchesITK(input, { { { 114, 85 } }, { { 12, 10 } }, 3.0, Interpolation::Cubic, "emboss" });
  ExpectGrayMatchesITK(input, { { { 2, 80 } }, { { 5, 19 } }, 1.5, Interpolation::Linear, "unsharp" });
  ExpectGrayMatchesITK(input, { { { 117, 3 } }, { { 6, 7 } }, 4.0, Interpolation::Nearest, "edge" });
  ExpectGrayMatchesITK(input, { { { 60, 45 } }, { { 120, 90 } }, 1.0, Interpolation::Cubic, "box" });
}

TEST(Zoom, LinearAndNearestMatchITK)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = TestPicture(seed, Content::Random);
  ExpectGrayMatchesITK(input, { { { 40, 30 } }, { { 25, 19 } }, 1.75, Interpolation::Linear, nullptr });
  ExpectGrayMatchesITK(input, { { { 40, 30 } }, { { 25, 19 } }, 3.0, Interpolation::Nearest, "ridge" });
}

TEST(Zoom, ImageWithShiftedIndexAndOriginMatchesITK)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto            input = MakeImage<Gray>({ { 70, 50 } }, { { 7, -4 } }, Content::Random, seed, 0.0, 255.0);
  Gray::PointType origin;
  origin[0] = -12.5;
  origin[1] = 3.25;
  input->SetOrigin(origin);
  ExpectGrayMatchesITK(input, { { { 10, -1 } }, { { 6, 5 } }, 2.0, Interpolation::Cubic, "gaussian" });
  ExpectGrayMatchesITK(input, { { { 50, 30 } }, { { 15, 12 } }, 1.5, Interpolation::Linear, "sharpen" });
}

TEST(Zoom, NearestWithIntegerZoomIsPixelReplication)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = TestPicture(seed, Content::Random);
  for (int zoom : { 1, 2, 3, 5 })
  {
    auto filter = itk::ZoomGPUImageFilter<Gray>::New();
    Configure(filter.GetPointer(),
              input.GetPointer(),
              { { { 33, 71 } }, { { 9, 14 } }, double(zoom), Interpolation::Nearest, nullptr },
              false);
    filter->Update();
    const auto cut = filter->GetCutOutRegion().GetIndex();
    EXPECT_EQ(cut[0], 33 - 4);
    EXPECT_EQ(cut[1], 71 - 7);
    for (itk::ImageRegionConstIteratorWithIndex<Gray> it(filter->GetOutput(), filter->GetOutput()->GetBufferedRegion());
         !it.IsAtEnd();
         ++it)
    {
      const itk::Index<2> source{ { cut[0] + it.GetIndex()[0] / zoom, cut[1] + it.GetIndex()[1] / zoom } };
      ASSERT_EQ(it.Get(), input->GetPixel(source)) << "zoom " << zoom << " at " << it.GetIndex();
    }
  }
}

TEST(Zoom, RGBMatchesITKPerChannel)
{
  using RGB = itk::Image<itk::RGBPixel<float>, 2>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  Gray::Pointer channels[3];
  for (unsigned c = 0; c < 3; ++c)
  {
    channels[c] =
      MakeImage<Gray>({ { 64, 48 } }, { { 0, 0 } }, c == 1 ? Content::Random : Content::Smooth, seed + c, 0, 255);
  }
  auto input = RGB::New();
  input->CopyInformation(channels[0]);
  input->SetRegions(channels[0]->GetBufferedRegion());
  input->Allocate();
  for (std::size_t i = 0; i < 64 * 48; ++i)
    for (unsigned c = 0; c < 3; ++c)
      input->GetBufferPointer()[i][c] = channels[c]->GetBufferPointer()[i];
  for (const ZoomCase & c : { ZoomCase{ { { 3, 3 } }, { { 7, 6 } }, 2.0, Interpolation::Cubic, "gaussian" },
                              ZoomCase{ { { 32, 24 } }, { { 20, 16 } }, 2.0, Interpolation::Cubic, "emboss" } })
  {
    SCOPED_TRACE(Describe(c));
    for (bool gpu : Paths())
    {
      auto filter = itk::ZoomGPUImageFilter<RGB>::New();
      Configure(filter.GetPointer(), input.GetPointer(), c, gpu);
      filter->Update();
      const auto outSize = filter->GetOutput()->GetLargestPossibleRegion().GetSize();
      for (unsigned ch = 0; ch < 3; ++ch)
      {
        auto expected = ITKComposition(channels[ch],
                                       c,
                                       filter->GetCutOutRegion(),
                                       filter->GetInterpolationRegion(),
                                       filter->GetCanvasRegion(),
                                       outSize);
        auto got = ComponentImage(filter->GetOutput(), ch, 3);
        EXPECT_LE(ErrorOverValueRange(got->GetBufferPointer(),
                                      expected->GetBufferPointer(),
                                      expected->GetBufferedRegion().GetNumberOfPixels()),
                  Tolerance)
          << "channel " << ch << (gpu ? " GPU" : " CPU");
      }
    }
  }
}

/** Expects Update() to throw an itk::ExceptionObject whose text contains \a words. */
template <typename TFilter>
void
ExpectRefused(TFilter * filter, const std::string & words)
{
  try
  {
    filter->Update();
    ADD_FAILURE() << "accepted; expected an error about " << words;
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find(words), std::string::npos) << e.GetDescription();
  }
}

TEST(Zoom, BadParametersGiveClearErrors)
{
  auto input = TestPicture(FreshSeed());
  auto make = [&](itk::Index<2> center, itk::Size<2> size, double zoom) {
    auto filter = itk::ZoomGPUImageFilter<Gray>::New();
    Configure(filter.GetPointer(), input.GetPointer(), { center, size, zoom, Interpolation::Cubic, nullptr }, false);
    return filter;
  };
  ExpectRefused(make({ { 60, 45 } }, { { 10, 10 } }, 0.0).GetPointer(), "zoom factor must be at least 1 (got 0)");
  ExpectRefused(make({ { 60, 45 } }, { { 10, 10 } }, 0.5).GetPointer(), "zoom factor");
  ExpectRefused(make({ { 60, 45 } }, { { 10, 10 } }, std::nan("")).GetPointer(), "zoom factor");
  ExpectRefused(make({ { 60, 45 } }, { { 10, 10 } }, 1e5).GetPointer(), "more than 2^31 pixels");
  ExpectRefused(make({ { 60, 45 } }, { { 0, 10 } }, 2.0).GetPointer(), "width and a height of at least 1");
  ExpectRefused(make({ { 60, 45 } }, { { 10, 0 } }, 2.0).GetPointer(), "width and a height of at least 1");
  ExpectRefused(make({ { 200, 45 } }, { { 10, 10 } }, 2.0).GetPointer(), "not inside the image");
  ExpectRefused(make({ { 2, 45 } }, { { 10, 10 } }, 2.0).GetPointer(), "not inside the image");
  ExpectRefused(make({ { 60, 89 } }, { { 10, 10 } }, 2.0).GetPointer(), "not inside the image");
  ExpectRefused(make({ { -5, -5 } }, { { 1, 1 } }, 2.0).GetPointer(), "not inside the image");
  auto                   filter = make({ { 60, 45 } }, { { 10, 10 } }, 2.0);
  cif::ConvolutionKernel even;
  even.size[0] = even.size[1] = 4;
  even.weights.assign(16, 1.0);
  EXPECT_THROW(filter->SetKernel(even), itk::ExceptionObject);
  EXPECT_FALSE(filter->HasKernel());
}

TEST(Zoom, GPUMatchesCPUOnTheSeedsCase)
{
  CIF_REQUIRE_GPU();
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = RandomRGB8({ { 640, 426 } }, seed);
  for (bool forceGeneral : { false, true })
  {
    RGB8::Pointer out[2];
    for (bool gpu : { false, true })
    {
      auto filter = itk::ZoomGPUImageFilter<RGB8>::New();
      Configure(filter.GetPointer(),
                input.GetPointer(),
                { { { 320, 213 } }, { { 640, 426 } }, 2.0, Interpolation::Cubic, "gaussian" },
                gpu);
      filter->SetForceGeneralPath(forceGeneral);
      filter->Update();
      out[gpu] = filter->GetOutput();
    }
    const auto * a = reinterpret_cast<const unsigned char *>(out[0]->GetBufferPointer());
    const auto * b = reinterpret_cast<const unsigned char *>(out[1]->GetBufferPointer());
    std::size_t  differing = 0, n = out[0]->GetBufferedRegion().GetNumberOfPixels() * 3;
    for (std::size_t i = 0; i < n; ++i)
    {
      ASSERT_LE(std::abs(int(a[i]) - int(b[i])), 1);
      differing += a[i] != b[i];
    }
    EXPECT_LT(differing, n / 1000) << "values one apart (truncation at float rounding)";
  }
}
TEST(Zoom, GPUPathCrossesTheBusOnceEachWay)
{
  CIF_REQUIRE_GPU();
  auto input = TestPicture(FreshSeed());
  auto filter = itk::ZoomGPUImageFilter<Gray>::New();
  Configure(filter.GetPointer(),
            input.GetPointer(),
            { { { 60, 45 } }, { { 40, 30 } }, 2.0, Interpolation::Cubic, "gaussian" },
            true);
  cif::TransferCounters::Reset();
  filter->Update();
  const auto counters = cif::TransferCounters::Get();
  // The region and the kernel's weights go up; only the result comes back.
  EXPECT_EQ(counters.uploads, 2u);
  EXPECT_EQ(counters.downloads, 1u);
  EXPECT_EQ(counters.downloadedBytes, filter->GetOutput()->GetBufferedRegion().GetNumberOfPixels() * sizeof(float));
}

/** The set-ups the streaming tests run: every interpolation, each with no
 * enhancement, the seed's 15 x 15 Gaussian (separable path) and a random 7 x 5
 * kernel (general path). The cut-out (20 x 28 at zoom 2.5: 50 x 70 output pixels,
 * enough rows for 64 pieces) touches the image's top edge and lies 2 pixels from its
 * left edge, so the canvas is clipped there and reads real pixels elsewhere. */
struct StreamingSetUp
{
  Interpolation          interpolation;
  cif::ConvolutionKernel kernel; // no weights: no enhancement
};

std::vector<StreamingSetUp>
StreamingSetUps(std::uint32_t seed)
{
  std::vector<StreamingSetUp> setUps;
  for (Interpolation interpolation : { Interpolation::Cubic, Interpolation::Nearest, Interpolation::Linear })
  {
    setUps.push_back({ interpolation, {} });
    setUps.push_back({ interpolation, cif::MakePresetKernel("gaussian", 15, 5.0) });
    setUps.push_back({ interpolation, RandomKernel(7, 5, 1, seed) });
  }
  return setUps;
}

std::string
Describe(const StreamingSetUp & s)
{
  std::ostringstream text;
  text << cif::ToString(s.interpolation) << ", kernel "
       << (s.kernel.weights.empty() ? std::string("none")
                                    : std::to_string(s.kernel.size[0]) + " x " + std::to_string(s.kernel.size[1]));
  return text.str();
}

template <typename TImage>
typename itk::ZoomGPUImageFilter<TImage>::Pointer
MakeStreamingZoom(const TImage * input, const StreamingSetUp & s, bool gpu)
{
  auto filter = itk::ZoomGPUImageFilter<TImage>::New();
  Configure(filter.GetPointer(), input, { { { 12, 14 } }, { { 20, 28 } }, 2.5, s.interpolation, nullptr }, gpu);
  if (!s.kernel.weights.empty())
  {
    filter->SetKernel(s.kernel);
  }
  return filter;
}

/** The output of a one-piece Update, cut off from its filter. */
template <typename TImage>
typename TImage::Pointer
OnePieceZoom(const TImage * input, const StreamingSetUp & s, bool gpu)
{
  auto filter = MakeStreamingZoom(input, s, gpu);
  filter->Update();
  EXPECT_EQ(filter->GetLastExecutionPath(), gpu ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU);
  typename TImage::Pointer whole = filter->GetOutput();
  whole->DisconnectPipeline();
  return whole;
}

/** Whether the pixels of \a region in \a a and \a b have the same bits. */
template <typename TImage>
bool
SameBitsIn(const TImage * a, const TImage * b, const typename TImage::RegionType & region)
{
  itk::ImageRegionConstIterator<TImage> i(a, region), j(b, region);
  for (; !i.IsAtEnd(); ++i, ++j)
  {
    const auto p = i.Get(), q = j.Get();
    if (std::memcmp(&p, &q, sizeof(p)) != 0)
    {
      return false;
    }
  }
  return true;
}

/** Under StreamingImageFilter each piece computes only its requested region of the
 * output; 1, 2, 3, 7, 16 and 64 pieces give the bits of one. The input comes through
 * a filter that computes only what is asked of it (FlipImageFilter flipping no axis:
 * a copy), which must be asked for the interpolation region whatever the piece. */
template <typename TImage>
void
ExpectStreamingMatchesOnePiece(const TImage * input, std::uint32_t seed, bool gpu)
{
  for (const StreamingSetUp & s : StreamingSetUps(seed))
  {
    SCOPED_TRACE(Describe(s));
    const auto whole = OnePieceZoom(input, s, gpu);
    ASSERT_EQ(whole->GetBufferedRegion().GetSize(), (itk::Size<2>{ { 50, 70 } }));
    for (unsigned int divisions : { 1u, 2u, 3u, 7u, 16u, 64u })
    {
      SCOPED_TRACE(testing::Message() << divisions << " divisions");
      auto copy = itk::FlipImageFilter<TImage>::New(); // flips no axis
      copy->SetInput(input);
      auto filter = MakeStreamingZoom(copy->GetOutput(), s, gpu);
      auto streamer = itk::StreamingImageFilter<TImage, TImage>::New();
      streamer->SetInput(filter->GetOutput());
      streamer->SetNumberOfStreamDivisions(divisions);
      streamer->Update();
      EXPECT_EQ(filter->GetLastExecutionPath(), gpu ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU);
      EXPECT_EQ(copy->GetOutput()->GetRequestedRegion(), filter->GetInterpolationRegion());
      if (divisions > 1)
      {
        // the last piece alone was computed: a slab of the output, not all of it
        EXPECT_LT(filter->GetOutput()->GetBufferedRegion().GetNumberOfPixels(),
                  whole->GetBufferedRegion().GetNumberOfPixels());
      }
      ASSERT_EQ(streamer->GetOutput()->GetBufferedRegion(), whole->GetBufferedRegion());
      EXPECT_TRUE(SameBits(streamer->GetOutput()->GetBufferPointer(),
                           whole->GetBufferPointer(),
                           whole->GetBufferedRegion().GetNumberOfPixels()));
    }
  }
}

/** A requested region smaller than the output (set on the output before Update) is
 * all the filter computes and allocates, with the bits of the same pixels of a
 * one-piece run: single rows (first, middle, last), a block away from the edges, a
 * corner pixel. */
template <typename TImage>
void
ExpectRequestedRegionAloneIsComputed(const TImage * input, std::uint32_t seed, bool gpu)
{
  using Region = typename TImage::RegionType;
  const Region requests[] = { Region({ { 0, 0 } }, { { 50, 1 } }),
                              Region({ { 0, 33 } }, { { 50, 1 } }),
                              Region({ { 0, 69 } }, { { 50, 1 } }),
                              Region({ { 9, 20 } }, { { 17, 11 } }),
                              Region({ { 49, 69 } }, { { 1, 1 } }) };
  for (const StreamingSetUp & s : StreamingSetUps(seed))
  {
    SCOPED_TRACE(Describe(s));
    const auto whole = OnePieceZoom(input, s, gpu);
    for (const Region & request : requests)
    {
      SCOPED_TRACE(testing::Message() << "request " << request.GetIndex() << " + " << request.GetSize());
      auto filter = MakeStreamingZoom(input, s, gpu);
      filter->UpdateOutputInformation();
      filter->GetOutput()->SetRequestedRegion(request);
      filter->Update();
      EXPECT_EQ(filter->GetLastExecutionPath(), gpu ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU);
      ASSERT_EQ(filter->GetOutput()->GetBufferedRegion(), request);
      EXPECT_TRUE(SameBitsIn(filter->GetOutput(), whole.GetPointer(), request));
    }
  }
}

/** A streaming MetaImage writer (9 pieces) writes the bits of one piece. */
template <typename TImage>
void
ExpectStreamingWriterMatchesOnePiece(const TImage * input, std::uint32_t seed, bool gpu)
{
  const StreamingSetUp s{ Interpolation::Cubic, cif::MakePresetKernel("gaussian", 15, 5.0) };
  const auto           whole = OnePieceZoom(input, s, gpu);
  auto                 filter = MakeStreamingZoom(input, s, gpu);
  const auto           read = WriteStreamedAndReadBack(filter->GetOutput(), 9, "zoom_" + std::to_string(seed));
  ASSERT_EQ(read->GetBufferedRegion(), whole->GetBufferedRegion());
  EXPECT_TRUE(
    SameBits(read->GetBufferPointer(), whole->GetBufferPointer(), whole->GetBufferedRegion().GetNumberOfPixels()));
}

/** Runs \a check on a fresh random 8-bit RGB picture and a fresh random gray one. */
template <typename TCheck>
void
OnRGBAndGray(TCheck && check)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  {
    SCOPED_TRACE("RGB 8-bit");
    const auto input = RandomRGB8({ { 64, 48 } }, seed);
    check(input.GetPointer(), seed);
  }
  {
    SCOPED_TRACE("gray float");
    const auto input = MakeImage<Gray>({ { 64, 48 } }, { { 0, 0 } }, Content::Random, seed + 1, 0.0, 255.0);
    check(input.GetPointer(), seed);
  }
}

TEST(ZoomStreaming, StreamingFilterGivesTheBitsOfOnePiece)
{
  OnRGBAndGray([](const auto * input, std::uint32_t seed) { ExpectStreamingMatchesOnePiece(input, seed, false); });
}
TEST(ZoomStreaming, RequestedRegionAloneIsComputed)
{
  OnRGBAndGray(
    [](const auto * input, std::uint32_t seed) { ExpectRequestedRegionAloneIsComputed(input, seed, false); });
}
TEST(ZoomStreaming, StreamingWriterGivesTheBitsOfOnePiece)
{
  OnRGBAndGray(
    [](const auto * input, std::uint32_t seed) { ExpectStreamingWriterMatchesOnePiece(input, seed, false); });
}
TEST(ZoomStreamingGPU, StreamingFilterGivesTheBitsOfOnePiece)
{
  CIF_REQUIRE_GPU();
  OnRGBAndGray([](const auto * input, std::uint32_t seed) { ExpectStreamingMatchesOnePiece(input, seed, true); });
}
TEST(ZoomStreamingGPU, RequestedRegionAloneIsComputed)
{
  CIF_REQUIRE_GPU();
  OnRGBAndGray([](const auto * input, std::uint32_t seed) { ExpectRequestedRegionAloneIsComputed(input, seed, true); });
}
TEST(ZoomStreamingGPU, StreamingWriterGivesTheBitsOfOnePiece)
{
  CIF_REQUIRE_GPU();
  OnRGBAndGray([](const auto * input, std::uint32_t seed) { ExpectStreamingWriterMatchesOnePiece(input, seed, true); });
}
} // namespace
