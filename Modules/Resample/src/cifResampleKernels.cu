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
      coefficients, geometry, chain, mappedPoints ? mappedPoints + D * i : nullptr, i, defaultValue);
  }
}

template <int D>
__global__ void
RowEndpointsKernel(ResampleGeometry geometry, TransformChain chain, double * endpoints)
{
  const std::int64_t rows = geometry.OutputRows();
  for (std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; row < rows;
       row += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
  {
    double * e = endpoints + 2 * kMaxDimension * row;
    RowEndpoints<D>(geometry, chain, row, e, e + kMaxDimension);
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
  __shared__ double  ends[kRowsPerBlock][2 * kMaxDimension];
  const std::int64_t rows = geometry.OutputRows();
  const std::int64_t firstRow = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock;
  if (threadIdx.x < kRowsPerBlock && firstRow + threadIdx.x < rows)
  {
    RowEndpoints<D>(geometry, chain, firstRow + threadIdx.x, ends[threadIdx.x], ends[threadIdx.x] + kMaxDimension);
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
                                                                    ends[r] + kMaxDimension, alpha, defaultValue);
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
    double p[kMaxDimension], q[kMaxDimension];
    OutputPoint<D>(geometry, i, p);
    ApplyTransformChain<D>(chain, p, q);
    for (int a = 0; a < D; ++a)
    {
      field[D * i + a] = static_cast<TOut>(q[a] - p[a]);
    }
  }
}

/** Output rows per block of BSplineFieldRowsKernel, and the control columns each
 * row's partial sums can hold in shared memory (a 125-cell mesh along x). */
constexpr int kFieldRowsPerBlock = 8;
constexpr int kMaxFieldColumns = 128;

/** The B-spline field when the output's rows run along the control grid's first axis
 * (the usual case in registration: field and control grid share the fixed image's
 * direction): then every voxel of an output row has the same support and weights
 * along the other axes, exactly (the matrices' zeros make those grid indices
 * independent of the row position). So a block of kFieldRowsPerBlock rows first
 * folds those axes into one partial sum per row, control column and component (16
 * terms each), and each voxel then sums 4 columns instead of 4^D control points.
 * ITK's valid-region rule and weights are applied per axis as in ApplyBSpline; only
 * the order of the sum differs (within 1e-16 relative). */
template <int D, typename TOut>
__global__ void __launch_bounds__(kThreads)
  BSplineFieldRowsKernel(ResampleGeometry geometry, TransformStage stage, TOut * __restrict__ field)
{
  __shared__ double       columns[kFieldRowsPerBlock][D][kMaxFieldColumns];
  __shared__ std::int64_t rowStart[kFieldRowsPerBlock][3];
  __shared__ double       rowWeights[kFieldRowsPerBlock][3][4];
  __shared__ bool         rowValid[kFieldRowsPerBlock];
  const std::int64_t      rows = geometry.OutputRows();
  const std::int64_t      firstRow = static_cast<std::int64_t>(blockIdx.x) * kFieldRowsPerBlock;
  const int rowsHere = rows - firstRow < kFieldRowsPerBlock ? static_cast<int>(rows - firstRow) : kFieldRowsPerBlock;

  // Each row's support along axes 1..D-1, from its first voxel (the same for all).
  const auto rowIndex = [&](int r, std::int64_t index[kMaxDimension]) {
    std::int64_t rest = firstRow + r;
    index[0] = geometry.outputStart[0];
    index[1] = index[2] = index[3] = 0;
    for (int a = 1; a < D; ++a)
    {
      index[a] = geometry.outputStart[a] + rest % geometry.outputSize[a];
      rest /= geometry.outputSize[a];
    }
  };
  if (threadIdx.x < rowsHere)
  {
    const int    r = threadIdx.x;
    std::int64_t index[kMaxDimension];
    rowIndex(r, index);
    double p[kMaxDimension];
    IndexToOutputPoint<D>(geometry, index, p);
    bool valid = true;
    for (int a = 1; a < 3; ++a)
    {
      rowStart[r][a] = 0;
      rowWeights[r][a][0] = 1.0;
      rowWeights[r][a][1] = rowWeights[r][a][2] = rowWeights[r][a][3] = 0.0;
      if (a < D)
      {
        valid = valid && BSplineAxisSupport(stage, a, BSplineGridIndex<D>(stage, p, a), rowStart[r][a], rowWeights[r][a]);
      }
    }
    rowValid[r] = valid;
  }
  __syncthreads();
  const int width = static_cast<int>(stage.gridSize[0]);
  for (int item = threadIdx.x; item < rowsHere * width; item += blockDim.x)
  {
    const int r = item / width, column = item - r * width;
    if (!rowValid[r])
    {
      continue;
    }
    constexpr int KY = D > 1 ? 4 : 1;
    constexpr int KZ = D > 2 ? 4 : 1;
    double        sum[3] = { 0, 0, 0 };
    for (int kz = 0; kz < KZ; ++kz)
    {
      for (int ky = 0; ky < KY; ++ky)
      {
        const std::int64_t at = (rowStart[r][2] + kz) * (stage.gridSize[0] * stage.gridSize[1]) +
                                (rowStart[r][1] + ky) * stage.gridSize[0] + column;
        const double       wyz = rowWeights[r][1][ky] * rowWeights[r][2][kz];
        for (int c = 0; c < D; ++c)
        {
          sum[c] += wyz * stage.coefficients[c][at];
        }
      }
    }
    for (int c = 0; c < D; ++c)
    {
      columns[r][c][column] = sum[c];
    }
  }
  __syncthreads();
  const std::int64_t outputWidth = geometry.outputSize[0];
  for (int r = 0; r < rowsHere; ++r)
  {
    std::int64_t index[kMaxDimension];
    rowIndex(r, index);
    TOut * out = field + static_cast<std::int64_t>(D) * (firstRow + r) * outputWidth;
    for (std::int64_t x = threadIdx.x; x < outputWidth; x += blockDim.x)
    {
      index[0] = geometry.outputStart[0] + x;
      double p[kMaxDimension];
      IndexToOutputPoint<D>(geometry, index, p);
      double       q[3] = { p[0], p[1], p[2] };
      double       wx[4];
      std::int64_t startX;
      if (rowValid[r] && BSplineAxisSupport(stage, 0, BSplineGridIndex<D>(stage, p, 0), startX, wx))
      {
        for (int c = 0; c < D; ++c)
        {
          const double * column = &columns[r][c][startX];
          q[c] = p[c] + (wx[0] * column[0] + wx[1] * column[1] + wx[2] * column[2] + wx[3] * column[3]);
        }
      }
      for (int c = 0; c < D; ++c)
      {
        out[D * x + c] = static_cast<TOut>(q[c] - p[c]);
      }
    }
  }
}

/** Whether BSplineFieldRowsKernel applies: a single cubic B-spline stage whose grid
 * indices along axes 1.. do not depend on the output's first index (exact zeros in
 * both matrices), with a control grid narrow enough for shared memory. */
template <int D>
bool
FieldRowsShareTheirSupport(const ResampleGeometry & geometry, const TransformChain & chain)
{
  if (D < 2 || D > 3 || chain.count != 1 || chain.stage[0].kind != TransformKind::BSpline ||
      chain.stage[0].gridSize[0] > kMaxFieldColumns || geometry.OutputRows() > 0x3FFFFFFFll)
  {
    return false;
  }
  for (int a = 1; a < D; ++a)
  {
    if (geometry.outputIndexToPoint[a][0] != 0.0 || chain.stage[0].gridPointToIndex[a][0] != 0.0)
    {
      return false;
    }
  }
  return true;
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
    const std::int64_t rows = geometry.OutputRows();
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
  const std::int64_t rows = geometry.OutputRows();
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
  if constexpr (D <= 3)
  {
    if (FieldRowsShareTheirSupport<D>(geometry, chain))
    {
      const std::int64_t blocks = (geometry.OutputRows() + kFieldRowsPerBlock - 1) / kFieldRowsPerBlock;
      BSplineFieldRowsKernel<D, TOut><<<static_cast<unsigned int>(blocks), kThreads>>>(geometry, chain.stage[0], field);
      CIF_CUDA_CHECK_LAUNCH();
      return;
    }
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
