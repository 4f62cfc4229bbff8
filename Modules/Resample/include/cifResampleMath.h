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
#ifndef cifResampleMath_h
#define cifResampleMath_h

#include "cifCubicInterpolation.h"
#include "cifImageFrame.h"
#include "cifMirrorPadding.h"
#include "cifTransformChain.h"

#include <limits>
#include <type_traits>

/** \file cifResampleMath.h
 * One output voxel of itk::ResampleImageFilter with a cubic
 * BSplineInterpolateImageFunction, as ITK computes it: output index -> physical
 * point -> transform -> input continuous index -> inside test -> cubic spline ->
 * cast with bounds checking. Shared by the CUDA kernels and the CPU path. */
namespace cif
{
/** Output and input geometry of a resampling (1-D to 4-D), in double. */
struct ResampleGeometry
{
  std::int64_t    outputSize[kMaxDimension] = { 1, 1, 1, 1 };
  std::int64_t    outputStart[kMaxDimension] = { 0, 0, 0, 0 };
  double          outputOrigin[kMaxDimension] = { 0, 0, 0, 0 };
  double          outputIndexToPoint[kMaxDimension][kMaxDimension] = { { 1, 0, 0, 0 },
                                                                       { 0, 1, 0, 0 },
                                                                       { 0, 0, 1, 0 },
                                                                       { 0, 0, 0, 1 } };
  CoefficientGrid input;
  double          inputOrigin[kMaxDimension] = { 0, 0, 0, 0 };
  /** First index and length along axis 0 of the output's largest possible region:
   * ITK's scanline interpolation for linear transforms is defined over it. */
  std::int64_t lineStart = 0;
  std::int64_t lineLength = 1;
  double       inputPointToIndex[kMaxDimension][kMaxDimension] = { { 1, 0, 0, 0 },
                                                                   { 0, 1, 0, 0 },
                                                                   { 0, 0, 1, 0 },
                                                                   { 0, 0, 0, 1 } };
  /** Whether the coefficients are a mirror-padded buffer of \a input
   * (MirrorPaddedCount samples, ITK's mirror in the halo: cifMirrorPadding.h) rather
   * than \a input's dense samples. The inside test is \a input's either way; only
   * where the samples lie changes. */
  bool inputMirrorPadded = false;

  CIF_HD std::int64_t
         OutputCount() const
  {
    return outputSize[0] * outputSize[1] * outputSize[2] * outputSize[3];
  }

  /** Output rows (lines along axis 0): the product of the other axes' sizes. */
  CIF_HD std::int64_t
         OutputRows() const
  {
    return outputSize[1] * outputSize[2] * outputSize[3];
  }
};

/** The grid the coefficients are stored on (see ResampleGeometry::inputMirrorPadded). */
template <int D>
CIF_HD CoefficientGrid
StoredInputGrid(const ResampleGeometry & g)
{
  return g.inputMirrorPadded ? MirrorPaddedGrid<D>(g.input) : g.input;
}

/** The first sample of StoredInputGrid in the coefficient buffer \a coefficients. */
template <typename T>
CIF_HD const T *
StoredInputGridStart(const T * coefficients, const ResampleGeometry & g)
{
  return g.inputMirrorPadded ? MirrorPaddedGridStart(coefficients) : coefficients;
}

/** Physical point of an output index (ImageBase::TransformIndexToPhysicalPoint). */
template <int D>
CIF_HD void
IndexToOutputPoint(const ResampleGeometry & g, const std::int64_t index[kMaxDimension], double p[kMaxDimension])
{
  for (int i = 0; i < kMaxDimension; ++i)
  {
    p[i] = 0.0;
  }
  for (int i = 0; i < D; ++i)
  {
    p[i] = g.outputOrigin[i];
    for (int j = 0; j < D; ++j)
    {
      p[i] = MulAddUnfused(g.outputIndexToPoint[i][j], static_cast<double>(index[j]), p[i]);
    }
  }
}

/** ImageBase::TransformIndexToPhysicalPoint for output voxel number \a linear. */
template <int D>
CIF_HD void
OutputPoint(const ResampleGeometry & g, std::int64_t linear, double p[kMaxDimension])
{
  std::int64_t index[kMaxDimension] = { 0, 0, 0, 0 };
  if (g.OutputCount() < 0xFFFFFFFFll)
  {
    // 32-bit division where it suffices: 64-bit division is a long instruction
    // sequence on the GPU, and every voxel does two.
    auto rest = static_cast<std::uint32_t>(linear);
    for (int a = 0; a < D; ++a)
    {
      const auto size = static_cast<std::uint32_t>(g.outputSize[a]);
      index[a] = g.outputStart[a] + rest % size;
      rest /= size;
    }
  }
  else
  {
    for (int a = 0; a < D; ++a)
    {
      index[a] = g.outputStart[a] + linear % g.outputSize[a];
      linear /= g.outputSize[a];
    }
  }
  IndexToOutputPoint<D>(g, index, p);
}

/** ImageBase::TransformPhysicalPointToContinuousIndex into the input. */
template <int D>
CIF_HD void
InputContinuousIndex(const ResampleGeometry & g, const double q[kMaxDimension], double x[kMaxDimension])
{
  PhysicalPointToContinuousIndex<D>(g.inputOrigin, g.inputPointToIndex, q, x);
}

/** ResampleImageFilter::CastPixelWithBoundsChecking: clamp to the type's range,
 * then convert (integers truncate toward zero). */
template <typename TOut>
CIF_HD TOut
CastWithBoundsChecking(double value)
{
  const double high = static_cast<double>(std::numeric_limits<TOut>::max());
  const double low = std::is_integral_v<TOut> ? static_cast<double>(std::numeric_limits<TOut>::lowest())
                                              : -static_cast<double>(std::numeric_limits<TOut>::max());
  if (value >= high)
  {
    return std::numeric_limits<TOut>::max();
  }
  if (value <= low)
  {
    return static_cast<TOut>(low);
  }
  return static_cast<TOut>(value);
}

/** The input continuous index that output index \a index maps to, as
 * ResampleImageFilter maps it: index -> physical point -> transform -> continuous
 * index. */
template <int D, bool AffineOnly = false>
CIF_HD void
OutputIndexToInputIndex(const ResampleGeometry & g,
                        const TransformChain &   chain,
                        const std::int64_t       index[kMaxDimension],
                        double                   x[kMaxDimension])
{
  double p[kMaxDimension], q[kMaxDimension];
  IndexToOutputPoint<D>(g, index, p);
  ApplyTransformChain<D, AffineOnly>(chain, p, q);
  InputContinuousIndex<D>(g, q, x);
}

/** Input continuous indices at the two ends of output row \a row (rows numbered
 * over axes 1.. of the output region, axis 1 fastest), as ResampleImageFilter's
 * linear path takes them: at the largest region's first index along axis 0 and one
 * past its last. \a start and \a end have kMaxDimension entries. */
template <int D, bool AffineOnly = false>
CIF_HD void
RowEndpoints(const ResampleGeometry & g,
             const TransformChain &   chain,
             std::int64_t             row,
             double                   start[kMaxDimension],
             double                   end[kMaxDimension])
{
  std::int64_t index[kMaxDimension] = { g.lineStart, 0, 0, 0 };
  for (int a = 1; a < D; ++a)
  {
    index[a] = g.outputStart[a] + row % g.outputSize[a];
    row /= g.outputSize[a];
  }
  OutputIndexToInputIndex<D, AffineOnly>(g, chain, index, start);
  index[0] += g.lineLength;
  OutputIndexToInputIndex<D, AffineOnly>(g, chain, index, end);
}

/** ResampleImageFilter's linear path places output voxel \a x of a row (the offset
 * within the output region along axis 0) at this fraction of the way between the
 * row's endpoints. The same for every row: the kernels divide once per column. */
CIF_HD double
RowFraction(const ResampleGeometry & g, std::int64_t x)
{
  return static_cast<double>(g.outputStart[0] + x - g.lineStart) / static_cast<double>(g.lineLength);
}

/** The continuous index at fraction \a alpha (RowFraction) of a row from \a start to \a end. */
template <int D>
CIF_HD void
ContinuousIndexOnRow(const double start[kMaxDimension],
                     const double end[kMaxDimension],
                     double       alpha,
                     double       index[kMaxDimension])
{
  for (int a = 0; a < kMaxDimension; ++a)
  {
    index[a] = 0.0;
  }
  for (int a = 0; a < D; ++a)
  {
    index[a] = MulAddUnfused(alpha, end[a] - start[a], start[a]);
  }
}

template <int D>
CIF_HD void
ContinuousIndexOnRow(const ResampleGeometry & g,
                     const double             start[kMaxDimension],
                     const double             end[kMaxDimension],
                     std::int64_t             x,
                     double                   index[kMaxDimension])
{
  ContinuousIndexOnRow<D>(start, end, RowFraction(g, x), index);
}

/** Output voxel \a x of a row of ResampleImageFilter's linear path (the CPU's; the
 * GPU's kernel computes the same terms): the continuous index at its fraction of the
 * row (RowFraction), the inside test, then as ResampleVoxel. */
template <int D, typename TCoefficient, typename TOut>
CIF_HD TOut
ResampleVoxelOnRow(const TCoefficient *     coefficients,
                   const ResampleGeometry & g,
                   const double             start[kMaxDimension],
                   const double             end[kMaxDimension],
                   std::int64_t             x,
                   TOut                     defaultValue)
{
  double index[kMaxDimension];
  ContinuousIndexOnRow<D>(g, start, end, x, index);
  if (!InsideBuffer<D>(index, g.input))
  {
    return defaultValue;
  }
  return CastWithBoundsChecking<TOut>(
    EvaluateCubic<D>(StoredInputGridStart(coefficients, g), StoredInputGrid<D>(g), index));
}

/** One output voxel's value before the conversion to the output type: false where
 * the point maps outside the input (the voxel takes the default value). \a mappedPoint,
 * when given, is the transformed physical point (D coordinates) computed elsewhere
 * (transforms the device does not evaluate); otherwise \a chain maps the output point. */
template <int D, typename TCoefficient>
CIF_HD bool
ResampleVoxelValue(const TCoefficient *     coefficients,
                   const ResampleGeometry & g,
                   const TransformChain &   chain,
                   const double *           mappedPoint,
                   std::int64_t             linear,
                   double &                 value)
{
  double q[kMaxDimension] = { 0, 0, 0, 0 };
  if (mappedPoint)
  {
    for (int a = 0; a < D; ++a)
    {
      q[a] = mappedPoint[a];
    }
  }
  else
  {
    double p[kMaxDimension];
    OutputPoint<D>(g, linear, p);
    ApplyTransformChain<D>(chain, p, q);
  }
  double x[kMaxDimension];
  InputContinuousIndex<D>(g, q, x);
  if (!InsideBuffer<D>(x, g.input))
  {
    return false;
  }
  value = EvaluateCubic<D>(StoredInputGridStart(coefficients, g), StoredInputGrid<D>(g), x);
  return true;
}

/** One output voxel (ResampleVoxelValue, converted as ResampleImageFilter converts). */
template <int D, typename TCoefficient, typename TOut>
CIF_HD TOut
ResampleVoxel(const TCoefficient *     coefficients,
              const ResampleGeometry & g,
              const TransformChain &   chain,
              const double *           mappedPoint,
              std::int64_t             linear,
              TOut                     defaultValue)
{
  double value;
  return ResampleVoxelValue<D, TCoefficient>(coefficients, g, chain, mappedPoint, linear, value)
           ? CastWithBoundsChecking<TOut>(value)
           : defaultValue;
}
} // namespace cif

#endif
