#ifndef cifImageFrame_h
#define cifImageFrame_h

#include "cifCubicInterpolation.h"
#include "cifHostDevice.h"
#include "cifMaxDimension.h"

/** \file cifImageFrame.h
 * An image's physical frame (origin, spacing, direction and ITK's point-to-index
 * matrix) and cubic B-spline evaluation at physical points through it, as
 * itk::BSplineInterpolateImageFunction (order 3) evaluates at a point: the point
 * mapped to a continuous index as ImageBase::TransformPhysicalPointToContinuousIndex
 * does, the index-space derivative divided by the spacing, then rotated by the
 * direction (ImageBase::TransformLocalVectorToPhysicalVector). One definition for the
 * CPU path and the CUDA kernels. */
namespace cif
{
struct ImageFrame
{
  double origin[kMaxDimension] = { 0, 0, 0, 0 };
  double spacing[kMaxDimension] = { 1, 1, 1, 1 };
  double direction[kMaxDimension][kMaxDimension] = { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 } };
  /** ImageBase's m_PhysicalPointToIndex: (direction * diag(spacing))^-1. */
  double pointToIndex[kMaxDimension][kMaxDimension] = { { 1, 0, 0, 0 },
                                                        { 0, 1, 0, 0 },
                                                        { 0, 0, 1, 0 },
                                                        { 0, 0, 0, 1 } };
};

/** ImageBase::TransformPhysicalPointToContinuousIndex of an image with \a origin and
 * point-to-index matrix \a pointToIndex: (p - origin), then the matrix, each row
 * summed from zero in column order (no fused multiply-add: ITK's inside tests and
 * supports are decided by the last bit). The resampler's input side and point
 * evaluation both map through here. */
template <int D>
CIF_HD void
PhysicalPointToContinuousIndex(const double origin[kMaxDimension],
                               const double pointToIndex[kMaxDimension][kMaxDimension], const double point[],
                               double index[kMaxDimension])
{
  for (int i = 0; i < kMaxDimension; ++i)
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
PhysicalPointToContinuousIndex(const ImageFrame & frame, const double point[], double index[kMaxDimension])
{
  PhysicalPointToContinuousIndex<D>(frame.origin, frame.pointToIndex, point, index);
}

/** The spline's value at physical \a point and, with \a gradient (D entries), its
 * physical gradient: BSplineInterpolateImageFunction::Evaluate and EvaluateDerivative
 * (with UseImageDirection, ITK's default). */
template <int D, typename TCoefficient>
CIF_HD double
EvaluateCubicAtPhysicalPoint(const TCoefficient * coefficients, const CoefficientGrid & grid, const ImageFrame & frame,
                             const double point[], double * gradient)
{
  double index[kMaxDimension];
  PhysicalPointToContinuousIndex<D>(frame, point, index);
  double       indexGradient[kMaxDimension] = { 0, 0, 0, 0 };
  const double value = EvaluateCubic<D>(coefficients, grid, index, gradient ? indexGradient : nullptr);
  if (gradient)
  {
    double local[kMaxDimension];
    for (int a = 0; a < D; ++a)
    {
      local[a] = indexGradient[a] / frame.spacing[a];
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
