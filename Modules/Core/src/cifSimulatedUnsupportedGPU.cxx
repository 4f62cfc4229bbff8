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
// The test hook of cifSimulatedUnsupportedGPU.h, in both builds (with CUDA the
// availability probe of cifCudaRuntime.cu reads it; without, nothing does).
#include "cifSimulatedUnsupportedGPU.h"
#include "cifGPUArchitectures.h"

#include <mutex>

namespace cif
{
namespace
{
struct Simulated
{
  std::mutex mutex;
  int        major = 0; ///< 0: none simulated
  int        minor = 0;
};

Simulated &
TheSimulated()
{
  static Simulated simulated;
  return simulated;
}
} // namespace

bool
SimulateUnsupportedGPU(const std::string & architecture)
{
  int major = 0, minor = 0;
  if (!architecture.empty() && !ParseArchitecture(architecture, major, minor))
  {
    return false;
  }
  Simulated &                       s = TheSimulated();
  const std::lock_guard<std::mutex> lock(s.mutex);
  s.major = major;
  s.minor = minor;
  return true;
}

bool
GetSimulatedUnsupportedGPU(int & major, int & minor)
{
  Simulated &                       s = TheSimulated();
  const std::lock_guard<std::mutex> lock(s.mutex);
  major = s.major;
  minor = s.minor;
  return s.major != 0;
}
} // namespace cif
