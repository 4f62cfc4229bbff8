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
#ifndef cifRecursiveGaussianHost_h
#define cifRecursiveGaussianHost_h

#include "cifRecursiveGaussianMath.h"

#include <cstdint>
#include <vector>

namespace cif
{
/** The CPU path of one recursive Gaussian pass along \a axis of a dense volume of
 * \a shape: every line of \a src (scalar type TSrc) is gathered into a contiguous
 * line of doubles, filtered by the RecursiveGaussianLine the GPU kernel runs, and
 * stored into \a dst as TDst at \a output's component (see GaussianPassOutput).
 * \a src may equal \a dst (a line is read whole before it is written).
 * \a parallelFor(count, body) runs body(line) for line in [0, count) on any number
 * of threads (the ITK side passes ITK's threader). Lines need 4 samples at least. */
template <typename TSrc, typename TDst, typename TParallelFor>
void
RecursiveGaussianPassOnHost(const TSrc *                          src,
                            TDst *                                dst,
                            const GaussianShape &                 shape,
                            int                                   axis,
                            const RecursiveGaussianCoefficients & c,
                            const GaussianPassOutput &            output,
                            TParallelFor &&                       parallelFor)
{
  const GaussianLines lines = MakeGaussianLines(shape, axis);
  parallelFor(lines.count, [&](std::int64_t line) {
    thread_local std::vector<double> scratch;
    scratch.resize(static_cast<std::size_t>(2 * lines.length));
    double *           data = scratch.data();
    double *           result = data + lines.length;
    const std::int64_t start = lines.Start(line);
    const TSrc *       in = src + start;
    for (std::int64_t k = 0; k < lines.length; ++k)
    {
      data[k] = static_cast<double>(in[k * lines.stride]);
    }
    RecursiveGaussianLine(data, result, lines.length, c, output.roundToFloat, output.divisor);
    TDst *             out = dst + start * output.components + output.component;
    const std::int64_t outStride = lines.stride * output.components;
    for (std::int64_t k = 0; k < lines.length; ++k)
    {
      out[k * outStride] = static_cast<TDst>(result[k]);
    }
  });
}

/** The gradient's direction correction (RotateCovariantPixel) of \a pixels pixels of
 * \a dimension interleaved doubles, in place. \a direction: row-major D x D. */
template <typename TParallelFor>
void
RotateCovariantOnHost(double *        data,
                      std::int64_t    pixels,
                      int             dimension,
                      const double *  direction,
                      TParallelFor && parallelFor)
{
  constexpr std::int64_t block = 1 << 16;
  parallelFor((pixels + block - 1) / block, [&](std::int64_t b) {
    const std::int64_t end = pixels < (b + 1) * block ? pixels : (b + 1) * block;
    for (std::int64_t p = b * block; p < end; ++p)
    {
      double * g = data + p * dimension;
      RotateCovariantPixel(g, dimension, direction);
    }
  });
}
} // namespace cif

#endif
