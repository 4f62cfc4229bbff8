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
#ifndef cifResampleSlabs_h
#define cifResampleSlabs_h

#include "cifDeviceBuffer.h"
#include "cifResampleMath.h"
#include "cifSlabPlan.h"
#include "cifStageCallback.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdint>

/** \file cifResampleSlabs.h
 * A resampling's output cut into slabs along its slowest axis, so that a long run
 * reports progress (and can stop) between slabs. A slab is the same computation on
 * a restricted output region: the geometry's outputStart and outputSize of the cut
 * axis select the slab's planes, and the slab's voxels are the contiguous block of
 * the output that starts at FirstVoxel. Every voxel is computed from its absolute
 * index (outputStart + offset: OutputPoint, RowEndpoints, RowFraction), and lineStart
 * and lineLength (ITK's scanline of a linear transform) stay those of the whole
 * output, so slabs give the same bits as one piece. Kernels that choose among
 * several ways to compute (the device's row kernels) choose once, for the whole
 * output, not per slab. */
namespace cif
{
/** The least output voxels of a slab by default: fewer slabs of this size cost one
 * launch each (a few microseconds) against milliseconds of work. */
constexpr std::int64_t kDefaultSlabVoxels = std::int64_t(4) << 20;
/** The most slabs of one output: enough steps for a progress bar. */
constexpr std::int64_t kMaxSlabs = 16;

/** How an output is cut: planesPerSlab planes of axis \a axis per slab (the last
 * slab may hold fewer), \a count slabs. The default is one piece (planesPerSlab 0:
 * every plane), what the device routines do when not told otherwise. */
struct ResampleSlabs
{
  int          axis = 0;
  std::int64_t planesPerSlab = 0;
  std::int64_t count = 1;
  /** Output voxels per plane of the cut axis (the product of the faster axes' sizes). */
  std::int64_t voxelsPerPlane = 0;
};

/** Slabs of at least \a slabVoxels output voxels (at most kMaxSlabs of them, at most
 * one per plane) along axis \a dimension - 1 of \a g's output; an output smaller
 * than two slabs stays one piece. \a slabVoxels 0 counts as 1. */
inline ResampleSlabs
PlanResampleSlabs(const ResampleGeometry & g, int dimension, std::uint64_t slabVoxels)
{
  ResampleSlabs      slabs;
  const int          axis = dimension - 1;
  const std::int64_t planes = g.outputSize[axis];
  const std::int64_t total = g.OutputCount();
  if (planes <= 1 || total <= 0)
  {
    return slabs;
  }
  const std::uint64_t perSlab = slabVoxels > 0 ? slabVoxels : 1;
  const std::int64_t  wanted =
    std::min({ static_cast<std::int64_t>(static_cast<std::uint64_t>(total) / perSlab), kMaxSlabs, planes });
  if (wanted <= 1)
  {
    return slabs;
  }
  slabs.axis = axis;
  slabs.planesPerSlab = (planes + wanted - 1) / wanted;
  slabs.count = (planes + slabs.planesPerSlab - 1) / slabs.planesPerSlab; // no empty slab
  slabs.voxelsPerPlane = total / planes;
  return slabs;
}

/** The most output rows for which the device's B-spline row kernels are taken
 * (RowsShareBSplineSupport: their row numbers are 32-bit). */
constexpr std::int64_t kMaxBSplineRowsOutputRows = 0x3FFFFFFF;

/** Whether a run of \a g's slabs computed as an output of its own (SlabRunGeometry:
 * one device's share) takes the kernels the whole output would. The device routines
 * choose a kernel once per output, from its geometry, and only the B-spline row
 * kernels' row limit depends on the output's size. */
inline bool
SlabRunsTakeTheWholeOutputsKernels(const ResampleGeometry & g)
{
  return g.OutputRows() <= kMaxBSplineRowsOutputRows;
}

/** \a g restricted to the run of slabs [\a first, \a end) (contiguous planes of the
 * cut axis: a share of the output for one device). */
inline ResampleGeometry
SlabRunGeometry(const ResampleGeometry & g, const ResampleSlabs & slabs, std::int64_t first, std::int64_t end)
{
  ResampleGeometry s = g;
  if (slabs.planesPerSlab > 0)
  {
    const std::int64_t firstPlane = first * slabs.planesPerSlab;
    s.outputStart[slabs.axis] = g.outputStart[slabs.axis] + firstPlane;
    s.outputSize[slabs.axis] = std::min(end * slabs.planesPerSlab, g.outputSize[slabs.axis]) - firstPlane;
  }
  return s;
}

/** \a g restricted to slab \a slab: planes [slab * planesPerSlab, ...) of the cut axis. */
inline ResampleGeometry
SlabGeometry(const ResampleGeometry & g, const ResampleSlabs & slabs, std::int64_t slab)
{
  return SlabRunGeometry(g, slabs, slab, slab + 1);
}

/** The linear index, in the whole output, of slab \a slab's first voxel. */
inline std::int64_t
SlabFirstVoxel(const ResampleSlabs & slabs, std::int64_t slab)
{
  return slab * slabs.planesPerSlab * slabs.voxelsPerPlane;
}

/** A device's share of an output spread over \a n devices (k = 0 .. n-1, n at most
 * slabs.count): whole slabs [k * count / n, (k + 1) * count / n) of the one-device
 * plan, computed as an output of their own (\a geometry, cut as \a slabs), whose
 * first voxel is voxel \a firstVoxel of the whole output. Each slab is the same
 * computation as on one device, so the shares give its bits. */
struct SlabShare
{
  ResampleGeometry geometry;
  ResampleSlabs    slabs;
  std::int64_t     firstVoxel = 0;
};

inline SlabShare
ShareOfSlabs(const ResampleGeometry & g, const ResampleSlabs & slabs, std::int64_t k, std::int64_t n)
{
  const std::int64_t first = k * slabs.count / n, end = (k + 1) * slabs.count / n;
  SlabShare          share;
  share.geometry = SlabRunGeometry(g, slabs, first, end);
  share.slabs = slabs;
  share.slabs.count = end - first;
  share.firstVoxel = SlabFirstVoxel(slabs, first);
  return share;
}

/** Extra input voxels on every side of an input box (InputBoxOfRegion): the corners'
 * mapped indices are exact in real arithmetic but rounded in double, and a voxel's
 * own index (on ITK's scanline, interpolated between its row's ends) rounds
 * differently; two voxels are far more than any such rounding. */
constexpr std::int64_t kInputBoxMargin = 2;

/** The input voxels (a box inside the whole input grid \a g.input) that the output
 * region of \a g (outputStart, outputSize) reads through a linear \a chain: the
 * bounding box of its corners' continuous indices, widened by the cubic support
 * (floor - 1 ... floor + 2) and kInputBoxMargin, clipped to the input. An affine map
 * takes the region into the convex hull of its corners' images, so every voxel's
 * support lies in the box. Evaluating the region against the box as its grid gives
 * the bits of the whole grid: inside the box every offset is the same, the box's
 * edges are the input's wherever a support reaches past them (so the mirror is the
 * same), and a point outside the input is outside the box. An output region that
 * maps wholly outside the input gets a box of one voxel (every voxel is then the
 * default value). */
template <int D>
inline CoefficientGrid
InputBoxOfRegion(const ResampleGeometry & g, const TransformChain & chain)
{
  double low[kMaxDimension], high[kMaxDimension];
  for (int a = 0; a < kMaxDimension; ++a)
  {
    low[a] = std::numeric_limits<double>::infinity();
    high[a] = -std::numeric_limits<double>::infinity();
  }
  for (int corner = 0; corner < (1 << D); ++corner)
  {
    std::int64_t index[kMaxDimension] = { 0, 0, 0, 0 };
    for (int a = 0; a < D; ++a)
    {
      index[a] = g.outputStart[a] + (((corner >> a) & 1) ? g.outputSize[a] - 1 : 0);
    }
    double x[kMaxDimension];
    OutputIndexToInputIndex<D>(g, chain, index, x);
    for (int a = 0; a < D; ++a)
    {
      low[a] = std::min(low[a], x[a]);
      high[a] = std::max(high[a], x[a]);
    }
  }
  CoefficientGrid box = g.input;
  for (int a = 0; a < D; ++a)
  {
    const std::int64_t first = g.input.start[a], last = g.input.start[a] + g.input.size[a] - 1;
    // Non-finite or huge indices: the whole axis (never a wrong box).
    if (!(low[a] > -1e15 && high[a] < 1e15))
    {
      continue;
    }
    std::int64_t lo = static_cast<std::int64_t>(std::floor(low[a])) - 1 - kInputBoxMargin;
    std::int64_t hi = static_cast<std::int64_t>(std::floor(high[a])) + 2 + kInputBoxMargin;
    lo = std::max(lo, first);
    hi = std::min(hi, last);
    if (lo > hi) // wholly outside along this axis
    {
      lo = hi = std::min(std::max(lo, first), last);
    }
    box.start[a] = lo;
    box.size[a] = hi - lo + 1;
  }
  return box;
}

/** The planes of \a g.input's slowest axis that the output region of \a g reads
 * through a linear \a chain: InputBoxOfRegion widened to the whole input along every
 * other axis, so that the box is a run of contiguous planes of the whole input's
 * buffer (from plane box.start[D-1] - g.input.start[D-1]). Evaluating against it
 * gives the bits of the whole grid, as against InputBoxOfRegion's box: its edges are
 * the input's wherever they differ from that box's. A device of a spread resampling
 * needs only these planes of the coefficients. */
template <int D>
inline CoefficientGrid
InputPlanesOfRegion(const ResampleGeometry & g, const TransformChain & chain)
{
  CoefficientGrid box = InputBoxOfRegion<D>(g, chain);
  for (int a = 0; a < D - 1; ++a)
  {
    box.start[a] = g.input.start[a];
    box.size[a] = g.input.size[a];
  }
  return box;
}

/** Copies box \a box of a buffer laid out as \a whole (D axes) into \a out
 * (contiguous, the box's layout), its rows spread by \a parallelFor. */
template <int D, typename T, typename TParallelFor = SequentialFor>
inline void
CopyInputBox(const T *               data,
             const CoefficientGrid & whole,
             const CoefficientGrid & box,
             T *                     out,
             TParallelFor &&         parallelFor = TParallelFor{})
{
  std::int64_t rows = 1;
  for (int a = 1; a < D; ++a)
  {
    rows *= box.size[a];
  }
  parallelFor(rows, [&](std::int64_t row) {
    std::int64_t rest = row, offset = box.start[0] - whole.start[0], stride = whole.size[0];
    for (int a = 1; a < D; ++a)
    {
      offset += (box.start[a] - whole.start[a] + rest % box.size[a]) * stride;
      rest /= box.size[a];
      stride *= whole.size[a];
    }
    std::copy(data + offset, data + offset + box.size[0], out + row * box.size[0]);
  });
}

/** Voxels of a grid. */
inline std::int64_t
GridCount(const CoefficientGrid & grid, int dimension)
{
  std::int64_t count = 1;
  for (int a = 0; a < dimension; ++a)
  {
    count *= grid.size[a];
  }
  return count;
}
/** The afterSlab callback of a slabbed device computation whose host output is
 * downloaded as it is written: after each slab, its bytes (\a bytesPerVoxel per
 * output voxel) are ready on \a download, then \a then reports the stage. Slabs
 * come in order, from the first. */
inline StageCallback
DownloadEachSlab(OverlappedDownload &     download,
                 const ResampleGeometry & g,
                 const ResampleSlabs &    slabs,
                 std::size_t              bytesPerVoxel,
                 StageCallback            then)
{
  return [&download, g, slabs, bytesPerVoxel, then = std::move(then), slab = std::int64_t(0)]() mutable {
    download.Ready(static_cast<std::size_t>(SlabGeometry(g, slabs, slab).OutputCount()) * bytesPerVoxel);
    ++slab;
    StageDone(then);
  };
}
} // namespace cif

#endif
