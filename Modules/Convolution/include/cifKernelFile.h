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
#ifndef cifKernelFile_h
#define cifKernelFile_h

#include "CudaImageFiltersExport.h"
#include "cifConvolutionKernel.h"

#include <stdexcept>
#include <string>

/** \file cifKernelFile.h
 * Custom kernels from text (the seed's -c option): one kernel row per line, numbers
 * separated by blanks or commas; blank lines and lines starting with '#' are ignored.
 * The kernel must be square with an odd side of at most 127. */
namespace cif
{
/** A kernel text that cannot be used; what() reads "<source>:<line>: <problem>"
 * (line 0 when the problem is the file as a whole). */
class CudaImageFilters_EXPORT KernelFileError : public std::runtime_error
{
public:
  KernelFileError(const std::string & source, int line, const std::string & problem)
    : std::runtime_error(source + ":" + std::to_string(line) + ": " + problem)
    , m_Line(line)
  {}
  int
  Line() const
  {
    return m_Line;
  }

private:
  int m_Line;
};

/** Parses kernel \a text; \a source names it in messages. */
CudaImageFilters_EXPORT ConvolutionKernel
ParseKernelText(const std::string & text, const std::string & source);

/** Reads and parses the file at \a path (a missing or unreadable file is a
 * KernelFileError at line 0). */
CudaImageFilters_EXPORT ConvolutionKernel
ReadKernelFile(const std::string & path);
} // namespace cif

#endif
