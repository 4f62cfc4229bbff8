#include "itkRegistrationGPUFactory.h"
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
