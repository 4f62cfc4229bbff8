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
#ifndef cifSpreadPrefilter_h
#define cifSpreadPrefilter_h

#include "cifBSplinePrefilterDevice.h"
#include "cifBSplinePrefilterMath.h"
#include "cifDeviceBuffer.h"
#include "cifCudaRuntime.h"
#include "cifDeviceMemoryLimit.h"
#include "cifDeviceRowCopy.h"
#include "cifStageCallback.h"

#include <algorithm>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

/** \file cifSpreadPrefilter.h
 * The prefilter of a host buffer spread over several devices (or several "devices"
 * of the CPU path, run in turn, so that CI runs the very plan and copies). It cuts
 * the buffer as the slabbed prefilter does (cifSlabbedPrefilter.h), with the
 * exchange between the passes going from device to device instead of through the
 * host:
 *  1. device k uploads planes [planes[k], planes[k+1]) of the slowest axis D-1
 *     (its share of the samples: the host sends the buffer once, each device over
 *     its own bus) and filters them along every other axis;
 *  2. device k gathers rows [rows[k], rows[k+1]) of axis D-2 of every plane, from
 *     the devices holding them (one strided copy per device: CopyRowsBetweenDevices),
 *     and filters those lines along the slowest axis;
 *  3. device k gathers its planes back from the blocks of every device and
 *     downloads them into the host buffer.
 * Each step ends on every device before the next begins. Every line is filtered by
 * the same code as in one piece and the axes in the same order (the kernels' choice
 * depends on a line's length, never on how many lines there are), so the spread
 * gives the bits of one device. Device memory per device: its planes plus its block,
 * about 2/n of the buffer.
 *
 * A resampling spread over the devices needs on every device the coefficients its
 * output share reads (any of them, or for a linear transform the planes its share
 * maps into): RunSpreadPrefilterOntoEveryDevice runs steps 1 and 2, then each device
 * gathers those planes from every device's block into a buffer of its own (3'), and
 * nothing goes back to the host.
 *
 * Samples already on the devices (each device's planes of them in its executor's
 * Planes(), the executor reserved by the caller) are passed as a null \a samples:
 * step 1 then filters them where they are.
 *
 * Plain C++ over one executor per device, offering Reserve(planeScalars,
 * blockScalars), Planes(), Block(), UploadPlanes(host, scalars),
 * DownloadPlanes(host, scalars), CopyRows(destination, destinationPitch, from,
 * source, sourcePitch, rowScalars, rows) (\a source in executor \a from's memory;
 * pitches and sizes in scalars), Filter(data, shape, axisEnd) and Finish() (waits
 * for the device). */
namespace cif
{
/** Planes [first, end) of the slowest axis. */
struct PlaneRange
{
  std::int64_t first = 0;
  std::int64_t end = 0;
};

/** Which device filters what; Devices() == 0 where the buffer is not spread. */
struct SpreadPrefilterPlan
{
  std::vector<std::int64_t> planes; ///< n + 1 bounds of the devices' planes of axis D-1 (step 1)
  std::vector<std::int64_t> rows;   ///< n + 1 bounds of the devices' rows of axis D-2 (step 2)
  std::int64_t rowsPerPass = 0;     ///< the most rows of one slowest-axis pass (its lines' components are an int)

  int
  Devices() const
  {
    return planes.empty() ? 0 : static_cast<int>(planes.size()) - 1;
  }
};

/** Plans the spread of \a shape over at most \a devices devices, each taking at least
 * \a minimumPixelsPerDevice pixels (fewer devices where the buffer is small). No
 * spread (Devices() == 0) where fewer than two devices would take part: one device,
 * a 1-D buffer (a line is filtered whole), fewer than two planes of axis D-1 or rows
 * of axis D-2. */
inline SpreadPrefilterPlan
PlanSpreadPrefilter(const BufferShape & shape, int devices, std::int64_t minimumPixelsPerDevice)
{
  SpreadPrefilterPlan plan;
  const int           D = shape.dimension;
  if (devices < 2 || D < 2)
  {
    return plan;
  }
  const std::int64_t total = shape.ScalarCount();
  const std::int64_t pixels = total / std::max(shape.components, 1);
  const std::int64_t slow = shape.size[D - 1];
  const std::int64_t rows = shape.size[D - 2];
  std::int64_t       n = std::min<std::int64_t>({ devices, slow, rows });
  if (minimumPixelsPerDevice > 0)
  {
    n = std::min(n, pixels / minimumPixelsPerDevice);
  }
  if (n < 2)
  {
    return plan;
  }
  for (std::int64_t k = 0; k <= n; ++k)
  {
    plan.planes.push_back(slow * k / n);
    plan.rows.push_back(rows * k / n);
  }
  const std::int64_t inner = total / slow / rows; // scalars below axis D-2 (components included)
  plan.rowsPerPass = std::max<std::int64_t>(1, INT_MAX / inner);
  return plan;
}

/** Device memory the largest share of \a plan needs, in scalars (planes plus block). */
inline std::int64_t
LargestSpreadShareScalars(const BufferShape & shape, const SpreadPrefilterPlan & plan)
{
  const int          D = shape.dimension;
  const std::int64_t slow = shape.size[D - 1];
  const std::int64_t plane = shape.ScalarCount() / slow;
  const std::int64_t inner = plane / shape.size[D - 2];
  std::int64_t       largest = 0;
  for (int k = 0; k < plan.Devices(); ++k)
  {
    largest = std::max(
      largest, (plan.planes[k + 1] - plan.planes[k]) * plane + (plan.rows[k + 1] - plan.rows[k]) * inner * slow);
  }
  return largest;
}

/** Steps 1 and 2 of \a plan over \a samples (host, \a shape): afterwards device k's
 * block holds its rows of axis D-2 of every plane, filtered along every axis.
 * \a executors[k] is the k-th device's: \a forEachDevice(body) calls body(k) for every
 * k (on a thread per device, or in turn) and returns when all have ended.
 * \a afterAxis once per axis, on the calling thread. A null \a samples: each executor
 * was reserved for its share (Reserve) and its Planes() hold its planes of the
 * samples already. */
template <typename T, typename TExecutor, typename TForEachDevice>
void
RunSpreadPrefilterPasses(const T *                   samples,
                         const BufferShape &         shape,
                         const SpreadPrefilterPlan & plan,
                         std::vector<TExecutor> &    executors,
                         TForEachDevice &&           forEachDevice,
                         const StageCallback &       afterAxis)
{
  const int          D = shape.dimension;
  const std::int64_t slow = shape.size[D - 1];
  const std::int64_t plane = shape.ScalarCount() / slow;
  const std::int64_t inner = plane / shape.size[D - 2];
  const auto         planesOf = [&plan](std::int64_t k) { return plan.planes[k + 1] - plan.planes[k]; };
  const auto         rowsOf = [&plan](std::int64_t k) { return plan.rows[k + 1] - plan.rows[k]; };
  const std::int64_t n = plan.Devices();

  // 1. Each device its planes, filtered along every axis but the slowest.
  forEachDevice([&](std::int64_t k) {
    TExecutor & e = executors[k];
    if (samples != nullptr)
    {
      e.Reserve(planesOf(k) * plane, rowsOf(k) * inner * slow);
      e.UploadPlanes(samples + plan.planes[k] * plane, planesOf(k) * plane);
    }
    BufferShape share = shape;
    share.size[D - 1] = planesOf(k);
    e.Filter(e.Planes(), share, D - 1);
    e.Finish();
  });
  for (int axis = 0; axis < D - 1; ++axis)
  {
    StageDone(afterAxis);
  }

  // 2. Each device its rows of every plane, gathered pass by pass into its block
  //    (lines of the slowest axis, one "component" per scalar of a plane's chunk,
  //    as in the slabbed prefilter's phase B) and filtered along the slowest axis.
  forEachDevice([&](std::int64_t k) {
    TExecutor & e = executors[k];
    for (std::int64_t first = plan.rows[k]; first < plan.rows[k + 1]; first += plan.rowsPerPass)
    {
      const std::int64_t chunk = std::min(plan.rowsPerPass, plan.rows[k + 1] - first) * inner;
      T *                block = e.Block() + (first - plan.rows[k]) * inner * slow;
      for (std::int64_t j = 0; j < n; ++j)
      {
        e.CopyRows(block + plan.planes[j] * chunk,
                   chunk,
                   executors[j],
                   executors[j].Planes() + first * inner,
                   plane,
                   chunk,
                   planesOf(j));
      }
      BufferShape lines;
      lines.dimension = 1;
      lines.size[0] = slow;
      lines.components = static_cast<int>(chunk);
      e.Filter(block, lines, 1);
    }
    e.Finish();
  });
  StageDone(afterAxis);
}

/** Planes [firstPlane, endPlane) of the result that the blocks hold after
 * RunSpreadPrefilterPasses, into \a destination (in executor \a k's memory: plane
 * firstPlane first, planes at \a shape's pitch): every device's rows of axis D-2, one
 * strided copy per device and pass. */
template <typename T, typename TExecutor>
void
GatherSpreadPlanes(T *                         destination,
                   std::int64_t                firstPlane,
                   std::int64_t                endPlane,
                   const BufferShape &         shape,
                   const SpreadPrefilterPlan & plan,
                   std::vector<TExecutor> &    executors,
                   std::int64_t                k)
{
  const int          D = shape.dimension;
  const std::int64_t slow = shape.size[D - 1];
  const std::int64_t plane = shape.ScalarCount() / slow;
  const std::int64_t inner = plane / shape.size[D - 2];
  TExecutor &        e = executors[k];
  if (endPlane <= firstPlane)
  {
    return; // a share that reads no coefficient (every voxel outside the input)
  }
  for (std::int64_t j = 0; j < plan.Devices(); ++j)
  {
    for (std::int64_t first = plan.rows[j]; first < plan.rows[j + 1]; first += plan.rowsPerPass)
    {
      const std::int64_t chunk = std::min(plan.rowsPerPass, plan.rows[j + 1] - first) * inner;
      const T *          block = executors[j].Block() + (first - plan.rows[j]) * inner * slow;
      e.CopyRows(destination + first * inner,
                 plane,
                 executors[j],
                 block + firstPlane * chunk,
                 chunk,
                 chunk,
                 endPlane - firstPlane);
    }
  }
}

/** Runs \a plan on \a data (host, \a shape), with \a executors[k] the k-th device's:
 * \a forEachDevice(body) calls body(k) for every k (on a thread per device, or in
 * turn) and returns when all have ended. \a source, when given, holds the samples
 * (as RunSlabbedPrefilter's). \a afterAxis once per axis, on the calling thread. */
template <typename T, typename TExecutor, typename TForEachDevice>
void
RunSpreadPrefilter(T *                         data,
                   const BufferShape &         shape,
                   const SpreadPrefilterPlan & plan,
                   std::vector<TExecutor> &    executors,
                   TForEachDevice &&           forEachDevice,
                   const StageCallback &       afterAxis = {},
                   const T *                   source = nullptr)
{
  RunSpreadPrefilterPasses(source != nullptr ? source : data, shape, plan, executors, forEachDevice, afterAxis);
  // 3. Each device its planes back from every device's block, then to the host.
  const std::int64_t plane = shape.ScalarCount() / shape.size[shape.dimension - 1];
  forEachDevice([&](std::int64_t k) {
    TExecutor & e = executors[k];
    GatherSpreadPlanes(e.Planes(), plan.planes[k], plan.planes[k + 1], shape, plan, executors, k);
    e.DownloadPlanes(data + plan.planes[k] * plane, (plan.planes[k + 1] - plan.planes[k]) * plane);
    e.Finish();
  });
}

/** Steps 1 and 2 of \a plan over \a samples (null: on the devices already, see
 * RunSpreadPrefilterPasses), then (3') every device gathers planes \a wanted[k] of the
 * result (all of them where \a wanted is empty) into \a destinations[k] (in device k's
 * memory, at \a shape's pitch, plane wanted[k].first first) and releases its planes
 * and block: the coefficients a resampling spread over the devices reads, while the
 * host sent the samples once and receives nothing. */
template <typename T, typename TExecutor, typename TForEachDevice>
void
RunSpreadPrefilterOntoEveryDevice(const T *                       samples,
                                  const BufferShape &             shape,
                                  const SpreadPrefilterPlan &     plan,
                                  std::vector<TExecutor> &        executors,
                                  TForEachDevice &&               forEachDevice,
                                  const std::vector<T *> &        destinations,
                                  const StageCallback &           afterAxis = {},
                                  const std::vector<PlaneRange> & wanted = {})
{
  RunSpreadPrefilterPasses(samples, shape, plan, executors, forEachDevice, afterAxis);
  forEachDevice([&](std::int64_t k) {
    const auto       index = static_cast<std::size_t>(k);
    const PlaneRange planes = wanted.empty() ? PlaneRange{ 0, shape.size[shape.dimension - 1] } : wanted[index];
    GatherSpreadPlanes(destinations[index], planes.first, planes.end, shape, plan, executors, k);
    executors[k].Finish();
  });
  // Every device has read every block: they may go.
  forEachDevice([&](std::int64_t k) { executors[k].Release(); });
}

/** Device k's pieces gathered so far (RunSpreadPrefilterFeedingEveryDevice): its
 * gathering thread counts them, its consuming thread waits for them. */
class SpreadPieceSignal
{
public:
  void
  Ready(std::size_t pieces)
  {
    {
      const std::lock_guard<std::mutex> lock(m_Mutex);
      m_Ready = pieces;
    }
    m_Changed.notify_all();
  }
  void
  Fail()
  {
    {
      const std::lock_guard<std::mutex> lock(m_Mutex);
      m_Failed = true;
    }
    m_Changed.notify_all();
  }
  /** Returns once piece \a piece (and every one before it) is on the device; throws
   * where its gathering failed (that failure is the one reported). */
  void
  WaitFor(std::size_t piece)
  {
    std::unique_lock<std::mutex> lock(m_Mutex);
    m_Changed.wait(lock, [&] { return m_Failed || m_Ready > piece; });
    if (m_Ready <= piece)
    {
      throw std::runtime_error("the gathering of a device's coefficient planes failed");
    }
  }

private:
  std::mutex              m_Mutex;
  std::condition_variable m_Changed;
  std::size_t             m_Ready = 0;
  bool                    m_Failed = false;
};

/** As RunSpreadPrefilterOntoEveryDevice, with 3' overlapped with what reads its
 * result: on every device one thread gathers planes \a wanted[k] piece by piece
 * (\a pieces[k][p]: the runs of planes of piece p, each inside wanted[k]; together
 * the planes the consumer reads), into \a destinations[k] (plane wanted[k].first
 * first), while another runs \a consume(k, waitFor), which calls waitFor(p) before it
 * reads the planes of piece p (pieces in order). \a forEachWorker(body) calls body(t)
 * for t in [0, 2n) (t < n: device t's gathering, t >= n: device t - n's consumer; on
 * a thread each, or in turn, the gatherings first) and returns when all have ended.
 * Every device then releases its planes and block. */
template <typename T, typename TExecutor, typename TForEachDevice, typename TForEachWorker, typename TConsume>
void
RunSpreadPrefilterFeedingEveryDevice(const T *                                                 samples,
                                     const BufferShape &                                       shape,
                                     const SpreadPrefilterPlan &                               plan,
                                     std::vector<TExecutor> &                                  executors,
                                     TForEachDevice &&                                         forEachDevice,
                                     TForEachWorker &&                                         forEachWorker,
                                     const std::vector<T *> &                                  destinations,
                                     const std::vector<PlaneRange> &                           wanted,
                                     const std::vector<std::vector<std::vector<PlaneRange>>> & pieces,
                                     TConsume &&                                               consume,
                                     const StageCallback &                                     afterAxis = {})
{
  RunSpreadPrefilterPasses(samples, shape, plan, executors, forEachDevice, afterAxis);
  const std::int64_t             n = plan.Devices();
  const std::int64_t             plane = shape.ScalarCount() / shape.size[shape.dimension - 1];
  std::vector<SpreadPieceSignal> signals(static_cast<std::size_t>(n));
  forEachWorker([&](std::int64_t t) {
    const auto k = static_cast<std::size_t>(t % n);
    if (t >= n)
    {
      consume(static_cast<std::int64_t>(k), [&signals, k](std::size_t piece) { signals[k].WaitFor(piece); });
      return;
    }
    try
    {
      for (std::size_t p = 0; p < pieces[k].size(); ++p)
      {
        for (const PlaneRange & run : pieces[k][p])
        {
          GatherSpreadPlanes(destinations[k] + (run.first - wanted[k].first) * plane,
                             run.first,
                             run.end,
                             shape,
                             plan,
                             executors,
                             static_cast<std::int64_t>(k));
        }
        executors[k].Finish();
        signals[k].Ready(p + 1);
      }
    }
    catch (...)
    {
      signals[k].Fail();
      throw;
    }
  });
  forEachDevice([&](std::int64_t k) { executors[k].Release(); });
}

/** The CPU path's "device": host work areas, PrefilterLeadingAxesOnHost (through
 * \a filterLeading, as HostSlabExecutor). */
template <typename T, typename TFilterLeading>
class HostSpreadExecutor
{
public:
  explicit HostSpreadExecutor(TFilterLeading filterLeading)
    : m_FilterLeading(std::move(filterLeading))
  {}
  void
  Reserve(std::int64_t planeScalars, std::int64_t blockScalars)
  {
    m_Planes.resize(static_cast<std::size_t>(planeScalars));
    m_Block.resize(static_cast<std::size_t>(blockScalars));
  }
  T *
  Planes()
  {
    return m_Planes.data();
  }
  T *
  Block()
  {
    return m_Block.data();
  }
  void
  UploadPlanes(const T * host, std::int64_t scalars)
  {
    std::memcpy(m_Planes.data(), host, static_cast<std::size_t>(scalars) * sizeof(T));
  }
  void
  DownloadPlanes(T * host, std::int64_t scalars)
  {
    std::memcpy(host, m_Planes.data(), static_cast<std::size_t>(scalars) * sizeof(T));
  }
  void
  CopyRows(T *          destination,
           std::int64_t destinationPitch,
           const HostSpreadExecutor &,
           const T *    source,
           std::int64_t sourcePitch,
           std::int64_t rowScalars,
           std::int64_t rows)
  {
    for (std::int64_t r = 0; r < rows; ++r)
    {
      std::memcpy(
        destination + r * destinationPitch, source + r * sourcePitch, static_cast<std::size_t>(rowScalars) * sizeof(T));
    }
  }
  void
  Filter(T * data, const BufferShape & shape, int axisEnd)
  {
    m_FilterLeading(data, shape, axisEnd, StageCallback{});
  }
  void
  Finish()
  {}
  void
  Release()
  {
    m_Planes = std::vector<T>();
    m_Block = std::vector<T>();
  }

private:
  TFilterLeading m_FilterLeading;
  std::vector<T> m_Planes;
  std::vector<T> m_Block;
};

/** The executor of device \a device (current on the thread that calls it):
 * PrefilterLeadingAxesOnDevice, staged host copies, peer copies. */
template <typename T>
class DeviceSpreadExecutor
{
public:
  DeviceSpreadExecutor(int device, const SplinePoles & poles, BoundaryMode mode, std::string what)
    : m_Device(device)
    , m_Poles(poles)
    , m_Mode(mode)
    , m_What(std::move(what))
  {}
  /** Fails before any copy, naming the sizes, where the share does not fit. */
  void
  Reserve(std::int64_t planeScalars, std::int64_t blockScalars)
  {
    const std::size_t planeBytes = static_cast<std::size_t>(planeScalars) * sizeof(T);
    const std::size_t blockBytes = static_cast<std::size_t>(blockScalars) * sizeof(T);
    RequireDeviceMemory(planeBytes + blockBytes, m_What + " on device " + std::to_string(m_Device));
    m_Planes.Allocate(planeBytes);
    m_Block.Allocate(blockBytes);
  }
  T *
  Planes() const
  {
    return m_Planes.As<T>();
  }
  T *
  Block() const
  {
    return m_Block.As<T>();
  }
  void
  UploadPlanes(const T * host, std::int64_t scalars)
  {
    m_Planes.Upload(host, static_cast<std::size_t>(scalars) * sizeof(T));
  }
  void
  DownloadPlanes(T * host, std::int64_t scalars)
  {
    m_Planes.Download(host, static_cast<std::size_t>(scalars) * sizeof(T));
  }
  void
  CopyRows(T *                          destination,
           std::int64_t                 destinationPitch,
           const DeviceSpreadExecutor & from,
           const T *                    source,
           std::int64_t                 sourcePitch,
           std::int64_t                 rowScalars,
           std::int64_t                 rows)
  {
    CopyRowsBetweenDevices(destination,
                           m_Device,
                           static_cast<std::size_t>(destinationPitch) * sizeof(T),
                           source,
                           from.m_Device,
                           static_cast<std::size_t>(sourcePitch) * sizeof(T),
                           static_cast<std::size_t>(rowScalars) * sizeof(T),
                           static_cast<std::size_t>(rows));
  }
  void
  Filter(T * data, const BufferShape & shape, int axisEnd)
  {
    PrefilterLeadingAxesOnDevice<T>(data, shape, axisEnd, m_Poles, m_Mode);
  }
  void
  Finish()
  {
    Synchronize();
  }
  /** Frees the planes and the block (call on the device's thread). */
  void
  Release()
  {
    m_Planes.Release();
    m_Block.Release();
  }

private:
  int          m_Device;
  SplinePoles  m_Poles;
  BoundaryMode m_Mode;
  std::string  m_What;
  DeviceBuffer m_Planes;
  DeviceBuffer m_Block;
};
} // namespace cif

#endif
