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
#ifndef cifGPUArchitectures_h
#define cifGPUArchitectures_h

#include <cctype>
#include <cstdlib>
#include <sstream>
#include <string>

/** \file cifGPUArchitectures.h
 * Words about GPU architectures for the availability check (cifCudaRuntime.h): the
 * list a build was made for, an architecture's name (the tests' simulated GPU), and
 * the line printed for a GPU the build has no kernels for. Plain C++ and header-only,
 * so that the CPU-only tests check the wording without such a GPU. */
namespace cif
{
/** nvcc's __CUDA_ARCH_LIST__ ("750,800,900") as "sm_75, sm_80, sm_90". */
inline std::string
FormatArchitectureList(const std::string & nvccList)
{
  std::ostringstream out;
  std::istringstream in(nvccList);
  std::string        item;
  const char *       separator = "";
  while (std::getline(in, item, ','))
  {
    const long value = std::strtol(item.c_str(), nullptr, 10);
    if (value <= 0)
    {
      continue;
    }
    out << separator << "sm_" << value / 10;
    separator = ", ";
  }
  return out.str();
}

/** "sm_61" (or "61") as compute capability 6.1, "sm_100" as 10.0; false for anything
 * else. */
inline bool
ParseArchitecture(const std::string & text, int & major, int & minor)
{
  std::string digits = text.rfind("sm_", 0) == 0 ? text.substr(3) : text;
  if (digits.size() < 2 || digits.size() > 3)
  {
    return false;
  }
  for (const char c : digits)
  {
    if (!std::isdigit(static_cast<unsigned char>(c)))
    {
      return false;
    }
  }
  const int value = std::atoi(digits.c_str());
  major = value / 10;
  minor = value % 10;
  return major > 0;
}

/** Why a GPU that is present cannot be used by this build, in words: the device, its
 * architecture, the built ones, the CUDA error, and the rebuild that would serve it.
 * IsGPUAvailable prints it (with "using the CPU path") and GetNoDeviceReason
 * returns it. */
inline std::string
DescribeGPUWithoutKernels(const std::string & deviceName,
                          int                 computeMajor,
                          int                 computeMinor,
                          const std::string & builtArchitectures,
                          const std::string & cudaError)
{
  const std::string  arch = std::to_string(computeMajor) + std::to_string(computeMinor);
  std::ostringstream line;
  line << "the GPU " << deviceName << " (sm_" << arch << ") cannot run this build's kernels (built for "
       << (builtArchitectures.empty() ? std::string("no known architecture") : builtArchitectures) << "; " << cudaError
       << "); rebuild with -DCMAKE_CUDA_ARCHITECTURES=" << arch << " (or =native on a machine with this GPU) to use it";
  return line.str();
}
} // namespace cif

#endif
