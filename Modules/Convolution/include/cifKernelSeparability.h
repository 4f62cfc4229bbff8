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
#ifndef cifKernelSeparability_h
#define cifKernelSeparability_h

#include "CudaImageFiltersExport.h"
#include "cifConvolutionKernel.h"

#include <vector>

/** \file cifKernelSeparability.h
 * Whether a kernel is an outer product of 1-D kernels (rank one), so that the
 * filters take the separable path on their own for the Gaussian, the box and any
 * other rank-one kernel, whoever built it. */
namespace cif
{
/** The 1-D factors of a separable kernel: factor[a] along axis a, with
 * K(x, y, z) = factor[0][x] * factor[1][y] * factor[2][z]. */
struct SeparableFactors
{
  std::vector<double> factor[3];
};

/** True when every weight of \a kernel equals the product of its factors to within
 * \a relativeTolerance of the largest |weight| (then \a factors holds them). The
 * factors are read from the lines through the largest weight, so the test costs one
 * pass over the kernel. The default tolerance admits the rounding of kernels stored
 * as float (a few 1e-8 of each weight, compounded in the product of three factors);
 * the separable result then differs from the general one by float rounding. An all-zero kernel is not separable
 * (nothing to gain). */
CudaImageFilters_EXPORT bool
FactorSeparable(const ConvolutionKernel & kernel, SeparableFactors & factors, double relativeTolerance = 1e-6);
} // namespace cif

#endif
