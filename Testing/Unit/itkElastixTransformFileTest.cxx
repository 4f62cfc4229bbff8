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
// ElastixTransformFileReader and ElastixTransformFileWriter without elastix's programs:
// ITK transform -> writer -> reader gives the same transform (its parameters to the
// bit: the writer prints the shortest decimal that reads back as the same double),
// the same grid, the same chain; bad input is an itk::ExceptionObject naming the file
// and line, never a crash.
#include "cifElastixTestSupport.h"
#include "itkCompositeTransform.h"
#include "itkElastixTransformFileReader.h"
#include "itkElastixTransformFileWriter.h"
#include "itkIdentityTransform.h"
#include "itkScaleSkewVersor3DTransform.h"
#include "itkVersorRigid3DTransform.h"

#include <iomanip>

namespace
{
using namespace cif_test;

template <unsigned int D>
itk::Size<D>
SmallSize()
{
  itk::Size<D> size;
  size.Fill(9);
  return size;
}

/** The same class, fixed parameters and parameters, bit for bit. */
template <unsigned int D>
void
ExpectSameTransform(const itk::Transform<double, D, D> * read, const itk::Transform<double, D, D> * written)
{
  ASSERT_NE(read, nullptr);
  EXPECT_STREQ(read->GetNameOfClass(), written->GetNameOfClass());
  EXPECT_EQ(read->GetFixedParameters(), written->GetFixedParameters());
  const auto & a = read->GetParameters();
  const auto & b = written->GetParameters();
  ASSERT_EQ(a.Size(), b.Size());
  for (unsigned int i = 0; i < a.Size(); ++i)
  {
    EXPECT_EQ(a[i], b[i]) << "parameter " << i << " of " << written->GetNameOfClass();
  }
}

template <unsigned int D>
void
ExpectSameGrid(const itk::ElastixOutputGrid<D> & a, const itk::ElastixOutputGrid<D> & b)
{
  EXPECT_EQ(a.Size, b.Size);
  EXPECT_EQ(a.Index, b.Index);
  EXPECT_EQ(a.Spacing, b.Spacing);
  EXPECT_EQ(a.Origin, b.Origin);
  EXPECT_EQ(a.Direction, b.Direction);
  EXPECT_EQ(a.DefaultPixelValue, b.DefaultPixelValue);
  EXPECT_TRUE(b.HasDefaultPixelValue);
}

/** Random transforms of every kind the writer names itself. */
template <unsigned int D>
std::vector<typename itk::Transform<double, D, D>::Pointer>
EveryKind(std::mt19937 & rng, const itk::ElastixOutputGrid<D> & grid)
{
  std::vector<typename itk::Transform<double, D, D>::Pointer> all;
  for (const Kind kind :
       { Kind::Translation, Kind::Affine, Kind::BSpline, Kind::Euler, Kind::EulerZYX, Kind::Similarity })
  {
    if (kind != Kind::EulerZYX || D == 3)
    {
      all.push_back(RandomTransform<D>(kind, rng, grid));
    }
  }
  return all;
}

template <unsigned int D>
void
RoundTripEveryKind()
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937     rng(seed);
  ScratchDirectory dir("roundtrip" + std::to_string(D));
  const auto       grid = RandomGrid<D>(rng, SmallSize<D>());
  for (const auto & transform : EveryKind<D>(rng, grid))
  {
    SCOPED_TRACE(transform->GetNameOfClass());
    const std::string file = dir / (std::string(transform->GetNameOfClass()) + ".txt");
    ASSERT_NO_THROW(itk::WriteElastixTransform<D>(transform, grid, file));
    itk::ElastixOutputGrid<D>                      read;
    typename itk::Transform<double, D, D>::Pointer back;
    ASSERT_NO_THROW(back = itk::ReadElastixTransform<D>(file, &read));
    ExpectSameTransform<D>(back, transform);
    ExpectSameGrid<D>(grid, read);
  }
}
} // namespace

TEST(ElastixTransformFile, RoundTripEveryKind2D) { RoundTripEveryKind<2>(); }
TEST(ElastixTransformFile, RoundTripEveryKind3D) { RoundTripEveryKind<3>(); }

// A composite becomes a chain of files and comes back as the same queue; transforms
// with no elastix name of their own come back as the AffineTransform of the same map.
TEST(ElastixTransformFile, RoundTripCompositeAndOtherMatrixOffsetTransforms)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937     rng(seed);
  ScratchDirectory dir("composite");
  const auto       grid = RandomGrid<3>(rng, SmallSize<3>());
  const auto       kinds = EveryKind<3>(rng, grid);
  auto             composite = itk::CompositeTransform<double, 3>::New();
  auto             inner = itk::CompositeTransform<double, 3>::New(); // nested: flattened
  for (const auto & t : kinds)
  {
    (composite->GetNumberOfTransforms() < 3 ? composite : inner)->AddTransform(t);
  }
  composite->AddTransform(inner);
  const std::string        head = dir / "chain.txt";
  std::vector<std::string> files;
  ASSERT_NO_THROW(files = itk::WriteElastixTransform<3>(composite, grid, head));
  ASSERT_EQ(files.size(), kinds.size());
  EXPECT_EQ(files.front(), head);
  const auto   back = itk::ReadElastixTransform<3>(head);
  const auto * chain = dynamic_cast<const itk::CompositeTransform<double, 3> *>(back.GetPointer());
  ASSERT_NE(chain, nullptr);
  ASSERT_EQ(chain->GetNumberOfTransforms(), kinds.size());
  for (std::size_t i = 0; i < kinds.size(); ++i)
  {
    ExpectSameTransform<3>(chain->GetNthTransformConstPointer(i), kinds[i]);
  }

  // VersorRigid3D, ScaleSkewVersor3D: AffineTransform, the same map to double rounding
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto                                   versor = itk::VersorRigid3DTransform<double>::New();
  auto                                   skew = itk::ScaleSkewVersor3DTransform<double>::New();
  auto                                   vector = [](std::initializer_list<double> values) {
    itk::Vector<double, 3> v;
    std::copy(values.begin(), values.end(), v.Begin());
    return v;
  };
  itk::Versor<double> rotation;
  rotation.Set(vector({ u(rng), u(rng), 1.0 }), u(rng));
  for (itk::MatrixOffsetTransformBase<double, 3, 3> * t :
       { static_cast<itk::MatrixOffsetTransformBase<double, 3, 3> *>(versor.GetPointer()),
         static_cast<itk::MatrixOffsetTransformBase<double, 3, 3> *>(skew.GetPointer()) })
  {
    itk::Point<double, 3> center;
    center[0] = 3.0 * u(rng);
    center[1] = 2.0;
    center[2] = -1.0;
    t->SetCenter(center);
    t->SetTranslation(vector({ u(rng), 4.0 * u(rng), 1.5 }));
  }
  versor->SetRotation(rotation);
  skew->SetRotation(rotation);
  skew->SetScale(vector({ 1.1, 0.9, 1.2 }));
  itk::Vector<double, 6> shear;
  const double           shears[6] = { 0.1, -0.05, 0.02, 0.0, 0.1, -0.1 };
  std::copy(shears, shears + 6, shear.Begin());
  skew->SetSkew(shear);
  for (const itk::Transform<double, 3, 3> * t :
       { static_cast<const itk::Transform<double, 3, 3> *>(versor.GetPointer()),
         static_cast<const itk::Transform<double, 3, 3> *>(skew.GetPointer()) })
  {
    SCOPED_TRACE(t->GetNameOfClass());
    ASSERT_NO_THROW(itk::WriteElastixTransform<3>(t, grid, dir / "matrix.txt"));
    const auto read = itk::ReadElastixTransform<3>(dir / "matrix.txt");
    EXPECT_STREQ(read->GetNameOfClass(), "AffineTransform");
    for (int n = 0; n < 20; ++n)
    {
      itk::Point<double, 3> p;
      for (unsigned int i = 0; i < 3; ++i)
      {
        p[i] = 30.0 * u(rng);
      }
      EXPECT_LT(read->TransformPoint(p).EuclideanDistanceTo(t->TransformPoint(p)), 1e-12);
    }
  }
}

// An identity writes as a zero translation.
TEST(ElastixTransformFile, IdentityIsAZeroTranslation)
{
  std::mt19937     rng(FreshSeed());
  ScratchDirectory dir("identity");
  const auto       grid = RandomGrid<2>(rng, SmallSize<2>());
  ASSERT_NO_THROW(itk::WriteElastixTransform<2>(itk::IdentityTransform<double, 2>::New(), grid, dir / "i.txt"));
  const auto back = itk::ReadElastixTransform<2>(dir / "i.txt");
  EXPECT_STREQ(back->GetNameOfClass(), "TranslationTransform");
  EXPECT_EQ(back->GetParameters()[0], 0.0);
  EXPECT_EQ(back->GetParameters()[1], 0.0);
}

namespace
{
/** The message of the exception that reading \a path as D-D throws ("" if none). */
template <unsigned int D>
std::string
ReadError(const std::string & path)
{
  try
  {
    itk::ReadElastixTransform<D>(path);
  }
  catch (const itk::ExceptionObject & e)
  {
    return e.GetDescription();
  }
  return {};
}

/** A correct 3-D Euler file, its lines replaced or added by \a changes. */
std::string
EulerFile(const std::string & changes = "", const std::string & drop = "")
{
  std::string text = "// a 3-D Euler transform\n"
                     "(Transform \"EulerTransform\")\n"
                     "(NumberOfParameters 6)\n"
                     "(TransformParameters 0.1 0.2 0.3 1 2 3)\n"
                     "(InitialTransformParametersFileName \"NoInitialTransform\")\n"
                     "(HowToCombineTransforms \"Compose\")\n"
                     "(FixedImageDimension 3)\n"
                     "(MovingImageDimension 3)\n"
                     "(Size 4 5 6)\n"
                     "(CenterOfRotationPoint 1 2 3)\n";
  if (!drop.empty())
  {
    const auto at = text.find("(" + drop + " ");
    text.erase(at, text.find('\n', at) - at + 1);
  }
  return text + changes;
}

void
Write(const std::string & path, const std::string & text)
{
  std::ofstream out(path);
  out << text;
}
} // namespace

// Each bad file: an exception whose message names the file, the line and the reason.
TEST(ElastixTransformFile, BadInputIsAnErrorNamingTheFileAndLine)
{
  ScratchDirectory  dir("bad");
  const std::string f = dir / "TransformParameters.0.txt";

  EXPECT_NE(ReadError<3>(dir / "missing.txt").find("missing.txt: cannot open"), std::string::npos);

  Write(f, EulerFile());
  EXPECT_EQ(ReadError<3>(f), "");
  EXPECT_NE(ReadError<2>(f).find(f + ":7: the file is for 3-D images, not 2-D"), std::string::npos) << ReadError<2>(f);

  Write(f, EulerFile("", "MovingImageDimension") + "(MovingImageDimension 2)\n");
  EXPECT_NE(ReadError<3>(f).find(":10: MovingImageDimension differs"), std::string::npos) << ReadError<3>(f);

  Write(f, EulerFile("", "Transform") + "(Transform \"SplineKernelTransform\")\n");
  EXPECT_NE(ReadError<3>(f).find(":10: the transform \"SplineKernelTransform\" is not read here"), std::string::npos)
    << ReadError<3>(f);

  Write(f, EulerFile("", "NumberOfParameters") + "(NumberOfParameters 5)\n");
  EXPECT_NE(ReadError<3>(f).find(":10: NumberOfParameters is 5, but a 3-D EulerTransform has 6"), std::string::npos)
    << ReadError<3>(f);

  Write(f, EulerFile("", "TransformParameters") + "(TransformParameters 1 2 3 4 5)\n");
  EXPECT_NE(ReadError<3>(f).find(":10: TransformParameters has 5 values, NumberOfParameters says 6"), std::string::npos)
    << ReadError<3>(f);

  Write(f, EulerFile("", "TransformParameters") + "(TransformParameters 1 2 3 4 5 six)\n");
  EXPECT_NE(ReadError<3>(f).find(":10: value 6 of TransformParameters (\"six\") is not a number"), std::string::npos)
    << ReadError<3>(f);

  Write(f, EulerFile("", "CenterOfRotationPoint"));
  EXPECT_NE(ReadError<3>(f).find("EulerTransform needs (CenterOfRotationPoint"), std::string::npos) << ReadError<3>(f);

  Write(f, EulerFile("(Spacing 1 2)\n"));
  EXPECT_NE(ReadError<3>(f).find(":11: Spacing has 2 values, 3 expected"), std::string::npos) << ReadError<3>(f);

  Write(f, EulerFile("(Direction 1 0 0 0 1 0 0 0 0)\n"));
  EXPECT_NE(ReadError<3>(f).find(":11: Direction is a singular matrix"), std::string::npos) << ReadError<3>(f);

  Write(f, EulerFile("(UseDirectionCosines \"false\")\n"));
  EXPECT_NE(ReadError<3>(f).find(":11: (UseDirectionCosines \"false\")"), std::string::npos) << ReadError<3>(f);

  // elastix's parser's own refusals
  Write(f, EulerFile("Size 4 5 6\n", "Size"));
  EXPECT_NE(ReadError<3>(f).find(":10: the line is not between brackets"), std::string::npos) << ReadError<3>(f);
  Write(f, EulerFile("(Comment \"odd)\n"));
  EXPECT_NE(ReadError<3>(f).find(":11: the line has an odd number of quotes"), std::string::npos) << ReadError<3>(f);
  Write(f, EulerFile("(Size 4 5 6)\n"));
  EXPECT_NE(ReadError<3>(f).find(":11: Size is given twice (first on line 9)"), std::string::npos) << ReadError<3>(f);
  Write(f, EulerFile("(Lonely)\n"));
  EXPECT_NE(ReadError<3>(f).find(":11: the line holds no parameter name and value"), std::string::npos)
    << ReadError<3>(f);

  // B-splines: the order and the grid
  const std::string bspline = "(Transform \"BSplineTransform\")\n(NumberOfParameters 8)\n"
                              "(TransformParameters 1 2 3 4 5 6 7 8)\n(FixedImageDimension 2)\n"
                              "(MovingImageDimension 2)\n(GridSize 2 2)\n";
  Write(f, bspline);
  EXPECT_EQ(ReadError<2>(f), "");
  Write(f, bspline + "(GridIndex 1 0)\n");
  EXPECT_EQ(ReadError<2>(f), "");
  std::string recursive = bspline; // elastix's RecursiveBSplineTransform takes GridIndex 0 only
  recursive.replace(recursive.find("BSplineTransform"), 16, "RecursiveBSplineTransform");
  Write(f, recursive + "(GridIndex 1 0)\n");
  EXPECT_NE(ReadError<2>(f).find(":7: a RecursiveBSplineTransform with a GridIndex other than 0"), std::string::npos)
    << ReadError<2>(f);
  // grids too large are refused before anything is allocated for them
  Write(f,
        "(Transform \"BSplineTransform\")\n(NumberOfParameters 8)\n(TransformParameters 1 2 3 4 5 6 7 8)\n"
        "(FixedImageDimension 2)\n(MovingImageDimension 2)\n(GridSize 100000 100000)\n");
  EXPECT_NE(ReadError<2>(f).find(":6: GridSize has too many nodes"), std::string::npos) << ReadError<2>(f);
  Write(dir / "small.dat", "0123456789abcdef");
  Write(f,
        "(Transform \"BSplineTransform\")\n(NumberOfParameters 1800000000)\n(TransformParameters \"small.dat\")\n"
        "(UseBinaryFormatForTransformationParameters \"true\")\n(FixedImageDimension 2)\n(MovingImageDimension 2)\n"
        "(GridSize 30000 30000)\n");
  EXPECT_NE(ReadError<2>(f).find(":3: the binary parameter file \"small.dat\" holds fewer than 1800000000 doubles"),
            std::string::npos)
    << ReadError<2>(f);
  Write(f, bspline + "(BSplineTransformSplineOrder 2)\n");
  EXPECT_NE(ReadError<2>(f).find(":7: only cubic B-splines are read"), std::string::npos) << ReadError<2>(f);
  Write(f, bspline + "(UseCyclicTransform \"true\")\n");
  EXPECT_NE(ReadError<2>(f).find(":7: a cyclic B-spline"), std::string::npos) << ReadError<2>(f);
  Write(f,
        "(Transform \"BSplineTransform\")\n(NumberOfParameters 8)\n(TransformParameters 1 2 3 4 5 6 7 8)\n"
        "(FixedImageDimension 2)\n(MovingImageDimension 2)\n(GridSize 2 3)\n");
  EXPECT_NE(ReadError<2>(f).find(":2: NumberOfParameters is 8, but a 2-D BSplineTransform of this GridSize has 12"),
            std::string::npos)
    << ReadError<2>(f);
}

// Chains: a missing initial file, loops (of one file and of three), and an Add that
// ITK cannot express.
TEST(ElastixTransformFile, BadChainsAreErrors)
{
  ScratchDirectory  dir("chains");
  const std::string a = dir / "a.txt", b = dir / "b.txt", c = dir / "c.txt";
  auto              named = [](const std::string & initial, const std::string & extra = "") {
    return EulerFile("(InitialTransformParametersFileName \"" + initial + "\")\n" + extra,
                     "InitialTransformParametersFileName");
  };

  Write(a, named("nowhere.txt"));
  EXPECT_NE(ReadError<3>(a).find("a.txt:10: InitialTransformParametersFileName names \"nowhere.txt\", which is "
                                 "neither in the working directory nor next to this file"),
            std::string::npos)
    << ReadError<3>(a);

  Write(a, named(a));
  EXPECT_NE(ReadError<3>(a).find("a.txt:10: the chain of initial transforms loops: " + a + " -> " + a),
            std::string::npos)
    << ReadError<3>(a);

  Write(a, named("b.txt"));
  Write(b, named("c.txt"));
  Write(c, named("b.txt")); // a -> b -> c -> b
  EXPECT_NE(ReadError<3>(a).find("c.txt:10: the chain of initial transforms loops: " + dir.Path() + "/b.txt -> " +
                                 dir.Path() + "/c.txt -> " + dir.Path() + "/b.txt"),
            std::string::npos)
    << ReadError<3>(a);

  // elastix 5.1's spelling of the key is read too, and preferred
  Write(c, EulerFile());
  Write(b, named("c.txt", "(InitialTransformParameterFileName \"nothing.txt\")\n"));
  EXPECT_NE(ReadError<3>(a).find("b.txt:11: InitialTransformParameterFileName names \"nothing.txt\""),
            std::string::npos)
    << ReadError<3>(a);

  // a chain of 3-D files whose first is 2-D
  Write(b, named("c.txt"));
  Write(c,
        "(Transform \"TranslationTransform\")\n(NumberOfParameters 2)\n(TransformParameters 1 2)\n"
        "(FixedImageDimension 2)\n(MovingImageDimension 2)\n");
  EXPECT_NE(ReadError<3>(a).find("c.txt:4: the file is for 2-D images, not 3-D"), std::string::npos) << ReadError<3>(a);

  // (Euler then B-spline) + B-spline: the sum has no ITK form
  std::string coefficients;
  for (int i = 0; i < 54; ++i)
  {
    coefficients += " 0.5";
  }
  const std::string bspline = "(Transform \"BSplineTransform\")\n(NumberOfParameters 54)\n(TransformParameters" +
                              coefficients + ")\n(FixedImageDimension 3)\n(MovingImageDimension 3)\n(GridSize 3 3 2)\n";
  Write(c, EulerFile());
  Write(b, bspline + "(InitialTransformParametersFileName \"c.txt\")\n");
  Write(a,
        "(HowToCombineTransforms \"Add\")\n" + bspline +
          "(GridSpacing 2 2 2)\n"
          "(InitialTransformParametersFileName \"b.txt\")\n");
  EXPECT_NE(ReadError<3>(a).find("a.txt:1: \"Add\" of this BSplineTransform to the transform before it "
                                 "(CompositeTransform) has no ITK equivalent"),
            std::string::npos)
    << ReadError<3>(a);
  Write(a, "(HowToCombineTransforms \"Sum\")\n" + bspline + "(InitialTransformParametersFileName \"b.txt\")\n");
  EXPECT_NE(ReadError<3>(a).find("a.txt:1: HowToCombineTransforms is \"Sum\", not \"Compose\" or \"Add\""),
            std::string::npos)
    << ReadError<3>(a);
}

// Elastix's binary parameters (UseBinaryFormatForTransformationParameters "true").
TEST(ElastixTransformFile, BinaryParameters)
{
  ScratchDirectory dir("binary");
  const double     values[3] = { 0.25, -1.5, 2.0 };
  {
    std::ofstream out(dir / "p.dat", std::ios::binary);
    out.write(reinterpret_cast<const char *>(values), sizeof values);
  }
  Write(dir / "t.txt",
        "(Transform \"EulerTransform\")\n(NumberOfParameters 3)\n(TransformParameters \"p.dat\")\n"
        "(UseBinaryFormatForTransformationParameters \"true\")\n(FixedImageDimension 2)\n"
        "(MovingImageDimension 2)\n(CenterOfRotationPoint 1 1)\n");
  const auto transform = itk::ReadElastixTransform<2>(dir / "t.txt");
  ASSERT_EQ(transform->GetParameters().Size(), 3u);
  for (unsigned int i = 0; i < 3; ++i)
  {
    EXPECT_EQ(transform->GetParameters()[i], values[i]);
  }
  Write(dir / "t.txt",
        "(Transform \"AffineTransform\")\n(NumberOfParameters 6)\n(TransformParameters \"p.dat\")\n"
        "(UseBinaryFormatForTransformationParameters \"true\")\n(FixedImageDimension 2)\n"
        "(MovingImageDimension 2)\n(CenterOfRotationPoint 1 1)\n");
  EXPECT_NE(ReadError<2>(dir / "t.txt").find(":3: the binary parameter file \"p.dat\" holds fewer than 6 doubles"),
            std::string::npos)
    << ReadError<2>(dir / "t.txt");
}

// What the writer refuses: names transformix would not read, transforms elastix has
// no name for, a grid without a size.
TEST(ElastixTransformFile, WriterRefusals)
{
  std::mt19937     rng(FreshSeed());
  ScratchDirectory dir("writer");
  const auto       grid = RandomGrid<2>(rng, SmallSize<2>());
  const auto       translation = itk::TranslationTransform<double, 2>::New();
  EXPECT_THROW(itk::WriteElastixTransform<2>(translation, grid, dir / "t.tfm"), itk::ExceptionObject);
  EXPECT_THROW(itk::WriteElastixTransform<2>(translation, itk::ElastixOutputGrid<2>(), dir / "t.txt"),
               itk::ExceptionObject);
  auto field = itk::BSplineTransform<double, 2, 2>::New(); // quadratic: no elastix equivalent written here
  try
  {
    itk::WriteElastixTransform<2>(field, grid, dir / "q.txt");
    ADD_FAILURE() << "a quadratic B-spline was written";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("elastix has no transform for a BSplineTransform"),
              std::string::npos)
      << e.GetDescription();
  }
  EXPECT_FALSE(itksys::SystemTools::FileExists(dir / "q.txt"));
}

// Debian's transformix 5.0.1 has no SimilarityTransform (it says "This component is not
// installed"; as the initial transform of another file it is dropped without a word),
// so the reader's similarity is checked against elastix's own formulas here
// (AdvancedSimilarity2DTransform: s R(angle); AdvancedSimilarity3DTransform: s times
// the versor's matrix, w = sqrt(1 - |v|^2); both T(p) = M (p - c) + c + t).
TEST(ElastixTransformFile, SimilarityAsElastixDefinesIt)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  ScratchDirectory                       dir("similarity");
  auto                                   print = [](const double * v, int n) {
    std::ostringstream out;
    out << std::setprecision(17);
    for (int i = 0; i < n; ++i)
    {
      out << ' ' << v[i];
    }
    return out.str();
  };
  for (const unsigned int d : { 2u, 3u })
  {
    // parameters: 2-D scale, angle, t; 3-D versor (|v| < 1), t, scale
    double    p[7], c[3], m[3][3];
    const int count = d == 2 ? 4 : 7;
    for (int i = 0; i < count; ++i)
    {
      p[i] = (i == 0 && d == 2) || (i == 6) ? 1.0 + 0.3 * u(rng) : (d == 3 && i < 3 ? 0.5 : 5.0) * u(rng);
    }
    for (unsigned int i = 0; i < d; ++i)
    {
      c[i] = 10.0 * u(rng);
    }
    if (d == 2)
    {
      const double s = p[0], a = p[1];
      m[0][0] = s * std::cos(a);
      m[0][1] = -s * std::sin(a);
      m[1][0] = s * std::sin(a);
      m[1][1] = s * std::cos(a);
    }
    else
    {
      const double x = p[0], y = p[1], z = p[2], w = std::sqrt(1.0 - x * x - y * y - z * z), s = p[6];
      const double r[3][3] = { { 1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w) },
                               { 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w) },
                               { 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y) } };
      for (int i = 0; i < 3; ++i)
      {
        for (int j = 0; j < 3; ++j)
        {
          m[i][j] = s * r[i][j];
        }
      }
    }
    const double * t = d == 2 ? p + 2 : p + 3;
    Write(dir / "s.txt",
          "(Transform \"SimilarityTransform\")\n(NumberOfParameters " + std::to_string(count) +
            ")\n(TransformParameters" + print(p, count) + ")\n(FixedImageDimension " + std::to_string(d) +
            ")\n(MovingImageDimension " + std::to_string(d) + ")\n(CenterOfRotationPoint" +
            print(c, static_cast<int>(d)) + ")\n");
    auto check = [&](const auto & transform) {
      EXPECT_STREQ(transform->GetNameOfClass(), d == 2 ? "Similarity2DTransform" : "Similarity3DTransform");
      for (int n = 0; n < 20; ++n)
      {
        typename std::remove_reference_t<decltype(*transform)>::InputPointType q;
        for (unsigned int i = 0; i < d; ++i)
        {
          q[i] = 30.0 * u(rng);
        }
        const auto out = transform->TransformPoint(q);
        for (unsigned int i = 0; i < d; ++i)
        {
          double expected = c[i] + t[i];
          for (unsigned int j = 0; j < d; ++j)
          {
            expected += m[i][j] * (q[j] - c[j]);
          }
          EXPECT_NEAR(out[i], expected, 1e-12 * 100.0) << d << "-D, axis " << i;
        }
      }
    };
    if (d == 2)
    {
      check(itk::ReadElastixTransform<2>(dir / "s.txt"));
    }
    else
    {
      check(itk::ReadElastixTransform<3>(dir / "s.txt"));
    }
  }
}
