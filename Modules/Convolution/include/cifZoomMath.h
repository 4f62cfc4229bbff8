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
#ifndef cifZoomMath_h
#define cifZoomMath_h

#include "cifCubicInterpolation.h"
#include "cifHostDevice.h"

#include <cstdint>
#include <ostream>

/** \file cifZoomMath.h
 * The zoom's sampling, shared by the CUDA kernel and the CPU path. A zoom by z maps
 * output sample i (per axis) of the enlarged cut-out to input continuous index
 * cut + (i + 1/2) / z - 1/2: pixel centres stay centred, and for an integer z the
 * nearest-neighbour mode replicates every input pixel z times (the seed's pixel
 * replication). Interpolation reads a region of the input (the cut-out with a
 * margin, clipped to the image), planar float, one plane per pixel component. */
namespace cif
{
enum class ZoomInterpolation : int
{
  Nearest = 0, ///< the seed's pixel replication (ITK's NearestNeighborInterpolateImageFunction)
  Linear = 1,  ///< ITK's LinearInterpolateImageFunction
  Cubic = 2    ///< ITK's BSplineInterpolateImageFunction, order 3, exact mode (the region holds coefficients)
};

inline const char *
ToString(ZoomInterpolation i)
{
  return i == ZoomInterpolation::Nearest ? "nearest" : (i == ZoomInterpolation::Linear ? "linear" : "cubic");
}

inline std::ostream &
operator<<(std::ostream & os, ZoomInterpolation i)
{
  return os << ToString(i);
}

/** Where the zoom canvas samples the interpolation region. The canvas is the
 * enlarged cut-out plus, when an enhancement kernel follows, its radius on every
 * side, clipped to the samples that lie inside the image (ITK's inside test): the
 * convolution then reads real neighbouring pixels outside the cut-out, and
 * replicates only at the image's own edge. */
struct ZoomGeometry
{
  std::int64_t      regionSize[2] = { 1, 1 };  ///< samples of the interpolation region
  double            cutInRegion[2] = { 0, 0 }; ///< cut-out start minus region start
  double            zoom[2] = { 1, 1 };        ///< output samples per input sample
  std::int64_t      canvasStart[2] = { 0, 0 }; ///< first canvas sample, in enlarged cut-out indices
  std::int64_t      canvasSize[2] = { 1, 1 };
  int               planes = 1;
  ZoomInterpolation interpolation = ZoomInterpolation::Cubic;

  /** The region's continuous index of canvas sample \a c along \a axis. */
  CIF_HD double
  RegionIndex(int axis, std::int64_t c) const
  {
    return cutInRegion[axis] + (static_cast<double>(canvasStart[axis] + c) + 0.5) / zoom[axis] - 0.5;
  }
  CIF_HD std::int64_t
         CanvasCount() const
  {
    return canvasSize[0] * canvasSize[1];
  }
};

CIF_HD std::int64_t
       ClampTo(std::int64_t i, std::int64_t size)
{
  return i < 0 ? 0 : (i >= size ? size - 1 : i);
}

/** One canvas sample of one plane (the region's samples, or for Cubic its B-spline
 * coefficients). */
CIF_HD float
ZoomSample(const float * plane, const ZoomGeometry & g, std::int64_t cx, std::int64_t cy)
{
  const double       x = g.RegionIndex(0, cx);
  const double       y = g.RegionIndex(1, cy);
  const std::int64_t nx = g.regionSize[0], ny = g.regionSize[1];
  switch (g.interpolation)
  {
    case ZoomInterpolation::Nearest:
    {
      // ITK rounds half up: floor(x + 1/2).
      const std::int64_t ix = ClampTo(static_cast<std::int64_t>(floor(x + 0.5)), nx);
      const std::int64_t iy = ClampTo(static_cast<std::int64_t>(floor(y + 0.5)), ny);
      return plane[iy * nx + ix];
    }
    case ZoomInterpolation::Linear:
    {
      // ITK's order of operations; below the first sample the base is clamped and
      // the distance is not used, past the last the neighbour is the base itself.
      std::int64_t bx = static_cast<std::int64_t>(floor(x)), by = static_cast<std::int64_t>(floor(y));
      bx = bx < 0 ? 0 : bx;
      by = by < 0 ? 0 : by;
      bx = bx >= nx ? nx - 1 : bx;
      by = by >= ny ? ny - 1 : by;
      const double       dx = x - static_cast<double>(bx) > 0 ? x - static_cast<double>(bx) : 0.0;
      const double       dy = y - static_cast<double>(by) > 0 ? y - static_cast<double>(by) : 0.0;
      const std::int64_t nbx = bx + 1 < nx ? bx + 1 : bx, nby = by + 1 < ny ? by + 1 : by;
      const double       v00 = plane[by * nx + bx], v10 = plane[by * nx + nbx];
      const double       v01 = plane[nby * nx + bx], v11 = plane[nby * nx + nbx];
      const double       x0 = v00 + (v10 - v00) * dx;
      const double       x1 = v01 + (v11 - v01) * dx;
      return static_cast<float>(x0 + (x1 - x0) * dy);
    }
    default:
    {
      CoefficientGrid grid;
      grid.size[0] = nx;
      grid.size[1] = ny;
      const double p[3] = { x, y, 0.0 };
      return static_cast<float>(EvaluateCubic<2, float>(plane, grid, p));
    }
  }
}
} // namespace cif

#endif
