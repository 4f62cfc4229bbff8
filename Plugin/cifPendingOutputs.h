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
#ifndef cifPendingOutputs_h
#define cifPendingOutputs_h

#include "cifCommandLineSupport.h"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cif
{
/** Outputs written beside their targets first ("a.partial.h5"), renamed onto them
 * only once every one of them is written: a failure or an abort leaves none. */
class PendingOutputs
{
public:
  ~PendingOutputs()
  {
    for (const auto & output : m_Outputs)
    {
      std::remove(output.first.c_str());
    }
  }

  /** Where to write \a path for now. */
  std::string
  Add(const std::string & path)
  {
    m_Outputs.emplace_back(cif::PartialPath(path), path);
    return m_Outputs.back().first;
  }

  void
  Commit()
  {
    for (const auto & [partial, path] : m_Outputs)
    {
      if (std::rename(partial.c_str(), path.c_str()) != 0)
      {
        throw std::runtime_error("cannot rename " + partial + " to " + path);
      }
    }
    m_Outputs.clear();
  }

private:
  std::vector<std::pair<std::string, std::string>> m_Outputs; // partial, target
};
} // namespace cif

#endif
