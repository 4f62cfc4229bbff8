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
// Files as elastix itself writes them: a real elastix run (a synthetic pair on oblique
// grids, an affine then a B-spline parameter map, a few iterations) leaves
// TransformParameters.0.txt (affine) and TransformParameters.1.txt (B-spline, naming
// the first with HowToCombineTransforms "Compose"). The reader's transform of the
// second against transformix -def all on it, and the module's CPU resampler
// (CubicResampleGPUImageFilter with the GPU off, onto the file's grid with its default
// pixel value) against transformix -in with the file's cubic final interpolator.
#include "cifElastixTestSupport.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkCompositeTransform.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkElastixTransformFileReader.h"
#include "itkImageRegionIteratorWithIndex.h"

namespace
{
using namespace cif_test;

/** A smooth image on \a grid: a few Gaussian blobs of physical space seen through
 * \a warp (the moving image's blobs are the fixed image's, moved). */
template <unsigned int D, typename TWarp>
typename itk::Image<float, D>::Pointer
Blobs(const itk::ElastixOutputGrid<D> & grid, std::uint32_t seed, TWarp warp)
{
  std::mt19937                           rng(seed); // the same blobs for both images
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto                             center = GridCenter(grid);
  struct Blob
  {
    itk::Point<double, D> at;
    double                sigma, height;
  };
  std::vector<Blob> blobs(6);
  for (auto & b : blobs)
  {
    for (unsigned int i = 0; i < D; ++i)
    {
      b.at[i] = center[i] + (unit(rng) - 0.5) * 12.0;
    }
    b.sigma = 2.5 + 3.0 * unit(rng);
    b.height = 50.0 + 100.0 * unit(rng);
  }
  auto image = itk::Image<float, D>::New();
  grid.ApplyTo(image);
  image->Allocate();
  for (itk::ImageRegionIteratorWithIndex<itk::Image<float, D>> it(image, image->GetBufferedRegion()); !it.IsAtEnd();
       ++it)
  {
    itk::Point<double, D> p;
    image->TransformIndexToPhysicalPoint(it.GetIndex(), p);
    p = warp(p);
    double value = 10.0;
    for (const auto & b : blobs)
    {
      value += b.height * std::exp(-p.SquaredEuclideanDistanceTo(b.at) / (2.0 * b.sigma * b.sigma));
    }
    it.Set(static_cast<float>(value));
  }
  return image;
}

template <typename TImage>
void
WriteMetaImage(const TImage * image, const std::string & path)
{
  auto writer = itk::ImageFileWriter<TImage>::New();
  writer->SetImageIO(itk::MetaImageIO::New());
  writer->SetInput(image);
  writer->SetFileName(path);
  writer->Update();
}

/** elastix's parameter map for one stage: MeanSquares, one resolution, \a iterations of
 * its adaptive stochastic gradient descent on 512 random samples, a cubic final
 * interpolator, float results. */
std::string
ParameterMap(unsigned int        dimension,
             const std::string & transform,
             unsigned int        iterations,
             double              defaultValue,
             std::uint32_t       seed)
{
  std::ostringstream text;
  text << "(FixedInternalImagePixelType \"float\")\n(MovingInternalImagePixelType \"float\")\n"
       << "(FixedImageDimension " << dimension << ")\n(MovingImageDimension " << dimension << ")\n"
       << "(UseDirectionCosines \"true\")\n(Registration \"MultiResolutionRegistration\")\n"
       << "(Interpolator \"BSplineInterpolator\")\n(ResampleInterpolator \"FinalBSplineInterpolator\")\n"
       << "(Resampler \"DefaultResampler\")\n(FixedImagePyramid \"FixedSmoothingImagePyramid\")\n"
       << "(MovingImagePyramid \"MovingSmoothingImagePyramid\")\n(Optimizer \"AdaptiveStochasticGradientDescent\")\n"
       << "(Transform \"" << transform << "\")\n(Metric \"AdvancedMeanSquares\")\n"
       << "(AutomaticScalesEstimation \"true\")\n(HowToCombineTransforms \"Compose\")\n"
       << "(FinalGridSpacingInPhysicalUnits 8)\n(NumberOfResolutions 1)\n(MaximumNumberOfIterations " << iterations
       << ")\n(NumberOfSpatialSamples 512)\n(NewSamplesEveryIteration \"true\")\n"
       << "(ImageSampler \"RandomCoordinate\")\n(RandomSeed " << seed % 100000 << ")\n"
       << "(BSplineInterpolationOrder 1)\n(FinalBSplineInterpolationOrder 3)\n(DefaultPixelValue " << defaultValue
       << ")\n(WriteResultImage \"false\")\n(ResultImagePixelType \"float\")\n(ResultImageFormat \"mhd\")\n";
  return text.str();
}

template <unsigned int D>
void
RegisterAndCompare()
{
  CIF_REQUIRE_ELASTIX_PROGRAM(elastix, "elastix");
  CIF_REQUIRE_ELASTIX_PROGRAM(transformix, "transformix");
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937     rng(seed);
  ScratchDirectory dir("registration" + std::to_string(D));

  itk::Size<D> size;
  for (unsigned int i = 0; i < D; ++i)
  {
    size[i] = D == 2 ? 48 - 4 * i : 22 - 2 * i;
  }
  auto fixedGrid = RandomGrid<D>(rng, size);
  auto movingGrid = RandomGrid<D>(rng, size);
  fixedGrid.Index.Fill(0); // image files start at index 0
  movingGrid.Index.Fill(0);
  {
    // the moving grid turned another way about the fixed grid's center, a little larger
    const auto             center = GridCenter(fixedGrid);
    itk::Vector<double, D> half;
    for (unsigned int i = 0; i < D; ++i)
    {
      movingGrid.Spacing[i] = 1.2 * fixedGrid.Spacing[i];
      half[i] = 0.5 * movingGrid.Spacing[i] * (size[i] - 1.0);
    }
    movingGrid.Origin = center - movingGrid.Direction * half;
  }
  const double        defaultValue = fixedGrid.DefaultPixelValue;
  const std::uint32_t blobs = seed + 1;
  const auto          middle = GridCenter(fixedGrid);
  const auto          fixed = Blobs<D>(fixedGrid, blobs, [](const itk::Point<double, D> & p) { return p; });
  const auto          moving = Blobs<D>(movingGrid, blobs, [&](const itk::Point<double, D> & p) {
    itk::Point<double, D> q = p; // a small turn and shift, and a gentle wave
    for (unsigned int i = 0; i < D; ++i)
    {
      q[i] = middle[i] + 1.03 * (p[i] - middle[i]) + 0.04 * (p[(i + 1) % D] - middle[(i + 1) % D]) + 0.8 +
             0.6 * std::sin(0.25 * p[(i + 1) % D]);
    }
    return q;
  });
  WriteMetaImage(fixed.GetPointer(), dir / "fixed.mha");
  WriteMetaImage(moving.GetPointer(), dir / "moving.mha");
  {
    std::ofstream(dir / "affine.txt") << ParameterMap(D, "AffineTransform", 40, defaultValue, seed);
    std::ofstream(dir / "bspline.txt") << ParameterMap(D, "BSplineTransform", 40, defaultValue, seed + 7);
  }
  const std::string out = dir / "registration";
  itksys::SystemTools::MakeDirectory(out);
  ASSERT_TRUE(RunProgram(Quoted(elastix) + " -f " + Quoted(dir / "fixed.mha") + " -m " + Quoted(dir / "moving.mha") +
                           " -p " + Quoted(dir / "affine.txt") + " -p " + Quoted(dir / "bspline.txt") + " -out " +
                           Quoted(out) + " -threads 2",
                         dir / "elastix.log"));

  // elastix's chain: the B-spline file names the affine one, and composes with it
  const std::string head = out + "/TransformParameters.1.txt";
  auto              reader = itk::ElastixTransformFileReader<D>::New();
  reader->SetFileName(head);
  ASSERT_NO_THROW(reader->Update());
  ASSERT_EQ(reader->GetFileNames().size(), 2u);
  EXPECT_EQ(reader->GetFileNames()[1], out + "/TransformParameters.0.txt");
  const auto * chain = dynamic_cast<const itk::CompositeTransform<double, D> *>(reader->GetTransform());
  ASSERT_NE(chain, nullptr);
  ASSERT_EQ(chain->GetNumberOfTransforms(), 2u);
  EXPECT_STREQ(chain->GetNthTransformConstPointer(0)->GetNameOfClass(), "BSplineTransform"); // applied last
  EXPECT_STREQ(chain->GetNthTransformConstPointer(1)->GetNameOfClass(), "AffineTransform");
  const auto & grid = reader->GetOutputGrid();
  EXPECT_EQ(grid.Size, fixedGrid.Size);
  EXPECT_EQ(grid.DefaultPixelValue, defaultValue);
  for (unsigned int i = 0; i < D; ++i)
  {
    for (unsigned int j = 0; j < D; ++j)
    {
      EXPECT_NEAR(grid.Direction[i][j], fixedGrid.Direction[i][j], 1e-9); // elastix prints 10 digits
    }
  }

  // the field
  ASSERT_TRUE(RunProgram(Quoted(transformix) + " -def all -tp " + Quoted(head) + " -out " + Quoted(out),
                         dir / "transformix-def.log"));
  const FieldDifference field =
    CompareWithTransformixField<D>(reader->GetTransform(), grid, out + "/deformationField.mhd");
  std::cout << "elastix's affine + B-spline, " << D << "-D, transformix -def all: " << field << "\n";
  EXPECT_LE(field.worstRatio, 1.0) << field;

  // the resampled image: transformix reads the moving image as float (its internal type),
  // prefilters it in double and writes float; the module's CPU resampler reads the same
  // floats and resamples in double
  ASSERT_TRUE(RunProgram(Quoted(transformix) + " -in " + Quoted(dir / "moving.mha") + " -tp " + Quoted(head) +
                           " -out " + Quoted(out),
                         dir / "transformix-in.log"));
  using Output = itk::Image<double, D>;
  auto resample = itk::CubicResampleGPUImageFilter<itk::Image<float, D>, Output>::New();
  auto interpolator = itk::BSplineInterpolateImageFunction<itk::Image<float, D>, double, double>::New();
  interpolator->SetSplineOrder(3);
  resample->SetUseGPU(false);
  resample->SetInput(moving);
  resample->SetInterpolator(interpolator);
  resample->SetTransform(reader->GetTransform());
  resample->SetSize(grid.Size);
  resample->SetOutputStartIndex(grid.Index);
  resample->SetOutputSpacing(grid.Spacing);
  resample->SetOutputOrigin(grid.Origin);
  resample->SetOutputDirection(grid.Direction);
  resample->SetDefaultPixelValue(grid.DefaultPixelValue);
  ASSERT_NO_THROW(resample->Update());
  auto result = itk::ImageFileReader<itk::Image<float, D>>::New();
  result->SetImageIO(itk::MetaImageIO::New());
  result->SetFileName(out + "/result.mhd");
  ASSERT_NO_THROW(result->Update());
  ASSERT_EQ(result->GetOutput()->GetLargestPossibleRegion().GetSize(), grid.Size);
  // transformix's value is the double interpolation rounded to float (half an ulp,
  // 2^-24 |v|); the two double interpolations differ by their rounding (values up to
  // about 400: 1e-12) and by ITK's and elastix's T(p) (1e-14 apart) times the image's
  // gradient (below 100 per mm): 1e-9 covers both
  const float *     theirs = result->GetOutput()->GetBufferPointer();
  const double *    ours = resample->GetOutput()->GetBufferPointer();
  double            worst = 0.0, worstRatio = 0.0, largest = 0.0;
  std::size_t       outside = 0;
  const std::size_t count = resample->GetOutput()->GetBufferedRegion().GetNumberOfPixels();
  for (std::size_t i = 0; i < count; ++i)
  {
    const double difference = std::fabs(ours[i] - static_cast<double>(theirs[i]));
    worst = std::max(worst, difference);
    largest = std::max(largest, std::fabs(ours[i]));
    worstRatio = std::max(worstRatio, difference / (std::ldexp(std::fabs(ours[i]), -24) + 1e-9));
    outside += ours[i] == defaultValue;
  }
  std::cout << "elastix's affine + B-spline, " << D << "-D, transformix -in (cubic) against the CPU resampler: max "
            << "|difference| " << worst << " over " << count << " voxels (values up to " << largest << ", " << outside
            << " at the default " << defaultValue << "; worst difference " << worstRatio << " of its tolerance)\n";
  EXPECT_LE(worstRatio, 1.0) << "max |difference| " << worst;
}
} // namespace

TEST(ElastixRegistration, AffineThenBSpline2D) { RegisterAndCompare<2>(); }
TEST(ElastixRegistration, AffineThenBSpline3D) { RegisterAndCompare<3>(); }
