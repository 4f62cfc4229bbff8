#ifndef cifPointEvaluationDevice_h
#define cifPointEvaluationDevice_h

#include "CudaImageFiltersExport.h"
#include "cifImageFrame.h"

#include <cstdint>

/** \file cifPointEvaluationDevice.h
 * Batched cubic B-spline evaluation at physical points on the device: what a
 * registration metric asks of the moving image at every sample point, with the
 * points, values and gradients all in device memory. Include only from code that
 * links CudaImageFilters; ITK headers stay out of the CUDA sources. */
namespace cif
{
/** Values at \a count physical points (\a points: D doubles each, device memory)
 * into \a values, and with \a gradients (D doubles per point) the physical
 * gradients, as itk::BSplineInterpolateImageFunction (order 3) Evaluate and
 * EvaluateDerivative through \a frame. Asynchronous on the default stream. */
template <int D, typename TCoefficient>
CudaImageFilters_EXPORT void
EvaluatePhysicalPointsOnDevice(const TCoefficient * coefficients, const CoefficientGrid & grid,
                               const ImageFrame & frame, const double * points, std::int64_t count, double * values,
                               double * gradients);

/** The explicit instantiations, for the CUDA source and its no-CUDA twin alike. */
#define CIF_INSTANTIATE_PHYSICAL_POINTS(D)                                                                          \
  template void EvaluatePhysicalPointsOnDevice<D, float>(                                                           \
    const float *, const CoefficientGrid &, const ImageFrame &, const double *, std::int64_t, double *, double *);  \
  template void EvaluatePhysicalPointsOnDevice<D, double>(                                                          \
    const double *, const CoefficientGrid &, const ImageFrame &, const double *, std::int64_t, double *, double *);
} // namespace cif

#endif
