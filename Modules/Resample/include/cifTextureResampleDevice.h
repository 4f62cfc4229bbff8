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
#ifndef cifTextureResampleDevice_h
#define cifTextureResampleDevice_h

#include "CudaImageFiltersExport.h"
#include "cifScalarTypes.h"
#include "cifResampleMath.h"

#include <cstddef>

namespace cif
{
/** How a CoefficientTexture stores its texels. */
enum class TextureTexels
{
  /** 32-bit float: the coefficients as they are. */
  Float,
  /** 16-bit float (cudaChannelFormatKindFloat, 16 bits; the coefficients rounded to
   * __half, 11 significant bits, relative error up to 2^-11 per texel): half the
   * texture's memory and the bytes each fetch moves. The texels are the
   * coefficients times a power of two (Scale()) chosen so that the largest stays
   * finite in half (65504): power-of-two scaling adds no rounding of its own. */
  Half
};

/** \class CoefficientTexture
 * Owns a CUDA array of B-spline coefficients padded by two samples of ITK's mirror
 * on every side, and a linearly filtering texture object on it (RAII, move-only):
 * what ResampleWithTextureOnDevice reads. Built once, it serves any number of
 * resamplings of those coefficients (any transform, any output grid), which is what
 * makes the texture mode pay: building it moves the coefficients twice (padding,
 * then the copy into the array's layout), about as much as one exact resampling.
 * Plain C++ (no CUDA types), so an ITK filter can keep one as a member. In a build
 * without the CUDA toolkit Build throws and the rest does nothing. */
class CudaImageFilters_EXPORT CoefficientTexture
{
public:
  CoefficientTexture() = default;
  ~CoefficientTexture();
  CoefficientTexture(CoefficientTexture && other) noexcept;
  CoefficientTexture &
  operator=(CoefficientTexture && other) noexcept;
  CoefficientTexture(const CoefficientTexture &) = delete;
  CoefficientTexture &
  operator=(const CoefficientTexture &) = delete;

  /** Builds the texture (releasing what was held) of \a dimension (2 or 3) axes
   * from float coefficients on the current device laid out on \a grid. Returns
   * when the array is complete, so another host thread may read it at once. Throws
   * CudaError (nothing held then). */
  void
  Build(int dimension, const float * coefficients, const CoefficientGrid & grid, TextureTexels texels);
  /** Destroys the texture object and frees the array (waits for nothing: callers
   * synchronise after their resampling). */
  void
  Release() noexcept;

  bool
  Empty() const
  {
    return m_Texture == 0;
  }
  /** True when built on the device now current in the calling thread. */
  bool
  OnCurrentDevice() const;
  int
  Dimension() const
  {
    return m_Dimension;
  }
  TextureTexels
  Texels() const
  {
    return m_Texels;
  }
  const CoefficientGrid &
  Grid() const
  {
    return m_Grid;
  }
  /** Bytes of the array (padded samples times the texel's size). */
  std::size_t
  Bytes() const
  {
    return m_Bytes;
  }
  /** The interpolated texels times this give the spline's value (1 for Float). */
  float
  Scale() const
  {
    return m_Scale;
  }
  /** The cudaTextureObject_t. */
  unsigned long long
  Object() const
  {
    return m_Texture;
  }

  /** Bytes of device memory Build needs for \a grid of \a dimension axes besides the
   * coefficients: the array and the padded staging copy. */
  static std::size_t
  BuildBytes(int dimension, const CoefficientGrid & grid, TextureTexels texels);

private:
  void *             m_Array = nullptr; // cudaArray_t
  unsigned long long m_Texture = 0;
  int                m_Device = -1;
  int                m_Dimension = 0;
  TextureTexels      m_Texels = TextureTexels::Float;
  CoefficientGrid    m_Grid;
  std::size_t        m_Bytes = 0;
  float              m_Scale = 1.0f;
};

/** Texture-accelerated cubic resampling (seed 002, Ruijters et al.): each output
 * voxel is 2^D hardware linearly filtered fetches from \a texture instead of 4^D
 * exact terms. The texture unit interpolates with weights of about 8 fractional bits
 * (and Half texels round the coefficients), so results differ from the exact mode by
 * an error Modules/Resample/README.md measures; opt-in only. The texture's padding
 * mirrors as ITK does, so borders behave as in exact mode. \a texture must have been
 * built for geometry.input and D axes (else CudaError). Other arguments as
 * ResampleOnDevice; returns when the output is written. */
template <int D, typename TOut>
CudaImageFilters_EXPORT void
ResampleWithTextureOnDevice(const CoefficientTexture & texture,
                            const ResampleGeometry &   geometry,
                            const TransformChain &     chain,
                            const double *             mappedPoints,
                            bool                       linearRows,
                            TOut                       defaultValue,
                            TOut *                     output);
/** The explicit instantiations, for the CUDA source and its no-CUDA twin alike:
 * CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_TEXTURED). */
#define CIF_INSTANTIATE_TEXTURED(TO)                                                                               \
  template void ResampleWithTextureOnDevice<2, TO>(                                                                \
    const CoefficientTexture &, const ResampleGeometry &, const TransformChain &, const double *, bool, TO, TO *); \
  template void ResampleWithTextureOnDevice<3, TO>(                                                                \
    const CoefficientTexture &, const ResampleGeometry &, const TransformChain &, const double *, bool, TO, TO *);

} // namespace cif

#endif
