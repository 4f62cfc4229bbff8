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
#ifndef cifImageFrame_h
#define cifImageFrame_h

#include "cifCubicInterpolation.h"
#include "cifHostDevice.h"
#include "cifMaxDimension.h"
#include "cifOutsideRule.h"

/** \file cifImageFrame.h
 * An image's physical frame (origin, spacing, direction and ITK's point-to-index
 * matrix) and cubic B-spline evaluation at physical points through it, as
 * itk::BSplineInterpolateImageFunction (order 3) evaluates at a point: the point
 * mapped to a continuous index as ImageBase::TransformPhysicalPointToContinuousIndex
 * does, the index-space derivative divided by the spacing, then rotated by the
 * direction (ImageBase::TransformLocalVectorToPhysicalVector). One definition for the
 * CPU path and the CUDA kernels; 1-D to kMaxGridDimension-D. */
namespace cif
{
struct ImageFrame
{
  static constexpr int N = kMaxGridDimension;
  double               origin[N] = { 0, 0, 0, 0, 0, 0 };
  double               spacing[N] = { 1, 1, 1, 1, 1, 1 };
  double               direction[N][N] = { { 1, 0, 0, 0, 0, 0 }, { 0, 1, 0, 0, 0, 0 }, { 0, 0, 1, 0, 0, 0 },
                                           { 0, 0, 0, 1, 0, 0 }, { 0, 0, 0, 0, 1, 0 }, { 0, 0, 0, 0, 0, 1 } };
  /** ImageBase's m_PhysicalPointToIndex: (direction * diag(spacing))^-1. */
  double pointToIndex[N][N] = { { 1, 0, 0, 0, 0, 0 }, { 0, 1, 0, 0, 0, 0 }, { 0, 0, 1, 0, 0, 0 },
                                { 0, 0, 0, 1, 0, 0 }, { 0, 0, 0, 0, 1, 0 }, { 0, 0, 0, 0, 0, 1 } };
};
static_assert(kMaxGridDimension == 6, "ImageFrame's initializers list 6 axes");

/** ImageBase::TransformPhysicalPointToContinuousIndex of an image with \a origin and
 * point-to-index matrix \a pointToIndex: (p - origin), then the matrix, each row
 * summed from zero in column order (no fused multiply-add: ITK's inside tests and
 * supports are decided by the last bit). The resampler's input side (N =
 * kMaxDimension) and point evaluation (N = kMaxGridDimension) both map through
 * here; \a index gets N entries, those past D zero. */
template <int D, int N>
CIF_HD void
PhysicalPointToContinuousIndex(const double origin[],
                               const double pointToIndex[][N],
                               const double point[],
                               double       index[])
{
  static_assert(D <= N, "the matrix holds D axes");
  for (int i = 0; i < N; ++i)
  {
    index[i] = 0.0;
  }
  for (int i = 0; i < D; ++i)
  {
    for (int j = 0; j < D; ++j)
    {
      index[i] = MulAddUnfused(pointToIndex[i][j], point[j] - origin[j], index[i]);
    }
  }
}

template <int D>
CIF_HD void
PhysicalPointToContinuousIndex(const ImageFrame & frame, const double point[], double index[ImageFrame::N])
{
  PhysicalPointToContinuousIndex<D>(frame.origin, frame.pointToIndex, point, index);
}

/** The spline's value at physical \a point and, with \a gradient (D entries), its
 * physical gradient: BSplineInterpolateImageFunction::Evaluate and EvaluateDerivative
 * (with UseImageDirection, ITK's default). Points outside the grid's extent as
 * \a outside says (cifOutsideRule.h; by default ITK's mirror). */
template <int D, typename TCoefficient>
CIF_HD double
EvaluateCubicAtPhysicalPoint(const TCoefficient *    coefficients,
                             const CoefficientGrid & grid,
                             const ImageFrame &      frame,
                             const double            point[],
                             double *                gradient,
                             const OutsideRule &     outside = OutsideRule{})
{
  double index[ImageFrame::N];
  PhysicalPointToContinuousIndex<D>(frame, point, index);
  unsigned int clampedAxes = 0;
  if (!ApplyOutsideRule<D>(outside, grid, index, clampedAxes))
  {
    if (gradient)
    {
      const double slope = outside.value == outside.value ? 0.0 : outside.value; // NaN stays NaN
      for (int a = 0; a < D; ++a)
      {
        gradient[a] = slope;
      }
    }
    return outside.value;
  }
  double       indexGradient[ImageFrame::N] = { 0, 0, 0, 0, 0, 0 };
  const double value = EvaluateCubic<D>(coefficients, grid, index, gradient ? indexGradient : nullptr);
  if (gradient)
  {
    double local[ImageFrame::N];
    for (int a = 0; a < D; ++a)
    {
      local[a] = (clampedAxes >> a) & 1u ? 0.0 : indexGradient[a] / frame.spacing[a];
    }
    for (int i = 0; i < D; ++i)
    {
      double sum = 0.0;
      for (int j = 0; j < D; ++j)
      {
        sum = MulAddUnfused(frame.direction[i][j], local[j], sum);
      }
      gradient[i] = sum;
    }
  }
  return value;
}
} // namespace cif

#endif
