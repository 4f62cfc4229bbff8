#ifndef itkCudaParallelFor_h
#define itkCudaParallelFor_h

#include "itkMultiThreaderBase.h"

#include <cstdint>

namespace itk
{
/** The CPU paths' parallel loop: runs body(i) for i in [0, count) on \a threader's
 * threads. Also the adapter the plain-C++ CPU routines take (cif::PrefilterOnHost):
 * MakeParallelFor(threader) is a callable (count, body). */
template <typename TBody>
void
CudaParallelFor(MultiThreaderBase * threader, std::int64_t count, TBody && body)
{
  threader->ParallelizeArray(
    0, static_cast<SizeValueType>(count), [&body](SizeValueType i) { body(static_cast<std::int64_t>(i)); }, nullptr);
}

inline auto
MakeParallelFor(MultiThreaderBase * threader)
{
  return [threader](std::int64_t count, auto && body) { CudaParallelFor(threader, count, body); };
}
} // namespace itk

#endif
