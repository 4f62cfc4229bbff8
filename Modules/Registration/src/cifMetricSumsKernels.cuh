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
// The GPU path of the metrics' sums (cifMetricSumsDevice.h): the per-point math of
// cifImageMetricMath.h and cifMetricPointTerms.h in kernels whose sums are reduced
// in a fixed order (or, for Mattes' histogram, in integers), so that every run
// gives the same bits.
//
// Included by one source per image instance (cifMetricSums{2,3}D{Float,Double}.cu)
// and by cifMetricSumsShared.cu, which holds the entry points that do not depend on
// the instance: the driver loads a CUDA module whole at the first launch of one of
// its kernels (45-57 ms on an H100 for the four instances' kernels in one module, in
// a registration's first evaluation), so each instance is a module of its own and a
// registration loads only its image type's kernels. The kernels themselves: one
// header per concept, included below in the order they build on each other.
#ifndef cifMetricSumsKernels_cuh
#define cifMetricSumsKernels_cuh

#include "cifMetricReductionKernels.cuh"
#include "cifMetricDeviceWorkspace.cuh"
#include "cifMetricRowSumsKernels.cuh"
#include "cifMetricNaturalOrderKernels.cuh"
#include "cifMetricWorkItemKernels.cuh"
#include "cifMattesHistogramKernels.cuh"
#include "cifMetricPointOrderKernels.cuh"
#include "cifMetricCellBoxesKernels.cuh"
#include "cifMattesCellBoxesKernels.cuh"

#endif
