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
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

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

/** \a path with ".partial" before its extension, the whole of it (kept, so that ITK
 * picks the same ImageIO for the temporary file: "a.nii.gz" -> "a.partial.nii.gz"). */
inline std::string
PartialPath(const std::string & path)
{
  const auto slash = path.find_last_of('/');
  const auto name = slash == std::string::npos ? 0 : slash + 1;
  const auto dot = path.find('.', name + 1); // a leading dot names a hidden file, not an extension
  return dot == std::string::npos ? path + ".partial" : path.substr(0, dot) + ".partial" + path.substr(dot);
}

/** \a text as exactly \a count comma-separated integers ("12,34"; Slicer's form of
 * an integer-vector parameter), strictly: "12,x", "12" or "12,34," throw
 * std::invalid_argument. */
inline std::vector<long>
ParseIntegerList(const std::string & text, std::size_t count)
{
  std::vector<long> values;
  bool              valid = true;
  for (std::size_t begin = 0; valid;)
  {
    const auto        comma = text.find(',', begin);
    const std::string part = text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    char *            end = nullptr;
    values.push_back(std::strtol(part.c_str(), &end, 10));
    valid = !part.empty() && end != nullptr && *end == '\0';
    if (comma == std::string::npos)
    {
      break;
    }
    begin = comma + 1;
  }
  if (!valid || values.size() != count)
  {
    throw std::invalid_argument("expected " + std::to_string(count) + " comma-separated integers, got \"" + text +
                                "\"");
  }
  return values;
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
