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
// SyN's per-voxel steps on displacement fields (compose, smooth, invert, scale, warp): the CPU path's and the kernels'
// math.
#ifndef cifDisplacementFieldMath_h
#define cifDisplacementFieldMath_h

#include "CudaImageFiltersExport.h"
#include "cifImageMetricMath.h"
#include "cifTransformChain.h"
#include "cifUnfusedArithmetic.h"

#include <cmath>
#include <cstdint>
#include <vector>

/** \file cifDisplacementFieldMath.h
 * What itk::SyNImageRegistrationMethod does to its fields, one voxel at a time, as
 * ITK's filters do it: ComposeDisplacementFieldsImageFilter, the directional
 * GaussianOperator passes of VectorNeighborhoodOperatorImageFilter (zero-flux Neumann
 * border) and SyN's boundary blend, InvertDisplacementFieldImageFilter's two passes,
 * ScaleUpdateField, and ResampleImageFilter's linear warp. Every step is a functor
 * with operator()(n) over the virtual grid's voxels (x fastest), run by a kernel or by
 * the CPU path's loop; the reductions return a sum and a maximum. Fields hold D
 * doubles per voxel (itk::Vector<double, D>). */
namespace cif
{
/** The virtual grid: its buffer's size and start (fields and images on it share
 * its linear order), and its points (MetricDomain's index-to-point map). */
struct FieldGrid
{
  MetricDomain domain; ///< dense: start, size, origin, indexToPoint; count = voxels
  double       spacing[3] = { 1, 1, 1 };
};

/** The index of voxel \a n on \a grid. */
template <int D>
CIF_HD void
GridIndexOf(const FieldGrid & grid, std::int64_t n, std::int64_t index[3])
{
  for (int a = 0; a < 3; ++a)
  {
    index[a] = 0;
  }
  for (int a = 0; a < D; ++a)
  {
    index[a] = n % grid.domain.size[a];
    n /= grid.domain.size[a];
  }
}

/** Whether voxel \a n lies on the buffer's border as SyN's smoothing and
 * InvertDisplacementFieldImageFilter test it: index = start or index = size - start - 1
 * along an axis (ITK's expression, the same as start + size - 1 for a start of 0). */
template <int D>
CIF_HD bool
OnFieldBorder(const FieldGrid & grid, std::int64_t n)
{
  std::int64_t index[3];
  GridIndexOf<D>(grid, n, index);
  bool border = false;
  for (int a = 0; a < D; ++a)
  {
    const std::int64_t i = index[a] + grid.domain.start[a];
    border = border || i == grid.domain.start[a] || i == grid.domain.size[a] - grid.domain.start[a] - 1;
  }
  return border;
}

/** ComposeDisplacementFieldsImageFilter: out(x) = (x + w(x)) + u(x + w(x)) - x, with
 * u (\a update, a displacement-field stage) linearly interpolated where x + w(x) lies
 * on it. */
template <int D>
struct ComposeFields
{
  FieldGrid      grid;
  TransformStage update; ///< kind DisplacementField, field: the update's data
  const double * warping = nullptr;
  double *       out = nullptr;

  CIF_HD void
  operator()(std::int64_t n) const
  {
    double p1[3], p2[3] = { 0, 0, 0 }, p3[3] = { 0, 0, 0 };
    VirtualPointOf<D>(grid.domain, n, p1);
    for (int a = 0; a < D; ++a)
    {
      p2[a] = AddUnfused(p1[a], warping[n * D + a]);
    }
    ApplyDisplacementField<D>(update, p2, p3);
    for (int a = 0; a < D; ++a)
    {
      out[n * D + a] = SubUnfused(p3[a], p1[a]);
    }
  }
};

/** One directional pass of VectorNeighborhoodOperatorImageFilter with a
 * GaussianOperator along \a axis: out(x) = sum_k c_k in(x + (k - r) e_axis), the
 * neighbour's index clamped to the buffer (ZeroFluxNeumannBoundaryCondition). */
template <int D>
struct SmoothFieldAxis
{
  FieldGrid      grid;
  int            axis = 0;
  int            radius = 0;
  const double * coefficients = nullptr; ///< 2 radius + 1, ITK's GaussianOperator
  const double * in = nullptr;
  double *       out = nullptr;

  CIF_HD void
  operator()(std::int64_t n) const
  {
    std::int64_t index[3];
    GridIndexOf<D>(grid, n, index);
    std::int64_t stride = 1;
    for (int a = 0; a < axis; ++a)
    {
      stride *= grid.domain.size[a];
    }
    const std::int64_t last = grid.domain.size[axis] - 1;
    double             sum[3] = { 0, 0, 0 };
    for (int k = 0; k <= 2 * radius; ++k)
    {
      std::int64_t i = index[axis] + k - radius;
      i = i < 0 ? 0 : (i > last ? last : i);
      const double * v = in + (n + (i - index[axis]) * stride) * D;
      for (int a = 0; a < D; ++a)
      {
        sum[a] = MulAddUnfused(coefficients[k], v[a], sum[a]);
      }
    }
    for (int a = 0; a < D; ++a)
    {
      out[n * D + a] = sum[a];
    }
  }
};

/** SyN's GaussianSmoothDisplacementField after the passes: zero on the buffer's
 * border (ITK's test: index = start or index = size - start - 1), elsewhere
 * smoothed x weight1 + field x weight2. */
template <int D>
struct BlendSmoothedField
{
  FieldGrid      grid;
  double         weight1 = 1.0;
  double         weight2 = 0.0;
  const double * field = nullptr;
  double *       smoothed = nullptr; ///< in: the passes' result; out: the blend

  CIF_HD void
  operator()(std::int64_t n) const
  {
    const bool border = OnFieldBorder<D>(grid, n);
    for (int a = 0; a < D; ++a)
    {
      smoothed[n * D + a] =
        border ? 0.0 : AddUnfused(MulUnfused(smoothed[n * D + a], weight1), MulUnfused(field[n * D + a], weight2));
    }
  }
};

/** The norm of a displacement in voxels: sqrt(sum (v_a / spacing_a)^2), as
 * ScaleUpdateField forms it (\a multiplyByInverse false) or as
 * InvertDisplacementFieldImageFilter does (v_a x (1 / spacing_a)). */
template <int D>
CIF_HD double
VoxelNorm(const double * v, const double spacing[3], bool multiplyByInverse)
{
  double sum = 0.0;
  for (int a = 0; a < D; ++a)
  {
    const double scaled = multiplyByInverse ? MulUnfused(v[a], 1.0 / spacing[a]) : v[a] / spacing[a];
    sum = AddUnfused(sum, MulUnfused(scaled, scaled));
  }
  return sqrt(sum);
}

/** ScaleUpdateField's first part, a reduction: the largest voxel norm (the sum is
 * unused). */
template <int D>
struct LargestVoxelNorm
{
  FieldGrid      grid;
  const double * field = nullptr;

  CIF_HD void
  operator()(std::int64_t n, double & sum, double & largest) const
  {
    (void)sum;
    const double norm = VoxelNorm<D>(field + n * D, grid.spacing, false);
    largest = norm > largest ? norm : largest;
  }
};

/** field x scale (MultiplyImageFilter with a constant). */
template <int D>
struct ScaleField
{
  double   scale = 1.0;
  double * field = nullptr;

  CIF_HD void
  operator()(std::int64_t n) const
  {
    for (int a = 0; a < D; ++a)
    {
      field[n * D + a] = MulUnfused(field[n * D + a], scale);
    }
  }
};

/** InvertDisplacementFieldImageFilter's first pass over the composed field (the
 * field applied after the inverse estimate): each voxel's norm in voxels into
 * \a scaledNorm, the composed vector negated in place; a reduction of the norms'
 * sum and maximum. */
template <int D>
struct InverseError
{
  FieldGrid grid;
  double *  composed = nullptr;
  double *  scaledNorm = nullptr;

  CIF_HD void
  operator()(std::int64_t n, double & sum, double & largest) const
  {
    double *     v = composed + n * D;
    const double norm = VoxelNorm<D>(v, grid.spacing, true);
    sum += norm;
    largest = largest < norm ? norm : largest;
    scaledNorm[n] = norm;
    for (int a = 0; a < D; ++a)
    {
      v[a] = -v[a];
    }
  }
};

/** InvertDisplacementFieldImageFilter's second pass: the update (the negated error)
 * limited to epsilon x the largest error, added with weight epsilon to the inverse;
 * zero on the buffer's border (its EnforceBoundaryCondition, ITK's index test). */
template <int D>
struct InverseUpdate
{
  FieldGrid      grid;
  double         epsilon = 0.5;
  double         largestError = 0.0;
  const double * update = nullptr;     ///< InverseError's negated field
  const double * scaledNorm = nullptr; ///< InverseError's norms
  double *       inverse = nullptr;

  CIF_HD void
  operator()(std::int64_t n) const
  {
    double u[3] = { 0, 0, 0 };
    for (int a = 0; a < D; ++a)
    {
      u[a] = update[n * D + a];
    }
    const double norm = scaledNorm[n];
    const double limit = MulUnfused(epsilon, largestError);
    if (norm > limit)
    {
      const double factor = limit / norm;
      for (int a = 0; a < D; ++a)
      {
        u[a] = MulUnfused(u[a], factor);
      }
    }
    const bool border = OnFieldBorder<D>(grid, n);
    for (int a = 0; a < D; ++a)
    {
      inverse[n * D + a] = border ? 0.0 : AddUnfused(inverse[n * D + a], MulUnfused(u[a], epsilon));
    }
  }
};

/** ResampleImageFilter with ITK's linear interpolator and a default value of 0: the
 * image at chain(x) for each voxel x of the grid, in the pixel type. */
template <int D, typename TValue>
struct WarpImage
{
  FieldGrid           grid;
  TransformChain      chain;
  MetricImage<TValue> image;
  TValue *            out = nullptr;

  CIF_HD void
  operator()(std::int64_t n) const
  {
    double v[3], p[kMaxDimension] = { 0, 0, 0, 0 }, q[kMaxDimension] = { 0, 0, 0, 0 };
    VirtualPointOf<D>(grid.domain, n, v);
    for (int a = 0; a < 3; ++a)
    {
      p[a] = v[a];
    }
    ApplyTransformChain<D>(chain, p, q);
    double x[3];
    MetricContinuousIndex<D>(image, q, x);
    double value = 0.0;
    if (MetricInsideBuffer<D>(image, x))
    {
      MetricLinearInterpolate<D, 1>(image, x, &value);
    }
    out[n] = static_cast<TValue>(value);
  }
};

/** Runs \a f over voxels [0, count) on the host: \a parallelFor(count, body) runs
 * body(i) for i in [0, count) (itk::MakeParallelFor). */
template <typename TFunctor, typename TParallelFor>
void
ForEachVoxelOnHost(const TFunctor & f, std::int64_t count, TParallelFor && parallelFor)
{
  constexpr std::int64_t chunk = 4096;
  parallelFor((count + chunk - 1) / chunk, [&](std::int64_t c) {
    const std::int64_t end = (c + 1) * chunk < count ? (c + 1) * chunk : count;
    for (std::int64_t n = c * chunk; n < end; ++n)
    {
      f(n);
    }
  });
}

/** The reduction \a f over voxels [0, count) on the host: kFieldReduceBlocks runs of
 * voxels (as the device's blocks: a fixed order), summed in order. */
constexpr int kFieldReduceBlocks = 1024;
template <typename TFunctor, typename TParallelFor>
void
ReduceVoxelsOnHost(const TFunctor & f, std::int64_t count, TParallelFor && parallelFor, double & sum, double & largest)
{
  sum = 0.0;
  largest = 0.0;
  if (count <= 0)
  {
    return;
  }
  const std::int64_t  blocks = count < kFieldReduceBlocks ? count : kFieldReduceBlocks;
  const std::int64_t  perBlock = (count + blocks - 1) / blocks;
  std::vector<double> results(static_cast<std::size_t>(2 * blocks), 0.0);
  parallelFor(blocks, [&](std::int64_t b) {
    const std::int64_t end = (b + 1) * perBlock < count ? (b + 1) * perBlock : count;
    for (std::int64_t n = b * perBlock; n < end; ++n)
    {
      f(n, results[2 * b], results[2 * b + 1]);
    }
  });
  for (std::int64_t b = 0; b < blocks; ++b)
  {
    sum += results[2 * b];
    largest = largest < results[2 * b + 1] ? results[2 * b + 1] : largest;
  }
}

/** The device steps SyN runs, instantiated in the device build and its stand-in. */
#define CIF_INSTANTIATE_FIELD_STEPS(D)                                                                    \
  template void ForEachVoxelOnDevice<ComposeFields<D>>(const ComposeFields<D> &, std::int64_t);           \
  template void ForEachVoxelOnDevice<SmoothFieldAxis<D>>(const SmoothFieldAxis<D> &, std::int64_t);       \
  template void ForEachVoxelOnDevice<BlendSmoothedField<D>>(const BlendSmoothedField<D> &, std::int64_t); \
  template void ForEachVoxelOnDevice<ScaleField<D>>(const ScaleField<D> &, std::int64_t);                 \
  template void ForEachVoxelOnDevice<InverseUpdate<D>>(const InverseUpdate<D> &, std::int64_t);           \
  template void ForEachVoxelOnDevice<WarpImage<D, float>>(const WarpImage<D, float> &, std::int64_t);     \
  template void ForEachVoxelOnDevice<WarpImage<D, double>>(const WarpImage<D, double> &, std::int64_t);   \
  template void ReduceVoxelsOnDevice<LargestVoxelNorm<D>>(                                                \
    const LargestVoxelNorm<D> &, std::int64_t, double &, double &);                                       \
  template void ReduceVoxelsOnDevice<InverseError<D>>(const InverseError<D> &, std::int64_t, double &, double &)

/** Runs \a f over voxels [0, count) on the device (cifDisplacementFieldKernels.cu). */
template <typename TFunctor>
CudaImageFilters_EXPORT void
ForEachVoxelOnDevice(const TFunctor & f, std::int64_t count);

/** The reduction \a f over voxels [0, count) on the device: block sums in a fixed
 * order (the same bits on every run), the maximum. */
template <typename TFunctor>
CudaImageFilters_EXPORT void
ReduceVoxelsOnDevice(const TFunctor & f, std::int64_t count, double & sum, double & largest);
} // namespace cif

#endif
