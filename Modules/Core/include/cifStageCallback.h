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
#ifndef cifStageCallback_h
#define cifStageCallback_h

#include <functional>

/** \file cifStageCallback.h
 * What a routine that runs several stages in one call (every axis of a prefilter, the
 * slabs of a resampling, the levels of a filter bank) calls after each stage, so that
 * its caller can report progress and stop between stages. A plain std::function and
 * no ITK: the CUDA translation units and the CPU routines take it alike. The ITK side
 * hands in itk::FilterStageProgress's callbacks. A callback may throw (an aborted
 * filter throws itk::ProcessAborted): the routine then stops where it is, and its
 * RAII buffers release whatever it holds. */
namespace cif
{
using StageCallback = std::function<void()>;

/** Calls \a callback if it holds a target (an empty callback is the default of every
 * routine that takes one: no cost, no change for callers that do not ask). */
inline void
StageDone(const StageCallback & callback)
{
  if (callback)
  {
    callback();
  }
}
} // namespace cif

#endif
