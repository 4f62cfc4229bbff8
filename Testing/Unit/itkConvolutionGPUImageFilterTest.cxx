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
// ConvolutionGPUImageFilter against itk::ConvolutionImageFilter: every preset, random
// kernels up to 127 x 127, 2-D and 3-D, SAME and VALID, Normalize, scalar, RGB and
// VectorImage pixels, the separable and the general path, requested sub-regions, the
// fallbacks to ITK, and the GPU against the CPU path.
#include "cifConvolutionTestSupport.h"
#include "cifDeviceBuffer.h"
#include "cifKernelPresets.h"
#include "itkConstantBoundaryCondition.h"
#include "itkConvolutionGPUFactory.h"
#include "itkConvolutionGPUImageFilter.h"
#include "itkConvolutionKernelImage.h"
#include "itkCudaHostInputRegistration.h"
#include "itkCudaDeviceImage.h"
#include "itkFlipImageFilter.h"
#include "itkRGBPixel.h"
#include "itkStreamingImageFilter.h"
#include "itkVectorImage.h"

#include <gtest/gtest.h>

namespace
{
using namespace cif_test;
using Image2 = itk::Image<float, 2>;
using Image3 = itk::Image<float, 3>;
using Kernel2 = itk::Image<float, 2>;
using Kernel3 = itk::Image<float, 3>;
constexpr double Tolerance = 1e-5; // of the data range of ITK's result

enum class Mode
{
  Same,
  Valid
};

/** The paths to try: the CPU path always, the GPU when there is one. */
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

template <typename TImage, typename TKernel>
typename TImage::Pointer
RunITK(const TImage * input, const TKernel * kernel, Mode mode, bool normalize)
{
  auto itkFilter = itk::ConvolutionImageFilter<TImage, TKernel, TImage>::New();
  itkFilter->SetInput(input);
  itkFilter->SetKernelImage(kernel);
  itkFilter->SetNormalize(normalize);
  if (mode == Mode::Valid)
  {
    itkFilter->SetOutputRegionModeToValid();
  }
  itkFilter->Update();
  return itkFilter->GetOutput();
}

template <typename TImage, typename TKernel>
typename itk::ConvolutionGPUImageFilter<TImage, TKernel, TImage>::Pointer
MakeFilter(const TImage * input, const TKernel * kernel, Mode mode, bool normalize, bool gpu, bool forceGeneral = false)
{
  auto filter = itk::ConvolutionGPUImageFilter<TImage, TKernel, TImage>::New();
  filter->SetInput(input);
  filter->SetKernelImage(kernel);
  filter->SetNormalize(normalize);
  filter->SetUseGPU(gpu);
  filter->SetForceGeneralPath(forceGeneral);
  if (mode == Mode::Valid)
  {
    filter->SetOutputRegionModeToValid();
  }
  return filter;
}

/** The module's result and ITK's for a scalar image; expects the same region and
 * values within Tolerance of the range, on every path. Returns whether the module
 * ran its separable path. */
template <typename TImage, typename TKernel>
bool
ExpectMatchesITK(const TImage *                 input,
                 const cif::ConvolutionKernel & k,
                 Mode                           mode,
                 bool                           normalize,
                 bool                           forceGeneral = false)
{
  auto kernel = itk::MakeKernelImage<TKernel>(k);
  auto expected = RunITK(input, kernel.GetPointer(), mode, normalize);
  bool separable = false;
  for (bool gpu : Paths())
  {
    SCOPED_TRACE(std::string(gpu ? "GPU" : "CPU") + " path, kernel " + k.name +
                 (mode == Mode::Valid ? ", VALID" : ", SAME"));
    auto filter = MakeFilter(input, kernel.GetPointer(), mode, normalize, gpu, forceGeneral);
    filter->Update();
    EXPECT_EQ(filter->GetLastExecutionPath(), gpu ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU);
    EXPECT_EQ(filter->GetOutput()->GetLargestPossibleRegion(), expected->GetLargestPossibleRegion());
    EXPECT_EQ(filter->GetOutput()->GetBufferedRegion(), expected->GetBufferedRegion());
    const std::size_t n = expected->GetBufferedRegion().GetNumberOfPixels();
    double            range = 0;
    const double      error =
      RelativeError(filter->GetOutput()->GetBufferPointer(), expected->GetBufferPointer(), n, &range);
    EXPECT_LE(error, Tolerance) << "range " << range;
    separable = filter->GetLastRunWasSeparable();
  }
  return separable;
}

TEST(ConvolutionGPU, EveryPresetMatchesITK)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = MakeImage<Image2>({ { 97, 83 } }, { { 3, -2 } }, Content::Random, seed);
  for (const auto & name : cif::PresetKernelNames())
  {
    const auto kernel = cif::MakePresetKernel(name, 9, 2.0);
    for (Mode mode : { Mode::Same, Mode::Valid })
    {
      const bool separable = ExpectMatchesITK<Image2, Kernel2>(input, kernel, mode, false);
      // The rank-one presets take the separable path on their own.
      const bool rankOne =
        name == "gaussian" || name == "box" || name == "identity" || name == "darken" || name == "lighten";
      EXPECT_EQ(separable, rankOne) << name;
    }
  }
}

TEST(ConvolutionGPU, RandomKernelsMatchITK)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = MakeImage<Image2>({ { 120, 75 } }, { { 0, 0 } }, Content::Smooth, seed);
  for (auto size : { std::pair<int, int>{ 1, 1 }, { 7, 5 }, { 3, 11 }, { 31, 31 }, { 1, 9 } })
  {
    const auto kernel = RandomKernel(size.first, size.second, 1, seed + size.first);
    ExpectMatchesITK<Image2, Kernel2>(input, kernel, Mode::Same, false);
    ExpectMatchesITK<Image2, Kernel2>(input, kernel, Mode::Valid, false);
  }
}

TEST(ConvolutionGPU, NormalizeMatchesITK)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = MakeImage<Image2>({ { 64, 70 } }, { { 0, 0 } }, Content::Random, seed);
  auto kernel = RandomKernel(5, 7, 1, seed);
  for (double & w : kernel.weights)
  {
    w = std::fabs(w) + 0.1; // a sum well away from zero
  }
  ExpectMatchesITK<Image2, Kernel2>(input, kernel, Mode::Same, true);
  auto gaussian = cif::MakeGaussianKernel(11, 3.0);
  for (double & w : gaussian.weights)
  {
    w *= 37.0; // Normalize must undo the scale
  }
  ExpectMatchesITK<Image2, Kernel2>(input, gaussian, Mode::Valid, true);
}

TEST(ConvolutionGPU, LargestKernelsMatchITK)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = MakeImage<Image2>({ { 150, 131 } }, { { 0, 0 } }, Content::Random, seed);
  EXPECT_TRUE((ExpectMatchesITK<Image2, Kernel2>(input, cif::MakeGaussianKernel(127, 20.0), Mode::Same, false)));
  // Weights of both signs: the general path's column sums in double keep the error small.
  EXPECT_FALSE((ExpectMatchesITK<Image2, Kernel2>(input, RandomKernel(127, 127, 1, seed), Mode::Same, false)));
}

TEST(ConvolutionGPU, SeparableAndGeneralPathsAgree)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto       input = MakeImage<Image2>({ { 200, 90 } }, { { 0, 0 } }, Content::Random, seed);
  const auto gaussian = cif::MakeGaussianKernel(15, 5.0);
  EXPECT_TRUE((ExpectMatchesITK<Image2, Kernel2>(input, gaussian, Mode::Same, false, false)));
  EXPECT_FALSE((ExpectMatchesITK<Image2, Kernel2>(input, gaussian, Mode::Same, false, true)));
}

TEST(ConvolutionGPU, ThreeDimensionalMatchesITK)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = MakeImage<Image3>({ { 31, 29, 23 } }, { { 1, 2, 3 } }, Content::Random, seed);
  EXPECT_FALSE((ExpectMatchesITK<Image3, Kernel3>(input, RandomKernel(5, 3, 7, seed), Mode::Same, false)));
  EXPECT_FALSE((ExpectMatchesITK<Image3, Kernel3>(input, RandomKernel(3, 5, 3, seed + 1), Mode::Valid, false)));
  // An outer product of three 1-D kernels: the separable path with its z pass.
  const cif::ConvolutionKernel product = OuterProductKernel(seed);
  EXPECT_TRUE((ExpectMatchesITK<Image3, Kernel3>(input, product, Mode::Same, false)));
  EXPECT_TRUE((ExpectMatchesITK<Image3, Kernel3>(input, product, Mode::Valid, false)));
  // A 2-D kernel in a 3-D image (one slice thick): in-plane passes only.
  cif::ConvolutionKernel flat = cif::MakeGaussianKernel(5, 1.0);
  flat.dimension = 3;
  EXPECT_TRUE((ExpectMatchesITK<Image3, Kernel3>(input, flat, Mode::Same, false)));
}

TEST(ConvolutionGPU, IntegerPixelsTruncateAsITK)
{
  using U8 = itk::Image<unsigned char, 2>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = MakeImage<U8>({ { 80, 60 } }, { { 0, 0 } }, Content::Random, seed, 0.0, 255.0);
  for (const auto & kernel : { cif::MakePresetKernel("box", 5), cif::MakePresetKernel("sharpen") })
  {
    auto kernelImage = itk::MakeKernelImage<Kernel2>(kernel);
    auto expected = RunITK(input.GetPointer(), kernelImage.GetPointer(), Mode::Same, false);
    for (bool gpu : Paths())
    {
      auto filter = MakeFilter(input.GetPointer(), kernelImage.GetPointer(), Mode::Same, false, gpu);
      filter->Update();
      // ITK sums in double with the float weights and truncates. Where that sum is
      // within float rounding of an integer the float sum may land on the other side
      // (the box's 1/25 makes every multiple of 25 such a case); elsewhere the values
      // are equal. Outside [0, 255] ITK's cast is undefined; the module clamps.
      const auto * a = filter->GetOutput()->GetBufferPointer();
      const auto * b = expected->GetBufferPointer();
      const auto * in = input->GetBufferPointer();
      const int    r = kernel.size[0] / 2;
      std::size_t  boundary = 0;
      for (int y = 0; y < 60; ++y)
      {
        for (int x = 0; x < 80; ++x)
        {
          double v = 0;
          for (int ky = 0; ky < kernel.size[1]; ++ky)
            for (int kx = 0; kx < kernel.size[0]; ++kx)
              v += double(float(kernel.At(kernel.size[0] - 1 - kx, kernel.size[1] - 1 - ky))) *
                   in[std::clamp(y + ky - r, 0, 59) * 80 + std::clamp(x + kx - r, 0, 79)];
          const std::size_t i = std::size_t(y) * 80 + x;
          if (v < 0 || v >= 256)
          {
            EXPECT_EQ(int(a[i]), v < 0 ? 0 : 255) << kernel.name << " at " << x << ", " << y;
          }
          else if (std::fabs(v - std::round(v)) < 1e-4)
          {
            ++boundary;
            EXPECT_LE(std::abs(int(a[i]) - int(b[i])), 1);
          }
          else
          {
            EXPECT_EQ(int(a[i]), int(b[i])) << kernel.name << " at " << x << ", " << y << ": exact sum " << v;
          }
        }
      }
      (void)boundary;
    }
  }
}

TEST(ConvolutionGPU, RGBMatchesITKPerChannel)
{
  using RGB = itk::Image<itk::RGBPixel<float>, 2>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = RGB::New();
  input->SetRegions(itk::Size<2>{ { 70, 53 } });
  input->Allocate();
  std::mt19937                          rng(seed);
  std::uniform_real_distribution<float> u(0.f, 255.f);
  for (std::size_t i = 0; i < 70 * 53; ++i)
  {
    input->GetBufferPointer()[i] = itk::RGBPixel<float>(std::array<float, 3>{ u(rng), u(rng), u(rng) }.data());
  }
  for (const auto & kernel : { cif::MakeGaussianKernel(9, 2.0), cif::MakePresetKernel("emboss") })
  {
    auto kernelImage = itk::MakeKernelImage<Kernel2>(kernel);
    for (bool gpu : Paths())
    {
      auto filter = itk::ConvolutionGPUImageFilter<RGB, Kernel2, RGB>::New();
      filter->SetInput(input);
      filter->SetKernelImage(kernelImage);
      filter->SetUseGPU(gpu);
      filter->Update();
      for (unsigned int c = 0; c < 3; ++c)
      {
        auto channel = ComponentImage(input.GetPointer(), c, 3);
        auto expected = RunITK(channel.GetPointer(), kernelImage.GetPointer(), Mode::Same, false);
        auto got = ComponentImage(filter->GetOutput(), c, 3);
        EXPECT_LE(RelativeError(got->GetBufferPointer(), expected->GetBufferPointer(), 70 * 53), Tolerance)
          << kernel.name << " channel " << c << (gpu ? " GPU" : " CPU");
      }
    }
  }
}

TEST(ConvolutionGPU, VectorImageMatchesITKPerComponent)
{
  using VI = itk::VectorImage<float, 2>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = VI::New();
  input->SetRegions(itk::Size<2>{ { 41, 37 } });
  input->SetNumberOfComponentsPerPixel(4);
  input->Allocate();
  std::mt19937                          rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (std::size_t i = 0; i < 41 * 37 * 4; ++i)
  {
    input->GetBufferPointer()[i] = u(rng);
  }
  const auto kernel = RandomKernel(5, 5, 1, seed);
  auto       kernelImage = itk::MakeKernelImage<Kernel2>(kernel);
  for (bool gpu : Paths())
  {
    auto filter = itk::ConvolutionGPUImageFilter<VI, Kernel2, VI>::New();
    filter->SetInput(input);
    filter->SetKernelImage(kernelImage);
    filter->SetUseGPU(gpu);
    filter->SetOutputRegionModeToValid();
    filter->Update();
    ASSERT_EQ(filter->GetOutput()->GetNumberOfComponentsPerPixel(), 4u);
    for (unsigned int c = 0; c < 4; ++c)
    {
      auto channel = ComponentImage(input.GetPointer(), c, 4);
      auto expected = RunITK(channel.GetPointer(), kernelImage.GetPointer(), Mode::Valid, false);
      auto got = ComponentImage(filter->GetOutput(), c, 4);
      ASSERT_EQ(got->GetBufferedRegion(), expected->GetBufferedRegion());
      EXPECT_LE(RelativeError(got->GetBufferPointer(),
                              expected->GetBufferPointer(),
                              expected->GetBufferedRegion().GetNumberOfPixels()),
                Tolerance);
    }
  }
}

// A host input updated again and again is registered (itkCudaHostInputRegistration.h;
// here at its third upload): every update gives the first one's bits, and the
// registration ends with the image.
TEST(ConvolutionGPU, AnInputRegisteredAtItsThirdUploadGivesTheSameBits)
{
  CIF_REQUIRE_GPU();
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  // 20.25 MiB: over the smallest buffer that is registered.
  auto input = MakeImage<Image2>({ { 2304, 2304 } }, { { 0, 0 } }, Content::Random, seed);
  ASSERT_GE(2304u * 2304u * sizeof(float), cif::kSmallestRegisteredHostInput);
  auto filter = itk::ConvolutionGPUImageFilter<Image2, Kernel2>::New();
  filter->SetInput(input);
  filter->SetKernelImage(itk::MakeKernelImage<Kernel2>(RandomKernel(5, 5, 1, seed)));
  const unsigned uploadsBefore = cif::GetHostInputUploadsBeforeRegistration();
  cif::SetHostInputUploadsBeforeRegistration(2);
  const auto before = cif::GetHostInputRegistrationStatistics();

  std::vector<float> first;
  for (int update = 1; update <= 4; ++update)
  {
    filter->Modified();
    filter->Update();
    ASSERT_EQ(filter->GetLastExecutionPath(), itk::CudaExecutionPath::GPU);
    const float *     out = filter->GetOutput()->GetBufferPointer();
    const std::size_t n = filter->GetOutput()->GetBufferedRegion().GetNumberOfPixels();
    if (update == 1)
    {
      first.assign(out, out + n);
    }
    else
    {
      ASSERT_EQ(n, first.size());
      EXPECT_TRUE(SameBits(first.data(), out, n)) << "update " << update;
    }
    EXPECT_EQ(cif::IsPageLockedHostMemory(input->GetBufferPointer()), update >= 3) << "after update " << update;
  }
  const auto registered = cif::GetHostInputRegistrationStatistics();
  EXPECT_EQ(registered.registrations, before.registrations + 1);
  EXPECT_EQ(registered.registeredBytes, before.registeredBytes + 2304u * 2304u * sizeof(float));

  filter->SetInput(nullptr);
  input = nullptr; // the last reference: unregistered before the buffer is freed
  EXPECT_EQ(cif::GetHostInputRegistrationStatistics().registeredBytes, before.registeredBytes);
  cif::SetHostInputUploadsBeforeRegistration(uploadsBefore);
}

TEST(ConvolutionGPU, RequestedSubRegionMatchesITK)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = MakeImage<Image2>({ { 90, 70 } }, { { 0, 0 } }, Content::Random, seed);
  auto kernelImage = itk::MakeKernelImage<Kernel2>(RandomKernel(7, 9, 1, seed));
  auto expected = RunITK(input.GetPointer(), kernelImage.GetPointer(), Mode::Same, false);
  for (bool gpu : Paths())
  {
    auto                     filter = MakeFilter(input.GetPointer(), kernelImage.GetPointer(), Mode::Same, false, gpu);
    const Image2::RegionType part({ { 20, 11 } }, { { 33, 40 } });
    filter->GetOutput()->SetRequestedRegion(part);
    filter->Update();
    ASSERT_EQ(filter->GetOutput()->GetBufferedRegion(), part);
    double worst = 0;
    for (itk::ImageRegionConstIteratorWithIndex<Image2> it(filter->GetOutput(), part); !it.IsAtEnd(); ++it)
    {
      worst = std::max(worst, double(std::fabs(it.Get() - expected->GetPixel(it.GetIndex()))));
    }
    double range = 0;
    RelativeError(expected->GetBufferPointer(), expected->GetBufferPointer(), 90 * 70, &range);
    EXPECT_LE(worst / range, Tolerance);
  }
}

TEST(ConvolutionGPU, OtherRequestsRunITK)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = MakeImage<Image2>({ { 40, 30 } }, { { 0, 0 } }, Content::Random, seed);
  // An even kernel side: ITK pads the kernel; the filter hands it to ITK.
  auto evenKernel = itk::MakeKernelImage<Kernel2>(RandomKernel(4, 3, 1, seed));
  auto filter = MakeFilter(input.GetPointer(), evenKernel.GetPointer(), Mode::Same, false, true);
  filter->Update();
  EXPECT_EQ(filter->GetLastExecutionPath(), itk::CudaExecutionPath::ITK);
  auto expected = RunITK(input.GetPointer(), evenKernel.GetPointer(), Mode::Same, false);
  EXPECT_EQ(RelativeError(filter->GetOutput()->GetBufferPointer(), expected->GetBufferPointer(), 40 * 30), 0.0);
  // Another boundary condition.
  itk::ConstantBoundaryCondition<Image2> zero;
  auto                                   oddKernel = itk::MakeKernelImage<Kernel2>(RandomKernel(3, 3, 1, seed));
  auto constant = MakeFilter(input.GetPointer(), oddKernel.GetPointer(), Mode::Same, false, true);
  constant->SetBoundaryCondition(&zero);
  constant->Update();
  EXPECT_EQ(constant->GetLastExecutionPath(), itk::CudaExecutionPath::ITK);
  EXPECT_NE(constant->ModulePathRefusal().find("ZeroFluxNeumann"), std::string::npos);
}

TEST(ConvolutionGPU, RGBRequestITKCannotServeIsRefused)
{
  using RGB = itk::Image<itk::RGBPixel<unsigned char>, 2>;
  auto input = RGB::New();
  input->SetRegions(itk::Size<2>{ { 8, 8 } });
  input->Allocate(true);
  auto kernel = itk::MakeKernelImage<Kernel2>(RandomKernel(2, 2, 1, 1));
  auto filter = itk::ConvolutionGPUImageFilter<RGB, Kernel2, RGB>::New();
  filter->SetInput(input);
  filter->SetKernelImage(kernel);
  try
  {
    filter->Update();
    FAIL() << "an even RGB kernel was accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("odd sides"), std::string::npos) << e.GetDescription();
  }
}

TEST(ConvolutionGPU, NormalizeOfZeroSumKernelIsRefused)
{
  auto input = MakeImage<Image2>({ { 10, 10 } }, { { 0, 0 } }, Content::Random, FreshSeed());
  auto kernel = itk::MakeKernelImage<Kernel2>(cif::MakePresetKernel("edge"));
  auto filter = MakeFilter(input.GetPointer(), kernel.GetPointer(), Mode::Same, true, false);
  EXPECT_THROW(filter->Update(), itk::ExceptionObject);
}

/** Under StreamingImageFilter each piece convolves only its requested output region
 * and asks upstream for that region plus the kernel's radius (cropped to the image,
 * ITK's ConvolutionImageFilter semantics). The input comes through a filter that
 * computes only what is asked of it (FlipImageFilter flipping no axis: a copy), so a
 * piece sees an input buffer smaller than the image, whose clamped border is the
 * image's only where the image ends. 1, 3 and 16 pieces give the bits of one, on
 * the general and the separable path (with its z pass), SAME and VALID. */
void
ExpectStreamingMatchesOnePiece(bool gpu)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto                         input = MakeImage<Image3>({ { 40, 37, 33 } }, { { 2, -1, 5 } }, Content::Random, seed);
  const cif::ConvolutionKernel product = OuterProductKernel(seed);
  for (const auto & k : { RandomKernel(3, 5, 7, seed), product })
  {
    auto kernel = itk::MakeKernelImage<Kernel3>(k);
    for (Mode mode : { Mode::Same, Mode::Valid })
    {
      const std::string what = k.name + (mode == Mode::Valid ? ", VALID" : ", SAME");
      auto              one = MakeFilter(input.GetPointer(), kernel.GetPointer(), mode, false, gpu);
      one->Update();
      ASSERT_EQ(one->GetLastExecutionPath(), gpu ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU) << what;
      Image3::Pointer whole = one->GetOutput();
      whole->DisconnectPipeline();
      for (unsigned int divisions : { 1u, 3u, 16u })
      {
        SCOPED_TRACE(what + ", " + std::to_string(divisions) + " divisions");
        auto copy = itk::FlipImageFilter<Image3>::New(); // flips no axis
        copy->SetInput(input);
        auto filter = MakeFilter(copy->GetOutput(), kernel.GetPointer(), mode, false, gpu);
        auto streamer = itk::StreamingImageFilter<Image3, Image3>::New();
        streamer->SetInput(filter->GetOutput());
        streamer->SetNumberOfStreamDivisions(divisions);
        streamer->Update();
        EXPECT_EQ(filter->GetLastExecutionPath(), one->GetLastExecutionPath());
        EXPECT_EQ(filter->GetLastRunWasSeparable(), one->GetLastRunWasSeparable());
        ASSERT_EQ(streamer->GetOutput()->GetBufferedRegion(), whole->GetBufferedRegion());
        // The last piece: its output region padded by the radius, cropped to the image.
        auto expectedInput = filter->GetOutput()->GetBufferedRegion();
        expectedInput.PadByRadius(Image3::SizeType{ { static_cast<itk::SizeValueType>(k.size[0] / 2),
                                                      static_cast<itk::SizeValueType>(k.size[1] / 2),
                                                      static_cast<itk::SizeValueType>(k.size[2] / 2) } });
        expectedInput.Crop(input->GetLargestPossibleRegion());
        // (what is buffered may be more: ITK does not rerun the copy for a piece whose
        // request lies inside what the previous piece had computed)
        EXPECT_EQ(copy->GetOutput()->GetRequestedRegion(), expectedInput);
        EXPECT_TRUE(SameBits(streamer->GetOutput()->GetBufferPointer(),
                             whole->GetBufferPointer(),
                             whole->GetBufferedRegion().GetNumberOfPixels()));
      }
    }
  }
}

TEST(ConvolutionGPU, StreamingFilterGivesTheBitsOfOnePiece) { ExpectStreamingMatchesOnePiece(false); }
TEST(ConvolutionGPUDevice, StreamingFilterGivesTheBitsOfOnePiece)
{
  CIF_REQUIRE_GPU();
  ExpectStreamingMatchesOnePiece(true);
}

TEST(ConvolutionGPU, GPUMatchesCPU)
{
  CIF_REQUIRE_GPU();
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = MakeImage<Image2>({ { 517, 301 } }, { { 0, 0 } }, Content::Random, seed);
  for (const auto & kernel :
       { cif::MakeGaussianKernel(15, 5.0), RandomKernel(15, 15, 1, seed), RandomKernel(63, 17, 1, seed) })
  {
    auto kernelImage = itk::MakeKernelImage<Kernel2>(kernel);
    auto cpu = MakeFilter(input.GetPointer(), kernelImage.GetPointer(), Mode::Same, false, false);
    auto gpu = MakeFilter(input.GetPointer(), kernelImage.GetPointer(), Mode::Same, false, true);
    cpu->Update();
    gpu->Update();
    ASSERT_EQ(gpu->GetLastExecutionPath(), itk::CudaExecutionPath::GPU);
    EXPECT_LE(RelativeError(gpu->GetOutput()->GetBufferPointer(), cpu->GetOutput()->GetBufferPointer(), 517 * 301),
              1e-6)
      << kernel.name;
  }
}
TEST(ConvolutionGPU, GPUPathCrossesTheBusOnceEachWay)
{
  CIF_REQUIRE_GPU();
  auto input = MakeImage<Image2>({ { 300, 200 } }, { { 0, 0 } }, Content::Random, FreshSeed());
  auto kernel = itk::MakeKernelImage<Kernel2>(cif::MakePresetKernel("emboss"));
  auto filter = MakeFilter(input.GetPointer(), kernel.GetPointer(), Mode::Same, false, true);
  cif::TransferCounters::Reset();
  filter->Update();
  const auto counters = cif::TransferCounters::Get();
  EXPECT_EQ(counters.uploads, 2u); // the image and the packed weights
  EXPECT_EQ(counters.downloads, 1u);
  EXPECT_EQ(counters.downloadedBytes, 300u * 200u * sizeof(float));
}
TEST(ConvolutionGPU, FactoryMakesITKsFilterTheGPUOne)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = MakeImage<Image3>({ { 20, 17, 9 } }, { { 0, 0, 0 } }, Content::Random, seed);
  auto kernel = itk::MakeKernelImage<Kernel3>(RandomKernel(3, 5, 3, seed));
  auto expected = RunITK(input.GetPointer(), kernel.GetPointer(), Mode::Same, false); // before registering
  cif_test::ScopedFactory<itk::ConvolutionGPUFactory> factory;
  auto   filter = itk::ConvolutionImageFilter<Image3, Kernel3, Image3>::New();
  auto * gpu = dynamic_cast<itk::ConvolutionGPUImageFilter<Image3, Kernel3, Image3> *>(filter.GetPointer());
  ASSERT_NE(gpu, nullptr);
  filter->SetInput(input);
  filter->SetKernelImage(kernel);
  filter->Update();
  EXPECT_NE(gpu->GetLastExecutionPath(), itk::CudaExecutionPath::ITK);
  EXPECT_LE(RelativeError(filter->GetOutput()->GetBufferPointer(), expected->GetBufferPointer(), 20 * 17 * 9),
            Tolerance);
  using U8 = itk::Image<unsigned char, 2>;
  EXPECT_NE((dynamic_cast<itk::ConvolutionGPUImageFilter<U8> *>(itk::ConvolutionImageFilter<U8>::New().GetPointer())),
            nullptr);
}
/** host image -> convolution -> CudaDeviceImage -> second convolution -> CudaDeviceImage -> host:
 * the image goes up once and comes back once, and the numbers are the CPU chain's. */
TEST(ConvolutionGPU, TwoFilterChainStaysOnTheDevice)
{
  CIF_REQUIRE_GPU();
  using DeviceImage = itk::CudaDeviceImage<float, 2>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  auto input = MakeImage<Image2>({ { 200, 150 } }, { { 0, 0 } }, Content::Random, seed);
  auto blur = itk::MakeKernelImage<Kernel2>(cif::MakeGaussianKernel(9, 2.0));
  auto emboss = itk::MakeKernelImage<Kernel2>(cif::MakePresetKernel("emboss"));
  auto first = itk::ConvolutionGPUImageFilter<Image2, Kernel2, DeviceImage>::New();
  first->SetInput(input);
  first->SetKernelImage(blur);
  auto second = itk::ConvolutionGPUImageFilter<DeviceImage, Kernel2, DeviceImage>::New();
  second->SetInput(first->GetOutput());
  second->SetKernelImage(emboss);
  cif::TransferCounters::Reset();
  second->Update();
  EXPECT_EQ(second->GetOutput()->GetDataManager()->GetResidency(),
            itk::CudaDeviceImageDataManager::Residency::DeviceOnly);
  const float * host = second->GetOutput()->GetBufferPointer();
  const auto    transfers = cif::TransferCounters::Get();
  EXPECT_EQ(transfers.uploads, 3u); // the image, and each filter's weights
  EXPECT_EQ(transfers.downloads, 1u);
  auto cpuFirst = MakeFilter(input.GetPointer(), blur.GetPointer(), Mode::Same, false, false);
  auto cpuSecond = MakeFilter(cpuFirst->GetOutput(), emboss.GetPointer(), Mode::Same, false, false);
  cpuSecond->Update();
  EXPECT_LE(RelativeError(host, cpuSecond->GetOutput()->GetBufferPointer(), 200 * 150), 1e-6);
}
} // namespace
