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
#include "cifKernelFile.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace cif
{
ConvolutionKernel
ParseKernelText(const std::string & text, const std::string & source)
{
  std::vector<std::vector<double>> rows;
  std::vector<int>                 rowLine;
  std::istringstream               lines(text);
  std::string                      line;
  int                              number = 0;
  while (std::getline(lines, line))
  {
    ++number;
    if (!line.empty() && line.back() == '\r')
    {
      line.pop_back(); // files written on Windows
    }
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#')
    {
      continue;
    }
    for (char & c : line)
    {
      if (c == ',' || c == '\t')
      {
        c = ' ';
      }
    }
    std::vector<double> row;
    std::istringstream  fields(line);
    std::string         field;
    while (fields >> field)
    {
      // strtod on the whole field: "1.5x" or "abc" is refused, not read as 1.5 or 0.
      errno = 0;
      char *       end = nullptr;
      const double v = std::strtod(field.c_str(), &end);
      if (end == field.c_str() || *end != '\0')
      {
        throw KernelFileError(source, number, "\"" + field + "\" is not a number");
      }
      if (!std::isfinite(v) || errno == ERANGE)
      {
        throw KernelFileError(source, number, "\"" + field + "\" is not a finite number");
      }
      row.push_back(v);
    }
    if (!rows.empty() && row.size() != rows.front().size())
    {
      throw KernelFileError(source,
                            number,
                            "row has " + std::to_string(row.size()) + " numbers, the first row has " +
                              std::to_string(rows.front().size()) + " (the kernel must be square)");
    }
    if (static_cast<int>(row.size()) > MaxKernelSide)
    {
      throw KernelFileError(source,
                            number,
                            "row has " + std::to_string(row.size()) + " numbers; the largest kernel side is " +
                              std::to_string(MaxKernelSide));
    }
    rows.push_back(std::move(row));
    rowLine.push_back(number);
  }
  if (rows.empty())
  {
    throw KernelFileError(source, 0, "no kernel rows (the file is empty or only comments)");
  }
  const int side = static_cast<int>(rows.front().size());
  if (static_cast<int>(rows.size()) != side)
  {
    const int badLine = static_cast<int>(rows.size()) > side ? rowLine[side] : rowLine.back();
    throw KernelFileError(source,
                          badLine,
                          std::to_string(rows.size()) + " rows of " + std::to_string(side) +
                            " numbers: the kernel must be square");
  }
  if (side % 2 == 0)
  {
    throw KernelFileError(
      source, rowLine.front(), "side " + std::to_string(side) + " is even; the kernel needs a centre (odd side)");
  }
  ConvolutionKernel k;
  k.dimension = 2;
  k.size[0] = k.size[1] = side;
  k.name = source;
  for (const auto & row : rows)
  {
    k.weights.insert(k.weights.end(), row.begin(), row.end());
  }
  return k;
}

ConvolutionKernel
ReadKernelFile(const std::string & path)
{
  std::ifstream file(path, std::ios::binary);
  if (!file)
  {
    throw KernelFileError(path, 0, "cannot open the kernel file");
  }
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad())
  {
    throw KernelFileError(path, 0, "cannot read the kernel file");
  }
  return ParseKernelText(text.str(), path);
}
} // namespace cif
