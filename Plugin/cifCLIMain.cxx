// The executable flavour of a CLI module: the shared library's entry point behind a
// main(), so that Slicer's executable and shared-library loaders run the same code.
#include "cifCLIModuleEntryPoint.h"

int
main(int argc, char * argv[])
{
  return ModuleEntryPoint(argc, argv);
}
