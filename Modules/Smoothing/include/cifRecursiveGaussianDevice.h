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
#ifndef cifRecursiveGaussianDevice_h
#define cifRecursiveGaussianDevice_h

#include "CudaImageFiltersExport.h"
#include "cifRecursiveGaussianMath.h"

#include <cstdint>

/** \file cifRecursiveGaussianDevice.h
 * The GPU path of the recursive Gaussian passes (no CUDA or ITK header): device
 * pointers in, work queued on the calling thread's default stream (asynchronous;
 * launch errors thrown as CudaError). */
namespace cif
{
/** One pass along \a axis of the dense volume \a src (TSrc float or double) into the
 * double buffer \a dst (distinct from \a src), at \a output's component of
 * \a output.components interleaved scalars per pixel. One thread per line; the lines
 * of a warp are neighbours along x (coalesced) for every axis but x. */
template <typename TSrc>
CudaImageFilters_EXPORT void
RecursiveGaussianPassOnDevice(const TSrc *                          src,
                              double *                              dst,
                              const GaussianShape &                 shape,
                              int                                   axis,
                              const RecursiveGaussianCoefficients & c,
                              const GaussianPassOutput &            output);

/** dst[i] = (T) src[i] for i in [0, count) (T float or double). */
template <typename T>
CudaImageFilters_EXPORT void
ConvertFromDoubleOnDevice(const double * src, T * dst, std::int64_t count);

/** RotateCovariantPixel on \a pixels pixels of \a dimension interleaved doubles, in
 * place; \a direction is the row-major D x D matrix (host memory, passed by value). */
CudaImageFilters_EXPORT void
RotateCovariantOnDevice(double * data, std::int64_t pixels, int dimension, const double * direction);

#define CIF_INSTANTIATE_RECURSIVE_GAUSSIAN(T)                                           \
  template void RecursiveGaussianPassOnDevice<T>(const T *,                             \
                                                 double *,                              \
                                                 const GaussianShape &,                 \
                                                 int,                                   \
                                                 const RecursiveGaussianCoefficients &, \
                                                 const GaussianPassOutput &);           \
  template void ConvertFromDoubleOnDevice<T>(const double *, T *, std::int64_t);
} // namespace cif

#endif
