// What every CLI module's ModuleEntryPoint does around its own work: the --xml
// description, and errors turned into a message and a status for the host.
#ifndef cifRunCLIModule_h
#define cifRunCLIModule_h

#include "cifCLIModuleEntryPoint.h"
#include "cifCommandLineSupport.h"
#include "cifDeviceMemoryPool.h"
#include "cifPinnedStaging.h"

#include <tclap/CmdLine.h>

#include <iostream>
#include <string>

namespace cif
{
namespace detail
{
/** Runs \a work, turning its errors into a message and a status (see RunModule). */
template <typename TWork>
int
RunModuleWork(TWork && work)
{
  try
  {
    return work();
  }
  catch (const TCLAP::ArgException & e)
  {
    std::cerr << "error: " << e.error() << " for " << e.argId() << "\n";
    return 2;
  }
  catch (const TCLAP::ExitException & e) // --help, --version
  {
    return e.getExitStatus();
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << "error: " << ReasonOf(e) << "\n";
    return 1;
  }
  catch (const std::exception & e)
  {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
} // namespace detail

/** A module's entry point around its \a work (which parses \a argc / \a argv with a
 * TCLAP::CmdLine whose exception handling is off, and returns a status): `--xml`
 * prints XMLModuleDescription; errors print "error: ..." and return a status, never
 * exit() — 2 for bad arguments, TCLAP's own for --help and --version, 1 for the rest
 * (an ITK error's reason without ITK's prefix). The GPU memory the run cached is
 * given back before returning: a module loaded into a host (Slicer) leaves none
 * behind. */
template <typename TWork>
int
RunModule(int argc, char * argv[], TWork && work)
{
  for (int i = 1; i < argc; ++i)
  {
    if (std::string(argv[i]) == "--xml")
    {
      std::cout << XMLModuleDescription;
      return 0;
    }
  }
  const int status = detail::RunModuleWork(work);
  try
  {
    ReleaseCachedDeviceMemory();
    // The staging rings' pinned memory and copy threads too: the threads must not
    // outlive the module's shared library in a host that unloads it.
    ReleasePinnedStagingMemory();
  }
  catch (const std::exception & e)
  {
    std::cerr << "warning: could not release cached GPU memory: " << e.what() << "\n";
  }
  return status;
}
} // namespace cif

#endif
