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
// One run of a CLI module, from its parsed command line to its end: its progress,
// the path (GPU or CPU) it was asked for, and its return parameters.
#ifndef cifModuleRun_h
#define cifModuleRun_h

#include "cifCommandLineSupport.h"
#include "cifModuleArguments.h"
#include "cifModuleDescription.h"
#include "cifModuleProgress.h"

#include <tclap/CmdLine.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cif
{
/** \class ModuleRun
 * \brief One run of a module, from its parsed command line to its end.
 *
 * From \a arguments, parsed from \a argc / \a argv: echoes them on --echo, reports
 * progress to the host's struct (--processinformationaddress) or to stdout (see
 * ModuleProgress), and knows whether the GPU path may run (the set's Force CPU
 * switch, cifModuleDescription.h). Output parameters set with SetReturnParameter go
 * to the --returnparameterfile, written (atomically) by Finish() only: a run that
 * fails or is aborted leaves none. */
class ModuleRun
{
public:
  ModuleRun(const ModuleArguments & arguments,
            int                     argc,
            char *                  argv[],
            const std::string &     name,
            const std::string &     comment)
    : m_UseGPU(!(arguments.Has(ForceCPUParameterName) && arguments.Boolean(ForceCPUParameterName)))
  {
    const ModuleCommandLine & commandLine = arguments.CommandLine();
    if (commandLine.echo.getValue())
    {
      std::cout << name << " arguments:";
      for (int i = 1; i < argc; ++i)
      {
        std::cout << " '" << argv[i] << "'";
      }
      std::cout << std::endl;
    }
    const std::string &        address = commandLine.processInformationAddress.getValue();
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

  /** Whether the module's filters may run on the GPU (no --cpu). */
  bool
  UseGPU() const
  {
    return m_UseGPU;
  }

  /** The run wrote \a output on \a executionPath: returned as executionPath, and said
   * on stdout as "wrote OUTPUT (PATH[, DETAIL])". */
  void
  Wrote(const std::string & output, const std::string & executionPath, const std::string & detail = "")
  {
    this->SetReturnParameter(ExecutionPathParameterName, executionPath);
    std::cout << "wrote " << output << " (" << executionPath << (detail.empty() ? "" : ", ") << detail << ")\n";
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
  const bool                                       m_UseGPU;
  std::unique_ptr<ModuleProgress>                  m_Progress;
  std::string                                      m_ReturnParameterFile;
  std::vector<std::pair<std::string, std::string>> m_ReturnParameters;
};
} // namespace cif

#endif
