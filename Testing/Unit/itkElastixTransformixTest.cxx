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
// elastix parameter files read as ITK transforms (ElastixTransformFileReader) against
// transformix itself: for every transform kind elastix writes, 2-D and 3-D, on a
// random oblique output grid, a file made by ElastixTransformFileWriter and one
// written by hand in elastix's own layout (its 6 printed digits for the parameters,
// 10 for the geometry, a B-spline grid with a GridIndex), then chains (Compose) and
// sums (Add). transformix -def all evaluates the file; the field of the transform the
// reader returns must equal it within the float rounding of transformix's output
// (FieldTolerance, cifElastixTestSupport.h).
#include "cifElastixTestSupport.h"
#include "itkCompositeTransform.h"
#include "itkElastixTransformFileReader.h"
#include "itkElastixTransformFileWriter.h"

#include <iomanip>

namespace
{
using namespace cif_test;

/** \a values as elastix prints them: an ostream of \a precision digits. */
template <typename TValues>
std::string
Printed(const TValues & values, unsigned int count, int precision)
{
  std::ostringstream out;
  out.imbue(std::locale::classic());
  out << std::setprecision(precision);
  for (unsigned int i = 0; i < count; ++i)
  {
    out << (i ? " " : "") << values[i];
  }
  return out.str();
}

/** A transform parameter file as elastix 5.0.1's TransformBase::WriteToFile lays it
 * out (6 digits for the parameters, 10 for the geometry), written here by hand, not
 * by ElastixTransformFileWriter: \a kind's own lines come from the transform. The
 * B-spline's grid is given a GridIndex (elastix's region start), its GridOrigin moved
 * back to match. */
template <unsigned int D>
std::string
HandWritten(Kind                                 kind,
            const itk::Transform<double, D, D> * transform,
            const itk::ElastixOutputGrid<D> &    grid,
            const std::string &                  initial = "NoInitialTransform",
            const std::string &                  combine = "Compose",
            const std::string &                  elastixName = "")
{
  std::string name, specific;
  const auto  parameters = transform->GetParameters();
  if (const auto * matrixOffset = dynamic_cast<const itk::MatrixOffsetTransformBase<double, D, D> *>(transform))
  {
    specific = "(CenterOfRotationPoint " + Printed(matrixOffset->GetCenter(), D, 10) + ")\n";
  }
  switch (kind)
  {
    case Kind::Translation:
      name = "TranslationTransform";
      break;
    case Kind::Euler:
    case Kind::EulerZYX:
      name = "EulerTransform";
      if (D == 3)
      {
        specific += std::string("(ComputeZYX \"") + (kind == Kind::EulerZYX ? "true" : "false") + "\")\n";
      }
      break;
    case Kind::Similarity:
      name = "SimilarityTransform";
      break;
    case Kind::Affine:
      name = "AffineTransform";
      break;
    case Kind::BSpline:
    {
      name = "BSplineTransform";
      const auto & fixed = transform->GetFixedParameters();
      long long    index[D];
      double       origin[D], direction[D * D];
      for (unsigned int i = 0; i < D; ++i) // RecursiveBSplineTransform: 0 (see the reader)
      {
        index[i] = elastixName == "RecursiveBSplineTransform" ? 0 : 2 - static_cast<long long>(i);
      }
      for (unsigned int i = 0; i < D; ++i)
      {
        origin[i] = fixed[D + i];
        for (unsigned int j = 0; j < D; ++j)
        {
          origin[i] -= fixed[3 * D + i * D + j] * fixed[2 * D + j] * static_cast<double>(index[j]);
          direction[i * D + j] = fixed[3 * D + j * D + i]; // column by column
        }
      }
      // elastix prints the origin with 10 digits: here 17, so that the node positions stay
      // those of the coefficients the test drew (the field is then not at a rounded grid)
      specific += "(GridSize " + Printed(&fixed[0], D, 10) + ")\n(GridIndex " + Printed(index, D, 10) +
                  ")\n(GridSpacing " + Printed(&fixed[2 * D], D, 10) + ")\n(GridOrigin " + Printed(origin, D, 17) +
                  ")\n(GridDirection " + Printed(direction, D * D, 10) +
                  ")\n(BSplineTransformSplineOrder 3)\n(UseCyclicTransform \"false\")\n";
      break;
    }
  }
  if (!elastixName.empty()) // another name elastix gives the same file layout
  {
    name = elastixName;
  }
  double direction[D * D];
  for (unsigned int i = 0; i < D; ++i)
  {
    for (unsigned int j = 0; j < D; ++j)
    {
      direction[i * D + j] = grid.Direction[j][i];
    }
  }
  std::ostringstream text;
  text << "(Transform \"" << name << "\")\n(NumberOfParameters " << parameters.Size() << ")\n(TransformParameters "
       << Printed(parameters, parameters.Size(), 6) << ")\n(InitialTransformParametersFileName \"" << initial
       << "\")\n(UseBinaryFormatForTransformationParameters \"false\")\n(HowToCombineTransforms \"" << combine
       << "\")\n\n// Image specific\n(FixedImageDimension " << D << ")\n(MovingImageDimension " << D
       << ")\n(FixedInternalImagePixelType \"float\")\n(MovingInternalImagePixelType \"float\")\n(Size "
       << Printed(grid.Size, D, 10) << ")\n(Index " << Printed(grid.Index, D, 10) << ")\n(Spacing "
       << Printed(grid.Spacing, D, 10) << ")\n(Origin " << Printed(grid.Origin, D, 10) << ")\n(Direction "
       << Printed(direction, D * D, 10) << ")\n(UseDirectionCosines \"true\")\n\n// " << name << " specific\n"
       << specific
       << "\n// ResampleInterpolator specific\n(ResampleInterpolator \"FinalBSplineInterpolator\")\n"
          "(FinalBSplineInterpolationOrder 3)\n\n// Resampler specific\n(Resampler \"DefaultResampler\")\n"
          "(DefaultPixelValue "
       << grid.DefaultPixelValue
       << ")\n(ResultImageFormat \"mhd\")\n(ResultImagePixelType \"float\")\n(CompressResultImage \"false\")\n";
  return text.str();
}

void
WriteText(const std::string & path, const std::string & text)
{
  std::ofstream out(path);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

/** transformix -def all on \a file (run from \a workingDirectory when given), then the
 * reader's transform against its field. */
template <unsigned int D>
void
ExpectTransformixField(const ScratchDirectory & dir,
                       const std::string &      file,
                       const std::string &      what,
                       const std::string &      workingDirectory = "")
{
  CIF_REQUIRE_ELASTIX_PROGRAM(transformix, "transformix");
  const std::string out = dir / "out";
  itksys::SystemTools::MakeDirectory(out);
  const std::string cd = workingDirectory.empty() ? "" : "cd " + Quoted(workingDirectory) + " && ";
  const auto run = RunProgram(cd + Quoted(transformix) + " -def all -tp " + Quoted(file) + " -out " + Quoted(out),
                              dir / "transformix.log");
  if (!run)
  {
    // Debian's elastix 5.0.1 is built without some components (SimilarityTransform
    // among them): transformix cannot be the judge of those
    std::ifstream     in(dir / "transformix.log");
    std::stringstream log;
    log << in.rdbuf();
    const auto missing = log.str().find("This component is not installed");
    if (missing != std::string::npos)
    {
      const auto start = log.str().rfind('\n', missing);
      GTEST_SKIP() << "this transformix (" << transformix
                   << ") was built without the component: " << log.str().substr(start + 1, missing - start - 1) << "("
                   << what << ")";
    }
  }
  ASSERT_TRUE(run);
  itk::ElastixOutputGrid<D>                      grid;
  typename itk::Transform<double, D, D>::Pointer transform;
  ASSERT_NO_THROW(transform = itk::ReadElastixTransform<D>(file, &grid));
  ASSERT_TRUE(grid.IsValid());
  const FieldDifference difference = CompareWithTransformixField<D>(transform, grid, out + "/deformationField.mhd");
  std::cout << "transformix field, " << what << " (" << transform->GetNameOfClass() << "): " << difference << "\n";
  EXPECT_GT(difference.points, 0u);
  EXPECT_LE(difference.worstRatio, 1.0) << what << ": " << difference;
}

/** One transform of \a kind in one file, written by the writer or by hand. */
template <unsigned int D>
void
CheckKind(Kind kind, bool handWritten, const std::string & elastixName = "")
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937      rng(seed);
  ScratchDirectory  dir(std::string(ToString(kind)) + std::to_string(D) + (handWritten ? "hand" : "writer"));
  const auto        grid = RandomGrid<D>(rng, GridSize<D>());
  const auto        transform = RandomTransform<D>(kind, rng, grid);
  const std::string file = dir / "TransformParameters.0.txt";
  if (handWritten)
  {
    WriteText(file, HandWritten<D>(kind, transform, grid, "NoInitialTransform", "Compose", elastixName));
  }
  else
  {
    ASSERT_NO_THROW(itk::WriteElastixTransform<D>(transform, grid, file));
  }
  ExpectTransformixField<D>(dir,
                            file,
                            (elastixName.empty() ? std::string(ToString(kind)) : elastixName) + " " +
                              std::to_string(D) + "-D, " +
                              (handWritten ? "written by hand" : "ElastixTransformFileWriter"));
}

template <unsigned int D>
void
CheckKindBothWays(Kind kind)
{
  CheckKind<D>(kind, false);
  CheckKind<D>(kind, true);
}
} // namespace

TEST(ElastixTransformix, Translation2D) { CheckKindBothWays<2>(Kind::Translation); }
TEST(ElastixTransformix, Translation3D) { CheckKindBothWays<3>(Kind::Translation); }
TEST(ElastixTransformix, Euler2D) { CheckKindBothWays<2>(Kind::Euler); }
TEST(ElastixTransformix, Euler3D) { CheckKindBothWays<3>(Kind::Euler); }
TEST(ElastixTransformix, Euler3DComputeZYX) { CheckKindBothWays<3>(Kind::EulerZYX); }
TEST(ElastixTransformix, Similarity2D) { CheckKindBothWays<2>(Kind::Similarity); }
TEST(ElastixTransformix, Similarity3D) { CheckKindBothWays<3>(Kind::Similarity); }
TEST(ElastixTransformix, Affine2D) { CheckKindBothWays<2>(Kind::Affine); }
TEST(ElastixTransformix, Affine3D) { CheckKindBothWays<3>(Kind::Affine); }
TEST(ElastixTransformix, BSpline2D) { CheckKindBothWays<2>(Kind::BSpline); }
TEST(ElastixTransformix, BSpline3D) { CheckKindBothWays<3>(Kind::BSpline); }
// elastix's RecursiveBSplineTransform: the same file layout and the same map
TEST(ElastixTransformix, RecursiveBSpline3D) { CheckKind<3>(Kind::BSpline, true, "RecursiveBSplineTransform"); }

namespace
{
/** A CompositeTransform (Euler, then affine, then B-spline: ITK applies the last added
 * first) through the writer's chain of three files. */
template <unsigned int D>
void
CheckWrittenChain()
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937     rng(seed);
  ScratchDirectory dir("chain" + std::to_string(D));
  const auto       grid = RandomGrid<D>(rng, GridSize<D>());
  auto             composite = itk::CompositeTransform<double, D>::New();
  composite->AddTransform(RandomTransform<D>(Kind::BSpline, rng, grid));
  composite->AddTransform(RandomTransform<D>(Kind::Affine, rng, grid));
  composite->AddTransform(RandomTransform<D>(Kind::Euler, rng, grid));
  const std::string        head = dir / "TransformParameters.txt";
  std::vector<std::string> files;
  ASSERT_NO_THROW(files = itk::WriteElastixTransform<D>(composite, grid, head));
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0], head);
  // the whole chain from another working directory: the writer names absolute paths
  ExpectTransformixField<D>(dir, head, "Euler, affine, B-spline chain (writer), " + std::to_string(D) + "-D", "/");
}

/** Files written by hand and combined as elastix combines them: \a stages[k] is the
 * k-th applied, each later one naming the one before it by its bare file name (found
 * by transformix 5.0.1 from its working directory, the scratch folder, and by the
 * reader next to the naming file) with \a combine[k] (for k >= 1). */
template <unsigned int D>
void
CheckHandWrittenChain(const std::string &              what,
                      const std::vector<Kind> &        stages,
                      const std::vector<std::string> & combine,
                      bool                             sameBSplineGrid = false)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937                                   rng(seed);
  ScratchDirectory                               dir("hand" + std::to_string(D));
  const auto                                     grid = RandomGrid<D>(rng, GridSize<D>());
  typename itk::Transform<double, D, D>::Pointer firstBSpline;
  std::string                                    initial = "NoInitialTransform";
  for (std::size_t k = 0; k < stages.size(); ++k)
  {
    auto transform = RandomTransform<D>(stages[k], rng, grid);
    if (stages[k] == Kind::BSpline && sameBSplineGrid)
    {
      if (firstBSpline) // the first one's grid, coefficients of its own
      {
        auto second = itk::BSplineTransform<double, D, 3>::New();
        second->SetFixedParameters(firstBSpline->GetFixedParameters());
        typename itk::BSplineTransform<double, D, 3>::ParametersType parameters(second->GetNumberOfParameters());
        std::uniform_real_distribution<double>                       coefficient(-2.0, 2.0);
        for (auto & c : parameters)
        {
          c = coefficient(rng);
        }
        second->SetParametersByValue(parameters);
        transform = second;
      }
      firstBSpline = transform;
    }
    const std::string name = "TransformParameters." + std::to_string(k) + ".txt";
    WriteText(dir / name, HandWritten<D>(stages[k], transform, grid, initial, k == 0 ? "Compose" : combine[k]));
    initial = name;
  }
  ExpectTransformixField<D>(dir, dir / initial, what + ", " + std::to_string(D) + "-D", dir.Path());
}
} // namespace

TEST(ElastixTransformix, WrittenChain2D) { CheckWrittenChain<2>(); }
TEST(ElastixTransformix, WrittenChain3D) { CheckWrittenChain<3>(); }

// elastix's "Compose": the file's transform after the one it names
TEST(ElastixTransformix, ComposeAffineThenBSpline2D)
{
  CheckHandWrittenChain<2>("affine then B-spline (Compose)", { Kind::Affine, Kind::BSpline }, { "", "Compose" });
}
TEST(ElastixTransformix, ComposeAffineThenBSpline3D)
{
  CheckHandWrittenChain<3>("affine then B-spline (Compose)", { Kind::Affine, Kind::BSpline }, { "", "Compose" });
}
TEST(ElastixTransformix, ComposeAffineEulerTranslation3D)
{
  CheckHandWrittenChain<3>("affine, Euler, translation (Compose)",
                           { Kind::Affine, Kind::Euler, Kind::Translation },
                           { "", "Compose", "Compose" });
}

// elastix's "Add": T(p) = T_this(p) + T_before(p) - p, in each form ITK can express
TEST(ElastixTransformix, AddAffineToAffine2D)
{
  CheckHandWrittenChain<2>("affine + affine (Add)", { Kind::Affine, Kind::Affine }, { "", "Add" });
}
TEST(ElastixTransformix, AddBSplineToAffine3D)
{
  CheckHandWrittenChain<3>("affine + B-spline (Add)", { Kind::Affine, Kind::BSpline }, { "", "Add" });
}
TEST(ElastixTransformix, AddEulerToBSpline2D)
{
  CheckHandWrittenChain<2>("B-spline + Euler (Add)", { Kind::BSpline, Kind::Euler }, { "", "Add" });
}
TEST(ElastixTransformix, AddTranslationToAChain3D)
{
  CheckHandWrittenChain<3>("(Euler then B-spline) + translation (Add)",
                           { Kind::Euler, Kind::BSpline, Kind::Translation },
                           { "", "Compose", "Add" });
}
TEST(ElastixTransformix, AddBSplineToBSplineOnOneGrid3D)
{
  CheckHandWrittenChain<3>(
    "B-spline + B-spline on one grid (Add)", { Kind::BSpline, Kind::BSpline }, { "", "Add" }, true);
}
