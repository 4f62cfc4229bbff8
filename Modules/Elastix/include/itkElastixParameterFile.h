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
#ifndef itkElastixParameterFile_h
#define itkElastixParameterFile_h

#include "CudaImageFiltersExport.h"
#include "itkMacro.h"

#include <map>
#include <string>
#include <vector>

namespace itk
{
/** \class ElastixParameterFile
 * \brief One elastix parameter file as elastix's own parser reads it: "(Key value ...)"
 * lines, each key with its values and the line it came from.
 *
 * The syntax is that of elastix 5.0.1's itk::ParameterFileParser: tabs count as
 * spaces; everything after "//" is a comment (inside quotes too, as there); every
 * other non-blank line is one "(Key value ...)" with at least one value; values are
 * separated by spaces outside double quotes; a key given twice, a key with one of
 * .,:;!@#$%^&-+|<>? or a value with one of ,;!@#$%&|<>? is an error. What elastix
 * reads as numbers is read here with the C locale and must be a whole number token.
 *
 * Every error is an itk::ExceptionObject whose description starts with
 * "PATH:LINE: " (the parameter file and its line, where one is concerned), so a
 * message names the place to fix.
 *
 * \ingroup CudaImageFilters
 */
class CudaImageFilters_EXPORT ElastixParameterFile
{
public:
  /** Reads and parses \a path (any extension: elastix's own programs insist on .txt,
   * this parser does not). */
  static ElastixParameterFile
  Read(const std::string & path);

  /** Parses \a text as the content of a file named \a path (for messages). */
  static ElastixParameterFile
  Parse(const std::string & text, const std::string & path);

  /** Whether the file at \a path looks like an elastix parameter file: its first line
   * that is neither blank nor a "//" comment is "(...)". ITK's transform files start
   * otherwise ("#Insight Transform File", HDF5's and MATLAB's binary headers), so a
   * .txt file is told apart by its content. False for a file that cannot be opened. */
  static bool
  IsParameterFile(const std::string & path);

  const std::string &
  GetFileName() const
  {
    return m_FileName;
  }

  bool
  Has(const std::string & key) const
  {
    return m_Entries.count(key) != 0;
  }

  /** Every key of the file, in alphabetical order. */
  std::vector<std::string>
  GetKeys() const;

  /** The values of \a key as written (quotes removed); throws if it is absent. */
  const std::vector<std::string> &
  GetValues(const std::string & key) const;

  /** The line of \a key, 0 when it is absent. */
  unsigned int
  GetLine(const std::string & key) const;

  /** The first value of \a key, or \a fallback when the key is absent. */
  std::string
  GetString(const std::string & key, const std::string & fallback) const;

  /** The values of \a key as numbers; exactly \a count of them unless \a count is 0. */
  std::vector<double>
  GetNumbers(const std::string & key, std::size_t count = 0) const;

  /** The first value of \a key as a number, or \a fallback when the key is absent. */
  double
  GetNumber(const std::string & key, double fallback) const;

  /** The values of \a key as whole numbers of at least \a minimum (exactly \a count). */
  std::vector<long long>
  GetIntegers(const std::string & key, std::size_t count, long long minimum) const;

  /** "true" or "false" (elastix's spelling), or \a fallback when the key is absent. */
  bool
  GetBoolean(const std::string & key, bool fallback) const;

  /** The image dimension the file is for: FixedImageDimension, which must equal
   * MovingImageDimension (transformix maps D-D points only). Throws if either is
   * absent, not a whole number from 1 to 4, or they differ. */
  unsigned int
  GetImageDimension() const;

  /** "PATH:LINE: " for \a key (its line when it is present, the file alone otherwise). */
  std::string
  Where(const std::string & key) const;

  /** Throws an itk::ExceptionObject "PATH:LINE: message" at \a key's line. */
  [[noreturn]] void
  Fail(const std::string & key, const std::string & message) const;

  /** Throws an itk::ExceptionObject "PATH: message". */
  [[noreturn]] void
  FailFile(const std::string & message) const;

private:
  struct Entry
  {
    std::vector<std::string> values;
    unsigned int             line = 0;
  };

  std::string                  m_FileName;
  std::map<std::string, Entry> m_Entries;
};
} // namespace itk

#endif
