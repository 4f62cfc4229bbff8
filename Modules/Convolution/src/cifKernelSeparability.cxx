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
#include "cifKernelSeparability.h"

#include <cmath>

namespace cif
{
bool
FactorSeparable(const ConvolutionKernel & kernel, SeparableFactors & factors, double relativeTolerance)
{
  const int nx = kernel.size[0], ny = kernel.size[1], nz = kernel.dimension > 2 ? kernel.size[2] : 1;
  int       px = 0, py = 0, pz = 0;
  double    peak = 0;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x)
        if (std::fabs(kernel.At(x, y, z)) > std::fabs(peak))
        {
          peak = kernel.At(x, y, z);
          px = x;
          py = y;
          pz = z;
        }
  if (peak == 0)
  {
    return false;
  }
  // A rank-one K equals a (x) b (x) c with a = K(., py, pz), b = K(px, ., pz) / p,
  // c = K(px, py, .) / p for the peak p.
  SeparableFactors f;
  for (int x = 0; x < nx; ++x)
    f.factor[0].push_back(kernel.At(x, py, pz));
  for (int y = 0; y < ny; ++y)
    f.factor[1].push_back(kernel.At(px, y, pz) / peak);
  for (int z = 0; z < nz; ++z)
    f.factor[2].push_back(kernel.At(px, py, z) / peak);
  const double tolerance = relativeTolerance * std::fabs(peak);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x)
        if (std::fabs(f.factor[0][x] * f.factor[1][y] * f.factor[2][z] - kernel.At(x, y, z)) > tolerance)
        {
          return false;
        }
  factors = f;
  return true;
}
} // namespace cif
