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
#ifndef cifVTKResliceMath_h
#define cifVTKResliceMath_h

#include "cifVTKResliceJob.h"

#include <cstdint>

/** \file cifVTKResliceMath.h
 * One output voxel of vtkImageReslice with a degree-3 vtkImageBSplineInterpolator,
 * written once for the CUDA kernel and the CPU path, step by step as VTK 9.1 does it
 * (vtkImageResliceExecute, vtkImageBSplineInterpolator, vtkInterpolationMath): the
 * position summed incrementally from the index matrix in double, the transform, the
 * interpolator's bounds test, the fixed-point floor, the border mode, the weights and
 * the sum over z, y, x in double, ScalarShift/ScalarScale, and the conversion to the
 * output type (clamped and rounded for integers). */
namespace cif
{
namespace vtkmath
{

template <PointSource S>
CIF_HD void
PositionFromMatrix(const ResliceJob & job, int i, int j, int k, double p[3]);

/** The input position (index space) of output voxel (i, j, k); \a S is job.source
 * (a template argument, so that a kernel carries only the code of its source). */
template <PointSource S>
CIF_HD void
InputPosition(const ResliceJob & job, int i, int j, int k, std::int64_t voxel, double p[3])
{
  if constexpr (S == PointSource::Given)
  {
    p[0] = job.points[3 * voxel];
    p[1] = job.points[3 * voxel + 1];
    p[2] = job.points[3 * voxel + 2];
    return;
  }
  else
  {
    PositionFromMatrix<S>(job, i, j, k, p);
  }
}

/** Index matrix (and perspective divide), then the device stages if \a S says so. */
template <PointSource S>
CIF_HD void
PositionFromMatrix(const ResliceJob & job, int i, int j, int k, double p[3])
{
  // origin + k zAxis, then + j yAxis, then + i xAxis (vtkImageResliceExecute)
  double q[4];
  CIF_UNROLL
  for (int r = 0; r < 4; ++r)
  {
    const double z = Add(job.matrix[r][3], Mul(static_cast<double>(k), job.matrix[r][2]));
    const double y = Add(z, Mul(static_cast<double>(j), job.matrix[r][1]));
    q[r] = Add(y, Mul(static_cast<double>(i), job.matrix[r][0]));
  }
  if (job.perspective)
  {
#if defined(__CUDA_ARCH__)
    const double f = __drcp_rn(q[3]);
#else
    const double f = 1 / q[3];
#endif
    q[0] = Mul(q[0], f);
    q[1] = Mul(q[1], f);
    q[2] = Mul(q[2], f);
  }
  p[0] = q[0];
  p[1] = q[1];
  p[2] = q[2];
  if constexpr (S == PointSource::Stages)
  {
    ApplyStages(job.stages, p);
    for (int a = 0; a < 3; ++a)
    {
      p[a] = Mul(Sub(p[a], job.inputOrigin[a]), job.inputInverseSpacing[a]);
    }
  }
}

/** vtkAbstractImageInterpolator::CheckBoundsIJK (a NaN position counts as inside, as
 * there). */
CIF_HD bool
InsideBounds(const ResliceJob & job, const double p[3])
{
  return !(p[0] < job.bounds[0] || p[0] > job.bounds[1] || p[1] < job.bounds[2] || p[1] > job.bounds[3] ||
           p[2] < job.bounds[4] || p[2] > job.bounds[5]);
}

/** The support of one axis: four offsets (in scalars, of type TOffset: 32 bits on the
 * device where the input has fewer than 2^31 scalars, fewer instructions per tap) and
 * four weights; one of each for a single-sample axis. Returns the number of taps. */
template <typename TOffset>
CIF_HD int
AxisSupport(const ResliceJob & job, int axis, double x, TOffset offset[4], double weight[4])
{
  double        f;
  const int     first = FixedFloor(x, f) - 1;
  const int     lo = job.inputExtent[2 * axis], hi = job.inputExtent[2 * axis + 1];
  const TOffset increment = static_cast<TOffset>(job.inputIncrement[axis]);
  if (first >= lo && first + 3 <= hi)
  {
    // All four inside the extent, where every border mode is the identity: the
    // offsets BorderIndex gives, without its branches and divisions (most voxels).
    const TOffset base = static_cast<TOffset>(first - lo) * increment;
    CIF_UNROLL
    for (int l = 0; l < 4; ++l)
    {
      offset[l] = base + static_cast<TOffset>(l) * increment;
    }
  }
  else
  {
    CIF_UNROLL
    for (int l = 0; l < 4; ++l)
    {
      offset[l] = static_cast<TOffset>(BorderIndex(first + l, lo, hi, job.border)) * increment;
    }
  }
  if (lo == hi)
  {
    weight[0] = 1.0;
    return 1;
  }
  CubicWeights(f, weight);
  return 4;
}

/** The separable support of one input position: offsets (in scalars) and weights
 * per axis, computed once for all components. */
template <typename TOffset>
struct Support
{
  TOffset offset[3][4];
  double  weight[3][4];
  int     taps[3];
};

template <typename TOffset>
CIF_HD void
MakeSupport(const ResliceJob & job, const double p[3], Support<TOffset> & s)
{
  CIF_UNROLL
  for (int a = 0; a < 3; ++a)
  {
    s.taps[a] = AxisSupport(job, a, p[a], s.offset[a], s.weight[a]);
  }
}

/** One component at the support, in double: over z, then y, the x sum of each row
 * weighted by wz wy (vtkImageBSplineInterpolate::BSpline). */
template <typename TIn, typename TOffset>
CIF_HD double
InterpolateComponent(const ResliceJob & job, const Support<TOffset> & s, int component)
{
  const TIn * c = static_cast<const TIn *>(job.input) + component;
  double      sum = 0;
  // Loops of a fixed four with the taps as a guard: unrolled, the support stays in
  // registers; a single-sample axis takes its one tap, as in VTK.
  CIF_UNROLL
  for (int k = 0; k < 4; ++k)
  {
    if (k < s.taps[2])
    {
      CIF_UNROLL
      for (int j = 0; j < 4; ++j)
      {
        if (j < s.taps[1])
        {
          const double wzy = Mul(s.weight[2][k], s.weight[1][j]);
          const TIn *  row = c + (s.offset[2][k] + s.offset[1][j]);
          double       line = 0;
          CIF_UNROLL
          for (int i = 0; i < 4; ++i)
          {
            if (i < s.taps[0])
            {
              line = Add(line, Mul(s.weight[0][i], static_cast<double>(row[s.offset[0][i]])));
            }
          }
          sum = Add(sum, Mul(wzy, line));
        }
      }
    }
  }
  return sum;
}

/** The support where all four taps of every axis lie inside the input extent (most
 * voxels), where every border mode is the identity: the offset of its first sample
 * (in scalars) and the weights per axis, the same as MakeSupport's. Returns false
 * (and nothing else is valid) where any tap would need the border mode. */
template <typename TOffset>
CIF_HD bool
InteriorSupport(const ResliceJob & job, const double p[3], TOffset & firstOffset, double weight[3][4])
{
  TOffset offset = 0;
  CIF_UNROLL
  for (int a = 0; a < 3; ++a)
  {
    double    f;
    const int first = FixedFloor(p[a], f) - 1;
    const int lo = job.inputExtent[2 * a];
    if (first < lo || first + 3 > job.inputExtent[2 * a + 1])
    {
      return false;
    }
    offset += static_cast<TOffset>(first - lo) * static_cast<TOffset>(job.inputIncrement[a]);
    CubicWeights(f, weight[a]);
  }
  firstOffset = offset;
  return true;
}

/** InterpolateComponent's sum over an interior support (InteriorSupport) whose first
 * sample is \a first: the same operations in the same order, the addresses formed
 * per row instead of per tap. kStrideX is the input's x increment where the caller
 * knows it (1: one-component input; the four taps of a row then load at constant
 * offsets from the row's address), 0 for the job's. */
template <typename TIn, typename TOffset, int kStrideX = 0>
CIF_HD double
InterpolateInterior(const ResliceJob & job, const TIn * first, const double weight[3][4])
{
  const TOffset incX = kStrideX != 0 ? kStrideX : static_cast<TOffset>(job.inputIncrement[0]);
  const TOffset incY = static_cast<TOffset>(job.inputIncrement[1]);
  const TOffset incZ = static_cast<TOffset>(job.inputIncrement[2]);
  double        sum = 0;
  CIF_UNROLL
  for (int k = 0; k < 4; ++k)
  {
    const TIn * plane = first + static_cast<TOffset>(k) * incZ;
    CIF_UNROLL
    for (int j = 0; j < 4; ++j)
    {
      const double wzy = Mul(weight[2][k], weight[1][j]);
      const TIn *  row = plane + static_cast<TOffset>(j) * incY;
      double       line = 0;
      CIF_UNROLL
      for (int i = 0; i < 4; ++i)
      {
        line = Add(line, Mul(weight[0][i], static_cast<double>(row[static_cast<TOffset>(i) * incX])));
      }
      sum = Add(sum, Mul(wzy, line));
    }
  }
  return sum;
}

/** vtkImageReslice's conversion of a double to the output type (clamping on: the
 * B-spline interpolator is not a vtkImageInterpolator, so VTK forces it). */
template <typename T>
CIF_HD T
ConvertClamped(double v, double lo, double hi)
{
  v = v > lo ? v : lo;
  v = v < hi ? v : hi;
  return static_cast<T>(FixedRound(v));
}

CIF_HD void
Store(void * output, ScalarKind kind, std::int64_t index, double v)
{
  switch (kind)
  {
    case ScalarKind::Int8:
      static_cast<std::int8_t *>(output)[index] = ConvertClamped<std::int8_t>(v, -128.0, 127.0);
      break;
    case ScalarKind::UInt8:
      static_cast<std::uint8_t *>(output)[index] = ConvertClamped<std::uint8_t>(v, 0.0, 255.0);
      break;
    case ScalarKind::Int16:
      static_cast<std::int16_t *>(output)[index] = ConvertClamped<std::int16_t>(v, -32768.0, 32767.0);
      break;
    case ScalarKind::UInt16:
      static_cast<std::uint16_t *>(output)[index] = ConvertClamped<std::uint16_t>(v, 0.0, 65535.0);
      break;
    case ScalarKind::Int32:
      static_cast<std::int32_t *>(output)[index] = ConvertClamped<std::int32_t>(v, -2147483648.0, 2147483647.0);
      break;
    case ScalarKind::UInt32:
      static_cast<std::uint32_t *>(output)[index] = ConvertClamped<std::uint32_t>(v, 0.0, 4294967295.0);
      break;
    case ScalarKind::Float32:
      static_cast<float *>(output)[index] = static_cast<float>(v);
      break;
    case ScalarKind::Float64:
      static_cast<double *>(output)[index] = v;
      break;
  }
}

/** Output voxel (i, j, k) of job.outputExtent, number \a voxel (x fastest), every
 * component; \a S is job.source, \a TOffset the type of the input offsets. */
template <typename TIn, PointSource S, typename TOffset = std::int64_t>
CIF_HD void
ResliceVoxelAt(const ResliceJob & job, int i, int j, int k, std::int64_t voxel)
{
  double p[3];
  InputPosition<S>(job, i, j, k, voxel, p);
  const std::int64_t first = voxel * job.components;
  if (!InsideBounds(job, p))
  {
    for (int c = 0; c < job.components; ++c)
    {
      Store(job.output, job.outputKind, first + c, c < 4 ? job.background[c] : 0.0);
    }
    return;
  }
  const bool rescale = job.scalarShift != 0.0 || job.scalarScale != 1.0;
  // The interior support where it applies (the device's unit-stride kernel takes the
  // same path, so the CPU tests check its bits against VTK), the general one elsewhere.
  TOffset          firstOffset = 0;
  double           weight[3][4];
  const bool       interior = InteriorSupport(job, p, firstOffset, weight);
  Support<TOffset> support;
  if (!interior)
  {
    MakeSupport(job, p, support);
  }
  for (int c = 0; c < job.components; ++c)
  {
    double v = interior
                 ? InterpolateInterior<TIn, TOffset>(job, static_cast<const TIn *>(job.input) + firstOffset + c, weight)
                 : InterpolateComponent<TIn>(job, support, c);
    if (rescale)
    {
      v = Mul(Add(v, job.scalarShift), job.scalarScale);
    }
    Store(job.output, job.outputKind, first + c, v);
  }
}

/** Output voxel number \a voxel of job.outputExtent (x fastest), every component. */
template <typename TIn, PointSource S>
CIF_HD void
ResliceVoxel(const ResliceJob & job, std::int64_t voxel)
{
  const std::int64_t nx = job.OutputSize(0), ny = job.OutputSize(1);
  const int          i = job.outputExtent[0] + static_cast<int>(voxel % nx);
  const int          j = job.outputExtent[2] + static_cast<int>((voxel / nx) % ny);
  const int          k = job.outputExtent[4] + static_cast<int>(voxel / (nx * ny));
  ResliceVoxelAt<TIn, S>(job, i, j, k, voxel);
}

} // namespace vtkmath
} // namespace cif

#endif
