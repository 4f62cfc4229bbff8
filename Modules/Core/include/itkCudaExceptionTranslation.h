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
