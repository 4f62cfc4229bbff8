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
// The recursive Gaussian filters of Modules/Smoothing against ITK's own, on fresh
// random images: the single-axis filter (orders 0, 1, 2), the smoothing filter and
// the gradient filter, 1-D to 3-D, float and double, anisotropic spacing, a rotated
// direction, sigmas from 0.5 to 4 voxels, NormalizeAcrossScale on and off, a region
// that does not start at 0. CPU variants run everywhere; GPU variants need a device.
//
// Tolerance, relative to the range (max - min) of ITK's output, by the precision of
// ITK's own computation: the single-axis filter computes each line in double and
// casts to its output type: 1e-5 for float output, 1e-12 for double. The smoothing
// and gradient filters keep their intermediate images in float in ITK 5.2, also for
// double input and output (NumericTraits<double>::FloatType is float): 1e-5.
//
// The bound. The module runs ITK's own coefficients (SetUp on a private ITK filter)
// through ITK's recursion in double, in ITK's order of operations and without fused
// multiply-adds (on the device too: __dmul_rn / __dadd_rn), rounding to float exactly
// where ITK stores float (cifRecursiveGaussianMath.h). Where ITK's build does not fuse
// either (x86-64 without FMA, Debian's) every output is ITK's bits; SmoothingBitsCPU /
// SmoothingBitsGPU check that (max |diff| 0 here). Should a compiler contract
// products into FMAs after all (ITK's build, or a host compiler here), each double
// operation differs by at most one rounding, 2^-53 relative; the recursion is stable
// (poles inside the unit circle) and each pass's impulse response sums to G <= ~2 in
// magnitude, so with ~40 operations per sample and pass and at most 4 passes, the
// double results differ by < 4 * 2^4 * 40 * 2^-53 ~ 3e-13 of max |input|, and the
// smoothed outputs here keep a range >= ~1/20 of the input's: < 1e-11 of the output
// range in the worst case, ~1e-13 typically: hence 1e-12 for double, which holds
// with margin when bits match. Where float intermediates are stored, such a double
// difference can move one float rounding by one ulp (2^-24 relative), carried by each
// later pass with gain G: < D * G^D * 2^-24 * max|intermediate| ~ 3 * 8 * 6e-8 =
// 1.4e-6 of the data's magnitude, within 1e-5 of the output's range for these sizes
// and sigmas (the gradient's range is at least a tenth of its magnitude here).
#include "cifTestHelpers.h"
#include "itkGradientRecursiveGaussianGPUImageFilter.h"
#include "itkGradientRecursiveGaussianImageFilter.h"
#include "itkRecursiveGaussianGPUImageFilter.h"
#include "itkRecursiveGaussianImageFilter.h"
#include "itkSmoothingGPUFactory.h"
#include "itkSmoothingRecursiveGaussianGPUImageFilter.h"
#include "itkSmoothingRecursiveGaussianImageFilter.h"
#include "itkVector.h"

#include <gtest/gtest.h>

#include <cstring>

#include <limits>
#include <sstream>
#include <string>

namespace
{
using cif_test::Content;
using cif_test::FreshSeed;
using Path = itk::CudaExecutionPath;

template <typename T>
constexpr double Tolerance = std::is_same_v<T, float> ? 1e-5 : 1e-12;

/** A random image with a start index away from 0, spacing 0.5, 0.75, 1.0 (cifTestHelpers)
 * times \a spacingScale, and, in 2-D and up, a rotated direction. */
template <typename TImage>
typename TImage::Pointer
MakeInput(const typename TImage::SizeType & size, std::uint32_t seed, bool rotated = true)
{
  constexpr unsigned int     D = TImage::ImageDimension;
  typename TImage::IndexType start;
  for (unsigned int d = 0; d < D; ++d)
  {
    start[d] = 3 - 2 * static_cast<int>(d);
  }
  auto image = cif_test::MakeImage<TImage>(size, start, Content::Random, seed);
  if (rotated && D >= 2)
  {
    typename TImage::DirectionType direction;
    direction.SetIdentity();
    const double a = 0.3;
    direction[0][0] = std::cos(a);
    direction[0][1] = -std::sin(a);
    direction[1][0] = std::sin(a);
    direction[1][1] = std::cos(a);
    if (D >= 3)
    {
      // and a second rotation about x
      typename TImage::DirectionType second;
      second.SetIdentity();
      const double b = -0.7;
      second[1][1] = std::cos(b);
      second[1][2] = -std::sin(b);
      second[2][1] = std::sin(b);
      second[2][2] = std::cos(b);
      direction = direction * second;
    }
    image->SetDirection(direction);
  }
  typename TImage::PointType origin;
  for (unsigned int d = 0; d < D; ++d)
  {
    origin[d] = 1.5 * d - 2.0;
  }
  image->SetOrigin(origin);
  return image;
}

template <unsigned int D>
typename itk::Image<float, D>::SizeType
TestSize()
{
  typename itk::Image<float, D>::SizeType size;
  const unsigned long                     sizes[] = { 23, 17, 11, 6 };
  for (unsigned int d = 0; d < D; ++d)
  {
    size[d] = sizes[d];
  }
  return size;
}

/** Scalars of two images of the same geometry (components interleaved). */
template <typename TImage>
const typename itk::NumericTraits<typename TImage::PixelType>::ValueType *
ScalarsOf(const TImage * image)
{
  return reinterpret_cast<const typename itk::NumericTraits<typename TImage::PixelType>::ValueType *>(
    image->GetBufferPointer());
}

template <typename TImage>
std::size_t
ScalarCount(const TImage * image)
{
  return image->GetBufferedRegion().GetNumberOfPixels() *
         itk::NumericTraits<typename TImage::PixelType>::GetLength(typename TImage::PixelType{});
}

/** Checks \a tested against \a reference: same geometry, max |diff| within
 * \a tolerance times the reference's range; returns the relative error. */
template <typename TImage>
double
ExpectClose(const TImage * tested, const TImage * reference, double tolerance, const std::string & what)
{
  EXPECT_EQ(tested->GetBufferedRegion(), reference->GetBufferedRegion()) << what;
  EXPECT_EQ(tested->GetLargestPossibleRegion(), reference->GetLargestPossibleRegion()) << what;
  EXPECT_EQ(tested->GetSpacing(), reference->GetSpacing()) << what;
  EXPECT_EQ(tested->GetOrigin(), reference->GetOrigin()) << what;
  EXPECT_EQ(tested->GetDirection(), reference->GetDirection()) << what;
  const std::size_t count = ScalarCount(reference);
  if (ScalarCount(tested) != count)
  {
    ADD_FAILURE() << what << ": scalar counts differ";
    return 1;
  }
  const auto * a = ScalarsOf(tested);
  const auto * b = ScalarsOf(reference);
  double       low = std::numeric_limits<double>::infinity();
  double       high = -low;
  for (std::size_t i = 0; i < count; ++i)
  {
    low = std::min(low, static_cast<double>(b[i]));
    high = std::max(high, static_cast<double>(b[i]));
  }
  const cif_test::ErrorStats stats = cif_test::Compare(a, b, count);
  const double               range = high - low;
  EXPECT_GT(range, 0.0) << what;
  EXPECT_LE(stats.maxAbs, tolerance * range) << what << ": " << stats << ", range " << range;
  return range > 0 ? stats.maxAbs / range : stats.maxAbs;
}

template <typename TFilter>
void
SelectPath(itk::CudaExecutionPath path, TFilter * filter)
{
  filter->SetUseGPU(path == Path::GPU);
}

// --- the single-axis filter ---------------------------------------------------------

template <typename TIn, typename TOut, unsigned int D>
void
CheckSingleAxis(Path path)
{
  using InImage = itk::Image<TIn, D>;
  using OutImage = itk::Image<TOut, D>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto input = MakeInput<InImage>(TestSize<D>(), seed);
  double     worst = 0;
  for (unsigned int axis = 0; axis < D; ++axis)
  {
    for (const auto order :
         { itk::GaussianOrderEnum::ZeroOrder, itk::GaussianOrderEnum::FirstOrder, itk::GaussianOrderEnum::SecondOrder })
    {
      for (const bool normalize : { false, true })
      {
        for (const double sigmaVoxels : { 0.5, 1.3, 2.5, 4.0 })
        {
          const double sigma = sigmaVoxels * input->GetSpacing()[axis];
          auto         reference = itk::RecursiveGaussianImageFilter<InImage, OutImage>::New();
          auto         tested = itk::RecursiveGaussianGPUImageFilter<InImage, OutImage>::New();
          for (auto * f : { static_cast<itk::RecursiveGaussianImageFilter<InImage, OutImage> *>(reference.GetPointer()),
                            static_cast<itk::RecursiveGaussianImageFilter<InImage, OutImage> *>(tested.GetPointer()) })
          {
            f->SetInput(input);
            f->SetDirection(axis);
            f->SetOrder(order);
            f->SetNormalizeAcrossScale(normalize);
            f->SetSigma(sigma);
          }
          SelectPath(path, tested.GetPointer());
          reference->Update();
          tested->Update();
          std::ostringstream what;
          what << D << "-D axis " << axis << " order " << order << " normalize " << normalize << " sigma "
               << sigmaVoxels << " voxels";
          EXPECT_EQ(tested->GetLastExecutionPath(), path) << what.str();
          worst =
            std::max(worst, ExpectClose(tested->GetOutput(), reference->GetOutput(), Tolerance<TOut>, what.str()));
        }
      }
    }
  }
  ::testing::Test::RecordProperty("worstRelativeError", std::to_string(worst));
}

TEST(SmoothingSingleAxisCPU, MatchesITK1D)
{
  CheckSingleAxis<float, float, 1>(Path::CPU);
  CheckSingleAxis<double, double, 1>(Path::CPU);
}
TEST(SmoothingSingleAxisCPU, MatchesITK2D)
{
  CheckSingleAxis<float, float, 2>(Path::CPU);
  CheckSingleAxis<double, double, 2>(Path::CPU);
  CheckSingleAxis<float, double, 2>(Path::CPU);
}
TEST(SmoothingSingleAxisCPU, MatchesITK3D)
{
  CheckSingleAxis<float, float, 3>(Path::CPU);
  CheckSingleAxis<double, double, 3>(Path::CPU);
}
TEST(SmoothingSingleAxisGPU, MatchesITK1D)
{
  CIF_REQUIRE_GPU();
  CheckSingleAxis<float, float, 1>(Path::GPU);
  CheckSingleAxis<double, double, 1>(Path::GPU);
}
TEST(SmoothingSingleAxisGPU, MatchesITK2D)
{
  CIF_REQUIRE_GPU();
  CheckSingleAxis<float, float, 2>(Path::GPU);
  CheckSingleAxis<double, double, 2>(Path::GPU);
  CheckSingleAxis<float, double, 2>(Path::GPU);
}
TEST(SmoothingSingleAxisGPU, MatchesITK3D)
{
  CIF_REQUIRE_GPU();
  CheckSingleAxis<float, float, 3>(Path::GPU);
  CheckSingleAxis<double, double, 3>(Path::GPU);
}

/** ITK's bits: the module evaluates ITK's arithmetic in ITK's order without fused
 * multiply-adds (also on the device), so where ITK's build does not fuse either
 * (x86-64 without FMA, Debian's) every filter gives ITK's output exactly. */
template <typename T>
void
CheckBitsOfITK(Path path)
{
  using ImageType = itk::Image<T, 3>;
  using GradientImage = itk::Image<itk::CovariantVector<double, 3>, 3>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto input = MakeInput<ImageType>(TestSize<3>(), seed);
  for (unsigned int axis = 0; axis < 3; ++axis)
  {
    auto reference = itk::RecursiveGaussianImageFilter<ImageType, ImageType>::New();
    auto tested = itk::RecursiveGaussianGPUImageFilter<ImageType, ImageType>::New();
    reference->SetInput(input);
    tested->SetInput(input);
    reference->SetDirection(axis);
    tested->SetDirection(axis);
    reference->SetOrder(static_cast<itk::GaussianOrderEnum>(axis));
    tested->SetOrder(static_cast<itk::GaussianOrderEnum>(axis));
    reference->SetSigma(1.7);
    tested->SetSigma(1.7);
    SelectPath(path, tested.GetPointer());
    reference->Update();
    tested->Update();
    EXPECT_TRUE(cif_test::SameBits(tested->GetOutput()->GetBufferPointer(),
                                   reference->GetOutput()->GetBufferPointer(),
                                   reference->GetOutput()->GetBufferedRegion().GetNumberOfPixels()))
      << "single axis " << axis;
  }
  typename itk::SmoothingRecursiveGaussianImageFilter<ImageType, ImageType>::SigmaArrayType sigma;
  sigma[0] = 0.6;
  sigma[1] = 2.1;
  sigma[2] = 3.3;
  auto smoothReference = itk::SmoothingRecursiveGaussianImageFilter<ImageType, ImageType>::New();
  auto smooth = itk::SmoothingRecursiveGaussianGPUImageFilter<ImageType, ImageType>::New();
  smoothReference->SetInput(input);
  smooth->SetInput(input);
  smoothReference->SetSigmaArray(sigma);
  smooth->SetSigmaArray(sigma);
  SelectPath(path, smooth.GetPointer());
  smoothReference->Update();
  smooth->Update();
  EXPECT_TRUE(cif_test::SameBits(smooth->GetOutput()->GetBufferPointer(),
                                 smoothReference->GetOutput()->GetBufferPointer(),
                                 input->GetBufferedRegion().GetNumberOfPixels()))
    << "smoothing";
  auto gradientReference = itk::GradientRecursiveGaussianImageFilter<ImageType, GradientImage>::New();
  auto gradient = itk::GradientRecursiveGaussianGPUImageFilter<ImageType, GradientImage>::New();
  gradientReference->SetInput(input);
  gradient->SetInput(input);
  gradientReference->SetSigmaArray(sigma);
  gradient->SetSigmaArray(sigma);
  gradientReference->SetNormalizeAcrossScale(true);
  gradient->SetNormalizeAcrossScale(true);
  SelectPath(path, gradient.GetPointer());
  gradientReference->Update();
  gradient->Update();
  EXPECT_TRUE(cif_test::SameBits(ScalarsOf(gradient->GetOutput()),
                                 ScalarsOf(gradientReference->GetOutput()),
                                 ScalarCount(gradientReference->GetOutput())))
    << "gradient";
}

#if defined(__FMA__) || defined(__aarch64__)
#  define CIF_SKIP_IF_FUSED() GTEST_SKIP() << "this build may fuse multiply-adds: ITK's bits are not expected"
#else
#  define CIF_SKIP_IF_FUSED() (void)0
#endif
TEST(SmoothingBitsCPU, SameAsITK)
{
  CIF_SKIP_IF_FUSED();
  CheckBitsOfITK<float>(Path::CPU);
  CheckBitsOfITK<double>(Path::CPU);
}
TEST(SmoothingBitsGPU, SameAsITK)
{
  CIF_REQUIRE_GPU();
  CIF_SKIP_IF_FUSED();
  CheckBitsOfITK<float>(Path::GPU);
  CheckBitsOfITK<double>(Path::GPU);
}

// --- the smoothing filter -------------------------------------------------------------

/** Sigmas in voxels per axis (D of each row used) that the filter tests sweep. */
const double kVoxelSigmas[][4] = { { 0.5, 0.5, 0.5, 0.5 },
                                   { 1.0, 2.0, 3.0, 0.7 },
                                   { 4.0, 0.8, 2.2, 1.1 },
                                   { 2.5, 4.0, 0.6, 3.3 } };

/** \a voxels (sigmas in voxels) in physical units of \a spacing. */
template <typename TSigmaArray, typename TSpacing>
TSigmaArray
PhysicalSigmas(const double voxels[4], const TSpacing & spacing)
{
  TSigmaArray sigma;
  for (unsigned int d = 0; d < TSpacing::Dimension; ++d)
  {
    sigma[d] = voxels[d] * spacing[d];
  }
  return sigma;
}

template <typename TIn, typename TOut, unsigned int D>
void
CheckSmoothing(Path path)
{
  using InImage = itk::Image<TIn, D>;
  using OutImage = itk::Image<TOut, D>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto input = MakeInput<InImage>(TestSize<D>(), seed);
  using SigmaArray = typename itk::SmoothingRecursiveGaussianImageFilter<InImage, OutImage>::SigmaArrayType;
  for (const auto & voxels : kVoxelSigmas)
  {
    for (const bool normalize : { false, true })
    {
      const auto sigma = PhysicalSigmas<SigmaArray>(voxels, input->GetSpacing());
      auto       reference = itk::SmoothingRecursiveGaussianImageFilter<InImage, OutImage>::New();
      auto       tested = itk::SmoothingRecursiveGaussianGPUImageFilter<InImage, OutImage>::New();
      reference->SetInput(input);
      tested->SetInput(input);
      reference->SetSigmaArray(sigma);
      tested->SetSigmaArray(sigma);
      reference->SetNormalizeAcrossScale(normalize);
      tested->SetNormalizeAcrossScale(normalize);
      SelectPath(path, tested.GetPointer());
      reference->Update();
      tested->Update();
      std::ostringstream what;
      what << D << "-D sigmas (voxels) " << voxels[0] << " " << voxels[1] << " " << voxels[2] << " normalize "
           << normalize;
      EXPECT_EQ(tested->GetLastExecutionPath(), path) << what.str();
      // ITK's internal images are float (also for double input): float's tolerance.
      ExpectClose(
        tested->GetOutput(),
        reference->GetOutput(),
        Tolerance<typename itk::SmoothingRecursiveGaussianGPUImageFilter<InImage, OutImage>::InternalPixelType>,
        what.str());
    }
  }
}

TEST(SmoothingFilterCPU, MatchesITK2D)
{
  CheckSmoothing<float, float, 2>(Path::CPU);
  CheckSmoothing<double, double, 2>(Path::CPU);
  CheckSmoothing<float, double, 2>(Path::CPU);
}
TEST(SmoothingFilterCPU, MatchesITK3D)
{
  CheckSmoothing<float, float, 3>(Path::CPU);
  CheckSmoothing<double, double, 3>(Path::CPU);
  CheckSmoothing<double, float, 3>(Path::CPU);
}
TEST(SmoothingFilterCPU, MatchesITK4D) { CheckSmoothing<float, float, 4>(Path::CPU); }
TEST(SmoothingFilterGPU, MatchesITK2D)
{
  CIF_REQUIRE_GPU();
  CheckSmoothing<float, float, 2>(Path::GPU);
  CheckSmoothing<double, double, 2>(Path::GPU);
  CheckSmoothing<float, double, 2>(Path::GPU);
}
TEST(SmoothingFilterGPU, MatchesITK3D)
{
  CIF_REQUIRE_GPU();
  CheckSmoothing<float, float, 3>(Path::GPU);
  CheckSmoothing<double, double, 3>(Path::GPU);
  CheckSmoothing<double, float, 3>(Path::GPU);
}
TEST(SmoothingFilterGPU, MatchesITK4D)
{
  CIF_REQUIRE_GPU();
  CheckSmoothing<float, float, 4>(Path::GPU);
}

/** In place (ITK's InPlace option): the output takes the input's buffer. */
template <unsigned int D>
void
CheckSmoothingInPlace(Path path)
{
  using ImageType = itk::Image<float, D>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto reference = itk::SmoothingRecursiveGaussianImageFilter<ImageType, ImageType>::New();
  reference->SetInput(MakeInput<ImageType>(TestSize<D>(), seed));
  reference->SetSigma(1.1);
  reference->Update();
  auto tested = itk::SmoothingRecursiveGaussianGPUImageFilter<ImageType, ImageType>::New();
  auto input = MakeInput<ImageType>(TestSize<D>(), seed);
  tested->SetInput(input);
  tested->SetSigma(1.1);
  tested->InPlaceOn();
  SelectPath(path, tested.GetPointer());
  tested->Update();
  EXPECT_EQ(tested->GetLastExecutionPath(), path);
  ExpectClose(tested->GetOutput(), reference->GetOutput(), Tolerance<float>, "in place");
}
TEST(SmoothingFilterCPU, InPlace) { CheckSmoothingInPlace<3>(Path::CPU); }
TEST(SmoothingFilterGPU, InPlace)
{
  CIF_REQUIRE_GPU();
  CheckSmoothingInPlace<3>(Path::GPU);
}

/** Types the module does not take run ITK's code. */
TEST(SmoothingFilterCPU, OtherTypesRunITK)
{
  using ImageType = itk::Image<short, 2>;
  itk::Size<2> size{ { 19, 12 } };
  const auto   input = MakeInput<ImageType>(size, FreshSeed());
  auto         reference = itk::SmoothingRecursiveGaussianImageFilter<ImageType, ImageType>::New();
  auto         tested = itk::SmoothingRecursiveGaussianGPUImageFilter<ImageType, ImageType>::New();
  reference->SetInput(input);
  tested->SetInput(input);
  reference->SetSigma(1.5);
  tested->SetSigma(1.5);
  reference->Update();
  tested->Update();
  EXPECT_EQ(tested->GetLastExecutionPath(), Path::ITK);
  EXPECT_TRUE(cif_test::SameBits(tested->GetOutput()->GetBufferPointer(),
                                 reference->GetOutput()->GetBufferPointer(),
                                 input->GetBufferedRegion().GetNumberOfPixels()));
}

// --- the gradient filter --------------------------------------------------------------

template <typename TIn, unsigned int D>
void
CheckGradient(Path path)
{
  using InImage = itk::Image<TIn, D>;
  using OutImage = itk::Image<itk::CovariantVector<double, D>, D>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto input = MakeInput<InImage>(TestSize<D>(), seed);
  using SigmaArray = typename itk::GradientRecursiveGaussianImageFilter<InImage, OutImage>::SigmaArrayType;
  for (const auto & voxels : kVoxelSigmas)
  {
    for (const bool normalize : { false, true })
    {
      for (const bool useDirection : { true, false })
      {
        const auto sigma = PhysicalSigmas<SigmaArray>(voxels, input->GetSpacing());
        auto       reference = itk::GradientRecursiveGaussianImageFilter<InImage, OutImage>::New();
        auto       tested = itk::GradientRecursiveGaussianGPUImageFilter<InImage, OutImage>::New();
        reference->SetInput(input);
        tested->SetInput(input);
        reference->SetSigmaArray(sigma);
        tested->SetSigmaArray(sigma);
        reference->SetNormalizeAcrossScale(normalize);
        tested->SetNormalizeAcrossScale(normalize);
        reference->SetUseImageDirection(useDirection);
        tested->SetUseImageDirection(useDirection);
        SelectPath(path, tested.GetPointer());
        reference->Update();
        tested->Update();
        std::ostringstream what;
        what << D << "-D sigmas (voxels) " << voxels[0] << " " << voxels[1] << " " << voxels[2] << " normalize "
             << normalize << " direction " << useDirection;
        EXPECT_EQ(tested->GetLastExecutionPath(), path) << what.str();
        // ITK's internal images are float (also for double input): float's tolerance.
        ExpectClose(
          tested->GetOutput(),
          reference->GetOutput(),
          Tolerance<typename itk::GradientRecursiveGaussianGPUImageFilter<InImage, OutImage>::InternalPixelType>,
          what.str());
      }
    }
  }
}

/** KeepResultOnDevice: on the GPU the gradient stays on the device (GetDeviceResult)
 * and reaches the host output only with DownloadResultToHost(), with the bits of an
 * ordinary update; a second update replaces what was kept. On the CPU path nothing is
 * kept and the output is filled as usual. */
void
CheckKeptGradient(Path path)
{
  using InImage = itk::Image<float, 3>;
  using OutImage = itk::Image<itk::CovariantVector<double, 3>, 3>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto input = MakeInput<InImage>(TestSize<3>(), seed);
  auto ordinary = itk::GradientRecursiveGaussianGPUImageFilter<InImage, OutImage>::New();
  auto kept = itk::GradientRecursiveGaussianGPUImageFilter<InImage, OutImage>::New();
  for (auto * filter : { ordinary.GetPointer(), kept.GetPointer() })
  {
    filter->SetInput(input);
    filter->SetSigma(1.5);
    SelectPath(path, filter);
  }
  kept->KeepResultOnDeviceOn();
  for (int update = 0; update < 2; ++update)
  {
    if (update == 1)
    {
      // new content: the second update's result replaces the first one's
      for (itk::ImageRegionIterator<InImage> it(input, input->GetBufferedRegion()); !it.IsAtEnd(); ++it)
      {
        it.Set(0.5f * it.Get() + 1.0f);
      }
      input->Modified();
    }
    ordinary->Update();
    kept->Update();
    const std::size_t bytes = input->GetBufferedRegion().GetNumberOfPixels() * sizeof(OutImage::PixelType);
    if (path == Path::GPU)
    {
      ASSERT_NE(kept->GetDeviceResult(), nullptr) << "update " << update;
      kept->DownloadResultToHost();
      EXPECT_EQ(kept->GetDeviceResult(), nullptr) << "downloaded: nothing kept any more";
    }
    else
    {
      EXPECT_EQ(kept->GetDeviceResult(), nullptr);
    }
    EXPECT_EQ(std::memcmp(kept->GetOutput()->GetBufferPointer(), ordinary->GetOutput()->GetBufferPointer(), bytes), 0)
      << "update " << update;
    kept->DownloadResultToHost(); // a second call changes nothing
    EXPECT_EQ(std::memcmp(kept->GetOutput()->GetBufferPointer(), ordinary->GetOutput()->GetBufferPointer(), bytes), 0);
  }
}

TEST(SmoothingGradientCPU, KeptResultIsTheOutput) { CheckKeptGradient(Path::CPU); }
TEST(SmoothingGradientGPU, KeptResultIsTheOutput)
{
  CIF_REQUIRE_GPU();
  CheckKeptGradient(Path::GPU);
}

TEST(SmoothingGradientCPU, MatchesITK1D)
{
  CheckGradient<float, 1>(Path::CPU);
  CheckGradient<double, 1>(Path::CPU);
}
TEST(SmoothingGradientCPU, MatchesITK2D)
{
  CheckGradient<float, 2>(Path::CPU);
  CheckGradient<double, 2>(Path::CPU);
}
TEST(SmoothingGradientCPU, MatchesITK3D)
{
  CheckGradient<float, 3>(Path::CPU);
  CheckGradient<double, 3>(Path::CPU);
}
TEST(SmoothingGradientCPU, MatchesITK4D) { CheckGradient<float, 4>(Path::CPU); }
TEST(SmoothingGradientGPU, MatchesITK1D)
{
  CIF_REQUIRE_GPU();
  CheckGradient<float, 1>(Path::GPU);
  CheckGradient<double, 1>(Path::GPU);
}
TEST(SmoothingGradientGPU, MatchesITK2D)
{
  CIF_REQUIRE_GPU();
  CheckGradient<float, 2>(Path::GPU);
  CheckGradient<double, 2>(Path::GPU);
}
TEST(SmoothingGradientGPU, MatchesITK3D)
{
  CIF_REQUIRE_GPU();
  CheckGradient<float, 3>(Path::GPU);
  CheckGradient<double, 3>(Path::GPU);
}
TEST(SmoothingGradientGPU, MatchesITK4D)
{
  CIF_REQUIRE_GPU();
  CheckGradient<float, 4>(Path::GPU);
}

/** Vector input (and so any other type) runs ITK's code. */
TEST(SmoothingGradientCPU, VectorInputRunsITK)
{
  using ImageType = itk::Image<itk::Vector<float, 2>, 2>;
  using OutImage = itk::Image<itk::CovariantVector<double, 4>, 2>;
  auto         input = ImageType::New();
  itk::Size<2> size{ { 9, 8 } };
  input->SetRegions(size);
  input->Allocate();
  std::mt19937 rng(FreshSeed());
  for (itk::ImageRegionIterator<ImageType> it(input, input->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    itk::Vector<float, 2> v;
    v[0] = static_cast<float>(rng() % 1000);
    v[1] = static_cast<float>(rng() % 1000);
    it.Set(v);
  }
  auto reference = itk::GradientRecursiveGaussianImageFilter<ImageType, OutImage>::New();
  auto tested = itk::GradientRecursiveGaussianGPUImageFilter<ImageType, OutImage>::New();
  reference->SetInput(input);
  tested->SetInput(input);
  reference->Update();
  tested->Update();
  EXPECT_EQ(tested->GetLastExecutionPath(), Path::ITK);
  ExpectClose(tested->GetOutput(), reference->GetOutput(), 0.0, "vector input");
}

// --- the factory ------------------------------------------------------------------------

TEST(SmoothingGPUFactory, NewReturnsTheTwins)
{
  using F3 = itk::Image<float, 3>;
  using D2 = itk::Image<double, 2>;
  using G3 = itk::Image<itk::CovariantVector<double, 3>, 3>;
  using G2 = itk::Image<itk::CovariantVector<double, 2>, 2>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto input = MakeInput<F3>(TestSize<3>(), seed);
  auto       reference = itk::GradientRecursiveGaussianImageFilter<F3, G3>::New();
  ASSERT_EQ((dynamic_cast<itk::GradientRecursiveGaussianGPUImageFilter<F3, G3> *>(reference.GetPointer())), nullptr);
  reference->SetInput(input);
  reference->SetSigma(0.9);
  reference->Update();
  {
    cif_test::ScopedFactory<itk::SmoothingGPUFactory> factory;
    auto smoothF3 = itk::SmoothingRecursiveGaussianImageFilter<F3, F3>::New();
    EXPECT_NE((dynamic_cast<itk::SmoothingRecursiveGaussianGPUImageFilter<F3, F3> *>(smoothF3.GetPointer())), nullptr);
    auto smoothD2 = itk::SmoothingRecursiveGaussianImageFilter<D2, D2>::New();
    EXPECT_NE((dynamic_cast<itk::SmoothingRecursiveGaussianGPUImageFilter<D2, D2> *>(smoothD2.GetPointer())), nullptr);
    // The v4 metrics' gradient filter type (DefaultImageToImageMetricTraitsv4).
    auto gradientF3 = itk::GradientRecursiveGaussianImageFilter<F3, G3>::New();
    EXPECT_NE((dynamic_cast<itk::GradientRecursiveGaussianGPUImageFilter<F3, G3> *>(gradientF3.GetPointer())), nullptr);
    auto gradientD2 = itk::GradientRecursiveGaussianImageFilter<D2, G2>::New();
    EXPECT_NE((dynamic_cast<itk::GradientRecursiveGaussianGPUImageFilter<D2, G2> *>(gradientD2.GetPointer())), nullptr);
    // The one the factory made computes what ITK computes.
    gradientF3->SetInput(input);
    gradientF3->SetSigma(0.9);
    gradientF3->Update();
    ExpectClose(gradientF3->GetOutput(), reference->GetOutput(), Tolerance<float>, "through the factory");
  }
  auto plain = itk::SmoothingRecursiveGaussianImageFilter<F3, F3>::New();
  EXPECT_EQ((dynamic_cast<itk::SmoothingRecursiveGaussianGPUImageFilter<F3, F3> *>(plain.GetPointer())), nullptr);
}

// --- bad input --------------------------------------------------------------------------

/** Runs \a filter, returns whether it threw an itk::ExceptionObject. */
bool
Throws(itk::ProcessObject * filter)
{
  try
  {
    filter->Update();
  }
  catch (const itk::ExceptionObject &)
  {
    return true;
  }
  return false;
}

template <typename TFilter, typename TReference>
void
ExpectSameFailure(Path path, const typename TFilter::InputImageType * input, double sigma = 1.0)
{
  auto reference = TReference::New();
  auto tested = TFilter::New();
  reference->SetInput(input);
  tested->SetInput(input);
  reference->SetSigma(sigma);
  tested->SetSigma(sigma);
  SelectPath(path, tested.GetPointer());
  EXPECT_TRUE(Throws(reference)) << "ITK's filter";
  EXPECT_TRUE(Throws(tested)) << "the module's filter";
}

void
CheckBadInput(Path path)
{
  using ImageType = itk::Image<float, 2>;
  using Smooth = itk::SmoothingRecursiveGaussianImageFilter<ImageType, ImageType>;
  using SmoothGPU = itk::SmoothingRecursiveGaussianGPUImageFilter<ImageType, ImageType>;
  using Gradient = itk::GradientRecursiveGaussianImageFilter<ImageType>;
  using GradientGPU = itk::GradientRecursiveGaussianGPUImageFilter<ImageType>;
  using Single = itk::RecursiveGaussianImageFilter<ImageType, ImageType>;
  using SingleGPU = itk::RecursiveGaussianGPUImageFilter<ImageType, ImageType>;
  // Empty: ITK throws (fewer than 4 pixels along an axis).
  auto empty = ImageType::New();
  empty->SetRegions(ImageType::SizeType{ { 0, 5 } });
  empty->Allocate();
  ExpectSameFailure<SmoothGPU, Smooth>(path, empty);
  ExpectSameFailure<GradientGPU, Gradient>(path, empty);
  ExpectSameFailure<SingleGPU, Single>(path, empty);
  auto none = ImageType::New();
  ExpectSameFailure<SmoothGPU, Smooth>(path, none);
  ExpectSameFailure<GradientGPU, Gradient>(path, none);
  // Three pixels along y.
  auto thin = MakeInput<ImageType>(ImageType::SizeType{ { 12, 3 } }, FreshSeed());
  ExpectSameFailure<SmoothGPU, Smooth>(path, thin);
  ExpectSameFailure<GradientGPU, Gradient>(path, thin);
  // Sigma 0.
  auto fine = MakeInput<ImageType>(ImageType::SizeType{ { 12, 9 } }, FreshSeed());
  ExpectSameFailure<SmoothGPU, Smooth>(path, fine, 0.0);
  ExpectSameFailure<GradientGPU, Gradient>(path, fine, 0.0);
  ExpectSameFailure<SingleGPU, Single>(path, fine, 0.0);
  // A spacing ITK's SetUp finds suspiciously small.
  auto                   tiny = MakeInput<ImageType>(ImageType::SizeType{ { 12, 9 } }, FreshSeed());
  ImageType::SpacingType spacing;
  spacing[0] = 1e-9;
  spacing[1] = 1.0;
  tiny->SetSpacing(spacing);
  ExpectSameFailure<SmoothGPU, Smooth>(path, tiny);
  ExpectSameFailure<GradientGPU, Gradient>(path, tiny);
}
TEST(SmoothingSingleAxisCPU, BadInputThrowsAsITK) { CheckBadInput(Path::CPU); }
TEST(SmoothingSingleAxisGPU, BadInputThrowsAsITK)
{
  CIF_REQUIRE_GPU();
  CheckBadInput(Path::GPU);
}

/** A job larger than the device memory limit: an ExceptionObject, not a crash. */
TEST(SmoothingSingleAxisGPU, TooLargeForTheDeviceThrows)
{
  CIF_REQUIRE_GPU();
  cif_test::ScopedDeviceMemoryLimit limit(1 << 16);
  using ImageType = itk::Image<float, 3>;
  auto input = MakeInput<ImageType>(TestSize<3>(), FreshSeed());
  auto smooth = itk::SmoothingRecursiveGaussianGPUImageFilter<ImageType, ImageType>::New();
  smooth->SetInput(input);
  EXPECT_TRUE(Throws(smooth));
  auto gradient = itk::GradientRecursiveGaussianGPUImageFilter<ImageType>::New();
  gradient->SetInput(input);
  EXPECT_TRUE(Throws(gradient));
}
} // namespace
