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
#ifndef cifITKPoolParking_h
#define cifITKPoolParking_h

#include "CudaImageFiltersExport.h"

/** \file cifITKPoolParking.h
 * A clean process exit with ITK 5.2's thread pool.
 *
 * ITK 5.2 never joins the threads of its global itk::ThreadPool: at exit, ITKCommon's
 * static clean-up deletes the pool's globals and sets ThreadPool's pointer to them to
 * null while the threads still run. A pool thread that has just finished a task and
 * loops back to take the pool's lock then reads that null pointer and throws
 * std::system_error ("Operation not permitted") outside any handler: the process
 * aborts after all its work was done (core dump: the main thread in _dl_fini, the
 * thread in ThreadPool::ThreadExecute). It needs a thread descheduled at the wrong
 * moment: here, with more processes than cores, 8 of 1200 runs of a registration
 * module; enough to fail one of the many short processes of a test run.
 *
 * ParkITKPoolThreadsForExit() hands every pool thread a task that never returns (it
 * waits on a mutex and a condition that are never destroyed) and returns once all of
 * them wait there, so that no pool thread touches ITK's globals again; it also keeps
 * a reference to the pool that is never given back, so that ITK's clean-up, where it
 * holds the last one, does not destroy the pool (~ThreadPool joins its threads: the
 * parked ones would hang the exit). A program calls it last, just before returning
 * from main(); the pool runs no more work after it. Not for libraries: a host
 * (Slicer) keeps using the pool after a module has run. */
namespace cif
{
/** Parks every thread of ITK's global thread pool for the process's exit. Waits at
 * most a second for threads still busy with earlier tasks (those are then left as
 * they are). Never throws (it runs in a destructor at the end of main()). */
CudaImageFilters_EXPORT void
ParkITKPoolThreadsForExit() noexcept;

/** ParkITKPoolThreadsForExit() when main() returns, whichever return it takes: a
 * program's main() begins with `const cif::ITKPoolParkedAtExit parkedAtExit;`. */
struct ITKPoolParkedAtExit
{
  ITKPoolParkedAtExit() = default;
  ITKPoolParkedAtExit(const ITKPoolParkedAtExit &) = delete;
  ITKPoolParkedAtExit &
  operator=(const ITKPoolParkedAtExit &) = delete;
  ~ITKPoolParkedAtExit() { ParkITKPoolThreadsForExit(); }
};
} // namespace cif

#endif
