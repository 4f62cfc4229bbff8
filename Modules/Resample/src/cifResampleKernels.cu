// CUDA kernels of exact cubic resampling, displacement fields and point
// evaluation: one thread per output voxel or point, grid-stride loops, the per-voxel
// arithmetic of cifResampleMath.h (shared with the CPU path).
#include "cifCudaCheck.cuh"
#include "cifDeviceBuffer.h"
#include "cifResampleDevice.h"
#include "cifScalarTypes.h"

#include <algorithm>

namespace cif
{
namespace
{
constexpr int kThreads = 256;

unsigned int
BlocksFor(std::int64_t count)
{
  return static_cast<unsigned int>(std::min<std::int64_t>((count + kThreads - 1) / kThreads, 1 << 20));
}

template <int D, typename TCoefficient, typename TOut>
__global__ void __launch_bounds__(kThreads, 4)
ResampleKernel(const TCoefficient * coefficients, ResampleGeometry geometry, TransformChain chain,
               const double * mappedPoints, TOut defaultValue, TOut * output)
{
  const std::int64_t count = geometry.OutputCount();
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    output[i] = ResampleVoxel<D, TCoefficient, TOut>(
      coefficients, geometry, chain, mappedPoints ? mappedPoints + 3 * i : nullptr, i, defaultValue);
  }
}

template <int D>
__global__ void
RowEndpointsKernel(ResampleGeometry geometry, TransformChain chain, double * endpoints)
{
  const std::int64_t rows = geometry.outputSize[1] * geometry.outputSize[2];
  for (std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; row < rows;
       row += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    RowEndpoints<D>(geometry, chain, row, endpoints + 6 * row, endpoints + 6 * row + 3);
  }
}

/** ResampleImageFilter's linear path. A block takes kThreads consecutive voxels of
 * kRowsPerBlock consecutive output rows: its first kRowsPerBlock threads map the
 * rows' endpoints (two transforms each) into shared memory, and each thread divides
 * its row fraction once for all its rows. No buffer of endpoints, no division per
 * voxel: what is left per voxel is the interpolation itself. */
constexpr int kRowsPerBlock = 8;

template <int D, typename TCoefficient, typename TOut, bool Indexable32>
__global__ void __launch_bounds__(kThreads, 4) // at most 64 registers: the gathers need warps in flight
  ResampleRowsKernel(const TCoefficient * __restrict__ coefficients, ResampleGeometry geometry, TransformChain chain,
                     InsideBounds bounds, TOut defaultValue, TOut * __restrict__ output)
{
  __shared__ double  ends[kRowsPerBlock][6];
  const std::int64_t rows = geometry.outputSize[1] * geometry.outputSize[2];
  const std::int64_t firstRow = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock;
  if (threadIdx.x < kRowsPerBlock && firstRow + threadIdx.x < rows)
  {
    RowEndpoints<D>(geometry, chain, firstRow + threadIdx.x, ends[threadIdx.x], ends[threadIdx.x] + 3);
  }
  __syncthreads();
  const std::int64_t x = static_cast<std::int64_t>(blockIdx.y) * kThreads + threadIdx.x;
  if (x >= geometry.outputSize[0])
  {
    return;
  }
  const double alpha = RowFraction(geometry, x);
  const int    rowsHere = rows - firstRow < kRowsPerBlock ? static_cast<int>(rows - firstRow) : kRowsPerBlock;
  TOut *       out = output + firstRow * geometry.outputSize[0] + x;
  for (int r = 0; r < rowsHere; ++r, out += geometry.outputSize[0])
  {
    *out = ResampleVoxelOnRowAt<D, TCoefficient, TOut, Indexable32>(coefficients, geometry, bounds, ends[r],
                                                                    ends[r] + 3, alpha, defaultValue);
  }
}

template <int D, typename TOut>
__global__ void
DisplacementFieldKernel(ResampleGeometry geometry, TransformChain chain, TOut * field)
{
  const std::int64_t count = geometry.OutputCount();
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    double p[3], q[3];
    OutputPoint<D>(geometry, i, p);
    ApplyTransformChain<D>(chain, p, q);
    for (int a = 0; a < D; ++a)
    {
      field[D * i + a] = static_cast<TOut>(q[a] - p[a]);
    }
  }
}

template <int D, typename TCoefficient>
__global__ void
EvaluatePointsKernel(const TCoefficient * coefficients, CoefficientGrid grid, const double * x, std::int64_t count,
                     double * values, double * gradients)
{
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    double g[3];
    values[i] = EvaluateCubic<D>(coefficients, grid, x + 3 * i, gradients ? g : nullptr);
    if (gradients)
    {
      gradients[3 * i] = g[0];
      gradients[3 * i + 1] = g[1];
      gradients[3 * i + 2] = g[2];
    }
  }
}
} // namespace

template <int D, typename TCoefficient, typename TOut>
void
ResampleOnDevice(const TCoefficient * coefficients, const ResampleGeometry & geometry, const TransformChain & chain,
                 const double * mappedPoints, bool linearRows, TOut defaultValue, TOut * output)
{
  const std::int64_t count = geometry.OutputCount();
  if (count == 0)
  {
    return;
  }
  if (linearRows && mappedPoints == nullptr)
  {
    const std::int64_t rows = geometry.outputSize[1] * geometry.outputSize[2];
    const dim3         blocks(static_cast<unsigned int>((rows + kRowsPerBlock - 1) / kRowsPerBlock),
                      static_cast<unsigned int>((geometry.outputSize[0] + kThreads - 1) / kThreads));
    const InsideBounds bounds = MakeInsideBounds(geometry.input);
    if (Indexable32(geometry.input))
    {
      ResampleRowsKernel<D, TCoefficient, TOut, true>
        <<<blocks, kThreads>>>(coefficients, geometry, chain, bounds, defaultValue, output);
    }
    else
    {
      ResampleRowsKernel<D, TCoefficient, TOut, false>
        <<<blocks, kThreads>>>(coefficients, geometry, chain, bounds, defaultValue, output);
    }
    CIF_CUDA_CHECK_LAUNCH();
    return;
  }
  ResampleKernel<D, TCoefficient, TOut>
    <<<BlocksFor(count), kThreads>>>(coefficients, geometry, chain, mappedPoints, defaultValue, output);
  CIF_CUDA_CHECK_LAUNCH();
}

template <int D>
void
RowEndpointsOnDevice(const ResampleGeometry & geometry, const TransformChain & chain, double * endpoints)
{
  const std::int64_t rows = geometry.outputSize[1] * geometry.outputSize[2];
  if (rows == 0)
  {
    return;
  }
  RowEndpointsKernel<D><<<BlocksFor(rows), kThreads>>>(geometry, chain, endpoints);
  CIF_CUDA_CHECK_LAUNCH();
}

template <int D, typename TOut>
void
DisplacementFieldOnDevice(const ResampleGeometry & geometry, const TransformChain & chain, TOut * field)
{
  const std::int64_t count = geometry.OutputCount();
  if (count == 0)
  {
    return;
  }
  DisplacementFieldKernel<D, TOut><<<BlocksFor(count), kThreads>>>(geometry, chain, field);
  CIF_CUDA_CHECK_LAUNCH();
}

template <int D, typename TCoefficient>
void
EvaluatePointsOnDevice(const TCoefficient * coefficients, const CoefficientGrid & grid,
                       const double * continuousIndices, std::int64_t count, double * values, double * indexGradients)
{
  if (count == 0)
  {
    return;
  }
  EvaluatePointsKernel<D, TCoefficient>
    <<<BlocksFor(count), kThreads>>>(coefficients, grid, continuousIndices, count, values, indexGradients);
  CIF_CUDA_CHECK_LAUNCH();
}

CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_RESAMPLE)
CIF_INSTANTIATE_FIELD_AND_POINTS(2)
CIF_INSTANTIATE_FIELD_AND_POINTS(3)
} // namespace cif
