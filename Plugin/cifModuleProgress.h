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
// A CLI module run's progress, reported where 3D Slicer reads it, and the host's
// request to stop.
#ifndef cifModuleProgress_h
#define cifModuleProgress_h

#include "cifModuleProcessInformation.h"
#include "itkProcessObject.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace cif
{
/** What a module throws at a stage boundary once the host has asked it to stop. */
struct ModuleAborted : std::runtime_error
{
  ModuleAborted()
    : std::runtime_error("aborted at the host's request; no output written")
  {}
};

/** \class ModuleProgress
 * \brief One module run's progress, as Slicer reads it.
 *
 * Where the host handed over its ModuleProcessInformation (the shared-library
 * flavour), progress goes there: Progress, StageProgress, ProgressMessage and
 * ElapsedTime, then the host's callback. Otherwise (the executable flavour) it goes
 * to stdout as the lines Slicer parses, flushed at once:
 * `<filter-start>` when the run starts, `<filter-progress>` each time the overall
 * progress grows, `<filter-end>` with the run's time when it ends.
 *
 * The run is divided into stages, each a span of the overall 0..1: reading, the
 * filters, writing. Watch() maps an ITK filter's own ProgressEvents onto its span and,
 * once the host sets Abort, tells the filter to stop (AbortGenerateData: the module's
 * GPU filters check it between their stages and throw ProcessAborted).
 * ThrowIfAborted() is the module's own check between its stages. */
class ModuleProgress
{
public:
  ModuleProgress(std::string                name,
                 const std::string &        comment,
                 ModuleProcessInformation * host,
                 std::ostream &             out = std::cout)
    : m_Name(std::move(name))
    , m_Host(host)
    , m_Out(out)
    , m_Start(std::chrono::steady_clock::now())
  {
    if (m_Host)
    {
      this->Publish(0.0, 0.0, comment);
    }
    else
    {
      m_Out << "<filter-start><filter-name>" << m_Name << "</filter-name><filter-comment>" << comment
            << "</filter-comment></filter-start>" << std::endl;
    }
  }

  ~ModuleProgress()
  {
    for (const auto & watched : m_Watched)
    {
      watched.filter->RemoveObserver(watched.tag);
    }
  }

  ModuleProgress(const ModuleProgress &) = delete;
  ModuleProgress &
  operator=(const ModuleProgress &) = delete;

  /** The run has reached \a progress overall, \a stageProgress of its current stage,
   * doing \a message. Overall progress never goes back. */
  void
  Report(double progress, double stageProgress, const std::string & message)
  {
    std::lock_guard<std::mutex> lock(m_Mutex);
    this->Publish(progress, stageProgress, message);
  }

  /** Reports \a filter's progress as the span [start, end] of the run's, with
   * \a message; asks it to abort once the host has asked the run to. The filter is
   * kept alive until this object ends (its observer refers to this object). */
  void
  Watch(itk::ProcessObject * filter, double start, double end, const std::string & message)
  {
    const auto tag =
      filter->AddObserver(itk::ProgressEvent(), [this, filter, start, end, message](const itk::EventObject &) {
        const double p = filter->GetProgress();
        this->Report(start + p * (end - start), p, message);
        if (this->AbortRequested())
        {
          filter->AbortGenerateDataOn();
        }
      });
    m_Watched.push_back({ filter, tag });
  }

  bool
  AbortRequested() const
  {
    return m_Host != nullptr && m_Host->Abort != 0;
  }

  /** A stage of the module's own begins at \a progress (its first report: the
   * host may set Abort in its callback, and the stage does not start then). */
  void
  BeginStage(double progress, const std::string & message)
  {
    this->Report(progress, 0.0, message);
    this->ThrowIfAborted();
  }

  /** The module's own check between its stages. */
  void
  ThrowIfAborted() const
  {
    if (this->AbortRequested())
    {
      throw ModuleAborted();
    }
  }

  /** The run is done: progress 1, and `<filter-end>` with its time. */
  void
  End()
  {
    this->Report(1.0, 1.0, "done");
    if (!m_Host)
    {
      m_Out << "<filter-end><filter-name>" << m_Name << "</filter-name><filter-time>" << this->Seconds()
            << "</filter-time></filter-end>" << std::endl;
    }
  }

private:
  struct WatchedFilter
  {
    itk::ProcessObject::Pointer filter;
    unsigned long               tag;
  };

  double
  Seconds() const
  {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_Start).count();
  }

  void
  Publish(double progress, double stageProgress, const std::string & message)
  {
    m_Progress = std::max(m_Progress, std::min(progress, 1.0));
    if (m_Host)
    {
      m_Host->Progress = static_cast<float>(m_Progress);
      m_Host->StageProgress = static_cast<float>(std::clamp(stageProgress, 0.0, 1.0));
      std::strncpy(m_Host->ProgressMessage, message.c_str(), sizeof(m_Host->ProgressMessage) - 1);
      m_Host->ProgressMessage[sizeof(m_Host->ProgressMessage) - 1] = '\0';
      m_Host->ElapsedTime = this->Seconds();
      if (m_Host->ProgressCallbackFunction)
      {
        m_Host->ProgressCallbackFunction(m_Host->ProgressCallbackClientData);
      }
    }
    else if (m_Progress >= m_Printed + 1e-4 || (m_Progress == 1.0 && m_Printed < 1.0))
    {
      // steps of at least 1e-4, printed to 1e-6: every printed value exceeds the last
      m_Printed = m_Progress;
      m_Out << "<filter-progress>" << std::fixed << std::setprecision(6) << m_Printed << std::defaultfloat
            << "</filter-progress>" << std::endl;
    }
  }

  const std::string                           m_Name;
  ModuleProcessInformation * const            m_Host;
  std::ostream &                              m_Out;
  const std::chrono::steady_clock::time_point m_Start;
  double                                      m_Progress{ 0.0 };
  double                                      m_Printed{ 0.0 }; // the last <filter-progress>
  std::vector<WatchedFilter>                  m_Watched;
  std::mutex                                  m_Mutex;
};
} // namespace cif

#endif
