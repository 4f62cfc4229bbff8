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
#ifndef cifScalarOutput_cuh
#define cifScalarOutput_cuh

// The output buffer of an exact resampling kernel, of any scalar type of
// CIF_FOR_EACH_SCALAR: the kernels compute each voxel in double and convert at the
// store (ResampleImageFilter's CastPixelWithBoundsChecking), so that one kernel serves
// every output type; a kernel family per type multiplied the machine code by eight.
// TypedOutput: the same interface for one type, for the common case's own kernels.
#include "cifResampleMath.h"

#include <cstdint>
#include <type_traits>

namespace cif
{
/** The scalar types of CIF_FOR_EACH_SCALAR, as a value. */
enum class ScalarKind : std::uint8_t
{
  UInt8,
  Int8,
  UInt16,
  Int16,
  UInt32,
  Int32,
  Float,
  Double
};

template <typename T>
constexpr ScalarKind
ScalarKindOf()
{
  if constexpr (std::is_same_v<T, std::uint8_t>)
    return ScalarKind::UInt8;
  else if constexpr (std::is_same_v<T, std::int8_t>)
    return ScalarKind::Int8;
  else if constexpr (std::is_same_v<T, std::uint16_t>)
    return ScalarKind::UInt16;
  else if constexpr (std::is_same_v<T, std::int16_t>)
    return ScalarKind::Int16;
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return ScalarKind::UInt32;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return ScalarKind::Int32;
  else if constexpr (std::is_same_v<T, float>)
    return ScalarKind::Float;
  else
  {
    static_assert(std::is_same_v<T, double>, "an output scalar of CIF_FOR_EACH_SCALAR");
    return ScalarKind::Double;
  }
}

/** An output buffer of scalars of kind \a kind, and the value of the voxels that map
 * outside the input (held as a double, which every scalar type's value converts to and
 * back exactly). The kind is the same for every thread of a launch, so the switch of
 * a store never diverges. */
struct ScalarOutput
{
  void *     data;
  ScalarKind kind;
  double     defaultValue;

  template <typename T>
  static ScalarOutput
  Of(T * data, T defaultValue)
  {
    return { data, ScalarKindOf<T>(), static_cast<double>(defaultValue) };
  }

  /** Calls \a f with the buffer as a pointer to its scalar type. */
  template <typename F>
  __host__ __device__ __forceinline__ void
  Visit(F && f) const
  {
    switch (kind)
    {
      case ScalarKind::UInt8:
        f(static_cast<std::uint8_t *>(data));
        break;
      case ScalarKind::Int8:
        f(static_cast<std::int8_t *>(data));
        break;
      case ScalarKind::UInt16:
        f(static_cast<std::uint16_t *>(data));
        break;
      case ScalarKind::Int16:
        f(static_cast<std::int16_t *>(data));
        break;
      case ScalarKind::UInt32:
        f(static_cast<std::uint32_t *>(data));
        break;
      case ScalarKind::Int32:
        f(static_cast<std::int32_t *>(data));
        break;
      case ScalarKind::Float:
        f(static_cast<float *>(data));
        break;
      default:
        f(static_cast<double *>(data));
    }
  }

  /** The same buffer from voxel \a first on. */
  ScalarOutput
  From(std::int64_t first) const
  {
    ScalarOutput shifted = *this;
    Visit([&](auto * typed) { shifted.data = typed + first; });
    return shifted;
  }

  /** Voxel \a i gets \a value, clamped to the type's range and converted. */
  __device__ __forceinline__ void
  Store(std::int64_t i, double value) const
  {
    Visit([&](auto * typed) {
      using T = std::remove_pointer_t<decltype(typed)>;
      typed[i] = CastWithBoundsChecking<T>(value);
    });
  }

  /** Voxel \a i gets the default value. */
  __device__ __forceinline__ void
  StoreDefault(std::int64_t i) const
  {
    Visit([&](auto * typed) {
      using T = std::remove_pointer_t<decltype(typed)>;
      typed[i] = static_cast<T>(defaultValue);
    });
  }
};

/** An output buffer of one scalar type T, with ScalarOutput's interface: the kernels
 * of the common case (float coefficients into float) keep a family of their own,
 * without the store's switch, which cost them 5-9 % (the switch splits the unrolled
 * loop of a thread's voxels). */
template <typename T>
struct TypedOutput
{
  T * data;
  T   defaultValue;

  TypedOutput
  From(std::int64_t first) const
  {
    return { data + first, defaultValue };
  }

  __device__ __forceinline__ void
  Store(std::int64_t i, double value) const
  {
    data[i] = CastWithBoundsChecking<T>(value);
  }

  __device__ __forceinline__ void
  StoreDefault(std::int64_t i) const
  {
    data[i] = defaultValue;
  }
};
} // namespace cif

#endif
