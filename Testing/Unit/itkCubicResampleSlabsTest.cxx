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
// Resampling in slabs (cifResampleSlabs.h): the planner cuts the slowest axis into
// contiguous slabs that cover every plane once, and the filters give the same bits
// in forced small slabs as in one piece: CubicResampleGPUImageFilter (2-D to 4-D;
// the linear-rows, per-voxel, B-spline and host-mapped paths; a requested
// sub-region; multi-component pixels) and TransformToDisplacementFieldGPUFilter
// (rotated and axis-aligned B-spline grids). CPU path; the GPU variants run the same
// bodies on a device.
#include "cifProgressTestSupport.h"
#include "cifResampleSlabs.h"
#include "cifSpreadResample.h"
#include "itkAffineTransform.h"
#include "itkCudaTransformChain.h"
#include "cifResampleTestSupport.h"
#include "itkDisplacementFieldTransform.h"
#include "itkRGBPixel.h"
#include "itkTransformToDisplacementFieldGPUFilter.h"

#include <random>

namespace
{
using namespace cif_test;
using namespace cif_resample_test;

cif::ResampleGeometry
GeometryOfSize(std::initializer_list<std::int64_t> size)
{
  cif::ResampleGeometry g;
  int                   a = 0;
  for (std::int64_t s : size)
  {
    g.outputSize[a] = s;
    g.outputStart[a] = 3 - a; // slabs keep the start of the axes they do not cut
    ++a;
  }
  return g;
}

/** The slabs of \a plan cover the planes of \a g's cut axis once, in order, each a
 * contiguous block of voxels that starts where the previous one ended. */
void
ExpectSlabsTile(const cif::ResampleGeometry & g, const cif::ResampleSlabs & plan, int dimension)
{
  std::int64_t nextPlane = g.outputStart[dimension - 1], nextVoxel = 0;
  for (std::int64_t s = 0; s < plan.count; ++s)
  {
    const cif::ResampleGeometry slab = cif::SlabGeometry(g, plan, s);
    EXPECT_EQ(slab.outputStart[dimension - 1], nextPlane);
    EXPECT_GT(slab.outputSize[dimension - 1], 0);
    EXPECT_EQ(cif::SlabFirstVoxel(plan, s), nextVoxel);
    for (int a = 0; a < dimension - 1; ++a)
    {
      EXPECT_EQ(slab.outputStart[a], g.outputStart[a]);
      EXPECT_EQ(slab.outputSize[a], g.outputSize[a]);
    }
    nextPlane += slab.outputSize[dimension - 1];
    nextVoxel += slab.OutputCount();
  }
  EXPECT_EQ(nextPlane, g.outputStart[dimension - 1] + g.outputSize[dimension - 1]);
  EXPECT_EQ(nextVoxel, g.OutputCount());
}

TEST(ResampleSlabs, CutTheSlowestAxisIntoAtMostSixteenSlabsOfAtLeastTheMinimum)
{
  const auto big = GeometryOfSize({ 512, 512, 512 });
  const auto plan = cif::PlanResampleSlabs(big, 3, cif::kDefaultSlabVoxels);
  EXPECT_EQ(plan.axis, 2);
  EXPECT_EQ(plan.count, 16);
  EXPECT_EQ(plan.planesPerSlab, 32);
  ExpectSlabsTile(big, plan, 3);

  // one piece: below two slabs' worth, one plane, or nothing to cut
  for (const auto & g :
       { GeometryOfSize({ 256, 256, 100 }), GeometryOfSize({ 64, 64, 64 }), GeometryOfSize({ 8192, 8192, 1 }) })
  {
    const auto one = cif::PlanResampleSlabs(g, 3, cif::kDefaultSlabVoxels);
    EXPECT_EQ(one.count, 1);
    EXPECT_EQ(cif::SlabGeometry(g, one, 0).OutputCount(), g.OutputCount());
    EXPECT_EQ(cif::SlabFirstVoxel(one, 0), 0);
  }

  // forced small slabs: at most 16, uneven last slab, 2-D cuts axis 1, 4-D axis 3
  for (const auto & [g, dimension] : { std::pair{ GeometryOfSize({ 26, 23, 20 }), 3 },
                                       std::pair{ GeometryOfSize({ 70, 65 }), 2 },
                                       std::pair{ GeometryOfSize({ 6, 5, 4, 7 }), 4 },
                                       std::pair{ GeometryOfSize({ 9, 3, 37 }), 3 } })
  {
    for (std::uint64_t minimum : { std::uint64_t(0), std::uint64_t(1), std::uint64_t(100) })
    {
      const auto plan = cif::PlanResampleSlabs(g, dimension, minimum);
      SCOPED_TRACE(testing::Message() << dimension << "-D, minimum " << minimum << ": " << plan.count << " slabs of "
                                      << plan.planesPerSlab << " planes");
      EXPECT_EQ(plan.axis, dimension - 1);
      EXPECT_GT(plan.count, 1);
      EXPECT_LE(plan.count, cif::kMaxSlabs);
      ExpectSlabsTile(g, plan, dimension);
    }
  }
}

// The devices' shares of a slab plan (cif::ShareOfSlabs): 1 to count devices, each
// share whole slabs of the plan, in order, tiling the output; every slab of a share
// is the plan's own slab (same planes, same first voxel).
TEST(ResampleSlabs, DeviceSharesTileTheOutputWithThePlansSlabs)
{
  for (const auto & [g, dimension] : { std::pair{ GeometryOfSize({ 26, 23, 20 }), 3 },
                                       std::pair{ GeometryOfSize({ 9, 3, 37 }), 3 },
                                       std::pair{ GeometryOfSize({ 70, 65 }), 2 } })
  {
    const auto plan = cif::PlanResampleSlabs(g, dimension, 1);
    for (std::int64_t n = 1; n <= plan.count; ++n)
    {
      SCOPED_TRACE(testing::Message() << dimension << "-D, " << plan.count << " slabs over " << n << " devices");
      std::int64_t nextVoxel = 0, nextSlab = 0;
      for (std::int64_t k = 0; k < n; ++k)
      {
        const cif::SlabShare share = cif::ShareOfSlabs(g, plan, k, n);
        EXPECT_GT(share.slabs.count, 0);
        EXPECT_EQ(share.firstVoxel, nextVoxel);
        for (std::int64_t s = 0; s < share.slabs.count; ++s, ++nextSlab)
        {
          const cif::ResampleGeometry own = cif::SlabGeometry(share.geometry, share.slabs, s);
          const cif::ResampleGeometry planned = cif::SlabGeometry(g, plan, nextSlab);
          EXPECT_EQ(own.outputStart[dimension - 1], planned.outputStart[dimension - 1]);
          EXPECT_EQ(own.outputSize[dimension - 1], planned.outputSize[dimension - 1]);
          EXPECT_EQ(share.firstVoxel + cif::SlabFirstVoxel(share.slabs, s), cif::SlabFirstVoxel(plan, nextSlab));
        }
        nextVoxel += share.geometry.OutputCount();
      }
      EXPECT_EQ(nextSlab, plan.count);
      EXPECT_EQ(nextVoxel, g.OutputCount());
    }
  }
}

// A device's share fed slab by slab (cif::PlanSpreadShare): each slab's planes are
// the InputPlanesOfRegion of that slab (whole planes of the input), the pieces add
// each slab's planes not read before, in order, as runs below and above what was
// read (an interval every time), and together give the share's planes. Random turns
// about every axis, a z flip among them (the pieces then grow downwards).
TEST(ResampleSlabs, SpreadSharesFeedEachSlabThePlanesItReads)
{
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> angle(-0.6, 0.6);
  cif::ResampleGeometry                  g = GeometryOfSize({ 40, 36, 64 });
  for (int a = 0; a < 3; ++a)
  {
    g.input.size[a] = g.outputSize[a] + 5 * a;
    g.input.start[a] = a - 1;
  }
  g.lineLength = g.outputSize[0];
  g.lineStart = g.outputStart[0];
  const auto plan = cif::PlanResampleSlabs(g, 3, 4000);
  ASSERT_GE(plan.count, 8);
  for (int trial = 0; trial < 6; ++trial)
  {
    auto                                            affine = itk::AffineTransform<double, 3>::New();
    itk::AffineTransform<double, 3>::InputPointType centre;
    centre[0] = 20;
    centre[1] = 18;
    centre[2] = 32;
    affine->SetCenter(centre);
    affine->Rotate(0, 1, angle(rng));
    affine->Rotate(1, 2, angle(rng));
    affine->Rotate(0, 2, angle(rng));
    if (trial % 2 == 1)
    {
      itk::AffineTransform<double, 3>::OutputVectorType flip;
      flip[0] = flip[1] = 1.0;
      flip[2] = -1.0;
      affine->Scale(flip);
    }
    const itk::CudaTransformChain<3> chain(affine.GetPointer());
    for (std::int64_t n = 1; n <= 3; ++n)
    {
      for (std::int64_t k = 0; k < n; ++k)
      {
        SCOPED_TRACE(testing::Message() << "trial " << trial << ", share " << k << " of " << n);
        const cif::SpreadShareSlabs s = cif::PlanSpreadShare<3>(g, plan, k, n, chain.HostChain());
        ASSERT_EQ(static_cast<std::int64_t>(s.boxes.size()), s.share.slabs.count);
        ASSERT_EQ(s.pieces.size(), s.boxes.size());
        std::int64_t low = 0, high = 0;
        for (std::int64_t slab = 0; slab < s.share.slabs.count; ++slab)
        {
          const cif::CoefficientGrid & box = s.boxes[static_cast<std::size_t>(slab)];
          const cif::CoefficientGrid   expected =
            cif::InputPlanesOfRegion<3>(cif::SlabGeometry(s.share.geometry, s.share.slabs, slab), chain.HostChain());
          for (int a = 0; a < 3; ++a)
          {
            EXPECT_EQ(box.start[a], expected.start[a]);
            EXPECT_EQ(box.size[a], expected.size[a]);
            if (a < 2)
            {
              EXPECT_EQ(box.start[a], g.input.start[a]); // whole planes
              EXPECT_EQ(box.size[a], g.input.size[a]);
            }
          }
          for (const cif::PlaneRange & run : s.pieces[static_cast<std::size_t>(slab)])
          {
            ASSERT_LT(run.first, run.end);
            if (slab == 0)
            {
              low = run.first;
              high = run.end;
            }
            else if (run.end == low)
            {
              low = run.first;
            }
            else
            {
              ASSERT_EQ(run.first, high) << "a run that neither ends at the planes read nor starts after them";
              high = run.end;
            }
          }
          const std::int64_t first = box.start[2] - g.input.start[2];
          EXPECT_LE(low, first);
          EXPECT_GE(high, first + box.size[2]) << "slab " << slab << " reads planes not gathered before it";
        }
        EXPECT_EQ(s.wanted.first, low);
        EXPECT_EQ(s.wanted.end, high);
      }
    }
  }
}

/** The module's resampling of \a input with \a minimumVoxelsPerSlab; returns the
 * output and, in \a events, how many progress events it reported. */
template <typename TImage>
typename TImage::Pointer
Resample(const TImage *                                                                 input,
         const itk::Transform<double, TImage::ImageDimension, TImage::ImageDimension> * transform,
         const TImage *                                                                 geometry,
         Path                                                                           path,
         itk::SizeValueType                                                             minimumVoxelsPerSlab,
         std::size_t &                                                                  events,
         const typename TImage::RegionType *                                            requested = nullptr)
{
  using Filter = itk::CubicResampleGPUImageFilter<TImage, TImage>;
  auto filter = Filter::New();
  ConfigureCubicResample(filter.GetPointer(), transform, geometry, -7.0);
  filter->SetInput(input);
  filter->SetUseGPU(path == Path::GPU);
  filter->SetMinimumVoxelsPerSlab(minimumVoxelsPerSlab);
  EXPECT_EQ(filter->GetMinimumVoxelsPerSlab(), minimumVoxelsPerSlab);
  if (requested)
  {
    filter->GetOutput()->SetRequestedRegion(*requested);
  }
  auto progress = RecordProgress(filter);
  filter->Update();
  EXPECT_EQ(filter->GetLastExecutionPath(),
            path == Path::GPU ? Filter::ExecutionPath::GPU : Filter::ExecutionPath::CPU);
  events = progress->size();
  typename TImage::Pointer out = filter->GetOutput();
  out->DisconnectPipeline();
  return out;
}

template <unsigned int D, typename TPixel>
void
CheckResampleSlabs(Path path)
{
  using Image = itk::Image<TPixel, D>;
  const std::uint32_t seed = FreshSeed();
  std::mt19937        rng(seed);
  itk::Size<D>        inSize, outSize;
  for (unsigned int a = 0; a < D; ++a)
  {
    inSize[a] = D == 2 ? 61 + 7 * a : D == 3 ? 23 + 4 * a : 14 - a;
    outSize[a] = D == 2 ? 70 - 5 * a : D == 3 ? 26 - 3 * a : 7 - a;
  }
  const auto [input, geometry, inputCentre] = MakeResampleSetUp<Image>(inSize, outSize, Content::Random, seed);

  using Transform = itk::Transform<double, D, D>;
  struct Case
  {
    std::string                      name;
    typename Transform::ConstPointer transform;
    typename Image::Pointer          input;
  };
  std::vector<Case> cases;
  cases.push_back({ "affine (linear rows)", RandomAffine<D>(rng, 1.0, &inputCentre).GetPointer(), input });
  auto bspline = RandomBSpline<D>(input.GetPointer(), 3, 2.0, rng);
  cases.push_back({ "bspline", bspline.GetPointer(), input });
  cases.push_back(
    { "composite affine+bspline", AffineThen<D>(bspline.GetPointer(), rng, &inputCentre).GetPointer(), input });
  // Image, output and control grid along the same axes: the device shares each
  // output row's B-spline support (a kernel chosen for the whole output, not per slab).
  auto aligned = MakeInput<Image>(inSize, Content::Random, seed + 1);
  AlignWithAxes(aligned.GetPointer());
  cases.push_back(
    { "axis-aligned bspline", RandomBSpline<D>(aligned.GetPointer(), 3, 2.0, rng).GetPointer(), aligned });
  // host-mapped: the mapped points of each slab are its own
  auto field = RandomDisplacementField<D>(input.GetPointer(), 1.5, rng);
  cases.push_back({ "displacement field, nearest (host-mapped)", HostMappedField<D>(field).GetPointer(), input });

  // a requested region that starts inside the largest one along every axis: the
  // linear path's rows still span the largest region's axis 0
  using Region = typename Image::RegionType;
  Region part = geometry->GetLargestPossibleRegion();
  for (unsigned int a = 0; a < D; ++a)
  {
    part.SetIndex(a, part.GetIndex(a) + 1);
    part.SetSize(a, part.GetSize(a) - 2);
  }
  for (const auto & [name, transform, caseInput] : cases)
  {
    for (const Region * requested : { static_cast<const Region *>(nullptr), static_cast<const Region *>(&part) })
    {
      SCOPED_TRACE(testing::Message() << D << "-D " << typeid(TPixel).name() << ", " << name
                                      << (requested ? ", requested sub-region" : "") << ", "
                                      << (path == Path::GPU ? "GPU" : "CPU") << ", seed " << seed);
      std::size_t onePieceEvents = 0, slabEvents = 0;
      auto        onePiece = Resample<Image>(
        caseInput, transform, geometry, path, itk::NumericTraits<itk::SizeValueType>::max(), onePieceEvents, requested);
      auto slabs = Resample<Image>(caseInput, transform, geometry, path, 1, slabEvents, requested);
      ExpectSameBits(onePiece.GetPointer(), slabs.GetPointer());
      // one more event per slab beyond the first
      cif::ResampleGeometry g;
      for (unsigned int a = 0; a < D; ++a)
      {
        g.outputSize[a] = static_cast<std::int64_t>(slabs->GetBufferedRegion().GetSize(a));
      }
      const std::int64_t slabCount = cif::PlanResampleSlabs(g, D, 1).count;
      EXPECT_GT(slabCount, 1);
      EXPECT_EQ(slabEvents, onePieceEvents + static_cast<std::size_t>(slabCount - 1));
    }
  }
}

/** RGB pixels, every component in slabs. */
void
CheckComponentSlabs(Path path)
{
  using Pixel = itk::RGBPixel<float>;
  using Image = itk::Image<Pixel, 3>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "RGB, " << (path == Path::GPU ? "GPU" : "CPU") << ", seed " << seed);
  std::mt19937 rng(seed);
  auto         input = Image::New();
  input->SetRegions(Image::RegionType({ { -1, 0, 2 } }, { { 19, 17, 13 } }));
  input->SetDirection(RotationDirection<3>(0.2));
  input->Allocate();
  std::uniform_real_distribution<float> unit(0.0f, 200.0f);
  for (itk::ImageRegionIterator<Image> it(input, input->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    it.Set(Pixel(std::array<float, 3>{ unit(rng), unit(rng), unit(rng) }.data()));
  }
  auto           geometry = OutputGeometry<Image>({ { 21, 18, 15 } });
  auto           affine = RandomAffine<3>(rng);
  Image::Pointer outputs[2];
  std::size_t    events[2];
  for (int forced = 0; forced < 2; ++forced)
  {
    auto filter = itk::CubicResampleGPUImageFilter<Image, Image>::New();
    filter->SetInput(input);
    filter->SetTransform(affine);
    filter->SetOutputParametersFromImage(geometry);
    filter->CubicBSplinePerComponentOn();
    filter->SetUseGPU(path == Path::GPU);
    if (forced)
    {
      filter->SetMinimumVoxelsPerSlab(1);
    }
    auto progress = RecordProgress(filter);
    filter->Update();
    events[forced] = progress->size();
    outputs[forced] = filter->GetOutput();
  }
  ExpectSameBits(outputs[0].GetPointer(), outputs[1].GetPointer());
  EXPECT_EQ(events[1], events[0] + 3 * (15 - 1)) << "three components of 15 one-plane slabs each";
}

template <unsigned int D>
void
CheckDisplacementFieldSlabs(Path path, bool axisAligned)
{
  using Field = itk::Image<itk::Vector<float, D>, D>;
  using Image = itk::Image<float, D>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << D << "-D field, " << (path == Path::GPU ? "GPU" : "CPU")
                                  << (axisAligned ? ", axis-aligned" : "") << ", seed " << seed);
  std::mt19937 rng(seed);
  itk::Size<D> size;
  size.Fill(D == 2 ? 50 : 21);
  auto domain = MakeInput<Image>(size, Content::Smooth, seed);
  if (axisAligned)
  {
    AlignWithAxes(domain.GetPointer());
  }
  auto                    bspline = RandomBSpline<D>(domain.GetPointer(), 4, 3.0, rng);
  typename Field::Pointer fields[2];
  std::size_t             events[2];
  for (int forced = 0; forced < 2; ++forced)
  {
    using Filter = itk::TransformToDisplacementFieldGPUFilter<Field, double>;
    auto filter = MakeDisplacementFieldFilter<Field>(bspline.GetPointer(), domain.GetPointer(), path);
    if (forced)
    {
      filter->SetMinimumVoxelsPerSlab(1);
      EXPECT_EQ(filter->GetMinimumVoxelsPerSlab(), 1u);
    }
    auto progress = RecordProgress(filter);
    filter->Update();
    EXPECT_EQ(filter->GetLastExecutionPath(),
              path == Path::GPU ? Filter::ExecutionPath::GPU : Filter::ExecutionPath::CPU);
    events[forced] = progress->size();
    fields[forced] = filter->GetOutput();
  }
  ExpectSameBits(fields[0].GetPointer(), fields[1].GetPointer());
  const std::int64_t planes = static_cast<std::int64_t>(size[D - 1]);
  const std::int64_t perSlab = (planes + 15) / 16;
  EXPECT_EQ(events[1], events[0] + static_cast<std::size_t>((planes + perSlab - 1) / perSlab - 1));
}

TEST(CubicResampleSlabsCPU, SameBitsAsOnePiece2D) { CheckResampleSlabs<2, float>(Path::CPU); }
TEST(CubicResampleSlabsCPU, SameBitsAsOnePiece3D) { CheckResampleSlabs<3, float>(Path::CPU); }
TEST(CubicResampleSlabsCPU, SameBitsAsOnePiece3DShort) { CheckResampleSlabs<3, short>(Path::CPU); }
TEST(CubicResampleSlabsCPU, SameBitsAsOnePiece4D) { CheckResampleSlabs<4, double>(Path::CPU); }
TEST(CubicResampleSlabsCPU, SameBitsAsOnePieceRGB) { CheckComponentSlabs(Path::CPU); }
TEST(DisplacementFieldSlabsCPU, SameBitsAsOnePiece)
{
  CheckDisplacementFieldSlabs<2>(Path::CPU, false);
  CheckDisplacementFieldSlabs<3>(Path::CPU, false);
  CheckDisplacementFieldSlabs<3>(Path::CPU, true);
}

TEST(CubicResampleSlabsGPU, SameBitsAsOnePiece2D)
{
  CIF_REQUIRE_GPU();
  CheckResampleSlabs<2, float>(Path::GPU);
}
TEST(CubicResampleSlabsGPU, SameBitsAsOnePiece3D)
{
  CIF_REQUIRE_GPU();
  CheckResampleSlabs<3, float>(Path::GPU);
}
TEST(CubicResampleSlabsGPU, SameBitsAsOnePiece3DShort)
{
  CIF_REQUIRE_GPU();
  CheckResampleSlabs<3, short>(Path::GPU);
}
TEST(CubicResampleSlabsGPU, SameBitsAsOnePiece4D)
{
  CIF_REQUIRE_GPU();
  CheckResampleSlabs<4, double>(Path::GPU);
}
TEST(CubicResampleSlabsGPU, SameBitsAsOnePieceRGB)
{
  CIF_REQUIRE_GPU();
  CheckComponentSlabs(Path::GPU);
}
TEST(DisplacementFieldSlabsGPU, SameBitsAsOnePiece)
{
  CIF_REQUIRE_GPU();
  CheckDisplacementFieldSlabs<2>(Path::GPU, false);
  CheckDisplacementFieldSlabs<3>(Path::GPU, false);
  CheckDisplacementFieldSlabs<3>(Path::GPU, true);
}
} // namespace
