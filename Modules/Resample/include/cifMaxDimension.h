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
#ifndef cifMaxDimension_h
#define cifMaxDimension_h

namespace cif
{
/** Image axes the resampling layer handles: 1-D to 4-D, as its transforms. Points,
 * indices and matrices of resampling are arrays of this size (code loops over the D
 * axes in use; the others stay 0, or identity, or a single sample of unit weight),
 * so every caller passes arrays of kMaxDimension entries. */
constexpr int kMaxDimension = 4;

/** Axes of coefficient grids and of cubic evaluation at points (the point evaluator,
 * CubicBSplineTable): 1-D to 6-D. A separate bound so that the resampling kernels,
 * which never go past 4-D, keep their 4-entry arrays (registers, shared memory);
 * only CoefficientGrid and ImageFrame carry the wider arrays. */
constexpr int kMaxGridDimension = 6;
static_assert(kMaxGridDimension >= kMaxDimension, "grids hold every resampled image");
} // namespace cif

#endif
