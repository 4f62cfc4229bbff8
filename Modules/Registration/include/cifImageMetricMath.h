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
#ifndef cifImageMetricMath_h
#define cifImageMetricMath_h

#include "cifCubicInterpolation.h"
#include "cifHostDevice.h"
#include "cifImageFrame.h"
#include "cifPixelRounding.h"
#include "cifTransformChain.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

/** \file cifImageMetricMath.h
 * What an ITK v4 image metric does at one point of its virtual domain
 * (itk::ImageToImageMetricv4GetValueAndDerivativeThreaderBase::ProcessVirtualPoint),
 * as plain data and functions that the CUDA kernels and the CPU path share: the
 * point mapped into the fixed and the moving image, the masks, ITK's IsInsideBuffer,
 * the fixed value by linear interpolation, the moving value (linear or cubic
 * B-spline), the moving gradient (the gradient image linearly interpolated, or
 * central differences), and the moving transform split into the stage being
 * optimized and the fixed stages around it, so that the derivative can be formed as
 * an adjoint (a "force" per point, gathered per parameter) instead of ITK's
 * per-point Jacobian. 2-D and 3-D. */
namespace cif
{
/** A voxel's offset in an image buffer: 32-bit in device code, whose path takes
 * only images that FitsDeviceOffsets (the scene checks it; 64-bit integer
 * arithmetic costs a GPU several instructions an operation), 64-bit on the host.
 * The values are the same. */
#ifdef __CUDA_ARCH__
using MetricVoxelOffset = std::int32_t;
#else
using MetricVoxelOffset = std::int64_t;
#endif

/** A scalar (or, with interleaved components, vector) image as the metric reads it:
 * its buffer and ITK's physical-point-to-index map. */
template <typename TValue>
struct MetricImage
{
  const TValue * data = nullptr;
  std::int64_t   start[3] = { 0, 0, 0 };
  std::int64_t   size[3] = { 1, 1, 1 };
  /** start and start + size as doubles, and IsInsideBuffer's limits (start - 1/2,
   * start + size - 1/2): SetBufferGrid keeps them, so that the per-point tests
   * convert no integer. */
  double first[3] = { 0, 0, 0 };
  double end[3] = { 1, 1, 1 };
  double insideLow[3] = { -0.5, -0.5, -0.5 };
  double insideHigh[3] = { 0.5, 0.5, 0.5 };
  double origin[3] = { 0, 0, 0 };
  double pointToIndex[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };

  /** The buffer's grid along \a axis. */
  void
  SetBufferGrid(int axis, std::int64_t gridStart, std::int64_t gridSize)
  {
    start[axis] = gridStart;
    size[axis] = gridSize;
    first[axis] = static_cast<double>(gridStart);
    end[axis] = static_cast<double>(gridStart + gridSize);
    insideLow[axis] = first[axis] - 0.5;
    insideHigh[axis] = end[axis] - 0.5;
  }
};

/** Whether \a image's voxel offsets and indices fit MetricVoxelOffset's 32 bits:
 * fewer than 2^31 voxels, every index (and one past either end) an int32. */
template <typename TValue>
bool
FitsDeviceOffsets(const MetricImage<TValue> & image)
{
  constexpr std::int64_t limit = std::int64_t(1) << 30;
  std::int64_t           count = 1;
  for (int a = 0; a < 3; ++a)
  {
    if (image.start[a] <= -limit || image.start[a] >= limit || image.size[a] >= limit)
    {
      return false;
    }
    count *= image.size[a];
    if (count >= 2 * limit)
    {
      return false;
    }
  }
  return true;
}

/** p' = matrix p + offset (a composed chain of affine-family transforms). */
struct AffineMap
{
  double matrix[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
  double offset[3] = { 0, 0, 0 };
};

template <int D>
CIF_HD void
ApplyAffineMap(const AffineMap & map, const double p[3], double out[3])
{
  double r[3] = { 0, 0, 0 };
  for (int i = 0; i < D; ++i) // ITK: m_Matrix * point + m_Offset
  {
    for (int j = 0; j < D; ++j)
    {
      r[i] = MulAddUnfused(map.matrix[i][j], p[j], r[i]);
    }
    r[i] += map.offset[i];
  }
  for (int i = 0; i < 3; ++i)
  {
    out[i] = r[i];
  }
}

/** Whether \a map is exactly the identity (a fixed or surrounding stage that is
 * not there: the common case). Its product then returns the point itself (up to
 * the sign of a zero), so a kernel may skip the 2 D^2 roundings. */
inline bool
IsIdentityMap(const AffineMap & map)
{
  for (int i = 0; i < 3; ++i)
  {
    for (int j = 0; j < 3; ++j)
    {
      if (map.matrix[i][j] != (i == j ? 1.0 : 0.0))
      {
        return false;
      }
    }
    if (map.offset[i] != 0.0)
    {
      return false;
    }
  }
  return true;
}

/** ApplyAffineMap, or a copy of \a p where \a identity says the map is the identity. */
template <int D>
CIF_HD void
ApplyAffineMapUnless(bool identity, const AffineMap & map, const double p[3], double out[3])
{
  if (identity)
  {
    for (int i = 0; i < 3; ++i)
    {
      out[i] = p[i];
    }
    return;
  }
  ApplyAffineMap<D>(map, p, out);
}

/** ImageBase::TransformPhysicalPointToContinuousIndex. */
template <int D, typename TValue>
CIF_HD void
MetricContinuousIndex(const MetricImage<TValue> & image, const double p[3], double x[3])
{
  PhysicalPointToContinuousIndex<D, 3>(image.origin, image.pointToIndex, p, x);
}

/** ImageFunction::IsInsideBuffer(continuous index): start - 1/2 <= x < end + 1/2
 * (false for NaN). */
template <int D, typename TValue>
CIF_HD bool
MetricInsideBuffer(const MetricImage<TValue> & image, const double x[3])
{
  bool inside = true; // every axis tested, without a branch per comparison
  CIF_UNROLL
  for (int a = 0; a < D; ++a)
  {
    inside = inside & (x[a] >= image.insideLow[a]) & (x[a] < image.insideHigh[a]);
  }
  return inside;
}

/** itk::ImageMaskSpatialObject::IsInsideInObjectSpace (object-to-world identity):
 * the point's nearest index (rounded half up) inside the buffer and a nonzero pixel. */
template <int D>
CIF_HD bool
MetricMaskContains(const MetricImage<std::uint8_t> & mask, const double p[3])
{
  double x[3];
  MetricContinuousIndex<D>(mask, p, x);
  MetricVoxelOffset offset = 0, stride = 1;
  for (int a = 0; a < D; ++a)
  {
    const double rounded = floor(x[a] + 0.5);
    if (!(rounded >= mask.first[a] && rounded < mask.end[a]))
    {
      return false;
    }
    offset += (static_cast<MetricVoxelOffset>(rounded) - static_cast<MetricVoxelOffset>(mask.start[a])) * stride;
    stride *= static_cast<MetricVoxelOffset>(mask.size[a]);
  }
  return mask.data[offset] != 0;
}

/** The 2^D neighbours of itk::LinearInterpolateImageFunction at continuous index
 * \a x (inside the buffer) of \a image's buffer: the base index is floor(x) raised
 * to the buffer's start, a non-positive distance counts as 0, and a neighbour past
 * the buffer's end is the end sample. Per axis the lower and upper neighbour's
 * offset in the buffer (index x stride), so that each corner only adds them. */
template <int D>
struct LinearCorners
{
  MetricVoxelOffset lower[3] = { 0, 0, 0 };
  MetricVoxelOffset upper[3] = { 0, 0, 0 };
  double            distance[3] = { 0, 0, 0 };

  template <typename TValue>
  CIF_HD
  LinearCorners(const MetricImage<TValue> & image, const double x[3])
  {
    MetricVoxelOffset stride = 1;
    CIF_UNROLL
    for (int a = 0; a < D; ++a)
    {
      const auto   start = static_cast<MetricVoxelOffset>(image.start[a]);
      const auto   size = static_cast<MetricVoxelOffset>(image.size[a]);
      const double base = floor(x[a]);
      auto         b = static_cast<MetricVoxelOffset>(base);
      // The distance from the base as a double: floor(x) itself, or the start's
      // double where the base is raised (no integer converted back per point).
      const bool raised = b < start;
      b = raised ? start : b;
      const double d = x[a] - (raised ? image.first[a] : base);
      distance[a] = d > 0.0 ? d : 0.0;
      const MetricVoxelOffset last = start + size - 1;
      lower[a] = (b - start) * stride;
      upper[a] = ((b + 1 > last ? last : b + 1) - start) * stride;
      stride *= size;
    }
  }

  /** Corner \a corner's weight (products in ITK's axis order) and buffer offset. */
  CIF_HD double
  Corner(int corner, MetricVoxelOffset & offset) const
  {
    double weight = 1.0;
    offset = 0;
    CIF_UNROLL
    for (int a = 0; a < D; ++a)
    {
      const bool above = (corner >> a) & 1;
      weight *= above ? distance[a] : 1.0 - distance[a];
      offset += above ? upper[a] : lower[a];
    }
    return weight;
  }

  /** Whether every corner's weight factors are nonzero (each distance strictly
   * between 0 and 1), so that no corner is skipped. (A product of such factors
   * is 0 only below about 1e-100 each: a continuous index within that of 0.) */
  CIF_HD bool
  EveryCornerWeighs() const
  {
    bool every = true;
    CIF_UNROLL
    for (int a = 0; a < D; ++a)
    {
      every = every && distance[a] != 0.0 && 1.0 - distance[a] != 0.0;
    }
    return every;
  }

  /** Whether the index lies on a sample (every distance 0): corner 0 then weighs 1
   * and every other corner 0. */
  CIF_HD bool
  OnSample() const
  {
    bool on = true;
    CIF_UNROLL
    for (int a = 0; a < D; ++a)
    {
      on = on && distance[a] == 0.0;
    }
    return on;
  }
};

/** Four interleaved components of a voxel as one aligned unit (a buffer of them is
 * aligned to it), so that a GPU loads them with one or two vector loads. */
template <typename TValue>
struct alignas(4 * sizeof(TValue)) MetricFourComponents
{
  TValue value[4];
};

/** The samples of corners [\a first, \a first + \a N) of \a data (\a C interleaved
 * components): one load each, all issued before any is used (a corner's offsets
 * always lie inside the buffer). Four components (a buffer aligned to
 * MetricFourComponents) come as one unit. */
template <int D, int C, int N, typename TValue>
CIF_HD void
LoadLinearCorners(const LinearCorners<D> & corners, const TValue * data, int first, TValue sample[N][C])
{
  CIF_UNROLL
  for (int k = 0; k < N; ++k)
  {
    MetricVoxelOffset offset;
    corners.Corner(first + k, offset);
    if constexpr (C == 4)
    {
#ifdef __CUDA_ARCH__
      const MetricFourComponents<TValue> unit =
        reinterpret_cast<const MetricFourComponents<TValue> *>(data)[static_cast<std::ptrdiff_t>(offset)];
#else
      MetricFourComponents<TValue> unit;
      std::memcpy(&unit, data + 4 * static_cast<std::ptrdiff_t>(offset), sizeof(unit));
#endif
      CIF_UNROLL
      for (int c = 0; c < 4; ++c)
      {
        sample[k][c] = unit.value[c];
      }
    }
    else
    {
      CIF_UNROLL
      for (int c = 0; c < C; ++c)
      {
        sample[k][c] = data[C * static_cast<std::ptrdiff_t>(offset) + c];
      }
    }
  }
}

/** Corners loaded at once by SumLinearCorners: all of them, or four at a time for
 * four components (all eight of a 3-D point's would hold 32 registers: a kernel
 * then spills). */
template <int D, int C>
constexpr int kLinearCornerGroup = C == 4 && (1 << D) > 4 ? 4 : (1 << D);

/** The weighted sum of the 2^D corners of \a corners over \a data (\a C interleaved
 * components), in corner order, where a corner of weight 0 adds nothing. On a sample
 * one load; elsewhere the corners' loads overlap (LoadLinearCorners) instead of
 * adding up corner after corner as a branch per corner made them; where every
 * corner weighs (the common case off the samples) no corner is tested. */
template <int D, int C, typename TValue>
CIF_HD void
SumLinearCorners(const LinearCorners<D> & corners, const TValue * data, double sum[C])
{
  CIF_UNROLL
  for (int c = 0; c < C; ++c)
  {
    sum[c] = 0.0;
  }
  if (corners.OnSample())
  {
    MetricVoxelOffset offset;
    const double      weight = corners.Corner(0, offset);
    CIF_UNROLL
    for (int c = 0; c < C; ++c)
    {
      sum[c] += weight * static_cast<double>(data[C * static_cast<std::ptrdiff_t>(offset) + c]);
    }
    return;
  }
  // The loads in each branch: the form measured (Modules/Registration/README.md).
  constexpr int kGroup = kLinearCornerGroup<D, C>;
  TValue        sample[kGroup][C];
  if (corners.EveryCornerWeighs())
  {
    CIF_UNROLL
    for (int first = 0; first < (1 << D); first += kGroup)
    {
      LoadLinearCorners<D, C, kGroup>(corners, data, first, sample);
      CIF_UNROLL
      for (int k = 0; k < kGroup; ++k)
      {
        MetricVoxelOffset offset;
        const double      weight = corners.Corner(first + k, offset);
        CIF_UNROLL
        for (int c = 0; c < C; ++c)
        {
          sum[c] += weight * static_cast<double>(sample[k][c]);
        }
      }
    }
    return;
  }
  CIF_UNROLL
  for (int first = 0; first < (1 << D); first += kGroup)
  {
    LoadLinearCorners<D, C, kGroup>(corners, data, first, sample);
    CIF_UNROLL
    for (int k = 0; k < kGroup; ++k)
    {
      MetricVoxelOffset offset;
      const double      weight = corners.Corner(first + k, offset);
      CIF_UNROLL
      for (int c = 0; c < C; ++c)
      {
        sum[c] = weight != 0.0 ? sum[c] + weight * static_cast<double>(sample[k][c]) : sum[c];
      }
    }
  }
}

/** itk::LinearInterpolateImageFunction::Evaluate at continuous index \a x (inside
 * the buffer) of an image with \a C interleaved components (see LinearCorners). */
template <int D, int C, typename TValue>
CIF_HD void
MetricLinearInterpolate(const MetricImage<TValue> & image, const double x[3], double out[C])
{
  // Sums in locals, stored once: accumulating into the caller's array kept it in a
  // kernel's local memory (a store per corner and component).
  const LinearCorners<D> corners(image, x);
  double                 sum[C];
  SumLinearCorners<D, C>(corners, image.data, sum);
  CIF_UNROLL
  for (int c = 0; c < C; ++c)
  {
    out[c] = sum[c];
  }
}

/** MetricLinearInterpolate of a scalar image and of a D-component image on the same
 * buffer grid (the moving image and its gradient image) at once: the same sums, the
 * corners found once. */
template <int D, typename TValue>
CIF_HD void
MetricLinearInterpolateWithGradient(const MetricImage<TValue> & image,
                                    const MetricImage<TValue> & gradientImage,
                                    const double                x[3],
                                    double &                    value,
                                    double                      gradient[3])
{
  const LinearCorners<D> corners(image, x);
  double                 v, g[D];
  SumLinearCorners<D, 1>(corners, image.data, &v);
  SumLinearCorners<D, D>(corners, gradientImage.data, g);
  value = v;
  CIF_UNROLL
  for (int c = 0; c < D; ++c)
  {
    gradient[c] = g[c];
  }
}

/** MetricLinearInterpolateWithGradient from one buffer that holds, per voxel of
 * \a image's buffer grid, the value and its D gradient components (then zeros to
 * four: MetricFourComponents): one load a corner instead of 1 + D, the same sums. */
template <int D, typename TValue>
CIF_HD void
MetricLinearInterpolateValueAndGradient(const MetricImage<TValue> & image,
                                        const TValue *              valueAndGradient,
                                        const double                x[3],
                                        double &                    value,
                                        double                      gradient[3])
{
  static_assert(D + 1 <= 4, "value and gradient in four components");
  const LinearCorners<D> corners(image, x);
  double                 sum[4];
  SumLinearCorners<D, 4>(corners, valueAndGradient, sum);
  value = sum[0];
  CIF_UNROLL
  for (int c = 0; c < D; ++c)
  {
    gradient[c] = sum[1 + c];
  }
}

/** Whether two images share a buffer grid (start and size). */
template <int D, typename TA, typename TB>
CIF_HD bool
SameBufferGrid(const MetricImage<TA> & a, const MetricImage<TB> & b)
{
  bool same = true;
  for (int k = 0; k < D; ++k)
  {
    same = same && a.start[k] == b.start[k] && a.size[k] == b.size[k];
  }
  return same;
}

/** How the moving image is sampled: its value by linear interpolation (ITK's
 * default) or by the cubic B-spline of \a coefficients (BSplineInterpolateImageFunction,
 * order 3, the same buffer geometry); its gradient from the gradient image (ITK's
 * default GradientRecursiveGaussianImageFilter output, D interleaved components,
 * linearly interpolated) or, without one, by CentralDifferenceImageFunction (with
 * its default linear interpolator and UseImageDirection). */
template <typename TValue>
struct MovingSampling
{
  MetricImage<TValue> image;
  /** Double for float images too: ITK's BSplineInterpolateImageFunction<image,
   * double, double> (the cubic interpolator served) prefilters into double; float
   * coefficients put a moving value 1e-7 off, and Mattes' derivative, where its
   * points' forces cancel, up to 7e-5 of its norm off ITK's (2-D float, 300 seeds). */
  const double *      coefficients = nullptr;
  MetricImage<TValue> gradient; ///< data null: central differences
  /** Whether the gradient image shares the image's buffer grid (SameBufferGrid), so
   * that one set of corners serves both; set where the scene is built. */
  bool gradientOnImageGrid = false;
  /** Where not null: per voxel of the image's buffer grid the value and its gradient
   * in four components (MetricFourComponents; the GPU path builds it where the
   * gradient image shares the image's grid), read in place of both images. */
  const TValue * valueAndGradient = nullptr;
  double         spacing[3] = { 1, 1, 1 };
};

/** The moving value at physical point \a p with continuous index \a x (inside). */
template <int D, typename TValue>
CIF_HD double
MovingValueAt(const MovingSampling<TValue> & moving, const double x[3])
{
  if (moving.coefficients != nullptr)
  {
    CoefficientGrid grid;
    for (int a = 0; a < D; ++a)
    {
      grid.start[a] = moving.image.start[a];
      grid.size[a] = moving.image.size[a];
    }
    double index[kMaxGridDimension] = { 0, 0, 0, 0, 0, 0 };
    for (int a = 0; a < D; ++a)
    {
      index[a] = x[a];
    }
    return EvaluateCubic<D>(moving.coefficients, grid, index);
  }
  double value;
  MetricLinearInterpolate<D, 1>(moving.image, x, &value);
  return value;
}

/** The moving gradient at physical point \a p with continuous index \a x. */
template <int D, typename TValue>
CIF_HD void
MovingGradientAt(const MovingSampling<TValue> & moving, const double p[3], const double x[3], double gradient[3])
{
  if (moving.gradient.data != nullptr)
  {
    MetricLinearInterpolate<D, D>(moving.gradient, x, gradient);
    return;
  }
  // CentralDifferenceImageFunction::Evaluate(point): along each physical axis the
  // linear interpolant half a spacing either side, 0 where a neighbour is outside.
  // Unrolled, so that the gradient's components stay in registers.
  CIF_UNROLL
  for (int dim = 0; dim < D; ++dim)
  {
    double       below[3] = { p[0], p[1], p[2] };
    double       above[3] = { p[0], p[1], p[2] };
    const double offset = 0.5 * moving.spacing[dim];
    below[dim] = p[dim] - offset;
    above[dim] = p[dim] + offset;
    double xb[3], xa[3];
    MetricContinuousIndex<D>(moving.image, below, xb);
    MetricContinuousIndex<D>(moving.image, above, xa);
    const double delta = above[dim] - below[dim];
    if (!MetricInsideBuffer<D>(moving.image, xb) || !MetricInsideBuffer<D>(moving.image, xa) ||
        !(delta > 10.0 * 2.220446049250313e-16))
    {
      gradient[dim] = 0.0;
      continue;
    }
    double vb, va;
    MetricLinearInterpolate<D, 1>(moving.image, xb, &vb);
    MetricLinearInterpolate<D, 1>(moving.image, xa, &va);
    gradient[dim] = (va - vb) / delta;
  }
}

/** The moving transform as the metric sees it: fixed stages before (\a before) and
 * after (\a after) the one stage being optimized, which is affine-family (its
 * current matrix and offset) or a cubic B-spline (cifTransformChain.h's stage, with
 * the current coefficients). The moving point is after(optimized(before(v))). */
enum class OptimizedStageKind : int
{
  Affine = 0,
  BSpline = 1
};

struct MetricMovingTransform
{
  AffineMap          before;
  OptimizedStageKind kind = OptimizedStageKind::Affine;
  AffineMap          affine;
  TransformStage     bspline;
  AffineMap          after;
  /** Set by MarkIdentityStages just before a launch (false: always multiply). */
  bool beforeIsIdentity = false;
  bool afterIsIdentity = false;
};

/** The virtual domain's points: a dense grid (every index of the virtual region)
 * or a list of physical points. */
struct MetricDomain
{
  const double * points = nullptr; ///< D doubles per point; null: dense grid
  std::int64_t   count = 0;
  std::int64_t   start[3] = { 0, 0, 0 };
  std::int64_t   size[3] = { 1, 1, 1 };
  double         origin[3] = { 0, 0, 0 };
  double         indexToPoint[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
};

/** ImageBase::TransformIndexToPhysicalPoint of the dense grid's index \a index. */
template <int D>
CIF_HD void
VirtualPointAtIndex(const MetricDomain & domain, const double index[3], double v[3])
{
  for (int i = 0; i < 3; ++i)
  {
    double sum = domain.origin[i];
    if (i < D)
    {
      for (int j = 0; j < D; ++j)
      {
        sum = MulAddUnfused(domain.indexToPoint[i][j], index[j], sum);
      }
    }
    v[i] = i < D ? sum : 0.0;
  }
}

/** The dense grid's \a n-th index (in the region's x-fastest order) as a physical
 * point, or the n-th listed point. */
template <int D>
CIF_HD void
VirtualPointOf(const MetricDomain & domain, std::int64_t n, double v[3])
{
  if (domain.points != nullptr)
  {
    for (int a = 0; a < 3; ++a)
    {
      v[a] = a < D ? domain.points[D * n + a] : 0.0;
    }
    return;
  }
  // 32-bit division (the domain has fewer than 2^31 points: the scene checks it); a
  // 64-bit division costs a GPU several times as many instructions.
  double        index[3] = { 0, 0, 0 };
  std::uint32_t rest = static_cast<std::uint32_t>(n);
  for (int a = 0; a < D; ++a)
  {
    const auto size = static_cast<std::uint32_t>(domain.size[a]);
    index[a] = static_cast<double>(domain.start[a] + static_cast<std::int64_t>(rest % size));
    rest /= size;
  }
  VirtualPointAtIndex<D>(domain, index, v);
}

/** Everything a metric evaluation keeps between iterations. */
template <typename TValue>
struct MetricScene
{
  MetricDomain              domain;
  AffineMap                 fixedTransform;          ///< virtual -> fixed
  bool                      fixedIsIdentity = false; ///< set by MarkIdentityStages (false: always multiply)
  MetricImage<TValue>       fixed;
  MetricImage<std::uint8_t> fixedMask; ///< data null: no mask
  MovingSampling<TValue>    moving;
  MetricImage<std::uint8_t> movingMask; ///< data null: no mask
};

/** The identity flags of \a scene's fixed transform and \a transform's surrounding
 * stages, from the maps themselves (done on the copies a launch passes, so a flag
 * never outlives its map). */
template <typename TValue>
void
MarkIdentityStages(MetricScene<TValue> & scene, MetricMovingTransform & transform)
{
  scene.fixedIsIdentity = IsIdentityMap(scene.fixedTransform);
  transform.beforeIsIdentity = IsIdentityMap(transform.before);
  transform.afterIsIdentity = IsIdentityMap(transform.after);
}

/** One point's samples as ITK's ProcessVirtualPoint leaves them for the metric's
 * ProcessPoint: valid, the fixed and moving values (in the pixel type, as ITK
 * stores them), the moving gradient, and the optimized stage's input point \a q. */
struct MetricPointSample
{
  bool   valid = false;
  double fixedValue = 0.0;
  double movingValue = 0.0;
  double movingGradient[3] = { 0, 0, 0 };
  double q[3] = { 0, 0, 0 };
};

/** The optimized stage as MetricMovingTransform holds it: its current affine map or
 * B-spline (a callable stage for SampleMetricPointThrough). */
struct OptimizedStageOf
{
  const MetricMovingTransform & transform;

  template <int D>
  CIF_HD void
  Apply(const double q[3], double y[3]) const
  {
    if (transform.kind == OptimizedStageKind::Affine)
    {
      ApplyAffineMap<D>(transform.affine, q, y);
    }
    else
    {
      ApplyBSpline<D>(transform.bspline, q, y);
    }
  }
};

/** ProcessVirtualPoint for virtual point \a v, with the optimized stage given as
 * \a stage (a type with Apply<D>(q, y)): the cell-box path passes the displacement
 * it has already formed separably for the point. */
template <int D, typename TValue, typename TStage>
CIF_HD MetricPointSample
SampleMetricPointThrough(const MetricScene<TValue> &   scene,
                         const MetricMovingTransform & transform,
                         const TStage &                stage,
                         const double                  v[3],
                         bool                          withGradient)
{
  // Locals, and the sample formed once at the end: a sample filled in place stayed
  // in a kernel's local memory.
  double f[3];
  ApplyAffineMapUnless<D>(scene.fixedIsIdentity, scene.fixedTransform, v, f);
  if (scene.fixedMask.data != nullptr && !MetricMaskContains<D>(scene.fixedMask, f))
  {
    return MetricPointSample{};
  }
  double xf[3];
  MetricContinuousIndex<D>(scene.fixed, f, xf);
  if (!MetricInsideBuffer<D>(scene.fixed, xf))
  {
    return MetricPointSample{};
  }
  double fixedValue;
  MetricLinearInterpolate<D, 1>(scene.fixed, xf, &fixedValue);

  double q[3];
  ApplyAffineMapUnless<D>(transform.beforeIsIdentity, transform.before, v, q);
  double y[3];
  stage.template Apply<D>(q, y);
  double m[3];
  ApplyAffineMapUnless<D>(transform.afterIsIdentity, transform.after, y, m);
  if (scene.movingMask.data != nullptr && !MetricMaskContains<D>(scene.movingMask, m))
  {
    return MetricPointSample{};
  }
  double xm[3];
  MetricContinuousIndex<D>(scene.moving.image, m, xm);
  if (!MetricInsideBuffer<D>(scene.moving.image, xm))
  {
    return MetricPointSample{};
  }
  const MovingSampling<TValue> & moving = scene.moving;
  double                         movingValue, gradient[3] = { 0, 0, 0 };
  if (withGradient && moving.coefficients == nullptr && moving.valueAndGradient != nullptr)
  {
    MetricLinearInterpolateValueAndGradient<D>(moving.image, moving.valueAndGradient, xm, movingValue, gradient);
  }
  else if (withGradient && moving.coefficients == nullptr && moving.gradient.data != nullptr &&
           moving.gradientOnImageGrid)
  {
    MetricLinearInterpolateWithGradient<D>(moving.image, moving.gradient, xm, movingValue, gradient);
  }
  else
  {
    movingValue = MovingValueAt<D>(moving, xm);
    if (withGradient)
    {
      MovingGradientAt<D>(moving, m, xm, gradient);
    }
  }
  MetricPointSample s;
  // ITK keeps both values in the pixel type (mappedFixedPixelValue, ...).
  s.fixedValue = RoundToPixelType<TValue>(fixedValue);
  s.movingValue = RoundToPixelType<TValue>(movingValue);
  for (int a = 0; a < 3; ++a)
  {
    s.movingGradient[a] = gradient[a];
    s.q[a] = q[a];
  }
  s.valid = true;
  return s;
}

/** ProcessVirtualPoint for virtual point \a v. */
template <int D, typename TValue>
CIF_HD MetricPointSample
SampleMetricPoint(const MetricScene<TValue> &   scene,
                  const MetricMovingTransform & transform,
                  const double                  v[3],
                  bool                          withGradient)
{
  return SampleMetricPointThrough<D>(scene, transform, OptimizedStageOf{ transform }, v, withGradient);
}

/** The derivative of the moving point with respect to the optimized stage's output,
 * transposed, applied to \a g: the force pulled back through the fixed stages after
 * the optimized one (h = after.matrix^T g). */
template <int D>
CIF_HD void
PullBackThroughAfter(const MetricMovingTransform & transform, const double g[3], double h[3])
{
  if (transform.afterIsIdentity)
  {
    for (int j = 0; j < 3; ++j)
    {
      h[j] = j < D ? g[j] : 0.0;
    }
    return;
  }
  for (int j = 0; j < 3; ++j)
  {
    double sum = 0.0;
    if (j < D)
    {
      for (int i = 0; i < D; ++i)
      {
        sum += transform.after.matrix[i][j] * g[i];
      }
    }
    h[j] = sum;
  }
}

/** Number of affine moments kept per evaluation: the force's sum (D) and its
 * products with the offset of q from the reference point (D x D). */
template <int D>
constexpr int kAffineMoments = D + D * D;

/** What a metric evaluation sums over the points: the number of valid points, the
 * metric's sums, and for an affine-family optimized stage the force's moments. */
constexpr int kMaxMetricSums = 2 + 3 + 9;
} // namespace cif

#endif
