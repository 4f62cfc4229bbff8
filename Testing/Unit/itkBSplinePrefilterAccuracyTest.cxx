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
// The prefilter against ITK's BSplineDecompositionImageFilter (double), through the
// CPU path (always) and the GPU path (where a device exists): 1-D to 6-D, sizes at
// and around the causal horizon (17..20), 1..4, long lines, anisotropic shapes,
// non-zero start indices, random and smooth data, float and double, every order,
// integer inputs, and multi-component pixels.
#include "cifPrefilterTestSupport.h"
#include "itkCovariantVector.h"
#include "itkRGBPixel.h"
#include "itkVector.h"
#include "itkVectorImage.h"

#include <vector>

namespace
{
using namespace cif_test;

template <unsigned int D>
struct Shape
{
  itk::Size<D>  size;
  itk::Index<D> start;
};

template <unsigned int D>
std::vector<Shape<D>>
ShapesToTest();

template <>
std::vector<Shape<1>>
ShapesToTest<1>()
{
  std::vector<Shape<1>> shapes;
  // around the horizon (18) the mirror start switches from truncated to exact; 1500
  // uses narrow tiles, 5000 the global-memory fallback kernel on the GPU
  for (itk::SizeValueType n : { 1, 2, 3, 4, 5, 17, 18, 19, 20, 31, 64, 257, 1500, 5000 })
  {
    shapes.push_back({ { { n } }, { { static_cast<itk::IndexValueType>(n % 3) - 1 } } });
  }
  return shapes;
}
template <>
std::vector<Shape<2>>
ShapesToTest<2>()
{
  return { { { { 17, 18 } }, { { 0, 0 } } }, { { { 19, 20 } }, { { -3, 7 } } }, { { { 1, 7 } }, { { 0, 0 } } },
           { { { 7, 1 } }, { { 2, 2 } } },   { { { 2, 3 } }, { { 0, 0 } } },    { { { 4, 3 } }, { { 5, -5 } } },
           { { { 64, 33 } }, { { 0, 0 } } }, { { { 700, 5 } }, { { 1, 1 } } },  { { { 3, 900 } }, { { 0, 0 } } } };
}
template <>
std::vector<Shape<3>>
ShapesToTest<3>()
{
  return { { { { 17, 18, 19 } }, { { 0, 0, 0 } } },  { { { 20, 3, 4 } }, { { 1, -2, 3 } } },
           { { { 1, 1, 5 } }, { { 0, 0, 0 } } },     { { { 32, 16, 8 } }, { { 0, 0, 0 } } },
           { { { 40, 41, 43 } }, { { 7, 0, -1 } } }, { { { 2, 1, 2 } }, { { 0, 0, 0 } } } };
}
template <>
std::vector<Shape<4>>
ShapesToTest<4>()
{
  return { { { { 17, 18, 19, 20 } }, { { 0, 0, 0, 0 } } },
           { { { 4, 3, 2, 1 } }, { { 1, 2, 3, 4 } } },
           { { { 9, 10, 11, 12 } }, { { -1, 0, 1, 0 } } },
           { { { 1, 19, 1, 18 } }, { { 0, 0, 0, 0 } } } };
}
// 5-D and 6-D (the tables of CubicBSplineTable): every axis filtered, the horizon
// (18) crossed on the first and the last axis, and one-sample axes among the others.
template <>
std::vector<Shape<5>>
ShapesToTest<5>()
{
  return { { { { 6, 5, 4, 3, 7 } }, { { 0, 1, -1, 2, 0 } } },
           { { { 19, 2, 1, 3, 18 } }, { { 0, 0, 0, 0, 0 } } },
           { { { 1, 1, 1, 1, 20 } }, { { 3, 0, 0, 0, -4 } } } };
}
template <>
std::vector<Shape<6>>
ShapesToTest<6>()
{
  return { { { { 4, 3, 5, 2, 3, 6 } }, { { 0, 0, 0, 0, 0, 0 } } },
           { { { 18, 2, 1, 3, 2, 19 } }, { { -1, 2, 0, 0, 1, 5 } } },
           { { { 3, 3, 3, 3, 3, 3 } }, { { 0, 0, 0, 0, 0, 0 } } },
           { { { 1, 2, 1, 2, 1, 21 } }, { { 0, 0, 0, 0, 0, 0 } } } };
}

template <unsigned int D, typename TIn, typename TOut>
void
CheckAgainstITK(const Shape<D> & shape, Content content, Path path, unsigned int order = 3)
{
  using InputImage = itk::Image<TIn, D>;
  using OutputImage = itk::Image<TOut, D>;
  const std::uint32_t seed = FreshSeed();
  const double        low = std::is_unsigned_v<TIn> ? 0.0 : -50.0;
  const double        high = 250.0;
  SCOPED_TRACE(testing::Message() << D << "-D size " << shape.size << " start " << shape.start << ", "
                                  << ToString(content) << ", order " << order << ", " << ToString(path) << ", "
                                  << typeid(TIn).name() << " -> " << typeid(TOut).name() << ", seed " << seed);
  auto input = MakeImage<InputImage>(shape.size, shape.start, content, seed, low, high);
  auto reference = RunITK(input.GetPointer(), order);
  auto output = RunPrefilter<OutputImage>(input.GetPointer(), path, order);
  ASSERT_EQ(output->GetBufferedRegion(), reference->GetBufferedRegion());
  const ErrorStats stats = Compare(
    output->GetBufferPointer(), reference->GetBufferPointer(), reference->GetBufferedRegion().GetNumberOfPixels());
  EXPECT_LE(stats.maxAbs, Tolerance<TOut>(high - low, stats.maxRef, D)) << stats;
}

template <unsigned int D>
void
CheckAllShapes(Path path)
{
  for (const auto & shape : ShapesToTest<D>())
  {
    for (Content content : { Content::Random, Content::Smooth })
    {
      CheckAgainstITK<D, float, float>(shape, content, path);
      CheckAgainstITK<D, double, double>(shape, content, path);
    }
  }
}

TEST(BSplinePrefilterCPU, Matches1D) { CheckAllShapes<1>(Path::CPU); }
TEST(BSplinePrefilterCPU, Matches2D) { CheckAllShapes<2>(Path::CPU); }
TEST(BSplinePrefilterCPU, Matches3D) { CheckAllShapes<3>(Path::CPU); }
TEST(BSplinePrefilterCPU, Matches4D) { CheckAllShapes<4>(Path::CPU); }
TEST(BSplinePrefilterCPU, Matches5D) { CheckAllShapes<5>(Path::CPU); }
TEST(BSplinePrefilterCPU, Matches6D) { CheckAllShapes<6>(Path::CPU); }

TEST(BSplinePrefilterGPU, Matches1D)
{
  CIF_REQUIRE_GPU();
  CheckAllShapes<1>(Path::GPU);
}
TEST(BSplinePrefilterGPU, Matches2D)
{
  CIF_REQUIRE_GPU();
  CheckAllShapes<2>(Path::GPU);
}
TEST(BSplinePrefilterGPU, Matches3D)
{
  CIF_REQUIRE_GPU();
  CheckAllShapes<3>(Path::GPU);
}
TEST(BSplinePrefilterGPU, Matches4D)
{
  CIF_REQUIRE_GPU();
  CheckAllShapes<4>(Path::GPU);
}
TEST(BSplinePrefilterGPU, Matches5D)
{
  CIF_REQUIRE_GPU();
  CheckAllShapes<5>(Path::GPU);
}
TEST(BSplinePrefilterGPU, Matches6D)
{
  CIF_REQUIRE_GPU();
  CheckAllShapes<6>(Path::GPU);
}

void
CheckEveryOrder(Path path)
{
  for (unsigned int order = 0; order <= 5; ++order)
  {
    for (const Shape<3> & shape :
         { Shape<3>{ { { 19, 20, 21 } }, { { 0, 0, 0 } } }, Shape<3>{ { { 5, 6, 7 } }, { { 1, 1, 1 } } } })
    {
      CheckAgainstITK<3, float, float>(shape, Content::Random, path, order);
      CheckAgainstITK<3, double, double>(shape, Content::Random, path, order);
    }
  }
}
TEST(BSplinePrefilterCPU, EveryOrderMatches) { CheckEveryOrder(Path::CPU); }
TEST(BSplinePrefilterGPU, EveryOrderMatches)
{
  CIF_REQUIRE_GPU();
  CheckEveryOrder(Path::GPU);
}

void
CheckInputTypes(Path path)
{
  const Shape<3> shape{ { { 23, 18, 9 } }, { { 0, 0, 0 } } };
  CheckAgainstITK<3, unsigned char, float>(shape, Content::Random, path);
  CheckAgainstITK<3, short, float>(shape, Content::Random, path);
  CheckAgainstITK<3, unsigned short, float>(shape, Content::Smooth, path);
  CheckAgainstITK<3, int, double>(shape, Content::Random, path);
  CheckAgainstITK<3, double, float>(shape, Content::Random, path);
  CheckAgainstITK<3, float, double>(shape, Content::Smooth, path);
  // 6-D tables of integers
  CheckAgainstITK<6, short, double>({ { { 5, 2, 3, 4, 1, 6 } }, { { 1, 0, 0, 0, 0, 0 } } }, Content::Random, path);
  CheckAgainstITK<6, std::uint16_t, float>(
    { { { 19, 3, 2, 2, 3, 4 } }, { { 0, 0, 0, 0, 0, 0 } } }, Content::Smooth, path);
}
TEST(BSplinePrefilterCPU, IntegerAndMixedInputTypes) { CheckInputTypes(Path::CPU); }
TEST(BSplinePrefilterGPU, IntegerAndMixedInputTypes)
{
  CIF_REQUIRE_GPU();
  CheckInputTypes(Path::GPU);
}

/** Each component of a multi-component result against ITK on that component alone. */
template <typename TPixel, unsigned int D>
void
CheckMultiComponent(const itk::Size<D> & size, Path path)
{
  using ComponentType = typename itk::NumericTraits<TPixel>::ValueType;
  constexpr unsigned int C = sizeof(TPixel) / sizeof(ComponentType);
  using Image = itk::Image<TPixel, D>;
  using Scalar = itk::Image<ComponentType, D>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << typeid(TPixel).name() << " size " << size << ", " << ToString(path) << ", seed "
                                  << seed);
  std::vector<typename Scalar::Pointer> components;
  itk::Index<D>                         start;
  start.Fill(2);
  for (unsigned int c = 0; c < C; ++c)
  {
    components.push_back(MakeImage<Scalar>(size, start, c % 2 ? Content::Smooth : Content::Random, seed + c));
  }
  auto image = Image::New();
  image->SetRegions(components[0]->GetBufferedRegion());
  image->Allocate();
  const std::size_t count = image->GetBufferedRegion().GetNumberOfPixels();
  for (std::size_t i = 0; i < count; ++i)
  {
    for (unsigned int c = 0; c < C; ++c)
    {
      image->GetBufferPointer()[i][c] = components[c]->GetBufferPointer()[i];
    }
  }
  auto output = RunPrefilter<Image>(image.GetPointer(), path);
  for (unsigned int c = 0; c < C; ++c)
  {
    auto                reference = RunITK(components[c].GetPointer());
    std::vector<double> got(count);
    for (std::size_t i = 0; i < count; ++i)
    {
      got[i] = output->GetBufferPointer()[i][c];
    }
    const ErrorStats stats = Compare(got.data(), reference->GetBufferPointer(), count);
    EXPECT_LE(stats.maxAbs, Tolerance<ComponentType>(200.0, stats.maxRef)) << "component " << c << ": " << stats;
  }
}

/** A VectorImage with a run-time number of components: each against ITK alone. */
void
CheckVectorImage(Path path)
{
  constexpr unsigned int C = 5;
  using VectorImage = itk::VectorImage<float, 3>;
  using Scalar = itk::Image<float, 3>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "VectorImage, " << C << " components, " << ToString(path) << ", seed " << seed);
  const itk::Size<3>           size{ { 19, 7, 22 } };
  std::vector<Scalar::Pointer> components;
  for (unsigned int c = 0; c < C; ++c)
  {
    components.push_back(MakeImage<Scalar>(size, {}, c % 2 ? Content::Smooth : Content::Random, seed + c));
  }
  auto image = VectorImage::New();
  image->SetRegions(size);
  image->SetNumberOfComponentsPerPixel(C);
  image->Allocate();
  const std::size_t count = image->GetBufferedRegion().GetNumberOfPixels();
  for (std::size_t i = 0; i < count; ++i)
  {
    for (unsigned int c = 0; c < C; ++c)
    {
      image->GetBufferPointer()[C * i + c] = components[c]->GetBufferPointer()[i];
    }
  }
  auto output = RunPrefilter<VectorImage>(image.GetPointer(), path);
  ASSERT_EQ(output->GetNumberOfComponentsPerPixel(), C);
  for (unsigned int c = 0; c < C; ++c)
  {
    auto                reference = RunITK(components[c].GetPointer());
    std::vector<double> got(count);
    for (std::size_t i = 0; i < count; ++i)
    {
      got[i] = output->GetBufferPointer()[C * i + c];
    }
    const ErrorStats stats = Compare(got.data(), reference->GetBufferPointer(), count);
    EXPECT_LE(stats.maxAbs, Tolerance<float>(200.0, stats.maxRef)) << "component " << c << ": " << stats;
  }
}

void
CheckMultiComponents(Path path)
{
  CheckVectorImage(path);
  CheckMultiComponent<itk::RGBPixel<float>, 2>({ { 37, 19 } }, path);
  CheckMultiComponent<itk::RGBPixel<float>, 3>({ { 17, 20, 6 } }, path);
  CheckMultiComponent<itk::Vector<float, 3>, 3>({ { 18, 19, 20 } }, path);
  CheckMultiComponent<itk::Vector<double, 2>, 2>({ { 30, 3 } }, path);
  CheckMultiComponent<itk::CovariantVector<float, 3>, 3>({ { 5, 21, 4 } }, path);
}
TEST(BSplinePrefilterCPU, MultiComponentPixels) { CheckMultiComponents(Path::CPU); }
TEST(BSplinePrefilterGPU, MultiComponentPixels)
{
  CIF_REQUIRE_GPU();
  CheckMultiComponents(Path::GPU);
}

/** The two paths run the same math: they agree to float rounding on a volume large
 * enough for full-width tiles on every axis. */
TEST(BSplinePrefilterGPU, AgreesWithCPUPath)
{
  CIF_REQUIRE_GPU();
  using Image = itk::Image<float, 3>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto input = MakeImage<Image>({ { 96, 130, 61 } }, { { 0, 0, 0 } }, Content::Random, seed);
  for (auto mode : { cif::BoundaryMode::Mirror, cif::BoundaryMode::ClampToEdge, cif::BoundaryMode::Periodic })
  {
    auto             cpu = RunPrefilter<Image>(input.GetPointer(), Path::CPU, 3, mode);
    auto             gpu = RunPrefilter<Image>(input.GetPointer(), Path::GPU, 3, mode);
    const ErrorStats stats =
      Compare(gpu->GetBufferPointer(), cpu->GetBufferPointer(), cpu->GetBufferedRegion().GetNumberOfPixels());
    EXPECT_LE(stats.maxAbs, 2e-6 * stats.maxRef) << cif::ToString(mode) << ": " << stats;
  }
}

/** The same in 6-D: lines of 34 and 33 samples on the first and last axis fill
 * whole-width tiles, the middle axes are short. */
TEST(BSplinePrefilterGPU, AgreesWithCPUPath6D)
{
  CIF_REQUIRE_GPU();
  using Image = itk::Image<float, 6>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto input = MakeImage<Image>({ { 34, 8, 6, 5, 4, 33 } }, { { 0, 0, 0, 0, 0, 0 } }, Content::Random, seed);
  for (auto mode : { cif::BoundaryMode::Mirror, cif::BoundaryMode::ClampToEdge, cif::BoundaryMode::Periodic })
  {
    auto             cpu = RunPrefilter<Image>(input.GetPointer(), Path::CPU, 3, mode);
    auto             gpu = RunPrefilter<Image>(input.GetPointer(), Path::GPU, 3, mode);
    const ErrorStats stats =
      Compare(gpu->GetBufferPointer(), cpu->GetBufferPointer(), cpu->GetBufferedRegion().GetNumberOfPixels());
    EXPECT_LE(stats.maxAbs, 2e-6 * stats.maxRef) << cif::ToString(mode) << ": " << stats;
  }
}
} // namespace
