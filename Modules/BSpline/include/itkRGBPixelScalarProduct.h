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
