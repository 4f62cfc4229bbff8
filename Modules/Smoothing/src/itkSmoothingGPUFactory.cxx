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
