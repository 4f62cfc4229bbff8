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
#ifndef itkCudaPixelTraits_h
#define itkCudaPixelTraits_h

#include "itkCudaDeviceImage.h"
#include "itkNumericTraits.h"
#include "itkVectorImage.h"

#include <cstdint>
#include <type_traits>

namespace itk
{
/** What the GPU layer needs to know of an image type: the scalar of each pixel
 * component, how many components a pixel has (RGBPixel, Vector, CovariantVector
 * are interleaved arrays of components; for a VectorImage the count is known only
 * at run time: Components is 0 and ComponentsOf() asks the image), and whether the
 * image can hold a device copy (CudaDeviceImage). */
template <typename TImage>
struct CudaImageTraits
{
  using PixelType = typename TImage::PixelType;
  using ComponentType = typename NumericTraits<PixelType>::ValueType;
  static constexpr unsigned int Components = sizeof(PixelType) / sizeof(ComponentType);
  static constexpr bool         IsCudaDeviceImage = false;
  static unsigned int
  ComponentsOf(const TImage *)
  {
    return Components;
  }
};

template <typename TComponent, unsigned int VDimension>
struct CudaImageTraits<VectorImage<TComponent, VDimension>>
{
  using PixelType = typename VectorImage<TComponent, VDimension>::PixelType;
  using ComponentType = TComponent;
  static constexpr unsigned int Components = 0; // per image
  static constexpr bool         IsCudaDeviceImage = false;
  static unsigned int
  ComponentsOf(const VectorImage<TComponent, VDimension> * image)
  {
    return image->GetNumberOfComponentsPerPixel();
  }
};

template <typename TPixel, unsigned int VDimension>
struct CudaImageTraits<CudaDeviceImage<TPixel, VDimension>>
{
  using PixelType = TPixel;
  using ComponentType = typename NumericTraits<PixelType>::ValueType;
  static constexpr unsigned int Components = sizeof(PixelType) / sizeof(ComponentType);
  static constexpr bool         IsCudaDeviceImage = true;
  static unsigned int
  ComponentsOf(const CudaDeviceImage<TPixel, VDimension> *)
  {
    return Components;
  }
};

/** Scalars the device kernels read: the integer and floating types of ITK images. */
template <typename T>
constexpr bool IsCudaInputScalar =
  std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint16_t> ||
  std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::int32_t> ||
  std::is_same_v<T, float> || std::is_same_v<T, double>;

/** Scalars the device kernels compute in. */
template <typename T>
constexpr bool IsCudaRealScalar = std::is_same_v<T, float> || std::is_same_v<T, double>;

/** The same integer type spelled with <cstdint> names (char vs signed char, int vs
 * int32_t) so it matches the explicitly instantiated kernels. */
template <typename T>
using CudaScalar = std::conditional_t<
  std::is_floating_point_v<T>,
  T,
  std::conditional_t<
    sizeof(T) == 1,
    std::conditional_t<std::is_signed_v<T>, std::int8_t, std::uint8_t>,
    std::conditional_t<
      sizeof(T) == 2,
      std::conditional_t<std::is_signed_v<T>, std::int16_t, std::uint16_t>,
      std::conditional_t<sizeof(T) == 4, std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>, T>>>>;
} // namespace itk

#endif
