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
// Which ITK image type holds a volume a module reads: chosen from the file's header,
// so that a module's output keeps the input's component type and pixel kind.
#ifndef cifVolumeTypes_h
#define cifVolumeTypes_h

#include "itkDefaultConvertPixelTraits.h"
#include "itkImage.h"
#include "itkImageIOBase.h"
#include "itkRGBPixel.h"
#include "itkVectorImage.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace cif
{
/** A type as a value, for generic lambdas: run(TypeTag<Image>{}). */
template <typename T>
struct TypeTag
{
  using type = T;
};

/** A pixel of \a TImage with every one of its \a components equal to \a value (a
 * VectorImage's pixels take their length from the image). Throws where \a value does
 * not fit the component type: it would wrap (300 becomes 44 in 8 bits). */
template <typename TImage>
typename TImage::PixelType
FilledPixel(double value, unsigned int components, const std::string & what)
{
  using Component = typename itk::NumericTraits<typename TImage::PixelType>::ValueType;
  if (!(value >= static_cast<double>(std::numeric_limits<Component>::lowest()) &&
        value <= static_cast<double>(std::numeric_limits<Component>::max())))
  {
    throw std::runtime_error(what + " " + std::to_string(value) + " does not fit the volume's pixel type");
  }
  typename TImage::PixelType pixel;
  itk::NumericTraits<typename TImage::PixelType>::SetLength(pixel, components);
  for (unsigned int c = 0; c < components; ++c)
  {
    itk::DefaultConvertPixelTraits<typename TImage::PixelType>::SetNthComponent(
      c, pixel, static_cast<Component>(value));
  }
  return pixel;
}

/** The image type for a volume of \a TComponent components, dimension D, of the
 * pixel kind \a io describes: a scalar itk::Image for one component, an
 * itk::Image of RGBPixel for 8-bit RGB (what Slicer's colour volumes are), and an
 * itk::VectorImage for any other number of components (vectors, tensors, RGB of
 * other types). */
template <typename TComponent, unsigned int D, typename TRun>
void
ForPixelKind(const itk::ImageIOBase & io, TRun && run)
{
  if (io.GetNumberOfComponents() == 1)
  {
    run(TypeTag<itk::Image<TComponent, D>>{});
  }
  else if constexpr (std::is_same_v<TComponent, unsigned char>)
  {
    if (io.GetPixelType() == itk::IOPixelEnum::RGB && io.GetNumberOfComponents() == 3)
    {
      run(TypeTag<itk::Image<itk::RGBPixel<unsigned char>, D>>{});
    }
    else
    {
      run(TypeTag<itk::VectorImage<TComponent, D>>{});
    }
  }
  else
  {
    run(TypeTag<itk::VectorImage<TComponent, D>>{});
  }
}

/** ForPixelKind for the volume's dimension: 2-D or 3-D (a clear error otherwise). */
template <typename TComponent, typename TRun>
void
ForVolumeOf(const itk::ImageIOBase & io, TRun && run)
{
  switch (io.GetNumberOfDimensions())
  {
    case 2:
      ForPixelKind<TComponent, 2>(io, run);
      break;
    case 3:
      ForPixelKind<TComponent, 3>(io, run);
      break;
    default:
      throw std::runtime_error(std::to_string(io.GetNumberOfDimensions()) +
                               "-D volumes are not supported (2-D or 3-D)");
  }
}

/** ForVolumeOf with the volume's own component type: 8-bit unsigned, 16-bit signed
 * and unsigned, float and double; volumes of other component types are read as
 * float. */
template <typename TRun>
void
ForVolumeType(const itk::ImageIOBase & io, TRun && run)
{
  switch (io.GetComponentType())
  {
    case itk::IOComponentEnum::UCHAR:
      ForVolumeOf<unsigned char>(io, run);
      break;
    case itk::IOComponentEnum::SHORT:
      ForVolumeOf<short>(io, run);
      break;
    case itk::IOComponentEnum::USHORT:
      ForVolumeOf<unsigned short>(io, run);
      break;
    case itk::IOComponentEnum::DOUBLE:
      ForVolumeOf<double>(io, run);
      break;
    default:
      ForVolumeOf<float>(io, run);
      break;
  }
}
} // namespace cif

#endif
