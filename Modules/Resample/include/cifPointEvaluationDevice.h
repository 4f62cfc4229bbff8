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
/** The order in which the device visits the points (results always land in the
 * caller's order, with the same bits either way).
 * - AsGiven: point i by thread i. Best when neighbouring points are near each other
 *   in the image (a metric that samples the fixed image's grid in order).
 * - ImageOrder: the points are first radix-sorted on the device by the image cell
 *   they fall in (CUB), so that neighbouring threads read the same coefficients,
 *   and each result is written at the caller's position. For scattered points
 *   (random sampling) about twice as fast; for points that already come in image
 *   order it only adds the sort. Needs about 16 bytes of device memory per point
 *   (24 where the image has more than 2^32 cells); without them (or beyond 2^31 - 1 points) the points are
 *   visited as given. */
enum class PointOrder
{
  AsGiven,
  ImageOrder
};

/** Values at \a count physical points (\a points: D doubles each, device memory)
 * into \a values, and with \a gradients (D doubles per point) the physical
 * gradients, as itk::BSplineInterpolateImageFunction (order 3) Evaluate and
 * EvaluateDerivative through \a frame; points outside the grid's extent as \a outside
 * says (cifOutsideRule.h: by default ITK's mirror). D = 1..6. Asynchronous on the
 * default stream. */
template <int D, typename TCoefficient>
CudaImageFilters_EXPORT void
EvaluatePhysicalPointsOnDevice(const TCoefficient *    coefficients,
                               const CoefficientGrid & grid,
                               const ImageFrame &      frame,
                               const double *          points,
                               std::int64_t            count,
                               double *                values,
                               double *                gradients,
                               PointOrder              order = PointOrder::AsGiven,
                               const OutsideRule &     outside = OutsideRule{});

/** The explicit instantiations, for the CUDA source and its no-CUDA twin alike:
 * CIF_FOR_EACH_POINT_DIMENSION(CIF_INSTANTIATE_PHYSICAL_POINTS). */
#define CIF_INSTANTIATE_PHYSICAL_POINTS(D)                                         \
  template void EvaluatePhysicalPointsOnDevice<D, float>(const float *,            \
                                                         const CoefficientGrid &,  \
                                                         const ImageFrame &,       \
                                                         const double *,           \
                                                         std::int64_t,             \
                                                         double *,                 \
                                                         double *,                 \
                                                         PointOrder,               \
                                                         const OutsideRule &);     \
  template void EvaluatePhysicalPointsOnDevice<D, double>(const double *,          \
                                                          const CoefficientGrid &, \
                                                          const ImageFrame &,      \
                                                          const double *,          \
                                                          std::int64_t,            \
                                                          double *,                \
                                                          double *,                \
                                                          PointOrder,              \
                                                          const OutsideRule &);
#define CIF_FOR_EACH_POINT_DIMENSION(M) M(1) M(2) M(3) M(4) M(5) M(6)
} // namespace cif

#endif
