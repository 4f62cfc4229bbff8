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
// Reading the one transform of a transform file (.tfm/.txt, .h5, .mat, or an elastix
// transform parameter file) as a D-D transform, for the modules that apply or
// evaluate one; an elastix file brings the output grid it names too.
#ifndef cifTransformFile_h
#define cifTransformFile_h

#include "itkElastixParameterFile.h"
#include "itkElastixTransformFileReader.h"
#include "itkIdentityTransform.h"
#include "itkTransformFileReader.h"
#include "itkTransformFileWriter.h"

#include <optional>
#include <stdexcept>
#include <string>

namespace cif
{
/** The transform files ITK reads, as a Slicer <transform> declares them (elastix's
 * TransformParameters.N.txt are .txt too). */
constexpr const char * kTransformFileExtensions = ".tfm,.txt,.h5,.hdf5,.mat";

/** Whether \a path is an elastix transform parameter file rather than one of ITK's:
 * told by its content ("(Key value ...)" lines), since both use .txt. */
inline bool
IsElastixTransformFile(const std::string & path)
{
  return !path.empty() && itk::ElastixParameterFile::IsParameterFile(path);
}

/** The image dimension of the elastix transform parameter file \a path
 * (FixedImageDimension). Throws std::runtime_error with the reason. */
inline unsigned int
ElastixTransformFileDimension(const std::string & path)
{
  try
  {
    return itk::ElastixParameterFile::Read(path).GetImageDimension();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw std::runtime_error("cannot read transform " + path + ": " + e.GetDescription());
  }
}

/** A transform file's transform and, for an elastix parameter file, the grid it names. */
template <unsigned int D>
struct TransformFile
{
  typename itk::Transform<double, D, D>::ConstPointer transform;
  /** An elastix file's output grid and DefaultPixelValue (what transformix resamples
   * onto); not IsValid() when the file has no Size; empty for ITK's files. */
  std::optional<itk::ElastixOutputGrid<D>> elastixGrid;
};

/** The transform in \a path as a D-D transform: one transform per file of ITK's (a
 * composite is one), or the chain an elastix transform parameter file starts (see
 * itk::ElastixTransformFileReader); identity when \a path is empty. Throws
 * std::runtime_error with the reason for a missing or unreadable file, several
 * transforms, or a transform of another dimension. */
template <unsigned int D>
TransformFile<D>
ReadTransformAndGrid(const std::string & path)
{
  TransformFile<D> file;
  if (path.empty())
  {
    file.transform = itk::IdentityTransform<double, D>::New().GetPointer();
    return file;
  }
  if (IsElastixTransformFile(path))
  {
    const unsigned int dimension = ElastixTransformFileDimension(path);
    if (dimension != D)
    {
      throw std::runtime_error("the transform in " + path + " (elastix, " + std::to_string(dimension) +
                               "-D) does not map " + std::to_string(D) + "-D points");
    }
    try
    {
      auto reader = itk::ElastixTransformFileReader<D>::New();
      reader->SetFileName(path);
      reader->Update();
      file.transform = reader->GetTransform();
      file.elastixGrid = reader->GetOutputGrid();
    }
    catch (const itk::ExceptionObject & e)
    {
      throw std::runtime_error("cannot read transform " + path + ": " + e.GetDescription());
    }
    return file;
  }
  auto reader = itk::TransformFileReaderTemplate<double>::New();
  reader->SetFileName(path);
  try
  {
    reader->Update();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw std::runtime_error("cannot read transform " + path + ": " + e.GetDescription());
  }
  const auto * list = reader->GetTransformList();
  if (list->size() != 1)
  {
    throw std::runtime_error(path + " holds " + std::to_string(list->size()) +
                             " transforms; write them as one CompositeTransform");
  }
  const auto * transform = dynamic_cast<const itk::Transform<double, D, D> *>(list->front().GetPointer());
  if (transform == nullptr)
  {
    throw std::runtime_error("the transform in " + path + " (" + list->front()->GetNameOfClass() + ", " +
                             std::to_string(list->front()->GetInputSpaceDimension()) + "-D) does not map " +
                             std::to_string(D) + "-D points");
  }
  file.transform = transform;
  return file;
}

/** The transform alone (ReadTransformAndGrid). */
template <unsigned int D>
typename itk::Transform<double, D, D>::ConstPointer
ReadTransformFile(const std::string & path)
{
  return ReadTransformAndGrid<D>(path).transform;
}
/** Writes \a transform (one ITK transform, a composite for a chain) to \a path in the
 * format its extension names (.tfm/.txt, .h5, .mat); throws itk::ExceptionObject. */
inline void
WriteTransformFile(const itk::Object * transform, const std::string & path)
{
  auto writer = itk::TransformFileWriterTemplate<double>::New();
  writer->SetInput(transform);
  writer->SetFileName(path);
  writer->Update();
}
} // namespace cif

#endif
