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
#include "itkSmoothingGPUFactory.h"
#include "itkGradientRecursiveGaussianGPUImageFilter.h"
#include "itkSmoothingRecursiveGaussianGPUImageFilter.h"

namespace itk
{
template <typename T, unsigned int VDimension>
void
SmoothingGPUFactory::OverrideFor()
{
  using ImageType = Image<T, VDimension>;
  using GradientImageType = Image<CovariantVector<double, VDimension>, VDimension>;
  this->OverrideWith<SmoothingRecursiveGaussianImageFilter<ImageType, ImageType>,
                     SmoothingRecursiveGaussianGPUImageFilter<ImageType, ImageType>>();
  this->OverrideWith<GradientRecursiveGaussianImageFilter<ImageType, GradientImageType>,
                     GradientRecursiveGaussianGPUImageFilter<ImageType, GradientImageType>>();
}

SmoothingGPUFactory::SmoothingGPUFactory()
  : Superclass("CudaImageFilters: recursive Gaussian smoothing and gradient filters on the GPU",
               "Recursive Gaussian filter on the GPU")
{
  this->OverrideFor<float, 2>();
  this->OverrideFor<float, 3>();
  this->OverrideFor<double, 2>();
  this->OverrideFor<double, 3>();
}
} // namespace itk
