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
// Texture-mode entry points of a build without the CUDA toolkit: a texture is never
// built there (the filter's GPU path does not run), so building throws and the rest
// has nothing to release.
#include "cifCudaRuntime.h"
#include "cifTextureResampleDevice.h"
#include "cifScalarTypes.h"

#include <utility>

namespace cif
{
std::size_t
CoefficientTexture::BuildBytes(int dimension, const CoefficientGrid & grid, TextureTexels texels)
{
  std::size_t count = 1;
  for (int a = 0; a < dimension; ++a)
  {
    count *= static_cast<std::size_t>(grid.size[a] + 4);
  }
  return 2 * count * (texels == TextureTexels::Half ? 2 : 4);
}

void
CoefficientTexture::Build(int, const float *, const CoefficientGrid &, TextureTexels)
{
  throw CudaError("CoefficientTexture::Build: CudaImageFilters was built without the CUDA toolkit");
}

void
CoefficientTexture::Release() noexcept
{}

CoefficientTexture::~CoefficientTexture() = default;

CoefficientTexture::CoefficientTexture(CoefficientTexture &&) noexcept {}

CoefficientTexture &
CoefficientTexture::operator=(CoefficientTexture &&) noexcept
{
  return *this;
}

bool
CoefficientTexture::OnCurrentDevice() const
{
  return false;
}

template <int D, typename TOut>
void
ResampleWithTextureOnDevice(const CoefficientTexture &,
                            const ResampleGeometry &,
                            const TransformChain &,
                            const double *,
                            bool,
                            TOut,
                            TOut *)
{
  throw CudaError("ResampleWithTextureOnDevice: CudaImageFilters was built without the CUDA toolkit");
}
CIF_FOR_EACH_SCALAR(CIF_INSTANTIATE_TEXTURED)
} // namespace cif
