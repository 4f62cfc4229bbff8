#ifndef cifMetricSumsDevice_h
#define cifMetricSumsDevice_h

#include "CudaImageFiltersExport.h"
#include "cifDeviceBuffer.h"
#include "cifMattesHistogram.h"
#include "cifMetricCellBoxes.h"
#include "cifMetricSumsHost.h"

#include <cstdint>
#include <vector>

/** \file cifMetricSumsDevice.h
 * The GPU path of the metrics' sums: the same sums as EvaluateMetricSumsOnHost
 * (cifMetricSumsHost.h), and Mattes' joint histogram, from a scene, transform
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

/** A point order built on the device (BuildMetricPointOrderOnDevice): its arrays
 * and their view. */
struct DeviceMetricPointOrder
{
  DeviceBuffer         order;
  DeviceBuffer         items;
  DeviceBuffer         cellItemBegin;
  MetricPointOrderView view;
  /** The sort's scratch, kept between builds: with new random points at every
   * evaluation the order is rebuilt each time, and ten pool allocations and frees a
   * build cost more than its kernels for a few thousand points. */
  DeviceBuffer keys, numbers, pointsPerCell, firstPoint, itemsPerCell, sortScratch, scanScratch;
};

/** A cell-box plan's tables on the device (UploadMetricCellBoxes) and their view. */
struct DeviceMetricCellBoxes
{
  DeviceBuffer      weights[3];
  DeviceBuffer      inside[3];
  DeviceBuffer      range[3];
  DeviceBuffer      items;
  DeviceBuffer      cellItemBegin;
  MetricCellBoxView view;
};

/** Copies \a boxes' tables to the current device. */
CudaImageFilters_EXPORT void
UploadMetricCellBoxes(const MetricCellBoxes & boxes, DeviceMetricCellBoxes & device);

/** Device memory an evaluation reuses from one iteration to the next. */
struct MetricDeviceWorkspace
{
  DeviceBuffer blockSums;
  DeviceBuffer itemPartials;
  DeviceBuffer derivative;
  DeviceBuffer result;
  DeviceBuffer table;
  DeviceBuffer histogram;
};

/** EvaluateMetricSumsOnHost on the current device (\a term's pointers are device
 * pointers). \a bsplineDerivative (host) receives the D x P sums when a B-spline
 * stage's derivative is asked for. */
template <int D, typename TValue, typename TTerm>
CudaImageFilters_EXPORT MetricSums
EvaluateMetricSumsOnDevice(const MetricScene<TValue> & scene, const MetricMovingTransform & transform,
                           const TTerm & term, const MetricPointOrderView * order, const double reference[3],
                           bool withDerivative, MetricDeviceWorkspace & workspace,
                           std::vector<double> * bsplineDerivative);

/** EvaluateMetricSumsInDomainOrderOnHost without a derivative on the current device: a
 * value pass of a term of one or more values (Correlation's means and centred sums). */
template <int D, typename TValue, typename TTerm>
CudaImageFilters_EXPORT MetricSums
EvaluateMetricValueSumsOnDevice(const MetricScene<TValue> & scene, const MetricMovingTransform & transform,
                                const TTerm & term, MetricDeviceWorkspace & workspace);

/** EvaluateMetricSumsInCellBoxesOnHost (cifMetricCellBoxes.h) on the current device:
 * sums[0..1] and the B-spline derivative (\a bsplineDerivative, host). */
template <int D, typename TValue, typename TTerm>
CudaImageFilters_EXPORT MetricSums
EvaluateMetricSumsInCellBoxesOnDevice(const MetricScene<TValue> & scene, const MetricMovingTransform & transform,
                                      const TTerm & term, const MetricCellBoxView & boxes,
                                      MetricDeviceWorkspace & workspace, std::vector<double> * bsplineDerivative);

/** MattesHistogramOnDevice over a dense domain in cell boxes: the separable
 * B-spline displacement for the points inside its valid region. */
template <int D, typename TValue>
CudaImageFilters_EXPORT void
MattesHistogramInCellBoxesOnDevice(const MetricScene<TValue> & scene, const MetricMovingTransform & transform,
                                   const MattesParzen & parzen, const MetricCellBoxView & boxes,
                                   MetricDeviceWorkspace & workspace, MattesHistogram & histogram);

/** BuildMetricPointOrder (cifMetricPointOrder.h) on the current device, from a scene
 * and transform with device pointers: the same arrays (a stable radix sort by cell,
 * so the same order within each cell). */
template <int D, typename TValue>
CudaImageFilters_EXPORT void
BuildMetricPointOrderOnDevice(const MetricScene<TValue> & scene, const MetricMovingTransform & transform,
                              DeviceMetricPointOrder & order);

/** MattesHistogramOnHost on the current device. */
template <int D, typename TValue>
CudaImageFilters_EXPORT void
MattesHistogramOnDevice(const MetricScene<TValue> & scene, const MetricMovingTransform & transform,
                        const MattesParzen & parzen, MetricDeviceWorkspace & workspace, MattesHistogram & histogram);

/** The sums of one force term (a point term of cifMetricPointTerms.h with one value). */
#define CIF_INSTANTIATE_METRIC_FORCE_TERM_ON_DEVICE(D, TValue, TTerm)                                            \
  template MetricSums EvaluateMetricSumsOnDevice<D, TValue, TTerm>(                                              \
    const MetricScene<TValue> &, const MetricMovingTransform &, const TTerm &, const MetricPointOrderView *,     \
    const double[3], bool, MetricDeviceWorkspace &, std::vector<double> *);                                    \
  template MetricSums EvaluateMetricSumsInCellBoxesOnDevice<D, TValue, TTerm>(                                   \
    const MetricScene<TValue> &, const MetricMovingTransform &, const TTerm &, const MetricCellBoxView &,        \
    MetricDeviceWorkspace &, std::vector<double> *);
#define CIF_INSTANTIATE_METRIC_SUMS_ON_DEVICE(D, TValue)                                                          \
  CIF_INSTANTIATE_METRIC_FORCE_TERM_ON_DEVICE(D, TValue, MeanSquaresTerm<TValue>)                                \
  CIF_INSTANTIATE_METRIC_FORCE_TERM_ON_DEVICE(D, TValue, MattesDerivativeTerm)                                   \
  CIF_INSTANTIATE_METRIC_FORCE_TERM_ON_DEVICE(D, TValue, CorrelationDerivativeTerm)                              \
  template MetricSums EvaluateMetricValueSumsOnDevice<D, TValue, CorrelationMeansTerm>(                          \
    const MetricScene<TValue> &, const MetricMovingTransform &, const CorrelationMeansTerm &,                    \
    MetricDeviceWorkspace &);                                                                                  \
  template MetricSums EvaluateMetricValueSumsOnDevice<D, TValue, CorrelationCentredTerm>(                        \
    const MetricScene<TValue> &, const MetricMovingTransform &, const CorrelationCentredTerm &,                  \
    MetricDeviceWorkspace &);                                                                                  \
  template void MattesHistogramInCellBoxesOnDevice<D, TValue>(                                                  \
    const MetricScene<TValue> &, const MetricMovingTransform &, const MattesParzen &, const MetricCellBoxView &, \
    MetricDeviceWorkspace &, MattesHistogram &);                                                               \
  template void MattesHistogramOnDevice<D, TValue>(const MetricScene<TValue> &, const MetricMovingTransform &, \
                                                   const MattesParzen &, MetricDeviceWorkspace &,              \
                                                   MattesHistogram &);                                         \
  template void BuildMetricPointOrderOnDevice<D, TValue>(const MetricScene<TValue> &,                           \
                                                         const MetricMovingTransform &, DeviceMetricPointOrder &);
#define CIF_FOR_EACH_METRIC_INSTANCE(M) M(2, float) M(2, double) M(3, float) M(3, double)
} // namespace cif

#endif
