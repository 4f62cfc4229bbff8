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

/** target[i] = TTarget(source[i]) for i in [0, count), in blocks of 2^20 elements over
 * \a threader's threads: a volume larger than the device is tens of GiB, and the
 * copy into fresh memory is also its first touch. */
template <typename TSource, typename TTarget>
void
CudaParallelConvert(MultiThreaderBase * threader, const TSource * source, TTarget * target, std::int64_t count)
{
  constexpr std::int64_t block = std::int64_t(1) << 20;
  CudaParallelFor(threader, (count + block - 1) / block, [&](std::int64_t b) {
    const std::int64_t end = count < (b + 1) * block ? count : (b + 1) * block;
    for (std::int64_t i = b * block; i < end; ++i)
    {
      target[i] = static_cast<TTarget>(source[i]);
    }
  });
}
} // namespace itk

#endif
