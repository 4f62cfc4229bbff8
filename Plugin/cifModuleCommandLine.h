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
    , returnParameterFile("", "returnparameterfile",
                          "file to write the module's output parameters to, as name = value lines", false, "", "path",
                          *this)
    , processInformationAddress("", "processinformationaddress",
                                "address of the host's ModuleProcessInformation struct (3D Slicer)", false, "",
                                "address", *this)
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
