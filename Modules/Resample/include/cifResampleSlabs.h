#ifndef cifResampleSlabs_h
#define cifResampleSlabs_h

#include "cifResampleMath.h"

#include <algorithm>
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

/** \a g restricted to slab \a slab: planes [slab * planesPerSlab, ...) of the cut axis. */
inline ResampleGeometry
SlabGeometry(const ResampleGeometry & g, const ResampleSlabs & slabs, std::int64_t slab)
{
  ResampleGeometry s = g;
  if (slabs.planesPerSlab > 0)
  {
    const std::int64_t first = slab * slabs.planesPerSlab;
    s.outputStart[slabs.axis] = g.outputStart[slabs.axis] + first;
    s.outputSize[slabs.axis] = std::min(slabs.planesPerSlab, g.outputSize[slabs.axis] - first);
  }
  return s;
}

/** The linear index, in the whole output, of slab \a slab's first voxel. */
inline std::int64_t
SlabFirstVoxel(const ResampleSlabs & slabs, std::int64_t slab)
{
  return slab * slabs.planesPerSlab * slabs.voxelsPerPlane;
}
} // namespace cif

#endif
