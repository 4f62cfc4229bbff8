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
