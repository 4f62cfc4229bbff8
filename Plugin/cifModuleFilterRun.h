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
// The run body the filtering modules share: read a volume with a watched reader, run
// the module's filter watched, write its output atomically and report which code ran
// (executionPath). A module keeps only what is its own, the filter it builds; its
// stages report progress to the host and stop when the host aborts.
#ifndef cifModuleFilterRun_h
#define cifModuleFilterRun_h

#include "cifCommandLineSupport.h"
#include "cifModuleRun.h"
#include "itkCudaExecutionPath.h"
#include "itkImageFileReader.h"

#include <string>

namespace cif
{
/** The volume at \a path read as \a TImage, the reader's progress reported as the
 * span [start, end] of the run's with \a message. Stops if the host aborted. */
template <typename TImage>
typename TImage::Pointer
ReadWatched(ModuleRun &         run,
            const std::string & path,
            double              start,
            double              end,
            const std::string & message = "Reading the input volume")
{
  auto reader = itk::ImageFileReader<TImage>::New();
  reader->SetFileName(path);
  run.Progress().Watch(reader, start, end, message);
  reader->Update();
  run.Progress().ThrowIfAborted();
  typename TImage::Pointer image = reader->GetOutput();
  image->DisconnectPipeline();
  return image;
}

/** Runs \a filter on the path the run allows (UseGPU), its progress the span
 * [start, 0.9] of the run's with \a message; writes its output to \a output
 * atomically (a failure leaves no half-written volume); reports it (executionPath,
 * and "wrote OUTPUT (PATH, DETAIL)" on stdout). */
template <typename TFilter>
void
RunAndWrite(ModuleRun &         run,
            TFilter *           filter,
            const std::string & output,
            double              start,
            const std::string & message,
            const std::string & detail = "")
{
  filter->SetUseGPU(run.UseGPU());
  run.Progress().Watch(filter, start, 0.9, message);
  filter->Update();
  run.Progress().ThrowIfAborted();
  run.Progress().BeginStage(0.9, "Writing " + output);
  WriteAtomically(filter->GetOutput(), output);
  run.Wrote(output, itk::ToString(filter->GetLastExecutionPath()), detail);
}

/** The whole run of a module that filters one volume: \a input read as \a TImage
 * (0 to 0.2 of the run), \a makeFilter(image) returns the module's filter set up on
 * it, which runs (0.2 to 0.9, \a message) and whose output is written to \a output
 * (see RunAndWrite). */
template <typename TImage, typename TMakeFilter>
void
FilterVolume(ModuleRun &         run,
             const std::string & input,
             const std::string & output,
             const std::string & message,
             TMakeFilter &&      makeFilter,
             const std::string & detail = "")
{
  const typename TImage::Pointer image = ReadWatched<TImage>(run, input, 0.0, 0.2);
  const auto                     filter = makeFilter(image.GetPointer());
  RunAndWrite(run, filter.GetPointer(), output, 0.2, message, detail);
}
} // namespace cif

#endif
