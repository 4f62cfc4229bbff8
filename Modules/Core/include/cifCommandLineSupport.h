// What the command-line programs (Slicer CLI modules, tools) share: reading a
// volume's header with a clear error, writing an output volume atomically (a
// temporary file beside the target, then a rename, so that a failure such as a full
// disk or an unwritable format leaves no half-written volume for a host like Slicer
// to load), and the reason of an ITK exception without ITK's prefix. Header-only:
// the programs register ITK's IO factories themselves.
#ifndef cifCommandLineSupport_h
#define cifCommandLineSupport_h

#include "itkImageFileWriter.h"
#include "itkImageIOFactory.h"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace cif
{
/** An ITK exception's description without the "ITK ERROR: Class(0x...): " that
 * itkExceptionMacro puts before the reason: what a user of a command line needs. */
inline std::string
ReasonOf(const itk::ExceptionObject & e)
{
  std::string text = e.GetDescription();
  const auto  prefix = text.find("): ");
  if (text.rfind("ITK ERROR: ", 0) == 0 && prefix != std::string::npos)
  {
    text = text.substr(prefix + 3);
  }
  return text;
}

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
} // namespace cif

#endif
