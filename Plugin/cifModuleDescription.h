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
// What every module of the set declares alike, so that it is declared once for all
// of them: the provenance elements (version, documentation address, license,
// contributor, acknowledgements), the Force CPU switch, and the Outputs group that
// returns executionPath. CIF_MODULE_VERSION and CIF_MODULE_DOCUMENTATION_URL come from
// the build (cifModuleBuildInfo.h.in).
#ifndef cifModuleDescription_h
#define cifModuleDescription_h

#include "cifModuleBuildInfo.h"
#include "cifModuleDeclaration.h"

#include <string>

namespace cif
{
/** The name of the switch that runs the CPU path even with a GPU (ModuleRun::UseGPU). */
constexpr const char * ForceCPUParameterName = "cpu";
/** The name of the output parameter every module returns: which code ran. */
constexpr const char * ExecutionPathParameterName = "executionPath";

/** A module of the set: its own category, title, description and one-line summary
 * (the comment its progress reports), with the set's provenance. */
inline ModuleDeclaration
DeclareModule(const std::string & category,
              const std::string & title,
              const std::string & description,
              const std::string & summary)
{
  ModuleDeclaration module(category, title, description, summary);
  module.SetProvenance({ { "version", CIF_MODULE_VERSION },
                         { "documentation-url", CIF_MODULE_DOCUMENTATION_URL },
                         { "license", "Apache License, Version 2.0 (as ITK)" },
                         { "contributor", "CudaImageFilters developers" },
                         { "acknowledgements",
                           "Built on the Insight Toolkit (ITK) and CUDA. Prefilter after Ruijters and Thevenaz (2012); "
                           "directional filter bank after Bamberger and Smith (1992)." } });
  return module;
}

/** The switch every module has, at the end of \a group: the CPU path even with a GPU. */
inline void
AddForceCPU(ModuleParameterGroup & group)
{
  group.Boolean(ForceCPUParameterName, "Force CPU", "Run the CPU path even when a GPU is present.");
}

/** The Outputs group, ending with executionPath; a module adds its own returned
 * parameters to the group this returns (they are listed before executionPath). */
inline ModuleParameterGroup &
AddOutputs(ModuleDeclaration & module)
{
  auto & outputs = module.Group("Outputs", "What the run reports.");
  outputs
    .Returned("string",
              ExecutionPathParameterName,
              "Execution path",
              "Which code computed the result: GPU, CPU (the same arithmetic on the host) or ITK (ITK's own filter, "
              "for cases the module's code does not cover).")
    .Last();
  return outputs;
}
} // namespace cif

#endif
