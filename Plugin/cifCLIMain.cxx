// The executable flavour of a CLI module: the shared library's entry point behind a
// main(), so that Slicer's executable and shared-library loaders run the same code.
#include "cifITKPoolParking.h"
#include "cifCLIModuleEntryPoint.h"

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  return ModuleEntryPoint(argc, argv);
}
