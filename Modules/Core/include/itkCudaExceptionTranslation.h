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
#ifndef itkCudaExceptionTranslation_h
#define itkCudaExceptionTranslation_h

#include "cifCudaRuntime.h"
#include "itkMacro.h"

namespace itk
{
/** Runs \a work and turns any cif::CudaError it throws (a failed CUDA call, no
 * device, out of GPU memory) into an itk::ExceptionObject carrying the CUDA text,
 * so ITK pipelines see one kind of error. */
template <typename TWork>
auto
TranslateCudaErrors(const char * file, unsigned int line, const char * location, TWork && work) -> decltype(work())
{
  try
  {
    return work();
  }
  catch (const cif::CudaError & error)
  {
    ExceptionObject exception(file, line, error.what(), location);
    throw exception;
  }
}
} // namespace itk

/** Usage: CIF_ITK_TRY_CUDA( [&] { ...GPU work... } ); inside an ITK method. */
#define CIF_ITK_TRY_CUDA(...) ::itk::TranslateCudaErrors(__FILE__, __LINE__, ITK_LOCATION, __VA_ARGS__)

#endif
