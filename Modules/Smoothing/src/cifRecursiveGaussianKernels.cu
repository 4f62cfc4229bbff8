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
// The recursive Gaussian passes on the device (cifRecursiveGaussianDevice.h). No ITK
// header here: the ITK side hands plain shapes and coefficients.
#include "cifCudaCheck.cuh"
#include "cifGridStride.cuh"
#include "cifRecursiveGaussianDevice.h"

namespace cif
{
namespace
{
constexpr int kThreads = 128;

/** One thread per line (grid-stride): neighbouring threads take neighbouring lines,
 * which are neighbours along x for every axis but x, so each step of the recursion
 * loads and stores whole sectors. */
template <typename TSrc>
__global__ void
RecursiveGaussianPassKernel(const TSrc * __restrict__ src,
                            double * __restrict__ dst,
                            GaussianLines                 lines,
                            RecursiveGaussianCoefficients c,
                            GaussianPassOutput            output)
{
  for (std::int64_t line = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; line < lines.count;
       line += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    const std::int64_t                    start = lines.Start(line);
    const GaussianStridedLine<const TSrc> in{ src + start, lines.stride };
    GaussianStridedLine<double>           out{ dst + start * output.components + output.component,
                                     lines.stride * output.components };
    RecursiveGaussianLine(in, out, lines.length, c, output.roundToFloat, output.divisor);
  }
}

template <typename T>
__global__ void
ConvertFromDoubleKernel(const double * __restrict__ src, T * __restrict__ dst, std::int64_t count)
{
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    dst[i] = static_cast<T>(src[i]);
  }
}

struct DirectionMatrix
{
  double m[kGaussianMaxDimension * kGaussianMaxDimension];
};

__global__ void
RotateCovariantKernel(double * data, std::int64_t pixels, int dimension, DirectionMatrix direction)
{
  for (std::int64_t p = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; p < pixels;
       p += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    double * g = data + p * dimension;
    RotateCovariantPixel(g, dimension, direction.m);
  }
}
} // namespace

template <typename TSrc>
void
RecursiveGaussianPassOnDevice(const TSrc *                          src,
                              double *                              dst,
                              const GaussianShape &                 shape,
                              int                                   axis,
                              const RecursiveGaussianCoefficients & c,
                              const GaussianPassOutput &            output)
{
  const GaussianLines lines = MakeGaussianLines(shape, axis);
  if (lines.count == 0 || lines.length < 4)
  {
    throw CudaError("RecursiveGaussianPassOnDevice: lines of fewer than 4 samples");
  }
  RecursiveGaussianPassKernel<TSrc><<<GridStrideBlocks(lines.count, kThreads), kThreads>>>(src, dst, lines, c, output);
  CIF_CUDA_CHECK_LAUNCH();
}

template <typename T>
void
ConvertFromDoubleOnDevice(const double * src, T * dst, std::int64_t count)
{
  if (count == 0)
  {
    return;
  }
  ConvertFromDoubleKernel<T><<<GridStrideBlocks(count, 256), 256>>>(src, dst, count);
  CIF_CUDA_CHECK_LAUNCH();
}

void
RotateCovariantOnDevice(double * data, std::int64_t pixels, int dimension, const double * direction)
{
  if (pixels == 0)
  {
    return;
  }
  DirectionMatrix m{};
  for (int k = 0; k < dimension * dimension; ++k)
  {
    m.m[k] = direction[k];
  }
  RotateCovariantKernel<<<GridStrideBlocks(pixels, 256), 256>>>(data, pixels, dimension, m);
  CIF_CUDA_CHECK_LAUNCH();
}

CIF_INSTANTIATE_RECURSIVE_GAUSSIAN(float)
CIF_INSTANTIATE_RECURSIVE_GAUSSIAN(double)
} // namespace cif
