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
#ifndef cifElastixTestSupport_h
#define cifElastixTestSupport_h

// Shared pieces of the elastix-file tests: finding elastix and transformix, a scratch
// folder per test, running a program with its log, random oblique grids and
// transforms, and the comparison of a transform with transformix's -def all field.
// Images are read and written as MetaImage (what elastix writes here) with their IO
// given, not through ITK's generated factory list, which this build's ITK components
// do not produce (as cifStreamingWriterTestSupport.h).
#undef ITK_IO_FACTORY_REGISTER_MANAGER
#include "cifTestHelpers.h"
#include "itkAffineTransform.h"
#include "itkBSplineTransform.h"
#include "itkElastixOutputGrid.h"
#include "itkEuler2DTransform.h"
#include "itkEuler3DTransform.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkMetaImageIO.h"
#include "itkSimilarity2DTransform.h"
#include "itkSimilarity3DTransform.h"
#include "itkTranslationTransform.h"
#include "itksys/SystemTools.hxx"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace cif_test
{
/** The path of elastix's program \a name ("elastix", "transformix"): the environment's
 * CIF_ELASTIX / CIF_TRANSFORMIX, else the one on PATH; empty when there is none. */
inline std::string
ElastixProgram(const std::string & name)
{
  const std::string variable = name == "elastix" ? "CIF_ELASTIX" : "CIF_TRANSFORMIX";
  if (const char * set = std::getenv(variable.c_str()); set != nullptr && *set != '\0')
  {
    return set;
  }
  return itksys::SystemTools::FindProgram(name);
}

/** Skips the calling test, with the reason, when elastix's program \a name (a string
 * literal) is missing; otherwise sets \a path to it. */
#define CIF_REQUIRE_ELASTIX_PROGRAM(path, name)                                                                     \
  const std::string path = cif_test::ElastixProgram(name);                                                          \
  do                                                                                                                \
  {                                                                                                                 \
    if (path.empty())                                                                                               \
    {                                                                                                               \
      GTEST_SKIP() << name " was not found (on PATH, or named by CIF_ELASTIX / CIF_TRANSFORMIX): Debian's package " \
                           "elastix installs it (.ci/setup)";                                                       \
    }                                                                                                               \
  } while (false)

/** A fresh folder for one test, removed at the end unless the test failed (then its
 * path is printed, with the files to look at). */
class ScratchDirectory
{
public:
  explicit ScratchDirectory(const std::string & name)
  {
    static std::random_device random;
    m_Path = testing::TempDir() + "cif_elastix_" + name + "_" + std::to_string(random());
    itksys::SystemTools::MakeDirectory(m_Path);
  }
  ~ScratchDirectory()
  {
    if (testing::Test::HasFailure())
    {
      std::cout << "files of the failed test kept in " << m_Path << "\n";
    }
    else
    {
      itksys::SystemTools::RemoveADirectory(m_Path);
    }
  }
  ScratchDirectory(const ScratchDirectory &) = delete;
  ScratchDirectory &
  operator=(const ScratchDirectory &) = delete;

  const std::string &
  Path() const
  {
    return m_Path;
  }
  std::string
  operator/(const std::string & name) const
  {
    return m_Path + "/" + name;
  }

private:
  std::string m_Path;
};

/** Runs \a command (a shell line) with its output in \a log; returns whether it
 * exited with 0, adding the log's end to the test's messages when it did not. */
inline ::testing::AssertionResult
RunProgram(const std::string & command, const std::string & log)
{
  const int status = std::system((command + " > \"" + log + "\" 2>&1").c_str());
  if (status == 0)
  {
    return ::testing::AssertionSuccess();
  }
  std::ifstream     in(log);
  std::stringstream text;
  text << in.rdbuf();
  std::string output = text.str();
  if (output.size() > 3000)
  {
    output = "..." + output.substr(output.size() - 3000);
  }
  return ::testing::AssertionFailure() << command << " returned " << status << ":\n" << output;
}

inline std::string
Quoted(const std::string & path)
{
  return "\"" + path + "\"";
}

/** A random oblique grid: a rotation about every axis, spacing 0.6 to 1.6, origin in
 * [-20, 20], a start index in [-3, 3] (elastix writes the fixed image's), and a
 * default pixel value. */
template <unsigned int D>
itk::ElastixOutputGrid<D>
RandomGrid(std::mt19937 & rng, const itk::Size<D> & size)
{
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  itk::ElastixOutputGrid<D>              grid;
  grid.Size = size;
  for (unsigned int i = 0; i < D; ++i)
  {
    grid.Index[i] = static_cast<itk::IndexValueType>(std::floor(7.0 * unit(rng))) - 3;
    grid.Spacing[i] = 0.6 + unit(rng);
    grid.Origin[i] = -20.0 + 40.0 * unit(rng);
  }
  if constexpr (D == 2)
  {
    auto rotation = itk::Euler2DTransform<double>::New();
    rotation->SetAngle(-1.5 + 3.0 * unit(rng));
    grid.Direction = rotation->GetMatrix();
  }
  else
  {
    auto rotation = itk::Euler3DTransform<double>::New();
    rotation->SetRotation(-1.5 + 3.0 * unit(rng), -1.5 + 3.0 * unit(rng), -1.5 + 3.0 * unit(rng));
    grid.Direction = rotation->GetMatrix();
  }
  grid.DefaultPixelValue = std::round(-100.0 + 200.0 * unit(rng)) / 4.0;
  grid.HasDefaultPixelValue = true;
  return grid;
}

/** The physical point of every voxel of \a grid, as ITK's ImageBase computes it. */
template <unsigned int D>
itk::ImageBase<D> *
GridImage(const itk::ElastixOutputGrid<D> & grid, typename itk::Image<char, D>::Pointer & holder)
{
  holder = itk::Image<char, D>::New();
  grid.ApplyTo(holder);
  return holder.GetPointer();
}

/** The center of \a grid's physical extent. */
template <unsigned int D>
itk::Point<double, D>
GridCenter(const itk::ElastixOutputGrid<D> & grid)
{
  typename itk::Image<char, D>::Pointer holder;
  const auto *                          image = GridImage(grid, holder);
  itk::ContinuousIndex<double, D>       middle;
  for (unsigned int i = 0; i < D; ++i)
  {
    middle[i] = grid.Index[i] + 0.5 * (grid.Size[i] - 1.0);
  }
  itk::Point<double, D> center;
  image->TransformContinuousIndexToPhysicalPoint(middle, center);
  return center;
}

/** A random cubic B-spline whose valid region holds \a grid with a margin (no output
 * point on the region's edge, where ITK and elastix differ: ITK includes the last
 * edge, elastix does not), on an oblique grid of its own, coefficients up to
 * \a amplitude. */
template <unsigned int D>
typename itk::BSplineTransform<double, D, 3>::Pointer
RandomBSpline(std::mt19937 & rng, const itk::ElastixOutputGrid<D> & grid, double amplitude)
{
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  using BSpline = itk::BSplineTransform<double, D, 3>;
  // the domain's frame: the grid's direction turned a little more
  typename BSpline::DirectionType turn;
  if constexpr (D == 2)
  {
    auto rotation = itk::Euler2DTransform<double>::New();
    rotation->SetAngle(0.3 * unit(rng));
    turn = rotation->GetMatrix();
  }
  else
  {
    auto rotation = itk::Euler3DTransform<double>::New();
    rotation->SetRotation(0.2 * unit(rng), 0.2 * unit(rng), 0.2 * unit(rng));
    turn = rotation->GetMatrix();
  }
  const typename BSpline::DirectionType direction = turn * grid.Direction;
  // the grid's corners in that frame: the domain is their bounding box, 15 % larger
  typename itk::Image<char, D>::Pointer holder;
  const auto *                          image = GridImage(grid, holder);
  std::vector<double>                   low(D, 1e300), high(D, -1e300);
  for (unsigned int corner = 0; corner < (1u << D); ++corner)
  {
    itk::Index<D> index;
    for (unsigned int i = 0; i < D; ++i)
    {
      index[i] = grid.Index[i] + ((corner >> i) & 1u ? static_cast<itk::IndexValueType>(grid.Size[i]) - 1 : 0);
    }
    itk::Point<double, D> p;
    image->TransformIndexToPhysicalPoint(index, p);
    for (unsigned int i = 0; i < D; ++i)
    {
      double along = 0.0;
      for (unsigned int k = 0; k < D; ++k)
      {
        along += direction[k][i] * p[k]; // direction^T p: the frame's coordinates
      }
      low[i] = std::min(low[i], along);
      high[i] = std::max(high[i], along);
    }
  }
  typename BSpline::OriginType             origin;
  typename BSpline::PhysicalDimensionsType extent;
  typename BSpline::MeshSizeType           mesh;
  itk::Vector<double, D>                   start;
  for (unsigned int i = 0; i < D; ++i)
  {
    const double margin = 0.075 * (high[i] - low[i]) + 0.5;
    start[i] = low[i] - margin;
    extent[i] = high[i] - low[i] + 2.0 * margin;
    mesh[i] = 3 + static_cast<unsigned int>(4.0 * unit(rng));
  }
  const itk::Vector<double, D> o = direction * start;
  for (unsigned int i = 0; i < D; ++i)
  {
    origin[i] = o[i];
  }
  auto transform = BSpline::New();
  transform->SetTransformDomainOrigin(origin);
  transform->SetTransformDomainDirection(direction);
  transform->SetTransformDomainPhysicalDimensions(extent);
  transform->SetTransformDomainMeshSize(mesh);
  typename BSpline::ParametersType parameters(transform->GetNumberOfParameters());
  for (auto & c : parameters)
  {
    c = amplitude * (2.0 * unit(rng) - 1.0);
  }
  transform->SetParametersByValue(parameters);
  return transform;
}

/** The transforms elastix writes (EulerZYX: the 3-D Euler with ComputeZYX "true"). */
enum class Kind
{
  Translation,
  Euler,
  EulerZYX, // 3-D: ComputeZYX "true"
  Similarity,
  Affine,
  BSpline
};

inline const char *
ToString(Kind kind)
{
  switch (kind)
  {
    case Kind::Translation:
      return "Translation";
    case Kind::Euler:
      return "Euler";
    case Kind::EulerZYX:
      return "EulerZYX";
    case Kind::Similarity:
      return "Similarity";
    case Kind::Affine:
      return "Affine";
    case Kind::BSpline:
      return "BSpline";
  }
  return "?";
}

/** The output grids of the transformix tests: small, so a run of transformix takes
 * a few tens of milliseconds. */
template <unsigned int D>
itk::Size<D>
GridSize()
{
  if constexpr (D == 2)
  {
    return itk::Size<D>{ { 21, 17 } };
  }
  else
  {
    return itk::Size<D>{ { 11, 9, 7 } };
  }
}

/** A random transform of \a kind about \a grid's middle. */
template <unsigned int D>
typename itk::Transform<double, D, D>::Pointer
RandomTransform(Kind kind, std::mt19937 & rng, const itk::ElastixOutputGrid<D> & grid)
{
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto                                   symmetric = [&](double range) { return range * (2.0 * unit(rng) - 1.0); };
  itk::Vector<double, D>                 translation;
  itk::Point<double, D>                  center = GridCenter(grid);
  for (unsigned int i = 0; i < D; ++i)
  {
    translation[i] = symmetric(5.0);
    center[i] += symmetric(5.0);
  }
  switch (kind)
  {
    case Kind::Translation:
    {
      auto t = itk::TranslationTransform<double, D>::New();
      t->SetOffset(translation);
      return t;
    }
    case Kind::Euler:
    case Kind::EulerZYX:
      if constexpr (D == 2)
      {
        auto t = itk::Euler2DTransform<double>::New();
        t->SetCenter(center);
        t->SetAngle(symmetric(0.6));
        t->SetTranslation(translation);
        return t;
      }
      else
      {
        auto t = itk::Euler3DTransform<double>::New();
        t->SetCenter(center);
        t->SetComputeZYX(kind == Kind::EulerZYX);
        t->SetRotation(symmetric(0.5), symmetric(0.5), symmetric(0.5));
        t->SetTranslation(translation);
        return t;
      }
    case Kind::Similarity:
      if constexpr (D == 2)
      {
        auto t = itk::Similarity2DTransform<double>::New();
        t->SetCenter(center);
        t->SetScale(0.8 + 0.45 * unit(rng));
        t->SetAngle(symmetric(0.6));
        t->SetTranslation(translation);
        return t;
      }
      else
      {
        auto                                                  t = itk::Similarity3DTransform<double>::New();
        typename itk::Similarity3DTransform<double>::AxisType axis;
        for (unsigned int i = 0; i < 3; ++i)
        {
          axis[i] = symmetric(1.0);
        }
        axis.Normalize();
        t->SetCenter(center);
        t->SetRotation(axis, symmetric(0.6));
        t->SetScale(0.8 + 0.45 * unit(rng));
        t->SetTranslation(translation);
        return t;
      }
    case Kind::Affine:
    {
      auto                                                 t = itk::AffineTransform<double, D>::New();
      typename itk::AffineTransform<double, D>::MatrixType m;
      for (unsigned int i = 0; i < D; ++i)
      {
        for (unsigned int j = 0; j < D; ++j)
        {
          m[i][j] = (i == j ? 1.0 : 0.0) + symmetric(0.25);
        }
      }
      t->SetCenter(center);
      t->SetMatrix(m);
      t->SetTranslation(translation);
      return t;
    }
    case Kind::BSpline:
      return RandomBSpline<D>(rng, grid, 2.0).GetPointer();
  }
  return nullptr;
}

/** What a field comparison found. */
struct FieldDifference
{
  double      maxAbs = 0.0;          ///< largest |ITK - transformix| of a component
  double      maxDisplacement = 0.0; ///< largest |component| of ITK's displacement
  double      worstRatio = 0.0;      ///< largest |difference| / tolerance
  std::size_t points = 0;
};

inline std::ostream &
operator<<(std::ostream & os, const FieldDifference & d)
{
  return os << "max |ITK - transformix| " << d.maxAbs << " over " << d.points << " points (displacements up to "
            << d.maxDisplacement << "; worst difference " << d.worstRatio << " of its tolerance)";
}

/** The tolerance of one component of transformix's field: it computes T(p) - p in
 * double and stores it as float, rounding to the nearest (at most half an ulp,
 * 2^-24 |d|); ITK's double T(p) - p and elastix's differ only by the order of their
 * double operations, a few ulps of the coordinates (|p| up to 100 here: 1e-14),
 * allowed for with 1e-12 (1 + |p|). */
inline double
FieldTolerance(double displacement, double pointNorm)
{
  return std::ldexp(std::fabs(displacement), -24) + 1e-12 * (1.0 + pointNorm);
}

/** Compares \a transform with transformix's field \a path on \a grid: the field's
 * geometry must be the grid's (which tells the Direction's order apart: a transposed
 * one differs by far more than MetaImage's printed digits), and every component within
 * FieldTolerance. The points are computed from the grid itself, not from the origin
 * MetaImage printed. */
template <unsigned int D>
FieldDifference
CompareWithTransformixField(const itk::Transform<double, D, D> * transform,
                            const itk::ElastixOutputGrid<D> &    grid,
                            const std::string &                  path)
{
  using Field = itk::Image<itk::Vector<float, D>, D>;
  auto reader = itk::ImageFileReader<Field>::New();
  reader->SetImageIO(itk::MetaImageIO::New());
  reader->SetFileName(path);
  reader->Update();
  const Field * field = reader->GetOutput();

  typename itk::Image<char, D>::Pointer holder;
  const auto *                          image = GridImage(grid, holder);
  itk::Point<double, D>                 first;
  image->TransformIndexToPhysicalPoint(grid.Index, first);
  EXPECT_EQ(field->GetLargestPossibleRegion().GetSize(), grid.Size);
  for (unsigned int i = 0; i < D; ++i)
  {
    EXPECT_NEAR(field->GetOrigin()[i], first[i], 1e-4) << "axis " << i;
    EXPECT_NEAR(field->GetSpacing()[i], grid.Spacing[i], 1e-5) << "axis " << i;
    for (unsigned int j = 0; j < D; ++j)
    {
      EXPECT_NEAR(field->GetDirection()[i][j], grid.Direction[i][j], 1e-5) << "direction (" << i << ", " << j << ")";
    }
  }
  FieldDifference difference;
  if (field->GetLargestPossibleRegion().GetSize() != grid.Size)
  {
    return difference;
  }
  for (itk::ImageRegionConstIteratorWithIndex<Field> it(field, field->GetLargestPossibleRegion()); !it.IsAtEnd(); ++it)
  {
    itk::Index<D> index = it.GetIndex();
    for (unsigned int i = 0; i < D; ++i)
    {
      index[i] += grid.Index[i] - field->GetLargestPossibleRegion().GetIndex()[i];
    }
    itk::Point<double, D> p;
    image->TransformIndexToPhysicalPoint(index, p);
    const auto q = transform->TransformPoint(p);
    double     norm = 0.0;
    for (unsigned int i = 0; i < D; ++i)
    {
      norm = std::max(norm, std::fabs(p[i]));
    }
    for (unsigned int i = 0; i < D; ++i)
    {
      const double ours = q[i] - p[i];
      const double error = std::fabs(ours - static_cast<double>(it.Get()[i]));
      difference.maxAbs = std::max(difference.maxAbs, error);
      difference.maxDisplacement = std::max(difference.maxDisplacement, std::fabs(ours));
      difference.worstRatio = std::max(difference.worstRatio, error / FieldTolerance(ours, norm));
    }
    ++difference.points;
  }
  return difference;
}
} // namespace cif_test

#endif
