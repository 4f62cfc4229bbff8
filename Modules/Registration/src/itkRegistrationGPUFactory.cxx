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
#include "itkRegistrationGPUFactory.h"
#include "itkANTSNeighborhoodCorrelationImageToImageMetricv4GPU.h"
#include "itkCorrelationImageToImageMetricv4GPU.h"
#include "itkMattesMutualInformationImageToImageMetricv4GPU.h"
#include "itkMeanSquaresImageToImageMetricv4GPU.h"

namespace itk
{
template <typename TPixel, unsigned int VDimension>
void
RegistrationGPUFactory::OverrideFor()
{
  using ImageType = Image<TPixel, VDimension>;
  this->OverrideWith<MeanSquaresImageToImageMetricv4<ImageType, ImageType>,
                     MeanSquaresImageToImageMetricv4GPU<ImageType, ImageType>>();
  this->OverrideWith<MattesMutualInformationImageToImageMetricv4<ImageType, ImageType>,
                     MattesMutualInformationImageToImageMetricv4GPU<ImageType, ImageType>>();
  this->OverrideWith<CorrelationImageToImageMetricv4<ImageType, ImageType>,
                     CorrelationImageToImageMetricv4GPU<ImageType, ImageType>>();
  this->OverrideWith<ANTSNeighborhoodCorrelationImageToImageMetricv4<ImageType, ImageType>,
                     ANTSNeighborhoodCorrelationImageToImageMetricv4GPU<ImageType, ImageType>>();
}

RegistrationGPUFactory::RegistrationGPUFactory()
  : Superclass("CudaImageFilters: v4 image metrics on the GPU", "Image metric on the GPU")
{
  this->OverrideFor<float, 2>();
  this->OverrideFor<float, 3>();
  this->OverrideFor<double, 2>();
  this->OverrideFor<double, 3>();
}
} // namespace itk
