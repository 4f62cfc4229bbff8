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
#ifndef cifMetricSumsDevice_h
#define cifMetricSumsDevice_h

#include "CudaImageFiltersExport.h"
#include "cifControlPlaneArrival.h"
#include "cifDeviceBuffer.h"
#include "cifMattesHistogram.h"
#include "cifMetricCellBoxes.h"
#include "cifMetricSumsHost.h"
#include "cifPinnedHostBuffer.h"

#include <cstdint>
#include <functional>
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
  /** At least the number of items (the blocks a pass launches): the exact count,
   * cellItemBegin[cellCount + 1], stays on the device, so that building the order
   * for new points at every evaluation waits for no readback. */
  std::int64_t itemCapacity = 0;
  std::int64_t cellCount = 0;
  std::int64_t cellsPerAxis[3] = { 1, 1, 1 };
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
  /** CUB's scratch sizes for the sizes last asked (its size queries cost host time at
   * every build). */
  std::int64_t sortCount = -1, sortEndBit = -1, scanCells = -1;
  std::size_t  sortBytes = 0, scanBytes = 0;
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

/** Where an evaluation's results lie in the workspace's readback buffer, which comes
 * back to the host in one copy at the end of the evaluation (a few microseconds
 * each copy saves, at thousands of evaluations per registration): Mattes' summary
 * (value, valid points, joint pdf sum), the sums (MetricSums' layout), then the
 * B-spline derivative (D x control points). */
constexpr std::size_t kReadbackMattesSummary = 0;
constexpr std::size_t kReadbackSums = 3;
constexpr std::size_t kReadbackDerivative = kReadbackSums + kMaxMetricSums;

/** An evaluation's random points copied to the device from pinned host memory,
 * queued on the launch stream without waiting (a synchronous copy waits for the bus
 * and the driver each time, thousands of times a registration): the kernels launched
 * after Send() read the copy in stream order, and Host() hands the host memory out
 * again only once the copy has left it. */
class CudaImageFilters_EXPORT MetricUpload
{
public:
  MetricUpload() = default;
  MetricUpload(const MetricUpload &) = delete;
  MetricUpload &
  operator=(const MetricUpload &) = delete;
  ~MetricUpload();

  /** Host memory for at least \a bytes, free to write. */
  void *
  Host(std::size_t bytes);

  /** Queues the copy of the host memory's first \a bytes; the device copy. Host()
   * waits for it. */
  const void *
  Send(std::size_t bytes);

private:
  PinnedHostBuffer m_Host;
  DeviceBuffer     m_Device;
  void *           m_Copied = nullptr; ///< a cudaEvent_t recorded after the last copy
};

/** An evaluation's B-spline coefficients (D arrays of planes along their slowest
 * axis) sent to the device in chunks of planes (PlanControlPlaneChunks) on a copy
 * stream of their own, each chunk staged into pinned memory while the one before
 * crosses the bus. Bind() only takes the arrays; a cell-box pass asks Arriving()
 * before its first kernel, launches it, then Send()s, so that the kernel's blocks
 * start as soon as their planes are there (cifControlPlaneArrival.h); any other
 * pass Send()s before it launches. Either way the launch stream's later work waits
 * for the last chunk. */
class CudaImageFilters_EXPORT ControlPlaneUpload
{
public:
  ControlPlaneUpload() = default;
  ControlPlaneUpload(const ControlPlaneUpload &) = delete;
  ControlPlaneUpload &
  operator=(const ControlPlaneUpload &) = delete;
  ~ControlPlaneUpload();

  /** Takes \a arrays host arrays of \a planes x \a planeValues doubles (kept by the
   * caller until Send()) without sending them; \a device receives their device
   * copies' addresses. */
  void
  Bind(const double * const * host, int arrays, std::int64_t planeValues, std::int64_t planes, const double ** device);

  /** Whether bound arrays are still to be sent. */
  bool
  Pending() const
  {
    return m_Pending;
  }

  /** For a kernel launched next, before Send(): what its blocks wait on. A null
   * arrival (nothing pending, or a driver that cannot write the counter from a
   * stream) means the arrays were sent now. */
  ControlPlaneArrival
  Arriving();

  /** Sends what is pending (nothing if nothing is). */
  void
  Send();

  /** How uploads send (for tests and measurements, process-wide): \a pipelined
   * false sends every chunk before Arriving() returns (a null arrival);
   * \a pauseMicroseconds > 0 sleeps after each chunk of a pipelined send, so that
   * blocks wait for planes that are really still on their way. */
  static void
  SetBehaviourForTesting(bool pipelined, int pauseMicroseconds);

private:
  /** Orders the copy stream after the launch stream's work so far and plans the
   * chunks (m_Arrival, counted from m_Counter). */
  void
  PlanSend();

  void
  SendChunks(bool signal);

  const double * const * m_HostArrays = nullptr;
  int                    m_Arrays = 0;
  std::int64_t           m_PlaneValues = 0;
  std::int64_t           m_Planes = 0;
  bool                   m_Pending = false;
  bool                   m_Signalled = false; ///< Arriving() gave a kernel the counter for this send
  ControlPlaneArrival    m_Arrival;
  unsigned int           m_Counter = 0; ///< the last value written to the device counter
  PinnedHostBuffer       m_Host;
  DeviceBuffer           m_Device;
  void *                 m_Arrived = nullptr; ///< the device counter (cudaMalloc)
  bool                   m_CanSignal = false; ///< the driver writes the counter from a stream
  void *                 m_Stream = nullptr;  ///< cudaStream_t, the copies'
  void *                 m_Earlier = nullptr; ///< cudaEvent_t: the launch stream's work before this upload
  void *                 m_Sent = nullptr;    ///< cudaEvent_t: the last chunk copied
};

/** The smallest and largest of \a count values on the current device (CUB's
 * reductions; min and max do not depend on the order: the host scan's values, for
 * data without NaN). */
template <typename TValue>
CudaImageFilters_EXPORT void
ValueRangeOnDevice(const TValue * values, std::int64_t count, TValue & minimum, TValue & maximum);

/** \a count voxels' values and their gradients (\a components interleaved, 1 to 3)
 * into \a valueAndGradient, four components a voxel (MetricFourComponents: the value,
 * the gradient, zeros), on the current device. */
template <typename TValue>
CudaImageFilters_EXPORT void
InterleaveValueAndGradientOnDevice(const TValue * values,
                                   const TValue * gradient,
                                   int            components,
                                   std::int64_t   count,
                                   TValue *       valueAndGradient);

/** Device memory an evaluation reuses from one iteration to the next. */
struct MetricDeviceWorkspace
{
  DeviceBuffer     blockSums;
  DeviceBuffer     itemPartials;
  DeviceBuffer     readback;     ///< the layout above
  PinnedHostBuffer readbackHost; ///< its copy on the host
  DeviceBuffer     table;        ///< Mattes' ratio table (bins x bins), then its moving marginal and row sums
  DeviceBuffer     histogram;
  DeviceBuffer     validCount; ///< the valid points as an integer, for a derivative divided by them
  /** Set by the caller where a cell-box pass may read the B-spline's coefficients
   * as they arrive: the pass's first kernel waits for its planes, the rest are sent
   * while it runs, and the pointer is cleared. */
  ControlPlaneUpload * arrivingCoefficients = nullptr;
  /** Host work for the time the device computes: run (once, then cleared) when an
   * evaluation's kernels are queued, before its readback waits for them. */
  std::function<void()> whileTheDeviceWorks;
  /** Seconds the host waited in readbacks for the device's work (and the copy). */
  double readbackSeconds = 0.0;
};

/** What a B-spline derivative read back holds: the sums over the points, or each
 * sum divided by the number of valid points (MeanSquares' average: ITK divides its
 * zeroed-then-summed derivative by that number, parameter by parameter, which a host
 * pays for 10^4 to 10^5 parameters at every evaluation; the device divides as it
 * gathers, the same correctly rounded quotients). */
enum class DerivativeScale
{
  Sum,
  PerValidPoint
};

/** EvaluateMetricSumsOnHost on the current device (\a term's pointers are device
 * pointers). When a B-spline stage's derivative is asked for, \a bsplineDerivative
 * is set to its D x P values (\a scale) in the workspace's host readback (valid
 * until the workspace's next evaluation). */
template <int D, typename TValue, typename TTerm>
CudaImageFilters_EXPORT MetricSums
EvaluateMetricSumsOnDevice(const MetricScene<TValue> &   scene,
                           const MetricMovingTransform & transform,
                           const TTerm &                 term,
                           const MetricPointOrderView *  order,
                           const double                  reference[3],
                           bool                          withDerivative,
                           DerivativeScale               scale,
                           MetricDeviceWorkspace &       workspace,
                           const double **               bsplineDerivative);

/** EvaluateMetricSumsInDomainOrderOnHost without a derivative on the current device: a
 * value pass of a term of one or more values (Correlation's means and centred sums). */
template <int D, typename TValue, typename TTerm>
CudaImageFilters_EXPORT MetricSums
EvaluateMetricValueSumsOnDevice(const MetricScene<TValue> &   scene,
                                const MetricMovingTransform & transform,
                                const TTerm &                 term,
                                MetricDeviceWorkspace &       workspace);

/** EvaluateMetricSumsInCellBoxesOnHost (cifMetricCellBoxes.h) on the current device:
 * sums[0..1] and the B-spline derivative (\a bsplineDerivative and \a scale, as above). */
template <int D, typename TValue, typename TTerm>
CudaImageFilters_EXPORT MetricSums
EvaluateMetricSumsInCellBoxesOnDevice(const MetricScene<TValue> &   scene,
                                      const MetricMovingTransform & transform,
                                      const TTerm &                 term,
                                      const MetricCellBoxView &     boxes,
                                      DerivativeScale               scale,
                                      MetricDeviceWorkspace &       workspace,
                                      const double **               bsplineDerivative);

/** MattesFirstPassOnDevice over a dense domain in cell boxes: the separable
 * B-spline displacement for the points inside its valid region. */
template <int D, typename TValue>
CudaImageFilters_EXPORT void
MattesFirstPassInCellBoxesOnDevice(const MetricScene<TValue> &   scene,
                                   const MetricMovingTransform & transform,
                                   const MattesParzen &          parzen,
                                   const MetricCellBoxView &     boxes,
                                   MetricDeviceWorkspace &       workspace);

/** BuildMetricPointOrder (cifMetricPointOrder.h) on the current device, from a scene
 * and transform with device pointers: the same arrays (a stable radix sort by cell,
 * so the same order within each cell). */
template <int D, typename TValue>
CudaImageFilters_EXPORT void
BuildMetricPointOrderOnDevice(const MetricScene<TValue> &   scene,
                              const MetricMovingTransform & transform,
                              DeviceMetricPointOrder &      order);

/** Mattes' first pass on the current device, all of it left there: the histogram
 * (MattesHistogramOnHost), then ITK's ComputeResults from it (MattesValueAndRatios)
 * into the workspace's ratio table, which the second pass (MattesDerivativeTerm)
 * reads there, and the summary into the readback (kReadbackMattesSummary): it comes
 * back with the second pass's sums, or by ReadBackMattesSummary. The value may
 * differ from the host's in its last bits (the sum over bins by rows, the device's
 * log); two runs give the same bits. */
template <int D, typename TValue>
CudaImageFilters_EXPORT void
MattesFirstPassOnDevice(const MetricScene<TValue> &   scene,
                        const MetricMovingTransform & transform,
                        const MattesParzen &          parzen,
                        MetricDeviceWorkspace &       workspace);

/** The workspace's ratio table on the device, for MattesDerivativeTerm. */
inline const double *
MattesRatioTableOnDevice(const MetricDeviceWorkspace & workspace)
{
  return workspace.table.As<const double>();
}

/** The summary of the last first pass: read back now (\a readNow), or from the
 * host readback of the second pass that followed it. */
CudaImageFilters_EXPORT MattesSummary
ReadBackMattesSummary(MetricDeviceWorkspace & workspace, bool readNow);

/** The sums of one force term (a point term of cifMetricPointTerms.h with one value). */
#define CIF_INSTANTIATE_METRIC_FORCE_TERM_ON_DEVICE(D, TValue, TTerm)                                        \
  template MetricSums EvaluateMetricSumsOnDevice<D, TValue, TTerm>(const MetricScene<TValue> &,              \
                                                                   const MetricMovingTransform &,            \
                                                                   const TTerm &,                            \
                                                                   const MetricPointOrderView *,             \
                                                                   const double[3],                          \
                                                                   bool,                                     \
                                                                   DerivativeScale,                          \
                                                                   MetricDeviceWorkspace &,                  \
                                                                   const double **);                         \
  template MetricSums EvaluateMetricSumsInCellBoxesOnDevice<D, TValue, TTerm>(const MetricScene<TValue> &,   \
                                                                              const MetricMovingTransform &, \
                                                                              const TTerm &,                 \
                                                                              const MetricCellBoxView &,     \
                                                                              DerivativeScale,               \
                                                                              MetricDeviceWorkspace &,       \
                                                                              const double **);
#define CIF_INSTANTIATE_METRIC_SUMS_ON_DEVICE(D, TValue)                                                              \
  CIF_INSTANTIATE_METRIC_FORCE_TERM_ON_DEVICE(D, TValue, MeanSquaresTerm<TValue>)                                     \
  CIF_INSTANTIATE_METRIC_FORCE_TERM_ON_DEVICE(D, TValue, MattesDerivativeTerm)                                        \
  CIF_INSTANTIATE_METRIC_FORCE_TERM_ON_DEVICE(D, TValue, CorrelationDerivativeTerm)                                   \
  template MetricSums EvaluateMetricValueSumsOnDevice<D, TValue, CorrelationMeansTerm>(const MetricScene<TValue> &,   \
                                                                                       const MetricMovingTransform &, \
                                                                                       const CorrelationMeansTerm &,  \
                                                                                       MetricDeviceWorkspace &);      \
  template MetricSums EvaluateMetricValueSumsOnDevice<D, TValue, CorrelationCentredTerm>(                             \
    const MetricScene<TValue> &,                                                                                      \
    const MetricMovingTransform &,                                                                                    \
    const CorrelationCentredTerm &,                                                                                   \
    MetricDeviceWorkspace &);                                                                                         \
  template void MattesFirstPassInCellBoxesOnDevice<D, TValue>(const MetricScene<TValue> &,                            \
                                                              const MetricMovingTransform &,                          \
                                                              const MattesParzen &,                                   \
                                                              const MetricCellBoxView &,                              \
                                                              MetricDeviceWorkspace &);                               \
  template void MattesFirstPassOnDevice<D, TValue>(                                                                   \
    const MetricScene<TValue> &, const MetricMovingTransform &, const MattesParzen &, MetricDeviceWorkspace &);       \
  template void BuildMetricPointOrderOnDevice<D, TValue>(                                                             \
    const MetricScene<TValue> &, const MetricMovingTransform &, DeviceMetricPointOrder &);
#define CIF_FOR_EACH_METRIC_INSTANCE(M) M(2, float) M(2, double) M(3, float) M(3, double)
} // namespace cif

#endif
