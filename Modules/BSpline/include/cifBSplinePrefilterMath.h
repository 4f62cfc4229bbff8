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
#ifndef cifBSplinePrefilterMath_h
#define cifBSplinePrefilterMath_h

#include "cifBSplinePoles.h"
#include "cifBoundaryMode.h"
#include "cifHostDevice.h"

#include <cstdint>

/** \file cifBSplinePrefilterMath.h
 * The 1-D recursive B-spline prefilter (Unser 1999, Box 2), written once for the CPU
 * path and the CUDA kernels. Accessors are anything with operator[](int64_t);
 * starting values are summed in double, as itk::BSplineDecompositionImageFilter does.
 *
 * Per pole z the filter is a causal sweep c+[k] = x[k] + z c+[k-1] and an anticausal
 * sweep c[k] = z (c[k+1] - c+[k]), which unrolls to c[k] = -z sum_j z^j c+[k+j]. The
 * boundary mode decides how the signal continues past its ends and so the two
 * starting values; Mirror reproduces ITK's code term for term. */
namespace cif
{

/** Starting value c+[0] of the causal sweep over x[0..n-1] (n >= 2). */
template <typename Line>
CIF_HD double
CausalInitialValue(const Line & x, std::int64_t n, double z, int horizon, BoundaryMode mode)
{
  if (mode == BoundaryMode::ClampToEdge)
  {
    // x[-k] = x[0] for all k: a geometric series.
    return static_cast<double>(x[0]) / (1.0 - z);
  }
  if (mode == BoundaryMode::HalfSampleMirror)
  {
    // x[-k] = x[k-1] for k >= 1, so c+[0] = x[0] + z sum_{m>=0} z^m y[m] with y the
    // extension of period 2n (y[m] = x[m], then x[2n-1-m]). Truncated after
    // \a horizon terms when that is shorter than the line, else closed exactly:
    // one period weighs x[m] by z^m + z^(2n-1-m), the periods by 1 / (1 - z^(2n)).
    if (horizon < n)
    {
      double sum = 0;
      double zm = 1.0;
      for (int m = 0; m < horizon; ++m)
      {
        sum += zm * static_cast<double>(x[m]);
        zm *= z;
      }
      return static_cast<double>(x[0]) + z * sum;
    }
    const double z2n = pow(z, static_cast<double>(2 * n));
    double       zm = 1.0;
    double       zMirror = z2n / z; // z^(2n-1-m) for m = 0
    const double iz = 1.0 / z;
    double       sum = 0;
    for (std::int64_t m = 0; m < n; ++m)
    {
      sum += (zm + zMirror) * static_cast<double>(x[m]);
      zm *= z;
      zMirror *= iz;
    }
    return static_cast<double>(x[0]) + z * sum / (1.0 - z2n);
  }
  if (mode == BoundaryMode::Periodic)
  {
    // x[-k] = x[n-k]: sum over one period, closed exactly when it is short.
    const bool         exact = horizon >= n;
    const std::int64_t terms = exact ? n : horizon;
    double             sum = x[0];
    double             zk = z;
    for (std::int64_t k = 1; k < terms; ++k)
    {
      sum += zk * static_cast<double>(x[n - k]);
      zk *= z;
    }
    return exact ? sum / (1.0 - zk) : sum;
  }
  // Mirror, exactly as itk::BSplineDecompositionImageFilter::SetInitialCausalCoefficient.
  if (horizon < n)
  {
    double sum = x[0];
    double zn = z;
    for (int k = 1; k < horizon; ++k)
    {
      sum += zn * static_cast<double>(x[k]);
      zn *= z;
    }
    return sum;
  }
  const double iz = 1.0 / z;
  double       zn = z;
  double       z2n = pow(z, static_cast<double>(n - 1));
  double       sum = static_cast<double>(x[0]) + z2n * static_cast<double>(x[n - 1]);
  z2n *= z2n * iz;
  for (std::int64_t k = 1; k <= n - 2; ++k)
  {
    sum += (zn + z2n) * static_cast<double>(x[k]);
    zn *= z;
    z2n *= iz;
  }
  return sum / (1.0 - zn * zn);
}

/** Starting value c[n-1] of the anticausal sweep, given the causal result c+ (n >= 2). */
template <typename Line>
CIF_HD double
AnticausalInitialValue(const Line & c, std::int64_t n, double z, int horizon, BoundaryMode mode)
{
  const double last = c[n - 1];
  const double beforeLast = c[n - 2];
  if (mode == BoundaryMode::ClampToEdge)
  {
    // Past the end the input is the constant x[n-1] = c+[n-1] - z c+[n-2], so
    // c+[n-1+j] = a + z^j d with a = x[n-1]/(1-z), d = c+[n-1] - a.
    const double a = (last - z * beforeLast) / (1.0 - z);
    const double d = last - a;
    return -z * (a / (1.0 - z) + d / (1.0 - z * z));
  }
  if (mode == BoundaryMode::HalfSampleMirror)
  {
    // Past the end the input repeats the line backwards (x[n-1+j] = x[n-j]); the
    // sum of the anticausal series over that extension closes to z / (z - 1) c+[n-1].
    return z / (z - 1.0) * last;
  }
  if (mode == BoundaryMode::Periodic)
  {
    // c+ is periodic too: c+[n-1+j] = c+[(n-1+j) mod n].
    const bool         exact = horizon >= n;
    const std::int64_t terms = exact ? n : horizon;
    double             sum = last;
    double             zk = z;
    for (std::int64_t j = 1; j < terms; ++j)
    {
      sum += zk * static_cast<double>(c[j - 1]);
      zk *= z;
    }
    return -z * (exact ? sum / (1.0 - zk) : sum);
  }
  // Mirror (ITK's SetInitialAntiCausalCoefficient).
  return (z / (z * z - 1.0)) * (z * beforeLast + last);
}

/** The whole prefilter of one line of \a n samples, in place, all poles, with the
 * gain. A line of one sample is left as it is (ITK: "required by mirror boundaries"). */
template <typename T, typename Line>
CIF_HD void
PrefilterLine(Line & c, std::int64_t n, const SplinePoles & poles, BoundaryMode mode)
{
  if (n < 2 || poles.count == 0)
  {
    return;
  }
  const T gain = static_cast<T>(poles.gain);
  for (std::int64_t k = 0; k < n; ++k)
  {
    c[k] *= gain;
  }
  for (int p = 0; p < poles.count; ++p)
  {
    const double z = poles.pole[p];
    const T      zt = static_cast<T>(z);
    c[0] = static_cast<T>(CausalInitialValue(c, n, z, poles.horizon[p], mode));
    for (std::int64_t k = 1; k < n; ++k)
    {
      c[k] += zt * c[k - 1];
    }
    c[n - 1] = static_cast<T>(AnticausalInitialValue(c, n, z, poles.horizon[p], mode));
    for (std::int64_t k = n - 2; k >= 0; --k)
    {
      c[k] = zt * (c[k + 1] - c[k]);
    }
  }
}

/** The GPU passes' tiles (cifPrefilterTile.cuh): each line of a tile is cut into this
 * many chunks, swept in parallel and joined by carrying the recursion's state; a
 * tile takes at most kPrefilterMaxTileBytes of shared memory (longer lines take one
 * thread a line in global memory). Here so that host code can plan cuts on chunk
 * bounds (cifChainedAxisPass.h). */
inline constexpr int kPrefilterChunksPerLine = 16;
inline constexpr int kPrefilterMaxTileBytes = 100 * 1024; // three blocks of float 512-lines per SM

/** A line of samples \a stride elements apart. */
template <typename T>
struct StridedLine
{
  T *          base;
  std::int64_t stride;
  CIF_HD T &
  operator[](std::int64_t k) const
  {
    return base[k * stride];
  }
};

/** Axes a prefiltered buffer may have: 1-D images to 6-D tables. The per-axis
 * passes see one axis at a time (AxisLines), so the kernels are the same for any. */
constexpr int kMaxBufferDimension = 6;

/** Shape of an interleaved image buffer: up to kMaxBufferDimension axes, \a
 * components scalars per pixel, the first axis fastest (ITK's layout). Sizes are
 * 64-bit throughout. */
struct BufferShape
{
  int          dimension = 1;
  std::int64_t size[kMaxBufferDimension] = { 1, 1, 1, 1, 1, 1 };
  int          components = 1;

  CIF_HD std::int64_t
         ScalarCount() const
  {
    std::int64_t count = components;
    for (int d = 0; d < dimension; ++d)
    {
      count *= size[d];
    }
    return count;
  }
};

/** Where the samples of a buffer of some BufferShape lie: component c of sample
 * (i_0, ..., i_{D-1}) at origin + c + sum_a i_a stride[a]. DenseLayout packs them as
 * ITK does; a padded layout leaves room around them (the resampler's coefficients
 * with a mirrored halo, cifMirrorPadding.h). */
struct BufferLayout
{
  std::int64_t origin = 0;
  std::int64_t stride[kMaxBufferDimension] = { 0, 0, 0, 0, 0, 0 };
};

/** ITK's layout of \a shape: components interleaved, the first axis fastest. */
inline BufferLayout
DenseLayout(const BufferShape & shape)
{
  BufferLayout layout;
  std::int64_t step = shape.components;
  for (int d = 0; d < kMaxBufferDimension; ++d)
  {
    layout.stride[d] = step;
    step *= d < shape.dimension ? shape.size[d] : 1;
  }
  return layout;
}

/** Whether \a layout is DenseLayout(shape) along the axes \a shape uses. */
inline bool
IsDenseLayout(const BufferShape & shape, const BufferLayout & layout)
{
  const BufferLayout dense = DenseLayout(shape);
  bool               same = layout.origin == 0;
  for (int d = 0; d < shape.dimension; ++d)
  {
    same = same && layout.stride[d] == dense.stride[d];
  }
  return same;
}

/** The lines of one axis: \a count lines of \a length samples, \a stride apart.
 * Line numbers run fastest over what lies below the axis in memory (components,
 * lower axes), so neighbouring lines are neighbouring addresses whenever stride > 1.
 * Start() reads a line number as digits over the other axes (components first), each
 * digit times its stride in the buffer's layout; digits that are contiguous in memory
 * are merged, so a dense buffer has at most two (below and above the axis). */
struct AxisLines
{
  std::int64_t length = 1;
  std::int64_t stride = 1;
  std::int64_t count = 0;
  std::int64_t origin = 0;
  int          digits = 0;
  std::int64_t digitSize[kMaxBufferDimension] = { 1, 1, 1, 1, 1, 1 };
  std::int64_t digitStride[kMaxBufferDimension] = { 0, 0, 0, 0, 0, 0 };

  CIF_HD std::int64_t
         Start(std::int64_t line) const
  {
    std::int64_t offset = origin;
    for (int i = 0; i + 1 < digits; ++i)
    {
      offset += (line % digitSize[i]) * digitStride[i];
      line /= digitSize[i];
    }
    return digits > 0 ? offset + line * digitStride[digits - 1] : offset;
  }

  /** Appends a digit of \a size values \a step apart (merged into the last digit
   * where it continues it in memory; a single value adds nothing). */
  CIF_HD void
  AddDigit(std::int64_t size, std::int64_t step)
  {
    if (size == 1)
    {
      return;
    }
    if (digits > 0 && digitStride[digits - 1] * digitSize[digits - 1] == step)
    {
      digitSize[digits - 1] *= size;
      return;
    }
    digitSize[digits] = size;
    digitStride[digits] = step;
    ++digits;
  }
};

/** The lines along \a axis of a buffer of \a shape stored at \a layout. */
inline AxisLines
MakeAxisLines(const BufferShape & shape, int axis, const BufferLayout & layout)
{
  AxisLines lines;
  lines.length = shape.size[axis];
  lines.stride = layout.stride[axis];
  lines.count = lines.length > 0 ? shape.ScalarCount() / lines.length : 0;
  lines.origin = layout.origin;
  lines.AddDigit(shape.components, 1);
  for (int d = 0; d < shape.dimension; ++d)
  {
    if (d != axis)
    {
      lines.AddDigit(shape.size[d], layout.stride[d]);
    }
  }
  return lines;
}

/** The lines along \a axis of a dense buffer of \a shape. */
inline AxisLines
MakeAxisLines(const BufferShape & shape, int axis)
{
  return MakeAxisLines(shape, axis, DenseLayout(shape));
}

} // namespace cif

#endif
