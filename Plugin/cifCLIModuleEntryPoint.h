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
// The two symbols through which 3D Slicer loads a CLI module from a shared library
// (its "CmdLineLoadableModule" factory): the XML description, and
// int ModuleEntryPoint(int argc, char * argv[]), both with C linkage and exported.
// Slicer's loader looks for the description as a character array named
// XMLModuleDescription and, where there is none, calls char * GetXMLModuleDescription();
// the modules define the function, since their description is made from their
// parameters' declaration (cifModuleDeclaration.h) when first asked for, not written
// out as a literal. Each CLI source defines both symbols once; the executable flavour
// is cifCLIMain.cxx calling the same ModuleEntryPoint (whose --xml prints
// GetXMLModuleDescription()), so both flavours run one code path. Code behind
// ModuleEntryPoint must not exit(): it runs inside the host (cifRunCLIModule.h is what
// every entry point does around its own work).
#ifndef cifCLIModuleEntryPoint_h
#define cifCLIModuleEntryPoint_h

#if defined(_WIN32)
#  define CIF_CLI_EXPORT __declspec(dllexport)
#else
#  define CIF_CLI_EXPORT __attribute__((visibility("default")))
#endif

extern "C"
{
  /** The module's XML description; the text stays valid while the library is loaded. */
  CIF_CLI_EXPORT char *
  GetXMLModuleDescription();
  CIF_CLI_EXPORT int
  ModuleEntryPoint(int argc, char * argv[]);
}

#endif
