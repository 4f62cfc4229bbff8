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
#ifndef cifHostDevice_h
#define cifHostDevice_h

/** \file cifHostDevice.h
 * CIF_HD marks functions compiled for both the host and the device. The CPU path
 * and the CUDA kernels call the very same math, so CI (which has no GPU) tests the
 * arithmetic that the GPU runs. CIF_NO_UNROLL keeps a loop rolled on the device
 * (nvcc unrolls short constant-trip loops by itself) where its body is large. */
#if defined(__CUDACC__)
#  define CIF_HD __host__ __device__ __forceinline__
#  define CIF_UNROLL _Pragma("unroll")
#  define CIF_NO_UNROLL _Pragma("unroll 1")
#else
#  define CIF_HD inline
#  define CIF_UNROLL
#  define CIF_NO_UNROLL
#endif

#endif

#ifndef cifHostDeviceRounding_h
#define cifHostDeviceRounding_h
namespace cif
{
/** a * b + c rounded twice, as ITK's host code computes it. nvcc would otherwise
 * fuse it into one FMA (rounded once) and coordinates that sit exactly on a boundary
 * of ITK's inside tests (a B-spline grid's valid region, the input buffer) could
 * land on the other side. */
CIF_HD double
MulAddUnfused(double a, double b, double c)
{
#if defined(__CUDA_ARCH__)
  return __dadd_rn(__dmul_rn(a, b), c);
#else
  return a * b + c;
#endif
}
} // namespace cif
#endif
