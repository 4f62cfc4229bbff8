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
