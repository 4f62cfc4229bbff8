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
// GPU path of the directional filter bank: one kernel launch per plan operation,
// each thread computing one output element with the per-sample code the CPU
// reference runs (cifDirectionalFilterBankOps.h). The data stays on the device for
// the whole tree.
#include "cifCudaCheck.cuh"
#include "cifLaunchBounds.cuh"
#include "cifSharedMemoryOptIn.cuh"
#include "cifDirectionalFilterBankDevice.h"

#include <algorithm>

namespace cif
{
namespace
{
/** One thread per output element, in 32 × 8 tiles: a warp is 32 consecutive
 * columns of one row and a block 8 rows, so the column filters' overlapping windows
 * and the sheared gathers (whose source runs along a diagonal of the output) reuse
 * each other's cache lines within the block. Grid-stride in y for tall images. */
template <int K, typename T>
__global__ void
DFBOpKernel(const DFBOp op, const DFBOpPointers<T> pointers, const T * __restrict__ taps)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= op.out0.cols)
  {
    return;
  }
  for (int i = blockIdx.y * blockDim.y + threadIdx.y; i < op.out0.rows; i += gridDim.y * blockDim.y)
  {
    RunDFBOpKindAt<K, T>(op, pointers, taps, i, j);
  }
}
/** A row pass followed by the column pass that reads it (a plan's separable filter),
 * fused: each block computes a kTile × kTile output tile, filtering the rows it needs
 * (with the column pass's halo and periodic wrap, including the first level's column
 * shift per wrap) into shared memory and the columns from there, so the intermediate
 * never goes through global memory. Same sums in the same order as the two separate
 * operations (RunDFBOpKindAt's FilterRows and FilterColumns). */
constexpr int kTile = 32;

template <typename T>
__global__ void
FusedSeparableKernel(const DFBOp rowsOp,
                     const DFBOp columnsOp,
                     const T * __restrict__ input,
                     const T * aux,
                     T *       output,
                     const T * __restrict__ taps)
{
  extern __shared__ unsigned char sharedBytes[];
  T *                             inputTile = reinterpret_cast<T *>(sharedBytes);
  const int                       rowSpan = rowsOp.kernelCount;
  const int                       columnSpan = columnsOp.kernelCount;
  const int                       tileRows = kTile + columnSpan - 1;
  const int                       inputCols = kTile + rowSpan - 1;
  T *                             rowTile = inputTile + tileRows * inputCols;
  const int                       rows = rowsOp.in0.rows;
  const int                       cols = rowsOp.in0.cols;
  const int                       i0 = blockIdx.y * kTile;
  const int                       j0 = blockIdx.x * kTile;

  // 1. the input rows of the tile's column windows, each at its wrap's column shift
  //    (one row per warp; the wrap arithmetic once per row)
  for (int t = threadIdx.y; t < tileRows; t += blockDim.y)
  {
    int       u = i0 + columnsOp.kernelFirst + t;
    const int wraps = (u >= 0) ? u / rows : -((-u + rows - 1) / rows);
    u -= wraps * rows;
    const int start = WrapIndex(static_cast<std::int64_t>(j0) + static_cast<std::int64_t>(wraps) * columnsOp.wrapShift +
                                  rowsOp.kernelFirst,
                                cols);
    const T * row = input + static_cast<std::int64_t>(u) * cols;
    for (int q = threadIdx.x; q < inputCols; q += blockDim.x)
    {
      int c = start + q;
      while (c >= cols) // at most a few times: the window is no wider than a few periods
      {
        c -= cols;
      }
      inputTile[t * inputCols + q] = row[c];
    }
  }
  __syncthreads();
  // 2. the row pass into shared memory
  const T * rowTaps = taps + rowsOp.kernelOffset;
  for (int t = threadIdx.y; t < tileRows; t += blockDim.y)
  {
    const T * x = inputTile + t * inputCols + threadIdx.x;
    T         sum = 0;
    for (int k = 0; k < rowSpan; ++k)
    {
      sum += rowTaps[k] * x[k];
    }
    rowTile[t * kTile + threadIdx.x] = sum;
  }
  __syncthreads();
  // 3. the column pass, combined with the auxiliary array, to the output
  const T * columnTaps = taps + columnsOp.kernelOffset;
  const T   alpha = static_cast<T>(columnsOp.alpha);
  const T   beta = static_cast<T>(columnsOp.beta);
  const int j = j0 + threadIdx.x;
  for (int di = threadIdx.y; di < kTile; di += blockDim.y)
  {
    const int i = i0 + di;
    if (i >= columnsOp.out0.rows || j >= columnsOp.out0.cols)
    {
      continue;
    }
    const T * y = rowTile + di * kTile + threadIdx.x;
    T         sum = 0;
    for (int k = 0; k < columnSpan; ++k, y += kTile)
    {
      sum += columnTaps[k] * *y;
    }
    T                  value = beta * sum;
    const std::int64_t index = static_cast<std::int64_t>(i) * columnsOp.out0.cols + j;
    if (columnsOp.alpha != 0.0)
    {
      value += alpha * aux[index];
    }
    output[index] = value;
  }
}

/** The fused separable filter for a kernel of K taps on both axes (the ladder's
 * F ⊗ F: 6, 8 or 12 taps), register-blocked: the taps live in registers and each
 * thread computes 4 outputs of a row (row pass) or of a column (column pass) from
 * K + 3 shared-memory loads, instead of 4 K. Same sums in the same order as the
 * generic kernel. Tile: 32 × 32 outputs, block 32 × 8 threads. */
template <typename T, int K>
__global__ void __launch_bounds__(256, MinBlocksPerSM(256, 6)) FusedSeparableKernelK(const DFBOp rowsOp,
                                                                                     const DFBOp columnsOp,
                                                                                     const T * __restrict__ input,
                                                                                     const T * aux,
                                                                                     T *       output,
                                                                                     const T * __restrict__ taps)
{
  constexpr int tileRows = kTile + K - 1;
  constexpr int inputCols = kTile + K - 1 + 1; // +1: odd stride, conflict-free column access
  constexpr int rowStride = kTile + 1;
  __shared__ T  inputTile[tileRows * inputCols];
  __shared__ T  rowTile[tileRows * rowStride];
  const int     rows = rowsOp.in0.rows;
  const int     cols = rowsOp.in0.cols;
  const int     i0 = blockIdx.y * kTile;
  const int     j0 = blockIdx.x * kTile;

  for (int t = threadIdx.y; t < tileRows; t += blockDim.y)
  {
    int u = i0 + columnsOp.kernelFirst + t;
    int wraps = 0;
    while (u < 0) // a window reaches at most a few periods past the array
    {
      u += rows;
      --wraps;
    }
    while (u >= rows)
    {
      u -= rows;
      ++wraps;
    }
    const int start = WrapIndex(j0 + wraps * columnsOp.wrapShift + rowsOp.kernelFirst, cols);
    const T * row = input + static_cast<std::int64_t>(u) * cols;
    for (int q = threadIdx.x; q < kTile + K - 1; q += blockDim.x)
    {
      int c = start + q;
      while (c >= cols)
      {
        c -= cols;
      }
      inputTile[t * inputCols + q] = row[c];
    }
  }
  __syncthreads();

  T rowTaps[K], columnTaps[K];
#pragma unroll
  for (int k = 0; k < K; ++k)
  {
    rowTaps[k] = taps[rowsOp.kernelOffset + k];
    columnTaps[k] = taps[columnsOp.kernelOffset + k];
  }
  // row pass: work item = (row t, 4 consecutive columns); consecutive threads take
  // consecutive rows (odd stride: no bank conflicts)
  const int thread = threadIdx.y * blockDim.x + threadIdx.x;
  for (int item = thread; item < tileRows * (kTile / 4); item += blockDim.x * blockDim.y)
  {
    const int t = item % tileRows;
    const int q0 = 4 * (item / tileRows);
    const T * x = inputTile + t * inputCols + q0;
    T         acc[4] = { 0, 0, 0, 0 };
#pragma unroll
    for (int k = 0; k < K + 3; ++k)
    {
      const T v = x[k];
#pragma unroll
      for (int r = 0; r < 4; ++r)
      {
        if (k - r >= 0 && k - r < K)
        {
          acc[r] += rowTaps[k - r] * v;
        }
      }
    }
#pragma unroll
    for (int r = 0; r < 4; ++r)
    {
      rowTile[t * rowStride + q0 + r] = acc[r];
    }
  }
  __syncthreads();

  // column pass: thread (x, y) computes rows 4y … 4y+3 of column x
  const int j = j0 + threadIdx.x;
  const int d0 = 4 * threadIdx.y;
  const T * y = rowTile + d0 * rowStride + threadIdx.x;
  T         acc[4] = { 0, 0, 0, 0 };
#pragma unroll
  for (int k = 0; k < K + 3; ++k)
  {
    const T v = y[k * rowStride];
#pragma unroll
    for (int r = 0; r < 4; ++r)
    {
      if (k - r >= 0 && k - r < K)
      {
        acc[r] += columnTaps[k - r] * v;
      }
    }
  }
  const T alpha = static_cast<T>(columnsOp.alpha);
  const T beta = static_cast<T>(columnsOp.beta);
#pragma unroll
  for (int r = 0; r < 4; ++r)
  {
    const int i = i0 + d0 + r;
    if (i < columnsOp.out0.rows && j < columnsOp.out0.cols)
    {
      const std::int64_t index = static_cast<std::int64_t>(i) * columnsOp.out0.cols + j;
      T                  value = beta * acc[r];
      if (columnsOp.alpha != 0.0)
      {
        value += alpha * aux[index];
      }
      output[index] = value;
    }
  }
}

bool
SameArray(const DFBArray & a, const DFBArray & b)
{
  return a.buffer == b.buffer && a.offset == b.offset;
}

/** Whether ops[k], ops[k+1] are a row pass and the column pass of its result that
 * can run fused: the column pass does not overwrite the row pass's input (other
 * blocks still read it). */
bool
Fusable(const DFBOp & rowsOp, const DFBOp & columnsOp)
{
  return rowsOp.kind == DFBOpKind::FilterRows && columnsOp.kind == DFBOpKind::FilterColumns &&
         SameArray(rowsOp.out0, columnsOp.in0) && !SameArray(rowsOp.in0, columnsOp.out0) &&
         rowsOp.in0.rows == columnsOp.out0.rows && rowsOp.in0.cols == columnsOp.out0.cols;
}

/** Shared memory of the fused kernel: the input rows and the row-filtered tile. */
template <typename T>
std::size_t
FusedSharedBytes(const DFBOp & rowsOp, const DFBOp & columnsOp)
{
  const std::size_t tileRows = kTile + columnsOp.kernelCount - 1;
  return sizeof(T) * (tileRows * (kTile + rowsOp.kernelCount - 1) + tileRows * kTile);
}
constexpr std::size_t kMaxFusedSharedBytes = 200 * 1024;

template <typename T>
void
LaunchFused(const DFBOp & rowsOp, const DFBOp & columnsOp, T * const * deviceBuffers, const T * deviceTaps)
{
  const DFBOpPointers<T> rowsPointers = ResolveDFBOp(rowsOp, deviceBuffers);
  const DFBOpPointers<T> columnPointers = ResolveDFBOp(columnsOp, deviceBuffers);
  const std::size_t      shared = FusedSharedBytes<T>(rowsOp, columnsOp);
  // the QMF's inverse filters are long: more than the default 48 KiB may be needed
  AllowSharedMemory(FusedSeparableKernel<T>, shared, "the filter bank's fused pass");
  const dim3 block(kTile, 8);
  const dim3 grid((columnsOp.out0.cols + kTile - 1) / kTile, (columnsOp.out0.rows + kTile - 1) / kTile);
  const int  taps = rowsOp.kernelCount == columnsOp.kernelCount ? rowsOp.kernelCount : 0;
  switch (taps)
  {
    case 6:
      FusedSeparableKernelK<T, 6>
        <<<grid, block>>>(rowsOp, columnsOp, rowsPointers.in0, columnPointers.aux, columnPointers.out0, deviceTaps);
      return;
    case 8:
      FusedSeparableKernelK<T, 8>
        <<<grid, block>>>(rowsOp, columnsOp, rowsPointers.in0, columnPointers.aux, columnPointers.out0, deviceTaps);
      return;
    case 12:
      FusedSeparableKernelK<T, 12>
        <<<grid, block>>>(rowsOp, columnsOp, rowsPointers.in0, columnPointers.aux, columnPointers.out0, deviceTaps);
      return;
    default:
      FusedSeparableKernel<T><<<grid, block, shared>>>(
        rowsOp, columnsOp, rowsPointers.in0, columnPointers.aux, columnPointers.out0, deviceTaps);
  }
}
} // namespace

template <typename T>
void
RunDFBOpsOnDevice(const DFBOp * ops, std::size_t count, T * const * deviceBuffers, const T * deviceTaps)
{
  const dim3 block(32, 8);
  for (std::size_t k = 0; k < count; ++k)
  {
    const DFBOp & op = ops[k];
    if (op.out0.Size() == 0)
    {
      continue;
    }
    if (k + 1 < count && Fusable(op, ops[k + 1]) && (ops[k + 1].out0.rows + kTile - 1) / kTile <= 65535 &&
        FusedSharedBytes<T>(op, ops[k + 1]) <= kMaxFusedSharedBytes)
    {
      LaunchFused(op, ops[k + 1], deviceBuffers, deviceTaps);
      CIF_CUDA_CHECK_LAUNCH();
      ++k;
      continue;
    }
    const DFBOpPointers<T> pointers = ResolveDFBOp(op, deviceBuffers);
    const dim3             grid((op.out0.cols + block.x - 1) / block.x,
                    std::min<unsigned int>((op.out0.rows + block.y - 1) / block.y, 65535u));
    DispatchDFBOpKind(
      op.kind, [&](auto kind) { DFBOpKernel<decltype(kind)::value, T><<<grid, block>>>(op, pointers, deviceTaps); });
    CIF_CUDA_CHECK_LAUNCH();
  }
}

CIF_INSTANTIATE_DFB(float)
CIF_INSTANTIATE_DFB(double)
} // namespace cif
