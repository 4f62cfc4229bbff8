#ifndef cifMeanSquaresMetricDevice_h
#define cifMeanSquaresMetricDevice_h

#include "CudaImageFiltersExport.h"
#include "cifDeviceBuffer.h"
#include "cifMeanSquaresMetricHost.h"

#include <cstdint>
#include <vector>

/** \file cifMeanSquaresMetricDevice.h
 * The GPU path of MeanSquaresImageToImageMetricv4: the same sums as
 * EvaluateMeanSquaresOnHost (cifMeanSquaresMetricHost.h), from a scene, transform
 * and point order whose pointers are device pointers. Every sum is reduced in a fixed
 * order (per block, then over blocks): the same bits on every run. Include only from
 * code that links CudaImageFilters; ITK headers stay out of the CUDA sources. */
namespace cif
{
/** A MetricPointOrder's arrays on the device. */
struct MetricPointOrderView
{
  const std::uint32_t *  order = nullptr;
  const MetricWorkItem * items = nullptr;
  const std::int64_t *   cellItemBegin = nullptr;
  std::int64_t           itemCount = 0;
  std::int64_t           cellCount = 0;
  std::int64_t           cellsPerAxis[3] = { 1, 1, 1 };
};

/** Device memory an evaluation reuses from one iteration to the next. */
struct MetricDeviceWorkspace
{
  DeviceBuffer blockSums;
  DeviceBuffer itemPartials;
  DeviceBuffer derivative;
  DeviceBuffer result;
};

/** EvaluateMeanSquaresOnHost on the current device. \a bsplineDerivative (host)
 * receives the D x P sums when a B-spline stage's derivative is asked for. */
template <int D, typename TValue>
CudaImageFilters_EXPORT MetricSums
EvaluateMeanSquaresOnDevice(const MetricScene<TValue> & scene, const MetricMovingTransform & transform,
                            const MetricPointOrderView * order, const double reference[3], bool withDerivative,
                            MetricDeviceWorkspace & workspace, std::vector<double> * bsplineDerivative);

#define CIF_INSTANTIATE_MEAN_SQUARES_ON_DEVICE(D, TValue)                                                        \
  template MetricSums EvaluateMeanSquaresOnDevice<D, TValue>(                                                   \
    const MetricScene<TValue> &, const MetricMovingTransform &, const MetricPointOrderView *, const double[3], \
    bool, MetricDeviceWorkspace &, std::vector<double> *);
#define CIF_FOR_EACH_METRIC_INSTANCE(M) M(2, float) M(2, double) M(3, float) M(3, double)
} // namespace cif

#endif
