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
#ifndef cifConvolutionDevice_h
#define cifConvolutionDevice_h

#include "CudaImageFiltersExport.h"
#include "cifConvolutionMath.h"
#include "cifScalarTypes.h"
#include "cifZoomMath.h"

/** \file cifConvolutionDevice.h
 * The GPU entry points of the convolution and zoom sub-module. Every buffer is device
 * memory; work is queued on the default stream (asynchronous; launch errors are
 * thrown as CudaError). Images are planar float inside the pipeline: ToPlanar and
 * FromPlanar convert at its ends, so a zoom followed by an enhancement never leaves
 * the device. */
namespace cif
{
/** General (non-separable) kernel: \a packedWeights from PackGeneralWeights. Tiles of
 * 32 x 64 output samples read their input once into shared memory; each thread keeps
 * 16 outputs of a column in registers and slides an 8-row window down the tile. */
CudaImageFilters_EXPORT void
ConvolveGeneralOnDevice(const float * in, const ConvolutionGeometry & g, const float * packedWeights, float * out);

/** Separable kernel: \a packedFactors from PackSeparableWeights. In-plane both passes
 * run in one kernel (input tile -> row pass in shared memory -> column pass), so a
 * 2-D image is read and written once; a 3-D kernel adds a pass along z through
 * \a scratch (outSize[0] * outSize[1] * inSize[2] * planes floats; unused in 2-D). */
CudaImageFilters_EXPORT void
ConvolveSeparableOnDevice(const float *               in,
                          const ConvolutionGeometry & g,
                          const float *               packedFactors,
                          float *                     out,
                          float *                     scratch);

/** Interleaved pixels (\a components scalars each) -> planar float. */
template <typename T>
CudaImageFilters_EXPORT void
ToPlanarOnDevice(const T * interleaved, std::int64_t pixels, int components, float * planar);

/** Planar float -> interleaved pixels of T (CastComponent). */
template <typename T>
CudaImageFilters_EXPORT void
FromPlanarOnDevice(const float * planar, std::int64_t pixels, int components, T * interleaved);

/** The zoom canvas (g.canvasSize, g.planes planes) from the interpolation region
 * (planar; B-spline coefficients for cubic interpolation). */
CudaImageFilters_EXPORT void
ZoomOnDevice(const float * region, const ZoomGeometry & g, float * canvas);

/** The explicit instantiations, for the CUDA source and its no-CUDA twin alike:
 * CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_PLANAR). */
#define CIF_INSTANTIATE_PLANAR(T)                                           \
  template void ToPlanarOnDevice<T>(const T *, std::int64_t, int, float *); \
  template void FromPlanarOnDevice<T>(const float *, std::int64_t, int, T *);
} // namespace cif

#endif
