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
#ifndef cifConvolutionPlan_h
#define cifConvolutionPlan_h

#include "cifConvolutionDevice.h"
#include "cifConvolutionHost.h"
#include "cifDeviceBuffer.h"
#include "cifKernelSeparability.h"

#include <vector>

/** \file cifConvolutionPlan.h
 * How one convolution runs, decided once for the GPU and the CPU path alike: the
 * separable path for a rank-one kernel (unless the caller forces the general one),
 * the general path otherwise, with the weights packed for it. */
namespace cif
{
struct ConvolutionPlan
{
  ConvolutionGeometry geometry;
  bool                separable = false;
  std::vector<float>  weights; ///< PackSeparableWeights or PackGeneralWeights

  /** Floats of scratch the separable path needs on the device (its pass along z). */
  std::int64_t
  ScratchFloats() const
  {
    const ConvolutionGeometry & g = geometry;
    const bool                  threeD = g.kernelSize[2] > 1 || g.inSize[2] != g.outSize[2] || g.outOffset[2] != 0;
    return separable && threeD ? g.outSize[0] * g.outSize[1] * g.inSize[2] * g.planes : 0;
  }
};

/** A plan for \a kernel (odd sides, as many axes as the geometry's image) over
 * \a geometry (its kernelSize is filled in here). */
inline ConvolutionPlan
MakeConvolutionPlan(const ConvolutionKernel & kernel, ConvolutionGeometry geometry, bool forceGeneral)
{
  ConvolutionPlan plan;
  for (int a = 0; a < 3; ++a)
  {
    geometry.kernelSize[a] = a < kernel.dimension ? kernel.size[a] : 1;
  }
  plan.geometry = geometry;
  SeparableFactors factors;
  plan.separable = !forceGeneral && FactorSeparable(kernel, factors);
  plan.weights = plan.separable ? PackSeparableWeights(factors) : PackGeneralWeights(kernel);
  return plan;
}

/** Runs \a plan on planar device buffers; \a deviceWeights holds plan.weights on the
 * device, \a scratch plan.ScratchFloats() floats (or nothing). */
inline void
RunConvolutionOnDevice(const ConvolutionPlan & plan,
                       const float *           in,
                       const float *           deviceWeights,
                       float *                 out,
                       float *                 scratch)
{
  if (plan.separable)
  {
    ConvolveSeparableOnDevice(in, plan.geometry, deviceWeights, out, scratch);
  }
  else
  {
    ConvolveGeneralOnDevice(in, plan.geometry, deviceWeights, out);
  }
}

/** Runs \a plan on planar host buffers, threaded by \a parallelFor. */
template <typename TParallelFor>
void
RunConvolutionOnHost(const ConvolutionPlan & plan, const float * in, float * out, TParallelFor && parallelFor)
{
  if (plan.separable)
  {
    ConvolveSeparableOnHost(in, plan.geometry, plan.weights.data(), out, parallelFor);
  }
  else
  {
    ConvolveGeneralOnHost(in, plan.geometry, plan.weights.data(), out, parallelFor);
  }
}
} // namespace cif

#endif
