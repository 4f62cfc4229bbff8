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
// An image as the metric reads it (grid, mask, linear and cubic sampling, gradient): cifImageMetricMath.h's inputs.
#ifndef cifMetricImageSampling_h
#define cifMetricImageSampling_h

#include "cifCubicInterpolation.h"
#include "cifHostDevice.h"
#include "cifImageFrame.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

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
  // The loads in each branch: the form measured (commits aaa1035 and 708e35a).
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
} // namespace cif

#endif
