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
