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
// The command line every CLI module takes: the flags Slicer passes to every module.
// A module's own arguments are added from its declaration (cifModuleArguments.h).
#ifndef cifModuleCommandLine_h
#define cifModuleCommandLine_h

#include "cifModuleBuildInfo.h"

#include <tclap/CmdLine.h>

#include <string>

namespace cif
{
/** \class ModuleCommandLine
 * \brief A module's TCLAP command line with Slicer's standard flags.
 *
 * Besides TCLAP's own -h/--help and --version: --xml (handled by RunModule before
 * parsing; declared here so that --help lists it), --echo, --returnparameterfile FILE
 * and --processinformationaddress ADDR. TCLAP's exception handling is off: errors
 * come back to RunModule as exceptions, since exit() would end the host. */
class ModuleCommandLine : public TCLAP::CmdLine
{
public:
  explicit ModuleCommandLine(const std::string & message)
    : TCLAP::CmdLine(message, ' ', CIF_MODULE_VERSION)
    , xml("", "xml", "print the module's XML description (for 3D Slicer) and stop", *this, false)
    , echo("", "echo", "print the arguments as received before running", *this, false)
    , returnParameterFile("",
                          "returnparameterfile",
                          "file to write the module's output parameters to, as name = value lines",
                          false,
                          "",
                          "path",
                          *this)
    , processInformationAddress("",
                                "processinformationaddress",
                                "address of the host's ModuleProcessInformation struct (3D Slicer)",
                                false,
                                "",
                                "address",
                                *this)
  {
    this->setExceptionHandling(false);
  }

  TCLAP::SwitchArg             xml;
  TCLAP::SwitchArg             echo;
  TCLAP::ValueArg<std::string> returnParameterFile;
  TCLAP::ValueArg<std::string> processInformationAddress;
};
} // namespace cif

#endif
