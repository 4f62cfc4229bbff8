// What the Slicer-style CLI modules share: reading a volume's header with a clear
// error, and writing the output volume atomically (a temporary file beside the
// target, then a rename), so that a failure (disk full, an unwritable format) leaves
// no half-written volume for the host (Slicer) to load.
#ifndef cifCLISupport_h
#define cifCLISupport_h

#include "itkImageFileWriter.h"
#include "itkImageIOFactory.h"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace cif_cli
{
/** The header of the volume at \a path: the ImageIO that reads it, its information
 * read. Throws std::runtime_error("cannot read ...") for a missing file or an unknown
 * format. */
inline itk::ImageIOBase::Pointer
ReadVolumeInformation(const std::string & path)
{
  auto io = itk::ImageIOFactory::CreateImageIO(path.c_str(), itk::ImageIOFactory::IOFileModeEnum::ReadMode);
  if (!io)
  {
    throw std::runtime_error("cannot read " + path + " (missing file or unknown format)");
  }
  io->SetFileName(path);
  io->ReadImageInformation();
  return io;
}

/** \a path with ".partial" before its extension (kept, so that ITK picks the same
 * ImageIO for the temporary file). */
inline std::string
PartialPath(const std::string & path)
{
  const auto dot = path.find_last_of('.');
  const auto slash = path.find_last_of('/');
  return (dot == std::string::npos || (slash != std::string::npos && dot < slash))
           ? path + ".partial"
           : path.substr(0, dot) + ".partial" + path.substr(dot);
}

template <typename TImage>
void
WriteAtomically(const TImage * image, const std::string & path)
{
  const std::string partial = PartialPath(path);
  auto              writer = itk::ImageFileWriter<TImage>::New();
  writer->SetFileName(partial);
  writer->SetInput(image);
  try
  {
    writer->Update();
  }
  catch (...)
  {
    std::remove(partial.c_str());
    throw;
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0)
  {
    std::remove(partial.c_str());
    throw std::runtime_error("cannot rename " + partial + " to " + path);
  }
}
} // namespace cif_cli

#endif
