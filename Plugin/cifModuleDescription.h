// The parts of a module's XML description that every module of the set shares, as
// string literals to splice into each XMLModuleDescription: version, documentation
// address, license, contributor and acknowledgements. CIF_MODULE_VERSION and
// CIF_MODULE_DOCUMENTATION_URL come from the build (cifModuleBuildInfo.h.in).
#ifndef cifModuleDescription_h
#define cifModuleDescription_h

#include "cifModuleBuildInfo.h"

#define CIF_MODULE_PROVENANCE_XML                                                                                    \
  "  <version>" CIF_MODULE_VERSION "</version>\n"                                                                     \
  "  <documentation-url>" CIF_MODULE_DOCUMENTATION_URL "</documentation-url>\n"                                       \
  "  <license>Apache License, Version 2.0 (as ITK)</license>\n"                                                       \
  "  <contributor>CudaImageFilters developers</contributor>\n"                                                        \
  "  <acknowledgements>Built on the Insight Toolkit (ITK) and CUDA. Prefilter after Ruijters and Thevenaz (2012); "  \
  "directional filter bank after Bamberger and Smith (1992).</acknowledgements>\n"

/** The output parameter every module returns: which code ran. */
#define CIF_EXECUTION_PATH_PARAMETER_XML                                                                             \
  "    <string>\n"                                                                                                    \
  "      <name>executionPath</name>\n"                                                                                \
  "      <label>Execution path</label>\n"                                                                             \
  "      <description>Which code computed the result: GPU, CPU (the same arithmetic on the host) or ITK "             \
  "(ITK's own filter, for cases the module's code does not cover).</description>\n"                                   \
  "      <channel>output</channel>\n"                                                                                 \
  "    </string>\n"

/** The switch every module has: the CPU path even with a GPU. */
#define CIF_FORCE_CPU_PARAMETER_XML                                                                                  \
  "    <boolean>\n"                                                                                                   \
  "      <name>cpu</name>\n"                                                                                          \
  "      <longflag>cpu</longflag>\n"                                                                                  \
  "      <label>Force CPU</label>\n"                                                                                  \
  "      <description>Run the CPU path even when a GPU is present.</description>\n"                                   \
  "      <default>false</default>\n"                                                                                  \
  "    </boolean>\n"

/** The output group of a module whose only output parameter is executionPath. */
#define CIF_OUTPUTS_GROUP_XML                                                                                        \
  "  <parameters>\n"                                                                                                  \
  "    <label>Outputs</label>\n"                                                                                      \
  "    <description>What the run reports.</description>\n" CIF_EXECUTION_PATH_PARAMETER_XML "  </parameters>\n"

#endif
