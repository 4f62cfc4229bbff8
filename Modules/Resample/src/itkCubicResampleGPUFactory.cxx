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
#include "itkCubicResampleGPUFactory.h"
#include "itkCubicResampleGPUImageFilter.h"

namespace itk
{
template <typename TIn, typename TOut, unsigned int VDimension>
void
CubicResampleGPUFactory::OverrideFor()
{
  using InputImage = Image<TIn, VDimension>;
  using OutputImage = Image<TOut, VDimension>;
  using CPUFilter = ResampleImageFilter<InputImage, OutputImage, double, double>;
  using GPUFilter = CubicResampleGPUImageFilter<InputImage, OutputImage, double, double>;
  this->OverrideWith<CPUFilter, GPUFilter>();
}

CubicResampleGPUFactory::CubicResampleGPUFactory()
  : Superclass("CudaImageFilters: ResampleImageFilter with cubic B-spline interpolation on the GPU",
               "Cubic B-spline resampling on the GPU")
{
  auto everyDimension = [this](auto inputTag, auto outputTag) {
    using TIn = typename decltype(inputTag)::type;
    using TOut = typename decltype(outputTag)::type;
    this->OverrideFor<TIn, TOut, 2>();
    this->OverrideFor<TIn, TOut, 3>();
    this->OverrideFor<TIn, TOut, 4>();
  };
  everyDimension(std::common_type<unsigned char>{}, std::common_type<unsigned char>{});
  everyDimension(std::common_type<short>{}, std::common_type<short>{});
  everyDimension(std::common_type<unsigned short>{}, std::common_type<unsigned short>{});
  everyDimension(std::common_type<float>{}, std::common_type<float>{});
  everyDimension(std::common_type<double>{}, std::common_type<double>{});
  everyDimension(std::common_type<unsigned char>{}, std::common_type<float>{});
  everyDimension(std::common_type<short>{}, std::common_type<float>{});
  everyDimension(std::common_type<unsigned short>{}, std::common_type<float>{});
}

} // namespace itk
