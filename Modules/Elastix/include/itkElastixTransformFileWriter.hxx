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
#ifndef itkElastixTransformFileWriter_hxx
#define itkElastixTransformFileWriter_hxx

#include "itkBSplineTransform.h"
#include "itkCompositeTransform.h"
#include "itkEuler3DTransform.h"
#include "itkIdentityTransform.h"
#include "itkRigid2DTransform.h"
#include "itkSimilarity2DTransform.h"
#include "itkSimilarity3DTransform.h"
#include "itkTranslationTransform.h"
#include "itksys/SystemTools.hxx"

#include <charconv>
#include <fstream>
#include <sstream>

namespace itk
{
namespace elastix_detail
{
/** The shortest decimal that reads back as \a value (std::to_chars): exact for the
 * reader, and what elastix's istream-based parser reads. */
inline std::string
Number(double value)
{
  char       text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  return std::string(text, end);
}

template <typename TValues>
std::string
Line(const std::string & key, const TValues & values, unsigned int count)
{
  std::string line = "(" + key;
  for (unsigned int i = 0; i < count; ++i)
  {
    line += " " + Number(static_cast<double>(values[i]));
  }
  return line + ")\n";
}

inline std::string
Quoted(const std::string & key, const std::string & value)
{
  return "(" + key + " \"" + value + "\")\n";
}

/** A matrix as elastix writes Direction and GridDirection: column by column. */
template <unsigned int D>
std::string
DirectionLine(const std::string & key, const Matrix<double, D, D> & m)
{
  std::string line = "(" + key;
  for (unsigned int i = 0; i < D; ++i)
  {
    for (unsigned int j = 0; j < D; ++j)
    {
      line += " " + Number(m(j, i));
    }
  }
  return line + ")\n";
}
} // namespace elastix_detail

template <unsigned int VDimension>
std::string
ElastixTransformFileWriter<VDimension>::StageText(const TransformType * stage, const std::string & initial) const
{
  constexpr unsigned int D = VDimension;
  using elastix_detail::Line;
  using elastix_detail::Quoted;
  std::string                            name, specific;
  typename TransformType::ParametersType parameters;
  auto center = [&specific](const auto * t) { specific += Line("CenterOfRotationPoint", t->GetCenter(), D); };

  if (const auto * translation = dynamic_cast<const TranslationTransform<double, D> *>(stage))
  {
    name = "TranslationTransform";
    parameters = translation->GetParameters();
  }
  else if (dynamic_cast<const IdentityTransform<double, D> *>(stage) != nullptr)
  {
    name = "TranslationTransform";
    parameters.SetSize(D);
    parameters.Fill(0.0);
  }
  else if (const auto * bspline = dynamic_cast<const BSplineTransform<double, D, 3> *>(stage))
  {
    name = "BSplineTransform";
    parameters = bspline->GetParameters();
    const auto &         fixed = bspline->GetFixedParameters(); // size, origin, spacing, direction row by row
    Matrix<double, D, D> direction;
    for (unsigned int i = 0; i < D; ++i)
    {
      for (unsigned int j = 0; j < D; ++j)
      {
        direction[i][j] = fixed[3 * D + i * D + j];
      }
    }
    std::vector<double> zero(D, 0.0);
    specific += Line("GridSize", &fixed[0], D) + Line("GridIndex", zero, D) + Line("GridSpacing", &fixed[2 * D], D) +
                Line("GridOrigin", &fixed[D], D) + elastix_detail::DirectionLine<D>("GridDirection", direction) +
                "(BSplineTransformSplineOrder 3)\n" + Quoted("UseCyclicTransform", "false");
  }
  else if (const auto * affine = dynamic_cast<const MatrixOffsetTransformBase<double, D, D> *>(stage))
  {
    name = "AffineTransform";
    if constexpr (D == 2)
    {
      if (const auto * similarity = dynamic_cast<const Similarity2DTransform<double> *>(stage))
      {
        name = "SimilarityTransform"; // scale, angle, translation
        parameters = similarity->GetParameters();
      }
      else if (const auto * rigid = dynamic_cast<const Rigid2DTransform<double> *>(stage)) // Euler2D too
      {
        name = "EulerTransform"; // angle, translation
        parameters = rigid->GetParameters();
      }
    }
    if constexpr (D == 3)
    {
      if (const auto * similarity = dynamic_cast<const Similarity3DTransform<double> *>(stage))
      {
        name = "SimilarityTransform"; // versor, translation, scale
        parameters = similarity->GetParameters();
      }
      else if (const auto * euler = dynamic_cast<const Euler3DTransform<double> *>(stage))
      {
        name = "EulerTransform"; // angles about x, y, z, translation
        parameters = euler->GetParameters();
        specific += Quoted("ComputeZYX", euler->GetComputeZYX() ? "true" : "false");
      }
    }
    if (name == "AffineTransform") // the same map: T(p) = M (p - c) + c + t
    {
      // What TransformPoint applies is the matrix and the offset. The translation
      // agrees with them unless a subclass left its offset stale (ITK 5.2's
      // ScaleSkewVersor3DTransform::SetScale and SetSkew recompute the matrix only):
      // the translation is written as it is when it gives the offset back bit for bit
      // (ITK's ComputeOffset), so an AffineTransform reads back exactly, and is
      // derived from the offset otherwise.
      const auto & m = affine->GetMatrix();
      const auto & c = affine->GetCenter();
      bool         consistent = true;
      parameters.SetSize(D * D + D);
      for (unsigned int i = 0; i < D; ++i)
      {
        double offset = affine->GetTranslation()[i] + c[i];
        double derived = affine->GetOffset()[i] - c[i];
        for (unsigned int j = 0; j < D; ++j)
        {
          parameters[i * D + j] = m[i][j];
          offset -= m[i][j] * c[j];
          derived += m[i][j] * c[j];
        }
        consistent = consistent && offset == affine->GetOffset()[i];
        parameters[D * D + i] = derived;
      }
      for (unsigned int i = 0; consistent && i < D; ++i)
      {
        parameters[D * D + i] = affine->GetTranslation()[i];
      }
    }
    center(affine);
  }
  else
  {
    itkExceptionMacro("elastix has no transform for a " << stage->GetNameOfClass()
                                                        << " (translations, the matrix-offset family, cubic "
                                                           "BSplineTransform and composites of these are written)");
  }

  const OutputGridType & grid = m_OutputGrid;
  std::ostringstream     text;
  text << "// " << stage->GetNameOfClass() << ", written by itk::ElastixTransformFileWriter (CudaImageFilters)\n";
  text << Quoted("Transform", name) << "(NumberOfParameters " << parameters.Size() << ")\n"
       << Line("TransformParameters", parameters, parameters.Size())
       << Quoted("InitialTransformParametersFileName", initial)
       << Quoted("UseBinaryFormatForTransformationParameters", "false") << Quoted("HowToCombineTransforms", "Compose");
  text << "\n// Image specific\n"
       << "(FixedImageDimension " << D << ")\n(MovingImageDimension " << D << ")\n"
       << Quoted("FixedInternalImagePixelType", "float") << Quoted("MovingInternalImagePixelType", "float")
       << Line("Size", grid.Size, D) << Line("Index", grid.Index, D) << Line("Spacing", grid.Spacing, D)
       << Line("Origin", grid.Origin, D) << elastix_detail::DirectionLine<D>("Direction", grid.Direction)
       << Quoted("UseDirectionCosines", "true");
  text << "\n// " << name << " specific\n" << specific;
  text << "\n// ResampleInterpolator specific\n"
       << Quoted("ResampleInterpolator", "FinalBSplineInterpolator") << "(FinalBSplineInterpolationOrder "
       << m_FinalBSplineInterpolationOrder << ")\n";
  text << "\n// Resampler specific\n"
       << Quoted("Resampler", "DefaultResampler") << "(DefaultPixelValue "
       << elastix_detail::Number(grid.DefaultPixelValue) << ")\n"
       << Quoted("ResultImageFormat", m_ResultImageFormat) << Quoted("ResultImagePixelType", m_ResultImagePixelType)
       << Quoted("CompressResultImage", m_CompressResultImage ? "true" : "false");
  return text.str();
}

template <unsigned int VDimension>
void
ElastixTransformFileWriter<VDimension>::Update()
{
  m_FileNames.clear();
  if (m_Transform.IsNull())
  {
    itkExceptionMacro("no transform to write");
  }
  if (!m_OutputGrid.IsValid())
  {
    itkExceptionMacro("the output grid has no size: transformix needs one (Size)");
  }
  const std::string suffix = ".txt";
  if (m_FileName.size() <= suffix.size() ||
      m_FileName.compare(m_FileName.size() - suffix.size(), suffix.size(), suffix) != 0)
  {
    itkExceptionMacro("\"" << m_FileName << "\" does not end in .txt: elastix reads no other parameter files");
  }
  for (const std::string * value : { &m_ResultImagePixelType, &m_ResultImageFormat })
  {
    if (value->empty() || value->find_first_of("\" ,;!@#$%&|<>?") != std::string::npos)
    {
      itkExceptionMacro("\"" << *value << "\" is not a result image setting elastix can read");
    }
  }


  // the stages in the order ITK applies them (a composite's queue, nested ones flattened)
  std::vector<const TransformType *> stages;
  std::vector<const TransformType *> pending{ m_Transform.GetPointer() };
  while (!pending.empty())
  {
    const TransformType * t = pending.back();
    pending.pop_back();
    if (const auto * composite = dynamic_cast<const CompositeTransform<double, VDimension> *>(t))
    {
      if (composite->GetNumberOfTransforms() == 0)
      {
        itkExceptionMacro("the composite transform to write is empty");
      }
      for (std::size_t i = 0; i < composite->GetNumberOfTransforms(); ++i) // the last one is applied first
      {
        pending.push_back(composite->GetNthTransformConstPointer(i));
      }
    }
    else
    {
      stages.push_back(t);
    }
  }

  const std::string        stem = m_FileName.substr(0, m_FileName.size() - suffix.size());
  std::vector<std::string> paths;
  for (std::size_t k = 0; k < stages.size(); ++k)
  {
    paths.push_back(k + 1 == stages.size() ? m_FileName : stem + "." + std::to_string(k) + suffix);
    const std::string full = itksys::SystemTools::CollapseFullPath(paths.back());
    if (k + 1 < stages.size() &&
        (full.find_first_of("\",;!@#$%&|<>?") != std::string::npos || full.find("//") != std::string::npos))
    {
      itkExceptionMacro("the path " << full
                                    << " has a character elastix's parser refuses (,;!@#$%&|<>? \" or //): "
                                       "transformix could not follow the chain");
    }
  }
  // every text first: a stage with no elastix equivalent leaves no file behind
  std::vector<std::string> texts;
  for (std::size_t k = 0; k < stages.size(); ++k)
  {
    texts.push_back(this->StageText(
      stages[k], k == 0 ? std::string("NoInitialTransform") : itksys::SystemTools::CollapseFullPath(paths[k - 1])));
  }
  std::vector<std::string> written;
  for (std::size_t k = 0; k < stages.size(); ++k)
  {
    std::ofstream out(paths[k], std::ios::binary);
    out << texts[k];
    out.close();
    if (!out)
    {
      itkExceptionMacro("cannot write " << paths[k]);
    }
    written.insert(written.begin(), paths[k]);
  }
  m_FileNames = written;
}

template <unsigned int VDimension>
void
ElastixTransformFileWriter<VDimension>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "FileName: " << m_FileName << std::endl;
  os << indent << "Transform: " << (m_Transform ? m_Transform->GetNameOfClass() : "(none)") << std::endl;
  os << indent << "OutputGrid: " << m_OutputGrid << std::endl;
  os << indent << "FinalBSplineInterpolationOrder: " << m_FinalBSplineInterpolationOrder << std::endl;
  os << indent << "ResultImagePixelType: " << m_ResultImagePixelType << std::endl;
  os << indent << "ResultImageFormat: " << m_ResultImageFormat << std::endl;
  os << indent << "CompressResultImage: " << m_CompressResultImage << std::endl;
  os << indent << "Files written:";
  for (const auto & name : m_FileNames)
  {
    os << ' ' << name;
  }
  os << std::endl;
}
} // namespace itk

#endif
