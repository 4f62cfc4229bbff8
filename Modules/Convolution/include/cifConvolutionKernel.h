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
#ifndef cifConvolutionKernel_h
#define cifConvolutionKernel_h

#include <cstdint>
#include <string>
#include <vector>

/** \file cifConvolutionKernel.h
 * A convolution kernel as plain data (no ITK type), so that the presets, the kernel
 * file parser, the separability test and the GPU layer can share it. */
namespace cif
{
/** The largest kernel side the module's own paths take (the seed's MAX_KERNEL_DIM). */
constexpr int MaxKernelSide = 127;

/** \class ConvolutionKernel
 * Weights of a 2-D or 3-D kernel, x fastest, as written (not flipped: the filters
 * flip it, since ITK's ConvolutionImageFilter computes a true convolution). */
struct ConvolutionKernel
{
  int                 dimension = 2;
  int                 size[3] = { 1, 1, 1 };
  std::vector<double> weights;
  std::string         name; ///< preset name or file, for messages and -v output

  std::int64_t
  Count() const
  {
    return std::int64_t(size[0]) * size[1] * size[2];
  }
  double
  At(int x, int y, int z = 0) const
  {
    return weights[static_cast<std::size_t>((std::int64_t(z) * size[1] + y) * size[0] + x)];
  }
  double
  Sum() const
  {
    double s = 0;
    for (double w : weights)
    {
      s += w;
    }
    return s;
  }
};
} // namespace cif

#endif
