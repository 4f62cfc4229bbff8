// Reading the one transform of a transform file (.tfm/.txt, .h5, .mat) as a D-D
// transform, for the modules that apply or evaluate one.
#ifndef cifTransformFile_h
#define cifTransformFile_h

#include "itkIdentityTransform.h"
#include "itkTransformFileReader.h"

#include <stdexcept>
#include <string>

namespace cif
{
/** The transform files ITK reads, as a Slicer <transform> declares them. */
constexpr const char * kTransformFileExtensions = ".tfm,.txt,.h5,.hdf5,.mat";

/** The transform in \a path as a D-D transform: one transform per file (a composite
 * is one); identity when \a path is empty. Throws std::runtime_error with the reason
 * for a missing or unreadable file, several transforms, or a transform of another
 * dimension. */
template <unsigned int D>
typename itk::Transform<double, D, D>::ConstPointer
ReadTransformFile(const std::string & path)
{
  if (path.empty())
  {
    return itk::IdentityTransform<double, D>::New().GetPointer();
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
  return transform;
}
} // namespace cif

#endif
