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
#include "itkConvolutionGPUFactory.h"
#include "itkConvolutionGPUImageFilter.h"

namespace itk
{
template <typename TPixel, typename TKernelPixel, unsigned int VDimension>
void
ConvolutionGPUFactory::OverrideFor()
{
  using ImageType = Image<TPixel, VDimension>;
  using KernelType = Image<TKernelPixel, VDimension>;
  using CPUFilter = ConvolutionImageFilter<ImageType, KernelType, ImageType>;
  using GPUFilter = ConvolutionGPUImageFilter<ImageType, KernelType, ImageType>;
  this->OverrideWith<CPUFilter, GPUFilter>();
}

ConvolutionGPUFactory::ConvolutionGPUFactory()
  : Superclass("CudaImageFilters: ConvolutionImageFilter on the GPU", "Convolution on the GPU")
{
  auto forPixel = [this](auto tag) {
    using T = typename decltype(tag)::type;
    this->OverrideFor<T, float, 2>();
    this->OverrideFor<T, float, 3>();
    if constexpr (!std::is_same_v<T, float>)
    {
      // ConvolutionImageFilter's default kernel type is the input's.
      this->OverrideFor<T, T, 2>();
      this->OverrideFor<T, T, 3>();
    }
  };
  forPixel(std::common_type<unsigned char>{});
  forPixel(std::common_type<short>{});
  forPixel(std::common_type<unsigned short>{});
  forPixel(std::common_type<float>{});
  forPixel(std::common_type<double>{});
}

} // namespace itk
