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
// The halo of the resampler's mirror-padded coefficients (cifMirrorPadding.h): a
// warp per padded row, FillMirrorHaloRow's arithmetic (the host's as well).
#include "cifCudaCheck.cuh"
#include "cifGridStride.cuh"
#include "cifMirrorPadding.h"
#include "cifResampleDevice.h"

#include <algorithm>

namespace cif
{
namespace
{
constexpr int kThreads = 256;
constexpr int kRowsPerBlock = kThreads / 32;

template <int D, typename T>
__global__ void
FillMirrorHaloKernel(T * padded, CoefficientGrid grid, std::int64_t rows)
{
  const int lane = threadIdx.x % 32;
  for (std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / 32; row < rows;
       row += static_cast<std::int64_t>(gridDim.x) * kRowsPerBlock)
  {
    FillMirrorHaloRow<D>(padded, grid, row, lane, 32);
  }
}
} // namespace

template <int D, typename T>
void
FillMirrorHaloOnDevice(T * padded, const CoefficientGrid & grid)
{
  const std::int64_t rows = MirrorPaddedRows<D>(grid);
  const std::int64_t blocks = std::min<std::int64_t>((rows + kRowsPerBlock - 1) / kRowsPerBlock, 1 << 20);
  FillMirrorHaloKernel<D, T><<<static_cast<unsigned int>(blocks), kThreads>>>(padded, grid, rows);
  CIF_CUDA_CHECK_LAUNCH();
}

CIF_INSTANTIATE_MIRROR_HALO
} // namespace cif
