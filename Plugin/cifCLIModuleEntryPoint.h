// The two symbols through which 3D Slicer loads a CLI module from a shared library
// (its "CmdLineLoadableModule" factory): the XML description as a character array
// named XMLModuleDescription, and int ModuleEntryPoint(int argc, char * argv[]), both
// with C linkage and exported. Each CLI source defines them once; the executable
// flavour is cifCLIMain.cxx calling the same ModuleEntryPoint, so both flavours run
// one code path. Code behind ModuleEntryPoint must not exit(): it runs inside the host
// (cifRunCLIModule.h is what every entry point does around its own work).
#ifndef cifCLIModuleEntryPoint_h
#define cifCLIModuleEntryPoint_h

#if defined(_WIN32)
#  define CIF_CLI_EXPORT __declspec(dllexport)
#else
#  define CIF_CLI_EXPORT __attribute__((visibility("default")))
#endif

extern "C"
{
  CIF_CLI_EXPORT extern const char XMLModuleDescription[];
  CIF_CLI_EXPORT int
  ModuleEntryPoint(int argc, char * argv[]);
}

#endif
