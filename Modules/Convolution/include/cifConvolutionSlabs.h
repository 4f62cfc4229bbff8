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
#ifndef cifConvolutionSlabs_h
#define cifConvolutionSlabs_h

#include "cifConvolutionMath.h"
#include "cifSlabPlan.h"

#include <algorithm>
#include <cstdint>
#include <string>

/** \file cifConvolutionSlabs.h
 * A convolution larger than the device, in slabs of output planes along the slowest
 * axis of the image (z, or y for a 2-D image): each slab reads its planes of the input
 * plus the kernel's reach on both sides (clamped to the input, as the one-piece
 * convolution clamps its reads: ZeroFluxNeumann), so that every output voxel reads the
 * same input values with the same weights as in one piece and the slabs give its bits.
 * Plain C++: the CPU tests check the slab geometry against the one-piece result. */
namespace cif
{
/** The axis of ConvolutionGeometry the slabs cut: the slowest one the image has. */
inline int
ConvolutionSlabAxis(const ConvolutionGeometry & g)
{
  return g.inSize[2] > 1 || g.outSize[2] > 1 ? 2 : 1;
}

/** One slab: its own geometry (the slab's planes of the output and the input planes
 * they read), and where its planes start in the whole output and input. */
struct ConvolutionSlab
{
  ConvolutionGeometry geometry;
  std::int64_t        firstOutputPlane = 0;
  std::int64_t        firstInputPlane = 0;
};

/** The slab of \a planes output planes from \a firstOutputPlane along \a axis of \a g:
 * the input planes every one of its outputs reads (InputIndex over the kernel, clamped
 * to the input), whose clamping within the slab is the clamping within the whole input
 * (the slab's first input plane is 0 wherever a read falls below the input, its last
 * the input's last wherever one falls above). */
inline ConvolutionSlab
SlabOfConvolution(const ConvolutionGeometry & g, int axis, std::int64_t firstOutputPlane, std::int64_t planes)
{
  ConvolutionSlab slab;
  slab.geometry = g;
  slab.firstOutputPlane = firstOutputPlane;
  const std::int64_t lowest = g.InputIndex(axis, firstOutputPlane, 0);
  const std::int64_t highest = g.InputIndex(axis, firstOutputPlane + planes - 1, g.kernelSize[axis] - 1);
  slab.firstInputPlane = lowest;
  slab.geometry.inSize[axis] = highest - lowest + 1;
  slab.geometry.outSize[axis] = planes;
  slab.geometry.outOffset[axis] = firstOutputPlane + g.outOffset[axis] - lowest;
  return slab;
}

/** Slabs within \a budget bytes: \a inputPlaneBytes and \a outputPlaneBytes are the
 * device bytes one plane of the input and of the output takes (with their staging and
 * scratch), \a fixedBytes what the job needs whatever the slab (the weights). A slab of
 * u output planes reads at most u + (kernel side - 1) input planes. Throws
 * CudaOutOfMemory, naming \a what, where one output plane does not fit. */
inline SlabPlan
PlanConvolutionSlabs(const ConvolutionGeometry & g,
                     std::size_t                 inputPlaneBytes,
                     std::size_t                 outputPlaneBytes,
                     std::size_t                 fixedBytes,
                     std::size_t                 budget,
                     const std::string &         what)
{
  const int         axis = ConvolutionSlabAxis(g);
  const std::size_t reach = static_cast<std::size_t>(g.kernelSize[axis] - 1);
  const std::size_t wholeBytes = static_cast<std::size_t>(g.inSize[axis]) * inputPlaneBytes +
                                 static_cast<std::size_t>(g.outSize[axis]) * outputPlaneBytes + fixedBytes;
  if (wholeBytes <= budget)
  {
    SlabPlan whole;
    whole.unitsPerSlab = g.outSize[axis];
    return whole;
  }
  return PlanSlabs(
    g.outSize[axis], inputPlaneBytes + outputPlaneBytes, fixedBytes + reach * inputPlaneBytes, budget, what);
}
} // namespace cif

#endif
