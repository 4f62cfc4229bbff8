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
#ifndef itkRGBPixelScalarProduct_h
#define itkRGBPixelScalarProduct_h

#include "itkRGBPixel.h"

namespace itk
{
/** scalar * RGBPixel. ITK 5.2 has RGBPixel * scalar only, and the recursion of
 * BSplineDecompositionImageFilter writes the product the other way round, so
 * neither ITK's filter nor its GPU subclass compiled for RGB images. With this
 * operator both do (found by argument-dependent lookup). Should a later ITK add
 * the same operator, delete this file. */
template <typename T>
inline RGBPixel<T>
operator*(const T & scalar, const RGBPixel<T> & pixel)
{
  return pixel * scalar;
}
} // namespace itk

#endif
