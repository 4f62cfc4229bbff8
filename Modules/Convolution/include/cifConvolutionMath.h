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
#ifndef cifConvolutionMath_h
#define cifConvolutionMath_h

#include "cifConvolutionKernel.h"
#include "cifHostDevice.h"
#include "cifKernelSeparability.h"

#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

/** \file cifConvolutionMath.h
 * The arithmetic of the convolution, shared by the CUDA kernels and the CPU path:
 * index clamping (ITK's ZeroFluxNeumannBoundaryCondition repeats the edge sample),
 * the order of the sums, and the packing of the weights. Buffers are planar float:
 * one volume of x-fastest samples per pixel component. */
namespace cif
{
/** Where an output grid sits on its input grid. Output sample o (per axis) is the
 * sum over kernel offsets k of w(k) * in(clamp(o + outOffset + k - radius)); with
 * outOffset = 0 this is ITK's SAME region, with the kernel radius its VALID region,
 * and a requested sub-region or a zoom canvas is any other offset. */
struct ConvolutionGeometry
{
  std::int64_t inSize[3] = { 1, 1, 1 };
  std::int64_t outSize[3] = { 1, 1, 1 };
  std::int64_t outOffset[3] = { 0, 0, 0 };
  int          kernelSize[3] = { 1, 1, 1 }; ///< odd
  int          planes = 1;                  ///< pixel components, one planar volume each

  CIF_HD std::int64_t
         InVolume() const
  {
    return inSize[0] * inSize[1] * inSize[2];
  }
  CIF_HD std::int64_t
         OutVolume() const
  {
    return outSize[0] * outSize[1] * outSize[2];
  }
  /** The input index read for output index \a o and kernel offset \a k on \a axis. */
  CIF_HD std::int64_t
         InputIndex(int axis, std::int64_t o, int k) const
  {
    std::int64_t i = o + outOffset[axis] + k - kernelSize[axis] / 2;
    return i < 0 ? 0 : (i >= inSize[axis] ? inSize[axis] - 1 : i);
  }
};

/** The general path's weights per kernel column: the kernel flipped (ITK convolves,
 * it does not correlate), laid out [kz][kx][ky] with ky padded with zeros to a
 * multiple of 8 so the GPU reads them eight at a time. */
constexpr int GeneralKernelPad = 8;

CIF_HD int
PaddedColumn(int ky)
{
  return (ky + GeneralKernelPad - 1) / GeneralKernelPad * GeneralKernelPad;
}

inline std::vector<float>
PackGeneralWeights(const ConvolutionKernel & kernel)
{
  const int          kx = kernel.size[0], ky = kernel.size[1], kz = kernel.dimension > 2 ? kernel.size[2] : 1;
  const int          column = PaddedColumn(ky);
  std::vector<float> packed(static_cast<std::size_t>(kz) * kx * column, 0.0f);
  for (int z = 0; z < kz; ++z)
    for (int x = 0; x < kx; ++x)
      for (int y = 0; y < ky; ++y)
      {
        packed[(static_cast<std::size_t>(z) * kx + x) * column + y] =
          static_cast<float>(kernel.At(kx - 1 - x, ky - 1 - y, kz - 1 - z));
      }
  return packed;
}

/** The separable path's weights: the three flipped factors back to back (x, y, z). */
inline std::vector<float>
PackSeparableWeights(const SeparableFactors & factors)
{
  std::vector<float> packed;
  for (int a = 0; a < 3; ++a)
  {
    const auto & f = factors.factor[a];
    if (f.empty())
    {
      packed.push_back(1.0f);
    }
    for (std::size_t i = 0; i < f.size(); ++i)
    {
      packed.push_back(static_cast<float>(f[f.size() - 1 - i]));
    }
  }
  return packed;
}

/** One output sample of the general path. Products and the sum down one kernel
 * column are float (what the GPU's tiles compute); columns add up in double, so that
 * a 127x127 kernel with weights of both signs keeps the float error of one column,
 * not of 16129 terms. The GPU kernel adds in this same order. */
CIF_HD float
ConvolveGeneralSample(const float *               in,
                      const ConvolutionGeometry & g,
                      const float *               packed,
                      std::int64_t                ox,
                      std::int64_t                oy,
                      std::int64_t                oz)
{
  const int column = PaddedColumn(g.kernelSize[1]);
  double    sum = 0;
  for (int kz = 0; kz < g.kernelSize[2]; ++kz)
  {
    const float * slice = in + g.InputIndex(2, oz, kz) * g.inSize[0] * g.inSize[1];
    for (int kx = 0; kx < g.kernelSize[0]; ++kx)
    {
      const float *      w = packed + (static_cast<std::int64_t>(kz) * g.kernelSize[0] + kx) * column;
      const std::int64_t ix = g.InputIndex(0, ox, kx);
      float              partial = 0;
      for (int ky = 0; ky < g.kernelSize[1]; ++ky)
      {
        partial += w[ky] * slice[g.InputIndex(1, oy, ky) * g.inSize[0] + ix];
      }
      sum += static_cast<double>(partial);
    }
  }
  return static_cast<float>(sum);
}

/** The separable path's first pass at one sample: along x, from input row
 * \a row (an input y index) of \a slice, for output column \a ox. */
CIF_HD float
SeparableRowSample(const float * rowData, const ConvolutionGeometry & g, const float * wx, std::int64_t ox)
{
  float sum = 0;
  for (int kx = 0; kx < g.kernelSize[0]; ++kx)
  {
    sum += wx[kx] * rowData[g.InputIndex(0, ox, kx)];
  }
  return sum;
}

/** A pixel component as the output type: ITK's static_cast (truncation toward zero)
 * for integers, clamped to the type's range first (ITK leaves out-of-range values
 * undefined; a clamp gives the nearest representable value instead of wrapping). */
template <typename T>
CIF_HD T
CastComponent(float v)
{
  if constexpr (std::is_integral_v<T>)
  {
    const float low = static_cast<float>(std::numeric_limits<T>::lowest());
    const float high = static_cast<float>(std::numeric_limits<T>::max());
    if (!(v >= low)) // NaN too
    {
      return std::numeric_limits<T>::lowest();
    }
    if (v >= high)
    {
      return std::numeric_limits<T>::max();
    }
    return static_cast<T>(v);
  }
  else
  {
    return static_cast<T>(v);
  }
}
} // namespace cif

#endif
