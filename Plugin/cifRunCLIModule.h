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
// What every CLI module's ModuleEntryPoint does around its own work: the --xml
// description, the command line parsed from the module's declaration, the run's
// progress and return parameters, and errors turned into a message and a status for
// the host.
#ifndef cifRunCLIModule_h
#define cifRunCLIModule_h

#include "cifCLIModuleEntryPoint.h"
#include "cifCommandLineSupport.h"
#include "cifDeviceMemoryPool.h"
#include "cifModuleArguments.h"
#include "cifModuleDeclaration.h"
#include "cifModuleRun.h"
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

/** A module's entry point: `--xml` prints GetXMLModuleDescription() (what Slicer
 * reads); otherwise \a argc / \a argv are parsed as \a module declares its
 * parameters (ModuleArguments) and \a execute(arguments, run) does the module's own
 * work, after which the run finishes (return parameters written, progress ended).
 * Errors print "error: ..." and return a status, never exit() — 2 for bad arguments,
 * TCLAP's own for --help and --version, 1 for the rest (an ITK error's reason without
 * ITK's prefix). The GPU memory the run cached is given back before returning: a
 * module loaded into a host (Slicer) leaves none behind. */
template <typename TExecute>
int
RunModule(int argc, char * argv[], const ModuleDeclaration & module, TExecute && execute)
{
  for (int i = 1; i < argc; ++i)
  {
    if (std::string(argv[i]) == "--xml")
    {
      std::cout << GetXMLModuleDescription();
      return 0;
    }
  }
  const int status = detail::RunModuleWork([&] {
    ModuleArguments arguments(module);
    arguments.Parse(argc, argv);
    ModuleRun run(arguments, argc, argv, module.Title(), module.Summary());
    execute(static_cast<const ModuleArguments &>(arguments), run);
    return run.Finish();
  });
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

/** Defines the two symbols Slicer's loader resolves (cifCLIModuleEntryPoint.h) for a
 * module whose declaration \a declare() returns and whose own work is
 * \a execute(arguments, run): GetXMLModuleDescription, made once at the first call and
 * kept while the library is loaded (Slicer copies it), and ModuleEntryPoint (RunModule).
 * A macro, since each module's library must define these C functions itself: each
 * keeps its own description (a static in a shared inline function is one symbol,
 * which a host loading two modules could merge). */
#define CIF_DEFINE_CLI_MODULE(declare, execute) \
  char * GetXMLModuleDescription()              \
  {                                             \
    static std::string xml = declare().XML();   \
    return xml.data();                          \
  }                                             \
  int ModuleEntryPoint(int argc, char * argv[]) { return cif::RunModule(argc, argv, declare(), execute); }

#endif
