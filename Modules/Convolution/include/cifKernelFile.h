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
