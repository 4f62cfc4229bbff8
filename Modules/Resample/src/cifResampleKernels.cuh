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
#ifndef cifResampleKernels_cuh
#define cifResampleKernels_cuh

// CUDA kernels of exact cubic resampling and displacement fields: one thread per
// output voxel (or a block per few output rows), the per-voxel arithmetic of
// cifResampleMath.h (shared with the CPU path). Included by the translation units
// that instantiate them: one for the resampling into every output type
// (cifResampleKernels.cu: the kernels write through ScalarOutput, float coefficients
// into float through TypedOutput) and one for the fields (cifResampleFieldKernels.cu),
// each a CUDA module of its own, so that lazy loading loads only what a pipeline uses.
// The kernels live one family a file: per voxel (cifResampleVoxelKernels.cuh), the
// linear path's rows (cifResampleRowsKernel.cuh) and the B-spline rows
// (cifBSplineRowsKernels.cuh); this file holds the launchers that choose among them.
#include "cifBSplineRowsKernels.cuh"
#include "cifCudaCheck.cuh"
#include "cifDeviceBuffer.h"
#include "cifResampleRowsKernel.cuh"
#include "cifResampleVoxelKernels.cuh"
#include "cifScalarTypes.h"

#include <algorithm>
#include <type_traits>

namespace cif
{
namespace
{
/** ResampleOnDevice into \a output: a ScalarOutput (any scalar type) or a
 * TypedOutput. */
template <int D, typename TCoefficient, typename TOutput>
void
ResampleScalarsOnDevice(const TCoefficient *     coefficients,
                        const ResampleGeometry & geometry,
                        const TransformChain &   chain,
                        const double *           mappedPoints,
                        bool                     linearRows,
                        const TOutput &          output,
                        const ResampleSlabs &    slabs,
                        const StageCallback &    afterSlab)
{
  // The kernel is chosen once, from the whole output, so that every slab is computed
  // the same way (RowsShareBSplineSupport, for one, looks at the output's row count).
  enum class Path
  {
    Rows,        // ResampleImageFilter's linear path
    BSplineRows, // one B-spline stage whose support is shared along output rows
    Voxels       // one thread per voxel
  };
  Path path = Path::Voxels;
  if (linearRows && mappedPoints == nullptr)
  {
    if (!AllStagesAffine(chain))
    {
      // ITK's linear path is for linear transforms, whose stages are all affine; the
      // shear and the row endpoints are computed from the chain on that premise.
      throw CudaError("cubic resampling: the linear (scanline) path takes affine transform stages only");
    }
    path = Path::Rows;
  }
  else if constexpr (D <= 3)
  {
    if (mappedPoints == nullptr && RowsShareBSplineSupport<D>(geometry, chain))
    {
      path = Path::BSplineRows;
    }
  }
  const InsideBounds    bounds = MakeInsideBounds(geometry.input);
  const CoefficientGrid stored = StoredInputGrid<D>(geometry);
  const bool            fits32 = Indexable32(stored) && SupportFits32(stored);
  const RowsEvaluation  rowsEvaluation = !fits32                      ? RowsEvaluation::General
                                         : geometry.inputMirrorPadded ? RowsEvaluation::MirrorPadded
                                                                      : RowsEvaluation::InteriorThenFaces;
  for (std::int64_t slab = 0; slab < slabs.count; ++slab)
  {
    const ResampleGeometry g = SlabGeometry(geometry, slabs, slab);
    const std::int64_t     first = SlabFirstVoxel(slabs, slab);
    const std::int64_t     count = g.OutputCount();
    const TOutput          out = output.From(first);
    if (count == 0)
    {
      // nothing to launch
    }
    else if (path == Path::Rows)
    {
      // which voxels each thread takes: speed only, never values
      const RowShear   shear = MakeRowShear<D>(g, chain);
      const RowBuckets buckets =
        rowsEvaluation == RowsEvaluation::MirrorPadded ? MakeRowBuckets<D>(g, chain, shear) : RowBuckets{};
      const std::int64_t laneSize = g.outputSize[shear.laneAxis];
      const std::int64_t sheets = count / (laneSize * g.outputSize[shear.walkAxis]);
      const std::int64_t blockCount = (WalkLength(shear, buckets) + kBlockRows - 1) / kBlockRows * sheets *
                                      ((laneSize + kBlockColumns - 1) / kBlockColumns);
      if (blockCount > 0x7FFFFFFF)
      {
        throw CudaError("cubic resampling: an output of " + std::to_string(count) +
                        " voxels needs more thread blocks than one launch takes");
      }
      const unsigned int blocks = static_cast<unsigned int>(blockCount);
      const std::size_t  sharedBytes = sizeof(double) * RowsKernelSharedDoubles(shear, buckets);
      // The kernel for an evaluation, with the lanes along the rows (in buckets where
      // MakeRowBuckets takes them) or (D <= 3, the only outputs MakeRowShear turns them
      // for) across them.
      const auto launch = [&](auto evaluation) {
        constexpr RowsEvaluation evaluate = decltype(evaluation)::value;
        if (buckets.on)
        {
          if constexpr (D >= 2 && D <= 3 && evaluate == RowsEvaluation::MirrorPadded)
          {
            ResampleRowsKernel<D, TCoefficient, TOutput, evaluate, true, true>
              <<<blocks, kThreads, sharedBytes>>>(coefficients, g, chain, shear, buckets, bounds, out);
          }
        }
        else if (shear.laneAxis == 0)
        {
          ResampleRowsKernel<D, TCoefficient, TOutput, evaluate, true, false>
            <<<blocks, kThreads, sharedBytes>>>(coefficients, g, chain, shear, buckets, bounds, out);
        }
        else if constexpr (D <= 3)
        {
          ResampleRowsKernel<D, TCoefficient, TOutput, evaluate, false, false>
            <<<blocks, kThreads, sharedBytes>>>(coefficients, g, chain, shear, buckets, bounds, out);
        }
      };
      switch (rowsEvaluation)
      {
        case RowsEvaluation::MirrorPadded:
          launch(std::integral_constant<RowsEvaluation, RowsEvaluation::MirrorPadded>{});
          break;
        case RowsEvaluation::InteriorThenFaces:
          launch(std::integral_constant<RowsEvaluation, RowsEvaluation::InteriorThenFaces>{});
          break;
        default:
          launch(std::integral_constant<RowsEvaluation, RowsEvaluation::General>{});
      }
      CIF_CUDA_CHECK_LAUNCH();
    }
    else if (path == Path::BSplineRows)
    {
      if constexpr (D <= 3)
      {
        ResampleBSplineRowsKernel<D, TCoefficient, TOutput><<<BSplineRowBlocks(g), kThreads>>>(
          coefficients, g, chain.stage[0], bounds, out, VoxelLaneAxis<D>(g, chain) == 1);
        CIF_CUDA_CHECK_LAUNCH();
      }
    }
    else
    {
      ResampleKernel<D, TCoefficient, TOutput>
        <<<BlocksFor(count), kThreads>>>(coefficients,
                                         g,
                                         chain,
                                         mappedPoints ? mappedPoints + D * first : nullptr,
                                         out,
                                         mappedPoints ? 0 : VoxelLaneAxis<D>(g, chain));
      CIF_CUDA_CHECK_LAUNCH();
    }
    StageDone(afterSlab);
  }
}
} // namespace

template <int D, typename TCoefficient, typename TOut>
void
ResampleOnDevice(const TCoefficient *     coefficients,
                 const ResampleGeometry & geometry,
                 const TransformChain &   chain,
                 const double *           mappedPoints,
                 bool                     linearRows,
                 TOut                     defaultValue,
                 TOut *                   output,
                 const ResampleSlabs &    slabs,
                 const StageCallback &    afterSlab)
{
  if constexpr (std::is_same_v<TCoefficient, float> && std::is_same_v<TOut, float>)
  {
    ResampleScalarsOnDevice<D, TCoefficient>(coefficients,
                                             geometry,
                                             chain,
                                             mappedPoints,
                                             linearRows,
                                             TypedOutput<float>{ output, defaultValue },
                                             slabs,
                                             afterSlab);
  }
  else
  {
    ResampleScalarsOnDevice<D, TCoefficient>(coefficients,
                                             geometry,
                                             chain,
                                             mappedPoints,
                                             linearRows,
                                             ScalarOutput::Of(output, defaultValue),
                                             slabs,
                                             afterSlab);
  }
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
DisplacementFieldOnDevice(const ResampleGeometry & geometry,
                          const TransformChain &   chain,
                          TOut *                   field,
                          const ResampleSlabs &    slabs,
                          const StageCallback &    afterSlab)
{
  bool sharedRows = false; // chosen once for the whole output, as in ResampleOnDevice
  if constexpr (D <= 3)
  {
    sharedRows = RowsShareBSplineSupport<D>(geometry, chain);
  }
  for (std::int64_t slab = 0; slab < slabs.count; ++slab)
  {
    const ResampleGeometry g = SlabGeometry(geometry, slabs, slab);
    const std::int64_t     count = g.OutputCount();
    TOut *                 out = field + static_cast<std::int64_t>(D) * SlabFirstVoxel(slabs, slab);
    if (count > 0 && sharedRows)
    {
      if constexpr (D <= 3)
      {
        BSplineFieldRowsKernel<D, TOut><<<BSplineRowBlocks(g), kThreads>>>(g, chain.stage[0], out);
        CIF_CUDA_CHECK_LAUNCH();
      }
    }
    else if (count > 0)
    {
      DisplacementFieldKernel<D, TOut><<<BlocksFor(count), kThreads>>>(g, chain, out);
      CIF_CUDA_CHECK_LAUNCH();
    }
    StageDone(afterSlab);
  }
}

} // namespace cif

#endif
