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
// The process-information struct through which 3D Slicer follows and cancels a CLI
// module loaded as a shared library. Slicer passes its address as
// `--processinformationaddress <pointer printed with %p>`; the module writes its
// progress there and reads Abort. The layout is Slicer's (ModuleProcessInformation of
// its module-description parser) and must not change: the host and the module agree
// on it only through this declaration.
#ifndef cifModuleProcessInformation_h
#define cifModuleProcessInformation_h

#include <cstdio>
#include <string>

extern "C"
{
  struct ModuleProcessInformation
  {
    /** Set by the host: stop at the next stage boundary. */
    unsigned char Abort;
    /** Written by the module: overall progress and the current stage's, 0 to 1. */
    float Progress;
    float StageProgress;
    /** Written by the module: what it is doing now. */
    char ProgressMessage[1024];
    /** Set by the host: called with ProgressCallbackClientData after every update. */
    void (*ProgressCallbackFunction)(void *);
    void * ProgressCallbackClientData;
    /** Written by the module: seconds since it started. */
    double ElapsedTime;
  };
}

namespace cif
{
/** The struct at \a address as Slicer prints it (%p), or nullptr where \a address is
 * empty or not a pointer. */
inline ModuleProcessInformation *
ProcessInformationAt(const std::string & address)
{
  void * pointer = nullptr;
  if (address.empty() || std::sscanf(address.c_str(), "%p", &pointer) != 1)
  {
    return nullptr;
  }
  return static_cast<ModuleProcessInformation *>(pointer);
}
} // namespace cif

#endif
