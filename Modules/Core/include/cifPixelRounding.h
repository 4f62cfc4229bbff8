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
#ifndef cifPixelRounding_h
#define cifPixelRounding_h

#include "cifHostDevice.h"

/** \file cifPixelRounding.h
 * A double value rounded to a pixel type and back, as ITK rounds a value it stores
 * in a float pixel (an interpolated value kept as FixedImagePixelType, a smoothed
 * sample written to a float buffer) before it reads it as double again.
 *
 * On the host the float goes through memory the optimizer cannot see into. GCC 12.2
 * (Debian 12's compiler) at -O2 and above drops the round trip (double)(float)v
 * where its SLP vectorizer pairs two of them: two such results stored next to each
 * other in a struct come back unrounded (the whole function becomes one 128-bit
 * move; -fno-tree-slp-vectorize restores the rounding). The Smoothing module's bit
 * tests caught it first; the Mattes metric's bins then differed from ITK's for
 * float images (a sample on the other side of a bin edge). CudaCoreTests'
 * PixelRounding tests keep the pattern under test. */
namespace cif
{
/** \a v rounded to float, as a double. */
CIF_HD double
RoundToFloat(double v)
{
  float f = static_cast<float>(v);
#if !defined(__CUDA_ARCH__) && (defined(__GNUC__) || defined(__clang__))
  __asm__ volatile("" : "+m"(f));
#endif
  return static_cast<double>(f);
}

/** \a v rounded to \a TPixel (float or double), as a double. */
template <typename TPixel>
CIF_HD double
RoundToPixelType(double v)
{
  return v;
}

template <>
CIF_HD double
RoundToPixelType<float>(double v)
{
  return RoundToFloat(v);
}
} // namespace cif

#endif
