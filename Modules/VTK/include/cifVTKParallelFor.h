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
#ifndef cifVTKParallelFor_h
#define cifVTKParallelFor_h

#include "vtkSMPTools.h"

#include <cstdint>

/** \file cifVTKParallelFor.h
 * The VTK adapters' CPU paths run their loops through vtkSMPTools (VTK's own thread
 * pool: TBB in Debian's VTK). SMPParallelFor() is the callable (count, body) that
 * the plain-C++ CPU routines take (cif::PrefilterOnHostComputingIn,
 * cif::vtkmath::ResliceOnHost). */
namespace cif
{
namespace vtkmath
{
inline auto
SMPParallelFor()
{
  return [](std::int64_t count, auto && body) {
    vtkSMPTools::For(static_cast<vtkIdType>(0), static_cast<vtkIdType>(count), [&body](vtkIdType begin, vtkIdType end) {
      for (vtkIdType i = begin; i < end; ++i)
      {
        body(static_cast<std::int64_t>(i));
      }
    });
  };
}
} // namespace vtkmath
} // namespace cif

#endif
