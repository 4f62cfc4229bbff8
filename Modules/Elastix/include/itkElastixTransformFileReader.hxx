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
#ifndef itkElastixTransformFileReader_hxx
#define itkElastixTransformFileReader_hxx

#include "itkAffineTransform.h"
#include "itkBSplineTransform.h"
#include "itkCompositeTransform.h"
#include "itkEuler2DTransform.h"
#include "itkEuler3DTransform.h"
#include "itkSimilarity2DTransform.h"
#include "itkSimilarity3DTransform.h"
#include "itkTranslationTransform.h"
#include "itksys/SystemTools.hxx"
#include "vnl/algo/vnl_determinant.h"
#include "vnl/vnl_inverse.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <utility>

namespace itk
{
namespace elastix_detail
{
/** Where elastix finds a file that a parameter file names (an initial transform, binary
 * parameters): \a name itself when it is absolute or exists from the working directory
 * (elastix 5.0.1 looks nowhere else), else next to \a from (elastix 5.1 on). An empty
 * answer: found in neither place. */
inline std::string
ResolveNamedFile(const std::string & name, const std::string & from)
{
  if (itksys::SystemTools::FileIsFullPath(name))
  {
    return itksys::SystemTools::FileExists(name, true) ? name : std::string();
  }
  if (itksys::SystemTools::FileExists(name, true))
  {
    return name;
  }
  const std::string folder = itksys::SystemTools::GetFilenamePath(from);
  if (!folder.empty() && itksys::SystemTools::FileExists(folder + "/" + name, true))
  {
    return folder + "/" + name;
  }
  return {};
}

/** The affine map x -> M x + o of a transform that is one (translation, the
 * matrix-offset family, a composite of these), or none. */
template <unsigned int D>
std::optional<std::pair<Matrix<double, D, D>, Vector<double, D>>>
LinearPart(const Transform<double, D, D> * transform)
{
  using Result = std::pair<Matrix<double, D, D>, Vector<double, D>>;
  if (const auto * translation = dynamic_cast<const TranslationTransform<double, D> *>(transform))
  {
    Matrix<double, D, D> identity;
    identity.SetIdentity();
    return Result(identity, translation->GetOffset());
  }
  if (const auto * affine = dynamic_cast<const MatrixOffsetTransformBase<double, D, D> *>(transform))
  {
    return Result(affine->GetMatrix(), affine->GetOffset());
  }
  if (const auto * composite = dynamic_cast<const CompositeTransform<double, D> *>(transform))
  {
    Result whole;
    whole.first.SetIdentity();
    whole.second.Fill(0.0);
    // the queue's last transform is applied first
    for (std::size_t i = composite->GetNumberOfTransforms(); i-- > 0;)
    {
      const auto stage = LinearPart<D>(composite->GetNthTransformConstPointer(i));
      if (!stage)
      {
        return std::nullopt;
      }
      whole = Result(stage->first * whole.first, stage->first * whole.second + stage->second);
    }
    return whole;
  }
  return std::nullopt;
}

/** A copy of \a bspline whose displacement at every point is \a m times its own (the
 * displacement is linear in the coefficients, and zero outside the valid region
 * either way). */
template <unsigned int D>
typename BSplineTransform<double, D, 3>::Pointer
ScaledBSpline(const BSplineTransform<double, D, 3> * bspline, const Matrix<double, D, D> & m)
{
  auto scaled = BSplineTransform<double, D, 3>::New();
  scaled->SetFixedParameters(bspline->GetFixedParameters());
  const auto &                                            in = bspline->GetParameters();
  typename BSplineTransform<double, D, 3>::ParametersType out(in.Size());
  const std::size_t                                       nodes = in.Size() / D;
  for (std::size_t n = 0; n < nodes; ++n)
  {
    for (unsigned int k = 0; k < D; ++k)
    {
      double sum = 0.0;
      for (unsigned int j = 0; j < D; ++j)
      {
        sum += m[k][j] * in[j * nodes + n];
      }
      out[k * nodes + n] = sum;
    }
  }
  scaled->SetParametersByValue(out);
  return scaled;
}
} // namespace elastix_detail

template <unsigned int VDimension>
void
ElastixTransformFileReader<VDimension>::Update()
{
  m_Transform = nullptr;
  m_OutputGrid = OutputGridType();
  m_FileNames.clear();
  if (m_FileName.empty())
  {
    itkExceptionMacro("no elastix parameter file name was set");
  }

  // The chain, the head first: each file names the one before it.
  std::vector<ElastixParameterFile> files;
  std::vector<std::string>          canonical;
  std::vector<std::string>          keys; // each file's spelling of the initial transform's key
  std::string                       path = m_FileName;
  while (true)
  {
    const std::string real = itksys::SystemTools::GetRealPath(itksys::SystemTools::CollapseFullPath(path));
    const auto        seen = std::find(canonical.begin(), canonical.end(), real);
    if (seen != canonical.end())
    {
      std::string loop;
      for (auto name = m_FileNames.begin() + (seen - canonical.begin()); name != m_FileNames.end(); ++name)
      {
        loop += *name + " -> ";
      }
      files.back().Fail(keys.back(), "the chain of initial transforms loops: " + loop + path);
    }
    files.push_back(ElastixParameterFile::Read(path));
    canonical.push_back(real);
    m_FileNames.push_back(path);
    const ElastixParameterFile & file = files.back();

    const unsigned int dimension = file.GetImageDimension();
    if (dimension != VDimension)
    {
      file.Fail("FixedImageDimension",
                "the file is for " + std::to_string(dimension) + "-D images, not " + std::to_string(VDimension) + "-D");
    }
    if (!file.GetBoolean("UseDirectionCosines", true))
    {
      file.Fail("UseDirectionCosines",
                "(UseDirectionCosines \"false\"): elastix then works in a space that ignores the images' directions, "
                "which an ITK transform cannot describe; register with (UseDirectionCosines \"true\")");
    }

    // elastix 5.1 renamed the key; it prefers the new spelling
    const std::string key = file.Has("InitialTransformParameterFileName") ? "InitialTransformParameterFileName"
                                                                          : "InitialTransformParametersFileName";
    keys.push_back(key);
    const std::string initial =
      file.Has(key) && !file.GetValues(key).empty() ? file.GetString(key, "") : "NoInitialTransform";
    if (initial == "NoInitialTransform")
    {
      break;
    }
    path = elastix_detail::ResolveNamedFile(initial, file.GetFileName());
    if (path.empty())
    {
      file.Fail(key,
                key + " names \"" + initial + "\", which is neither in the working directory nor next to this file");
    }
  }

  // From the first stage applied to the head, as elastix combines them.
  TransformPointer transform = ReadStage(files.back());
  for (std::size_t i = files.size() - 1; i-- > 0;)
  {
    const ElastixParameterFile & file = files[i];
    const TransformPointer       current = ReadStage(file);
    const std::string            how = file.GetString("HowToCombineTransforms", "Compose");
    if (how == "Compose")
    {
      transform = Composed(current, transform);
    }
    else if (how == "Add")
    {
      transform = Added(transform, current, file);
    }
    else
    {
      file.Fail("HowToCombineTransforms", "HowToCombineTransforms is \"" + how + "\", not \"Compose\" or \"Add\"");
    }
  }
  m_OutputGrid = OutputGridType::FromParameterFile(files.front());
  m_Transform = transform;
  this->Modified();
}

template <unsigned int VDimension>
std::vector<double>
ElastixTransformFileReader<VDimension>::ReadParameters(const ElastixParameterFile & file,
                                                       std::size_t                  expected,
                                                       const std::string &          what)
{
  if (!file.Has("NumberOfParameters"))
  {
    file.FailFile("the file has no (NumberOfParameters ...) line: a registration parameter map rather than a "
                  "TransformParameters file that elastix writes?");
  }
  const long long count = file.GetIntegers("NumberOfParameters", 1, 0).front();
  if (static_cast<std::size_t>(count) != expected)
  {
    file.Fail("NumberOfParameters",
              "NumberOfParameters is " + std::to_string(count) + ", but " + what + " has " + std::to_string(expected));
  }
  if (file.GetBoolean("UseBinaryFormatForTransformationParameters", false))
  {
    // elastix's binary layout: NumberOfParameters doubles of this machine, in a file
    // whose name is the value of TransformParameters
    const std::string name = file.GetString("TransformParameters", "");
    const std::string data = elastix_detail::ResolveNamedFile(name, file.GetFileName());
    std::ifstream     in(data, std::ios::binary | std::ios::ate);
    if (data.empty() || !in)
    {
      file.Fail("TransformParameters", "cannot open the binary parameter file \"" + name + "\"");
    }
    if (static_cast<std::size_t>(in.tellg()) / sizeof(double) < expected) // before allocating for them
    {
      file.Fail("TransformParameters",
                "the binary parameter file \"" + name + "\" holds fewer than " + std::to_string(expected) + " doubles");
    }
    in.seekg(0);
    std::vector<double> values(expected);
    in.read(reinterpret_cast<char *>(values.data()), static_cast<std::streamsize>(expected * sizeof(double)));
    if (static_cast<std::size_t>(in.gcount()) != expected * sizeof(double))
    {
      file.Fail("TransformParameters",
                "the binary parameter file \"" + name + "\" holds fewer than " + std::to_string(expected) + " doubles");
    }
    return values;
  }
  const std::vector<double> values = file.GetNumbers("TransformParameters");
  if (values.size() != expected)
  {
    file.Fail("TransformParameters",
              "TransformParameters has " + std::to_string(values.size()) + " values, NumberOfParameters says " +
                std::to_string(expected));
  }
  return values;
}

template <unsigned int VDimension>
auto
ElastixTransformFileReader<VDimension>::ReadCenter(const ElastixParameterFile & file, const std::string & transform) ->
  typename TransformType::InputPointType
{
  if (!file.Has("CenterOfRotationPoint"))
  {
    file.FailFile(transform + " needs (CenterOfRotationPoint ...), the center in physical coordinates "
                              "(elastix writes it since 3.402)");
  }
  const auto                             values = file.GetNumbers("CenterOfRotationPoint", VDimension);
  typename TransformType::InputPointType center;
  std::copy(values.begin(), values.end(), center.Begin());
  return center;
}

template <unsigned int VDimension>
auto
ElastixTransformFileReader<VDimension>::ReadStage(const ElastixParameterFile & file) -> TransformPointer
{
  constexpr unsigned int D = VDimension;
  const std::string      name = file.GetString("Transform", "");
  if (!file.Has("Transform"))
  {
    file.FailFile("the file has no (Transform ...) line: is it an elastix transform parameter file?");
  }
  const std::string what = "a " + std::to_string(D) + "-D " + name;
  auto              parameters = [&](std::size_t count) {
    const std::vector<double>              values = ReadParameters(file, count, what);
    typename TransformType::ParametersType p(static_cast<unsigned int>(values.size()));
    std::copy(values.begin(), values.end(), p.begin());
    return p;
  };

  if (name == "TranslationTransform")
  {
    auto transform = TranslationTransform<double, D>::New();
    transform->SetParameters(parameters(D));
    return transform;
  }
  if (name == "AffineTransform")
  {
    auto transform = AffineTransform<double, D>::New();
    transform->SetCenter(ReadCenter(file, name));
    transform->SetParameters(parameters(D * D + D));
    return transform;
  }
  if (name == "BSplineTransform" || name == "RecursiveBSplineTransform")
  {
    // elastix 5.0.1's RecursiveBSplineTransform takes the coefficients from its
    // buffer's start as if the grid began at index 0 (itkRecursiveBSplineTransform.hxx,
    // TransformPoint): with another GridIndex transformix's field is not the one the
    // file describes, nor BSplineTransform's (measured)
    if (name == "RecursiveBSplineTransform" && file.Has("GridIndex"))
    {
      for (const long long i : file.GetIntegers("GridIndex", D, -(1LL << 62)))
      {
        if (i != 0)
        {
          file.Fail("GridIndex",
                    "a RecursiveBSplineTransform with a GridIndex other than 0 is evaluated by elastix "
                    "as if it were 0 (elastix writes 0); read as BSplineTransform if it is meant as "
                    "the file says");
        }
      }
    }
    return ReadBSpline(file);
  }
  if (name == "EulerTransform" || name == "SimilarityTransform")
  {
    if constexpr (D == 2)
    {
      if (name == "EulerTransform")
      {
        auto transform = Euler2DTransform<double>::New();
        transform->SetCenter(ReadCenter(file, name));
        transform->SetParameters(parameters(3)); // angle, translation
        return transform;
      }
      auto transform = Similarity2DTransform<double>::New();
      transform->SetCenter(ReadCenter(file, name));
      transform->SetParameters(parameters(4)); // scale, angle, translation
      return transform;
    }
    else if constexpr (D == 3)
    {
      if (name == "EulerTransform")
      {
        auto transform = Euler3DTransform<double>::New();
        transform->SetCenter(ReadCenter(file, name));
        transform->SetComputeZYX(file.GetBoolean("ComputeZYX", false));
        transform->SetParameters(parameters(6)); // angles about x, y, z, translation
        return transform;
      }
      auto transform = Similarity3DTransform<double>::New();
      transform->SetCenter(ReadCenter(file, name));
      transform->SetParameters(parameters(7)); // versor, translation, scale
      return transform;
    }
    else
    {
      file.Fail("Transform", "elastix's " + name + " is 2-D or 3-D, the file is " + std::to_string(D) + "-D");
    }
  }
  file.Fail("Transform",
            "the transform \"" + name +
              "\" is not read here (TranslationTransform, EulerTransform, SimilarityTransform, "
              "AffineTransform, BSplineTransform, RecursiveBSplineTransform are)");
}

template <unsigned int VDimension>
auto
ElastixTransformFileReader<VDimension>::ReadBSpline(const ElastixParameterFile & file) -> TransformPointer
{
  constexpr unsigned int D = VDimension;
  using BSplineType = BSplineTransform<double, D, 3>;
  if (file.GetNumber("BSplineTransformSplineOrder", 3.0) != 3.0)
  {
    file.Fail("BSplineTransformSplineOrder", "only cubic B-splines are read (BSplineTransformSplineOrder 3)");
  }
  if (file.GetBoolean("UseCyclicTransform", false))
  {
    file.Fail("UseCyclicTransform", "a cyclic B-spline (UseCyclicTransform \"true\") has no ITK equivalent");
  }
  if (!file.Has("GridSize"))
  {
    file.FailFile("a BSplineTransform needs (GridSize ...)");
  }
  const auto size = file.GetIntegers("GridSize", D, 1);
  const auto index =
    file.Has("GridIndex") ? file.GetIntegers("GridIndex", D, -(1LL << 62)) : std::vector<long long>(D, 0);
  const auto spacing = file.Has("GridSpacing") ? file.GetNumbers("GridSpacing", D) : std::vector<double>(D, 1.0);
  const auto origin = file.Has("GridOrigin") ? file.GetNumbers("GridOrigin", D) : std::vector<double>(D, 0.0);
  Matrix<double, D, D> direction;
  direction.SetIdentity();
  if (file.Has("GridDirection"))
  {
    direction = ElastixOutputGrid<D>::ReadDirection(file, "GridDirection");
  }
  std::size_t nodes = 1;
  for (unsigned int i = 0; i < D; ++i)
  {
    if (!(spacing[i] > 0.0))
    {
      file.Fail("GridSpacing", "GridSpacing must be positive");
    }
    if (static_cast<double>(nodes) * static_cast<double>(size[i]) * D >= 2147483648.0) // ITK counts in unsigned int
    {
      file.Fail("GridSize", "GridSize has too many nodes: D times their number must stay below 2^31");
    }
    nodes *= static_cast<std::size_t>(size[i]);
  }
  // the count first: the grid's coefficient images are allocated only for a file that
  // holds them all
  const std::vector<double> values =
    ReadParameters(file, D * nodes, "a " + std::to_string(D) + "-D BSplineTransform of this GridSize");
  // elastix's coefficient image starts at GridIndex; ITK's at 0, its origin being the
  // physical point of elastix's node GridIndex
  Vector<double, D> shift;
  for (unsigned int i = 0; i < D; ++i)
  {
    shift[i] = spacing[i] * static_cast<double>(index[i]);
  }
  shift = direction * shift;
  typename BSplineType::FixedParametersType fixed(D * (D + 3));
  for (unsigned int i = 0; i < D; ++i)
  {
    fixed[i] = static_cast<double>(size[i]);
    fixed[D + i] = origin[i] + shift[i];
    fixed[2 * D + i] = spacing[i];
    for (unsigned int j = 0; j < D; ++j)
    {
      fixed[3 * D + i * D + j] = direction[i][j]; // ITK's fixed parameters hold it row by row
    }
  }
  auto transform = BSplineType::New();
  transform->SetFixedParameters(fixed);
  typename BSplineType::ParametersType p(static_cast<unsigned int>(values.size()));
  std::copy(values.begin(), values.end(), p.begin());
  transform->SetParametersByValue(p); // BSplineTransform::SetParameters would keep a pointer to p
  return transform;
}

template <unsigned int VDimension>
auto
ElastixTransformFileReader<VDimension>::Composed(const TransformType * outer, const TransformType * inner)
  -> TransformPointer
{
  using CompositeType = CompositeTransform<double, VDimension>;
  // AddTransform takes non-const stages; these are the reader's own, made for the result
  auto composite = CompositeType::New();
  for (const TransformType * part : { outer, inner }) // ITK applies the last one added first
  {
    if (const auto * nested = dynamic_cast<const CompositeType *>(part))
    {
      for (std::size_t i = 0; i < nested->GetNumberOfTransforms(); ++i)
      {
        composite->AddTransform(const_cast<TransformType *>(nested->GetNthTransformConstPointer(i)));
      }
    }
    else
    {
      composite->AddTransform(const_cast<TransformType *>(part));
    }
  }
  return composite;
}

template <unsigned int VDimension>
auto
ElastixTransformFileReader<VDimension>::Added(const TransformType *        before,
                                              const TransformType *        current,
                                              const ElastixParameterFile & file) -> TransformPointer
{
  constexpr unsigned int D = VDimension;
  using BSplineType = BSplineTransform<double, D, 3>;
  using MatrixType = Matrix<double, D, D>;
  const auto linearBefore = elastix_detail::LinearPart<D>(before);
  const auto linearCurrent = elastix_detail::LinearPart<D>(current);
  MatrixType identity;
  identity.SetIdentity();
  auto isTranslation = [&](const auto & linear) { return linear && linear->first == identity; };
  auto translation = [](const Vector<double, D> & offset) {
    auto t = TranslationTransform<double, D>::New();
    t->SetOffset(offset);
    return t;
  };
  auto invertible = [](const MatrixType & m) { return vnl_determinant(m.GetVnlMatrix()) != 0.0; };

  if (linearBefore && linearCurrent) // (Mb + Mc - I) p + ob + oc
  {
    auto affine = AffineTransform<double, D>::New();
    affine->SetMatrix(linearBefore->first + linearCurrent->first - identity);
    affine->SetOffset(linearBefore->second + linearCurrent->second);
    return affine;
  }
  if (isTranslation(linearCurrent)) // before(p) + oc
  {
    return Composed(translation(linearCurrent->second), before);
  }
  if (isTranslation(linearBefore))
  {
    return Composed(translation(linearBefore->second), current);
  }
  const auto * bsplineBefore = dynamic_cast<const BSplineType *>(before);
  const auto * bsplineCurrent = dynamic_cast<const BSplineType *>(current);
  // M p + o + d(p) = M (p + M^-1 d(p)) + o: the affine after a B-spline scaled by M^-1
  if (linearBefore && bsplineCurrent && invertible(linearBefore->first))
  {
    const MatrixType inverse(vnl_inverse(linearBefore->first.GetVnlMatrix()));
    return Composed(before, elastix_detail::ScaledBSpline<D>(bsplineCurrent, inverse));
  }
  if (linearCurrent && bsplineBefore && invertible(linearCurrent->first))
  {
    const MatrixType inverse(vnl_inverse(linearCurrent->first.GetVnlMatrix()));
    return Composed(current, elastix_detail::ScaledBSpline<D>(bsplineBefore, inverse));
  }
  if (bsplineBefore && bsplineCurrent && bsplineBefore->GetFixedParameters() == bsplineCurrent->GetFixedParameters())
  {
    auto sum = BSplineType::New();
    sum->SetFixedParameters(bsplineCurrent->GetFixedParameters());
    typename BSplineType::ParametersType p = bsplineCurrent->GetParameters();
    p += bsplineBefore->GetParameters();
    sum->SetParametersByValue(p);
    return sum;
  }
  file.Fail("HowToCombineTransforms",
            "\"Add\" of this " + std::string(current->GetNameOfClass()) + " to the transform before it (" +
              before->GetNameOfClass() +
              ") has no ITK equivalent: ITK expresses the sum of two affine-family transforms, of a translation and "
              "anything, of an invertible affine-family transform and a B-spline, and of two B-splines on one grid");
}

template <unsigned int VDimension>
void
ElastixTransformFileReader<VDimension>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "FileName: " << m_FileName << std::endl;
  os << indent << "Files read:";
  for (const auto & name : m_FileNames)
  {
    os << ' ' << name;
  }
  os << std::endl;
  os << indent << "Transform: " << (m_Transform ? m_Transform->GetNameOfClass() : "(none)") << std::endl;
  os << indent << "OutputGrid: " << m_OutputGrid << std::endl;
}
} // namespace itk

#endif
