// The command line every CLI module takes (its own arguments plus the flags Slicer
// passes to every module), and one run of a module: its progress and its return
// parameters.
#ifndef cifModuleCommandLine_h
#define cifModuleCommandLine_h

#include "cifCommandLineSupport.h"
#include "cifModuleBuildInfo.h"
#include "cifModuleProgress.h"

#include <tclap/CmdLine.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

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

/** \class ModuleRun
 * \brief One run of a module, from its parsed command line to its end.
 *
 * Parses \a argc / \a argv with \a commandLine, echoes them on --echo, and reports
 * progress to the host's struct (--processinformationaddress) or to stdout (see
 * ModuleProgress). Output parameters set with SetReturnParameter go to the
 * --returnparameterfile, written (atomically) by Finish() only: a run that fails or
 * is aborted leaves none. */
class ModuleRun
{
public:
  ModuleRun(ModuleCommandLine & commandLine, int argc, char * argv[], const std::string & name,
            const std::string & comment)
  {
    commandLine.parse(argc, argv);
    if (commandLine.echo.getValue())
    {
      std::cout << name << " arguments:";
      for (int i = 1; i < argc; ++i)
      {
        std::cout << " '" << argv[i] << "'";
      }
      std::cout << std::endl;
    }
    const std::string & address = commandLine.processInformationAddress.getValue();
    ModuleProcessInformation * host = ProcessInformationAt(address);
    if (!address.empty() && host == nullptr)
    {
      throw TCLAP::ArgException("not an address: " + address, "--processinformationaddress");
    }
    m_ReturnParameterFile = commandLine.returnParameterFile.getValue();
    m_Progress = std::make_unique<ModuleProgress>(name, comment, host);
  }

  ModuleProgress &
  Progress()
  {
    return *m_Progress;
  }

  /** An output parameter (declared in the module's XML with channel output). */
  template <typename T>
  void
  SetReturnParameter(const std::string & name, const T & value)
  {
    std::ostringstream text;
    text << value;
    m_ReturnParameters.emplace_back(name, text.str());
  }

  /** The run succeeded (its outputs written): writes the return parameters, reports
   * the end; returns 0. */
  int
  Finish()
  {
    if (!m_ReturnParameterFile.empty())
    {
      const std::string partial = PartialPath(m_ReturnParameterFile);
      {
        std::ofstream file(partial);
        for (const auto & [name, value] : m_ReturnParameters)
        {
          file << name << " = " << value << "\n";
        }
        if (!file.flush())
        {
          std::remove(partial.c_str());
          throw std::runtime_error("cannot write the return parameter file " + m_ReturnParameterFile);
        }
      }
      if (std::rename(partial.c_str(), m_ReturnParameterFile.c_str()) != 0)
      {
        std::remove(partial.c_str());
        throw std::runtime_error("cannot write the return parameter file " + m_ReturnParameterFile);
      }
    }
    m_Progress->End();
    return 0;
  }

private:
  std::unique_ptr<ModuleProgress>                  m_Progress;
  std::string                                      m_ReturnParameterFile;
  std::vector<std::pair<std::string, std::string>> m_ReturnParameters;
};
} // namespace cif

#endif
