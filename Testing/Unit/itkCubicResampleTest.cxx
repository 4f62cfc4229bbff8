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
// CubicResampleGPUImageFilter and TransformToDisplacementFieldGPUFilter against ITK
// (ResampleImageFilter + BSplineInterpolateImageFunction of order 3, and
// TransformToDisplacementFieldFilter), through the CPU path always and the GPU path
// where a device exists: affine, Euler, B-spline, composite and host-mapped
// transforms, rotated and anisotropic grids, non-zero start indices, points outside;
// 2-D to 4-D (in 4-D the grid transforms are mapped on the host).
#include "cifResampleTestSupport.h"
#include "itkAffineTransform.h"
#include "itkBSplineTransform.h"
#include "itkCompositeTransform.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkDisplacementFieldTransform.h"
#include "itkEuler3DTransform.h"
#include "itkTransformToDisplacementFieldGPUFilter.h"

#include <vector>

namespace
{
using namespace cif_test;
using namespace cif_resample_test;

template <unsigned int D, typename TPixel>
void
CheckTransforms(Path path)
{
  using Image = itk::Image<TPixel, D>;
  using Transform = itk::Transform<double, D, D>;
  const std::uint32_t seed = FreshSeed();
  std::mt19937        rng(seed);
  itk::Size<D>        inSize, outSize;
  for (unsigned int a = 0; a < D; ++a)
  {
    inSize[a] = D == 2 ? 61 + 7 * a : D == 3 ? 23 + 4 * a : (a == 0 ? 24 : a == 1 ? 20 : 18);
    outSize[a] = D == 2 ? 70 - 5 * a : D == 3 ? 26 - 3 * a : 6;
  }
  // the device evaluates B-spline transforms and displacement fields up to 3-D
  const std::string gridTransform = D <= 3 ? "" : " (host-mapped in 4-D)";
  for (Content content : { Content::Random, Content::Smooth })
  {
    const auto [input, geometry, inputCentre] = MakeResampleSetUp<Image>(inSize, outSize, content, seed);
    // The affines turn about the input's centre, so that two of them composed still
    // leave a good part of the output inside the input (about the physical origin,
    // far from the image, they could carry it out: 1 seed in a few hundred did). In
    // 4-D the inside fraction is a product of four overlaps: the output box is
    // centred on the input's as well.
    const itk::Point<double, D> * affineCentre = &inputCentre;
    if constexpr (D == 4)
    {
      CentreOn(geometry.GetPointer(), inputCentre);
    }

    std::vector<std::pair<std::string, typename Transform::ConstPointer>> transforms;
    transforms.emplace_back("affine", RandomAffine<D>(rng, 1.0, affineCentre).GetPointer());
    auto bspline = RandomBSpline<D>(input.GetPointer(), D <= 3 ? 5 : 3, 2.0, rng);
    transforms.emplace_back("bspline" + gridTransform, bspline.GetPointer());
    transforms.emplace_back("composite affine+bspline" + gridTransform,
                            AffineThen<D>(bspline.GetPointer(), rng, affineCentre).GetPointer());
    auto twoAffines = itk::CompositeTransform<double, D>::New();
    twoAffines->AddTransform(RandomAffine<D>(rng, 0.5, affineCentre));
    twoAffines->AddTransform(RandomAffine<D>(rng, 0.5, affineCentre));
    transforms.emplace_back("composite affine+affine", twoAffines.GetPointer());
    if constexpr (D == 3)
    {
      auto euler = itk::Euler3DTransform<double>::New();
      euler->SetRotation(0.1, -0.2, 0.3);
      euler->SetCenter(input->GetOrigin());
      transforms.emplace_back("euler", euler.GetPointer());
    }
    using FieldTransform = itk::DisplacementFieldTransform<double, D>;
    auto field = RandomDisplacementField<D>(input.GetPointer(), 1.5, rng);
    auto displacement = FieldTransform::New();
    displacement->SetDisplacementField(field);
    transforms.emplace_back("displacement field" + gridTransform, displacement.GetPointer());
    transforms.emplace_back("displacement field, nearest (host-mapped)", HostMappedField<D>(field).GetPointer());

    const double defaultValue = -7.0;
    for (const auto & [name, transform] : transforms)
    {
      SCOPED_TRACE(testing::Message() << D << "-D " << typeid(TPixel).name() << ", " << name << ", "
                                      << ToString(content) << ", " << (path == Path::GPU ? "GPU" : "CPU") << ", seed "
                                      << seed);
      // every transform but the host-mapped one is evaluated by the module itself
      EXPECT_EQ(itk::CudaTransformChain<D>(transform).IsDeviceEvaluable(),
                name.find("host-mapped") == std::string::npos);
      auto         want = ResampleWithITK<Image, Image>(input, transform, geometry, defaultValue);
      auto         got = ResampleWithModule<Image, Image>(input, transform, geometry, defaultValue, path);
      const double tolerance =
        std::is_same_v<TPixel, double> ? 1e-10 : (std::is_integral_v<TPixel> ? 1.0 : 4e-6 * 200.0);
      ExpectSameResample(got.GetPointer(), want.GetPointer(), defaultValue, tolerance);
    }
  }
}

TEST(CubicResampleCPU, MatchesITK2D) { CheckTransforms<2, float>(Path::CPU); }
TEST(CubicResampleCPU, MatchesITK3D) { CheckTransforms<3, float>(Path::CPU); }
TEST(CubicResampleCPU, MatchesITKDouble) { CheckTransforms<3, double>(Path::CPU); }
TEST(CubicResampleCPU, MatchesITKShortWithTruncation) { CheckTransforms<2, short>(Path::CPU); }
TEST(CubicResampleCPU, MatchesITK4D) { CheckTransforms<4, float>(Path::CPU); }
TEST(CubicResampleGPU, MatchesITK2D)
{
  CIF_REQUIRE_GPU();
  CheckTransforms<2, float>(Path::GPU);
}
TEST(CubicResampleGPU, MatchesITK3D)
{
  CIF_REQUIRE_GPU();
  CheckTransforms<3, float>(Path::GPU);
}
TEST(CubicResampleGPU, MatchesITKDouble)
{
  CIF_REQUIRE_GPU();
  CheckTransforms<3, double>(Path::GPU);
}
TEST(CubicResampleGPU, MatchesITKShortWithTruncation)
{
  CIF_REQUIRE_GPU();
  CheckTransforms<2, short>(Path::GPU);
}
TEST(CubicResampleGPU, MatchesITK4D)
{
  CIF_REQUIRE_GPU();
  CheckTransforms<4, float>(Path::GPU);
}

/** The linear path's rows as the GPU's warps take them, sheared to follow the input's
 * rows (cifRowShear.h): images wider than a block of columns (256), turned by angles
 * whose row slope is small, large, and beyond one row per column (no shear), in 2-D
 * and 3-D, against ITK. The output is centred on the input. */
template <unsigned int D>
void
CheckWideRotatedRows(Path path)
{
  using Image = itk::Image<float, D>;
  const std::uint32_t seed = FreshSeed();
  itk::Size<D>        inSize, outSize;
  for (unsigned int a = 0; a < D; ++a)
  {
    // the input wide enough along axis 1 to hold the output's rows at every angle
    inSize[a] = a == 0 ? 400 : (a == 1 ? 400 : 18);
    outSize[a] = a == 0 ? 570 : (D == 2 ? 56 : 14);
  }
  auto                            input = MakeInput<Image>(inSize, Content::Random, seed);
  auto                            geometry = OutputGeometry<Image>(outSize);
  const typename Image::PointType inputCentre = CentreOf(input.GetPointer());
  CentreOn(geometry.GetPointer(), inputCentre);
  const double defaultValue = -7.0;
  for (const double angle : { 0.05, 0.3, 0.7, 1.2 })
  {
    SCOPED_TRACE(testing::Message() << D << "-D, angle " << angle << ", " << (path == Path::GPU ? "GPU" : "CPU")
                                    << ", seed " << seed);
    auto affine = itk::AffineTransform<double, D>::New();
    affine->SetCenter(inputCentre);
    affine->Rotate(0, 1, angle);
    if constexpr (D == 3)
    {
      affine->Rotate(1, 2, 0.1);
    }
    auto want = ResampleWithITK<Image, Image>(input, affine.GetPointer(), geometry, defaultValue);
    auto got = ResampleWithModule<Image, Image>(input, affine.GetPointer(), geometry, defaultValue, path);
    ExpectSameResample(got.GetPointer(), want.GetPointer(), defaultValue, 4e-6 * 200.0);
  }
}

TEST(CubicResampleCPU, WideRotatedRowsMatchITK)
{
  CheckWideRotatedRows<2>(Path::CPU);
  CheckWideRotatedRows<3>(Path::CPU);
}
TEST(CubicResampleGPU, WideRotatedRowsMatchITK)
{
  CIF_REQUIRE_GPU();
  CheckWideRotatedRows<2>(Path::GPU);
  CheckWideRotatedRows<3>(Path::GPU);
}

/** The warp of elastic registration on the grids registration uses: input, output
 * and control grid in one direction (identity here), so the GPU maps each output
 * row's points with the support shared along the row. The output grid is the
 * input's grown by 3 voxels on every side: points outside the control grid's valid
 * region (left where they are) and outside the input (default value) are in. With
 * \a turnedMovingImage the image warped is another one over the same box, stored
 * turned by 90 degrees in x-y. */
template <unsigned int D, typename TPixel>
void
CheckAxisAlignedWarp(Path path, bool turnedMovingImage = false)
{
  using Image = itk::Image<TPixel, D>;
  const std::uint32_t seed = FreshSeed();
  std::mt19937        rng(seed);
  itk::Size<D>        size;
  for (unsigned int a = 0; a < D; ++a)
  {
    size[a] = D == 2 ? 80 - 9 * a : 28 - 2 * a;
  }
  for (Content content : { Content::Random, Content::Smooth })
  {
    SCOPED_TRACE(testing::Message() << D << "-D " << typeid(TPixel).name() << ", axis-aligned B-spline warp, "
                                    << ToString(content) << ", " << (path == Path::GPU ? "GPU" : "CPU")
                                    << (turnedMovingImage ? ", moving image turned" : "") << ", seed " << seed);
    auto                          input = MakeInput<Image>(size, content, seed);
    typename Image::DirectionType identity;
    identity.SetIdentity();
    input->SetDirection(identity);
    auto bspline = RandomBSpline<D>(input.GetPointer(), D == 2 ? 6 : 4, 2.0, rng);
    auto grown = input->GetLargestPossibleRegion();
    grown.PadByRadius(3);
    auto geometry = Image::New();
    geometry->CopyInformation(input);
    geometry->SetRegions(grown);
    const double defaultValue = -7.0;
    if (turnedMovingImage)
    {
      // The moving image stored turned by 90 degrees in x-y (an acquisition of another
      // orientation) over the same box: its rows run along the output's axis 1, and
      // the GPU's threads run down the rows (VoxelLaneAxis).
      itk::Size<D> turnedSize = size;
      std::swap(turnedSize[0], turnedSize[1]);
      auto                          moving = MakeInput<Image>(turnedSize, content, seed + 1);
      typename Image::DirectionType quarterTurn;
      quarterTurn.SetIdentity();
      quarterTurn[0][0] = quarterTurn[1][1] = 0.0;
      quarterTurn[0][1] = -1.0;
      quarterTurn[1][0] = 1.0;
      auto spacing = input->GetSpacing();
      std::swap(spacing[0], spacing[1]);
      moving->SetSpacing(spacing);
      moving->SetDirection(quarterTurn);
      const auto inputCentre = CentreOf(input.GetPointer()), movingCentre = CentreOf(moving.GetPointer());
      auto       origin = moving->GetOrigin();
      for (unsigned int a = 0; a < D; ++a)
      {
        origin[a] += inputCentre[a] - movingCentre[a];
      }
      moving->SetOrigin(origin);
      input = moving;
    }
    auto want = ResampleWithITK<Image, Image>(input, bspline, geometry, defaultValue);
    auto got = ResampleWithModule<Image, Image>(input, bspline, geometry, defaultValue, path);
    ExpectSameResample(
      got.GetPointer(), want.GetPointer(), defaultValue, std::is_same_v<TPixel, double> ? 1e-10 : 4e-6 * 200.0);
  }
}

TEST(CubicResampleCPU, AxisAlignedBSplineWarpMatchesITK) { CheckAxisAlignedWarp<3, float>(Path::CPU); }
TEST(CubicResampleGPU, AxisAlignedBSplineWarpMatchesITK)
{
  CIF_REQUIRE_GPU();
  CheckAxisAlignedWarp<2, float>(Path::GPU);
  CheckAxisAlignedWarp<3, float>(Path::GPU);
  CheckAxisAlignedWarp<3, double>(Path::GPU);
}
TEST(CubicResampleCPU, AxisAlignedBSplineWarpOfATurnedImageMatchesITK)
{
  CheckAxisAlignedWarp<3, float>(Path::CPU, true);
}
TEST(CubicResampleGPU, AxisAlignedBSplineWarpOfATurnedImageMatchesITK)
{
  CIF_REQUIRE_GPU();
  CheckAxisAlignedWarp<2, float>(Path::GPU, true);
  CheckAxisAlignedWarp<3, float>(Path::GPU, true);
  CheckAxisAlignedWarp<3, double>(Path::GPU, true);
}

/** Another interpolator: the filter is plain ResampleImageFilter. */
TEST(CubicResampleCPU, OtherInterpolatorsRunITK)
{
  using Image = itk::Image<float, 2>;
  auto input = MakeInput<Image>({ { 20, 21 } }, Content::Random, FreshSeed());
  auto filter = itk::CubicResampleGPUImageFilter<Image, Image>::New();
  filter->SetInput(input);
  filter->SetOutputParametersFromImage(input);
  filter->Update(); // default: linear interpolator
  using Filter = itk::CubicResampleGPUImageFilter<Image, Image>;
  EXPECT_EQ(filter->GetLastExecutionPath(), Filter::ExecutionPath::ITK);
}

/** The field over the B-spline's domain (rotated direction: every voxel's support
 * computed on its own), or with \a axisAligned over a grid of the control grid's
 * direction grown by 3 voxels on every side: the GPU then shares each output row's
 * support across the row, and rows and voxels outside the valid region are in. */
template <unsigned int D, typename TComponent>
void
CheckDisplacementField(Path path, bool axisAligned = false)
{
  using Field = itk::Image<itk::Vector<TComponent, D>, D>;
  const std::uint32_t seed = FreshSeed();
  std::mt19937        rng(seed);
  SCOPED_TRACE(testing::Message() << D << "-D field, " << (path == Path::GPU ? "GPU" : "CPU")
                                  << (axisAligned ? ", axis-aligned" : "") << ", seed " << seed);
  using Image = itk::Image<float, D>;
  itk::Size<D> size;
  size.Fill(D == 2 ? 90 : 30);
  auto domain = MakeInput<Image>(size, Content::Smooth, seed);
  if (axisAligned)
  {
    AlignWithAxes(domain.GetPointer());
  }
  auto                    bspline = RandomBSpline<D>(domain.GetPointer(), D == 2 ? 7 : 4, 3.0, rng);
  typename Image::Pointer grid = domain;
  if (axisAligned)
  {
    auto grown = domain->GetLargestPossibleRegion();
    grown.PadByRadius(3);
    grid = Image::New();
    grid->CopyInformation(domain);
    grid->SetRegions(grown);
  }

  auto reference = itk::TransformToDisplacementFieldFilter<Field, double>::New();
  reference->SetTransform(bspline);
  reference->SetReferenceImage(grid);
  reference->SetUseReferenceImage(true);
  reference->Update();

  using Filter = itk::TransformToDisplacementFieldGPUFilter<Field, double>;
  auto filter = MakeDisplacementFieldFilter<Field>(bspline.GetPointer(), grid.GetPointer(), path);
  filter->Update();
  EXPECT_EQ(filter->GetLastExecutionPath(),
            path == Path::GPU ? Filter::ExecutionPath::GPU : Filter::ExecutionPath::CPU);

  const std::size_t count = grid->GetLargestPossibleRegion().GetNumberOfPixels() * D;
  const auto *      got = reinterpret_cast<const TComponent *>(filter->GetOutput()->GetBufferPointer());
  const auto *      want = reinterpret_cast<const TComponent *>(reference->GetOutput()->GetBufferPointer());
  const ErrorStats  stats = Compare(got, want, count);
  EXPECT_GT(stats.maxRef, 0.1) << "the field is too small to test anything";
  const double tolerance = std::is_same_v<TComponent, double> ? 1e-12 : 2e-6 * stats.maxRef;
  EXPECT_LE(stats.maxAbs, tolerance) << stats;
}

TEST(DisplacementFieldCPU, BSplineMatchesITK2D) { CheckDisplacementField<2, float>(Path::CPU); }
TEST(DisplacementFieldCPU, BSplineMatchesITK3D) { CheckDisplacementField<3, double>(Path::CPU); }
TEST(DisplacementFieldCPU, BSplineAxisAlignedMatchesITK3D) { CheckDisplacementField<3, double>(Path::CPU, true); }
TEST(DisplacementFieldGPU, BSplineAxisAlignedMatchesITK)
{
  CIF_REQUIRE_GPU();
  CheckDisplacementField<2, float>(Path::GPU, true);
  CheckDisplacementField<3, float>(Path::GPU, true);
  CheckDisplacementField<3, double>(Path::GPU, true);
}
TEST(DisplacementFieldGPU, BSplineMatchesITK2D)
{
  CIF_REQUIRE_GPU();
  CheckDisplacementField<2, float>(Path::GPU);
}
TEST(DisplacementFieldGPU, BSplineMatchesITK3D)
{
  CIF_REQUIRE_GPU();
  CheckDisplacementField<3, double>(Path::GPU);
}
} // namespace

namespace
{
using TextureImage = itk::Image<float, 3>;
using TextureResampler = itk::CubicResampleGPUImageFilter<TextureImage, TextureImage>;

/** A texture-mode resampler of \a input (default value -7); transform and output grid
 * are the test's. */
TextureResampler::Pointer
MakeTextureResampler(const TextureImage * input)
{
  auto filter = TextureResampler::New();
  filter->SetInput(input);
  filter->SetInterpolator(itk::BSplineInterpolateImageFunction<TextureImage, double, double>::New());
  filter->SetDefaultPixelValue(-7.0f);
  filter->SetUseTextureInterpolation(true);
  return filter;
}

/** The texture mode's output against the exact mode's, within the bounds below. */
ErrorStats
ExpectWithinTextureBounds(const TextureImage * texture, const TextureImage * exact)
{
  const ErrorStats stats =
    Compare(texture->GetBufferPointer(), exact->GetBufferPointer(), exact->GetBufferedRegion().GetNumberOfPixels());
  EXPECT_LE(stats.maxAbs, 0.06 * 200.0) << stats;
  EXPECT_LE(stats.rms, 0.01 * 200.0) << stats;
  return stats;
}

/** The opt-in texture mode stays within the texture unit's precision of the exact
 * mode and does differ from it (it is not the exact path under another name). The
 * bounds come from TextureModeBenchmark on an H200 (Modules/Resample/README.md): on random data, whose
 * coefficients jump by several times the data range between neighbours, the 8-bit
 * interpolation weights give errors up to 3.8% of the range, 0.34% RMS. */
TEST(CubicResampleGPU, TextureModeIsCloseToExactMode)
{
  CIF_REQUIRE_GPU();
  using Image = TextureImage;
  const std::uint32_t seed = FreshSeed();
  std::mt19937        rng(seed);
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto input = MakeInput<Image>({ { 40, 37, 33 } }, Content::Random, seed);
  auto geometry = OutputGeometry<Image>({ { 38, 35, 30 } });
  auto transform = RandomAffine<3>(rng);
  auto exact = ResampleWithModule<Image, Image>(input, transform, geometry, -7.0, Path::GPU);

  auto filter = MakeTextureResampler(input);
  filter->SetTransform(transform);
  filter->SetOutputParametersFromImage(geometry);
  filter->Update();
  const ErrorStats stats = ExpectWithinTextureBounds(filter->GetOutput(), exact);
  EXPECT_GT(stats.rms, 1e-7 * 200.0) << "texture mode gave exactly the exact mode's values";
}

/** The texture is built once and kept: a second update with another transform (and
 * output grid) uploads nothing and still matches the exact mode; an input changed
 * in place and marked Modified() is uploaded and its texture rebuilt (a stale
 * texture would give the old data's values, far outside the bounds on random
 * data); switching to half texels rebuilds it too. Bounds as
 * TextureModeIsCloseToExactMode: half texels add about 2^-12 of the coefficients
 * (up to a few times the range on random data), well inside them. */
TEST(CubicResampleGPU, TextureIsKeptUntilTheInputChanges)
{
  CIF_REQUIRE_GPU();
  using Image = itk::Image<float, 3>;
  const std::uint32_t seed = FreshSeed();
  std::mt19937        rng(seed);
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto input = MakeInput<Image>({ { 40, 37, 33 } }, Content::Random, seed);
  auto geometry = OutputGeometry<Image>({ { 38, 35, 30 } });
  auto otherGeometry = OutputGeometry<Image>({ { 30, 41, 27 } });

  using Filter = TextureResampler;
  auto       filter = MakeTextureResampler(input);
  const auto expectCloseToExact =
    [&](const itk::Transform<double, 3, 3> * transform, const Image * grid, const char * step) {
      SCOPED_TRACE(step);
      auto exact = ResampleWithModule<Image, Image>(input.GetPointer(), transform, grid, -7.0, Path::GPU);
      ASSERT_EQ(filter->GetOutput()->GetBufferedRegion(), exact->GetBufferedRegion());
      ExpectWithinTextureBounds(filter->GetOutput(), exact);
    };

  auto first = RandomAffine<3>(rng);
  filter->SetTransform(first);
  filter->SetOutputParametersFromImage(geometry);
  cif::TransferCounters::Reset();
  filter->Update();
  EXPECT_EQ(filter->GetLastExecutionPath(), Filter::ExecutionPath::GPU);
  EXPECT_EQ(cif::TransferCounters::Get().uploads, 1u) << "the first update uploads the input";
  expectCloseToExact(first, geometry, "first update: texture built");

  auto second = RandomAffine<3>(rng);
  filter->SetTransform(second);
  filter->SetOutputParametersFromImage(otherGeometry);
  cif::TransferCounters::Reset();
  filter->UpdateLargestPossibleRegion(); // a new output grid: the old requested region would lie outside it
  EXPECT_EQ(cif::TransferCounters::Get().uploads, 0u) << "the kept texture was not used";
  expectCloseToExact(second, otherGeometry, "second update: texture kept, new transform and grid");

  // New data in the same image object, same MTime until Modified().
  std::mt19937                          values(seed + 1);
  std::uniform_real_distribution<float> u(0.0f, 200.0f);
  for (float *p = input->GetBufferPointer(), *end = p + input->GetBufferedRegion().GetNumberOfPixels(); p != end; ++p)
  {
    *p = u(values);
  }
  input->Modified();
  cif::TransferCounters::Reset();
  filter->Update();
  EXPECT_EQ(cif::TransferCounters::Get().uploads, 1u) << "the modified input was not uploaded again";
  expectCloseToExact(second, otherGeometry, "third update: input modified, texture rebuilt");

  filter->SetTextureHalfFloat(true);
  cif::TransferCounters::Reset();
  filter->Update();
  EXPECT_EQ(cif::TransferCounters::Get().uploads, 1u) << "half texels need the coefficients again";
  expectCloseToExact(second, otherGeometry, "fourth update: half texels");
  cif::TransferCounters::Reset();
  filter->Modified(); // runs the filter again on the same input
  filter->Update();
  EXPECT_EQ(cif::TransferCounters::Get().uploads, 0u) << "the half texture was not kept";
  expectCloseToExact(second, otherGeometry, "fifth update: half texture kept");
}
} // namespace

#include "itkCubicResampleGPUFactory.h"

namespace
{
/** Once registered, ResampleImageFilter::New() hands out the GPU filter, which
 * takes the module's path with a cubic interpolator and ITK's otherwise. */
TEST(CubicResampleFactory, SubstitutesTheModuleFilter)
{
  using Image = itk::Image<float, 2>;
  auto input = MakeInput<Image>({ { 30, 31 } }, Content::Smooth, FreshSeed());
  auto rotation = itk::AffineTransform<double, 2>::New();
  rotation->Rotate2D(0.2);
  auto reference = ResampleWithITK<Image, Image>(input, rotation, input, 0.0); // before the factory

  const ScopedFactory<itk::CubicResampleGPUFactory> factory;
  auto                                              resample = itk::ResampleImageFilter<Image, Image>::New();
  using Module = itk::CubicResampleGPUImageFilter<Image, Image>;
  auto * module = dynamic_cast<Module *>(resample.GetPointer());
  ASSERT_NE(module, nullptr) << resample->GetNameOfClass();
  resample->SetInput(input);
  resample->SetTransform(rotation);
  resample->SetOutputParametersFromImage(input);
  resample->SetInterpolator(itk::BSplineInterpolateImageFunction<Image, double, double>::New());
  resample->Update();
  EXPECT_NE(module->GetLastExecutionPath(), Module::ExecutionPath::ITK);
  ExpectSameResample(resample->GetOutput(), reference.GetPointer(), 0.0, 4e-6 * 200.0);
}
} // namespace
