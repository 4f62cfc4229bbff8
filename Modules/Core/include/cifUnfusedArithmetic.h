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
#ifndef cifUnfusedArithmetic_h
#define cifUnfusedArithmetic_h

#include "cifHostDevice.h"

/** \file cifUnfusedArithmetic.h
 * Double arithmetic rounded once per operation on the host and the device alike:
 * nvcc contracts a * b + c into one fused multiply-add unless told otherwise, and
 * code that must give ITK's bits (ITK's host build does not fuse) spells each
 * operation with these. MulAddUnfused (cifHostDevice.h) is the product-then-sum. */
namespace cif
{
CIF_HD double
MulUnfused(double a, double b)
{
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

CIF_HD double
AddUnfused(double a, double b)
{
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

CIF_HD double
SubUnfused(double a, double b)
{
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
} // namespace cif

#endif
