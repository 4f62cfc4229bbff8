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
#ifndef cifConvolutionHost_h
#define cifConvolutionHost_h

#include "cifConvolutionMath.h"
#include "cifZoomMath.h"

#include <vector>

/** \file cifConvolutionHost.h
 * The CPU path of the convolution and the zoom: the GPU kernels' per-sample
 * functions, run over rows by \a parallelFor(count, body) (the ITK side passes ITK's
 * threader through itk::MakeParallelFor). Buffers are planar float. */
namespace cif
{
template <typename TParallelFor>
void
ConvolveGeneralOnHost(const float *               in,
                      const ConvolutionGeometry & g,
                      const float *               packedWeights,
                      float *                     out,
                      TParallelFor &&             parallelFor)
{
  const std::int64_t rows = g.planes * g.outSize[2] * g.outSize[1];
  parallelFor(rows, [&](std::int64_t row) {
    const std::int64_t oy = row % g.outSize[1];
    const std::int64_t oz = (row / g.outSize[1]) % g.outSize[2];
    const std::int64_t plane = row / (g.outSize[1] * g.outSize[2]);
    const float *      source = in + plane * g.InVolume();
    float *            target = out + row * g.outSize[0];
    for (std::int64_t ox = 0; ox < g.outSize[0]; ++ox)
    {
      target[ox] = ConvolveGeneralSample(source, g, packedWeights, ox, oy, oz);
    }
  });
}

/** The separable path: the row pass for every input row (output columns only), then
 * the column pass, then (3-D) the pass along z; float sums in kernel order, as the
 * GPU's tiles compute them. */
template <typename TParallelFor>
void
ConvolveSeparableOnHost(const float *               in,
                        const ConvolutionGeometry & g,
                        const float *               packedFactors,
                        float *                     out,
                        TParallelFor &&             parallelFor)
{
  const float *      wx = packedFactors;
  const float *      wy = wx + g.kernelSize[0];
  const float *      wz = wy + g.kernelSize[1];
  const bool         threeD = g.kernelSize[2] > 1 || g.inSize[2] != g.outSize[2] || g.outOffset[2] != 0;
  const std::int64_t slices = threeD ? g.inSize[2] : g.outSize[2];
  std::vector<float> rowPass(static_cast<std::size_t>(g.planes * slices * g.inSize[1] * g.outSize[0]));
  std::vector<float> planePass;
  float *            xy = out;
  if (threeD)
  {
    planePass.resize(static_cast<std::size_t>(g.planes * slices * g.outSize[1] * g.outSize[0]));
    xy = planePass.data();
  }
  // Row pass: input slice s (for 2-D, the output slice's own input slice).
  parallelFor(g.planes * slices * g.inSize[1], [&](std::int64_t row) {
    const std::int64_t iy = row % g.inSize[1];
    const std::int64_t s = (row / g.inSize[1]) % slices;
    const std::int64_t plane = row / (g.inSize[1] * slices);
    const std::int64_t iz = threeD ? s : g.InputIndex(2, s, g.kernelSize[2] / 2);
    const float *      source = in + plane * g.InVolume() + (iz * g.inSize[1] + iy) * g.inSize[0];
    float *            target = rowPass.data() + row * g.outSize[0];
    for (std::int64_t ox = 0; ox < g.outSize[0]; ++ox)
    {
      target[ox] = SeparableRowSample(source, g, wx, ox);
    }
  });
  parallelFor(g.planes * slices * g.outSize[1], [&](std::int64_t row) {
    const std::int64_t oy = row % g.outSize[1];
    const std::int64_t ps = row / g.outSize[1]; // plane * slices + slice
    const float *      source = rowPass.data() + ps * g.inSize[1] * g.outSize[0];
    float *            target = xy + row * g.outSize[0];
    for (std::int64_t ox = 0; ox < g.outSize[0]; ++ox)
    {
      float sum = 0;
      for (int ky = 0; ky < g.kernelSize[1]; ++ky)
      {
        sum += wy[ky] * source[g.InputIndex(1, oy, ky) * g.outSize[0] + ox];
      }
      target[ox] = sum;
    }
  });
  if (!threeD)
  {
    return;
  }
  const std::int64_t slab = g.outSize[0] * g.outSize[1];
  parallelFor(g.planes * g.outSize[2] * g.outSize[1], [&](std::int64_t row) {
    const std::int64_t oy = row % g.outSize[1];
    const std::int64_t oz = (row / g.outSize[1]) % g.outSize[2];
    const std::int64_t plane = row / (g.outSize[1] * g.outSize[2]);
    const float *      source = xy + plane * slices * slab + oy * g.outSize[0];
    float *            target = out + row * g.outSize[0];
    for (std::int64_t ox = 0; ox < g.outSize[0]; ++ox)
    {
      float sum = 0;
      for (int kz = 0; kz < g.kernelSize[2]; ++kz)
      {
        sum += wz[kz] * source[g.InputIndex(2, oz, kz) * slab + ox];
      }
      target[ox] = sum;
    }
  });
}

/** The zoom canvas from the interpolation region (planar; coefficients for cubic). */
template <typename TParallelFor>
void
ZoomOnHost(const float * region, const ZoomGeometry & g, float * canvas, TParallelFor && parallelFor)
{
  const std::int64_t regionPlane = g.regionSize[0] * g.regionSize[1];
  parallelFor(g.planes * g.canvasSize[1], [&](std::int64_t row) {
    const std::int64_t cy = row % g.canvasSize[1];
    const std::int64_t plane = row / g.canvasSize[1];
    for (std::int64_t cx = 0; cx < g.canvasSize[0]; ++cx)
    {
      canvas[row * g.canvasSize[0] + cx] = ZoomSample(region + plane * regionPlane, g, cx, cy);
    }
  });
}
/** Interleaved pixels -> planar float (the host twin of ToPlanarOnDevice). */
template <typename T, typename TParallelFor>
void
ToPlanarOnHost(const T * interleaved, std::int64_t pixels, int components, float * planar, TParallelFor && parallelFor)
{
  constexpr std::int64_t chunk = 4096;
  parallelFor((pixels + chunk - 1) / chunk, [&](std::int64_t block) {
    const std::int64_t end = block * chunk + chunk < pixels ? block * chunk + chunk : pixels;
    for (std::int64_t i = block * chunk; i < end; ++i)
      for (int c = 0; c < components; ++c)
        planar[c * pixels + i] = static_cast<float>(interleaved[i * components + c]);
  });
}

/** Planar float -> interleaved pixels of T (the host twin of FromPlanarOnDevice). */
template <typename T, typename TParallelFor>
void
FromPlanarOnHost(const float *   planar,
                 std::int64_t    pixels,
                 int             components,
                 T *             interleaved,
                 TParallelFor && parallelFor)
{
  constexpr std::int64_t chunk = 4096;
  parallelFor((pixels + chunk - 1) / chunk, [&](std::int64_t block) {
    const std::int64_t end = block * chunk + chunk < pixels ? block * chunk + chunk : pixels;
    for (std::int64_t i = block * chunk; i < end; ++i)
      for (int c = 0; c < components; ++c)
        interleaved[i * components + c] = CastComponent<T>(planar[c * pixels + i]);
  });
}
} // namespace cif

#endif
