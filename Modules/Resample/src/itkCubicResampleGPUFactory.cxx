#include "itkCubicResampleGPUFactory.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkVersion.h"

#include <mutex>

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
  this->RegisterOverride(typeid(CPUFilter).name(),
                         typeid(GPUFilter).name(),
                         "Cubic B-spline resampling on the GPU",
                         true,
                         CreateObjectFunction<GPUFilter>::New());
}

CubicResampleGPUFactory::CubicResampleGPUFactory()
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

const char *
CubicResampleGPUFactory::GetITKSourceVersion() const
{
  return ITK_SOURCE_VERSION;
}

const char *
CubicResampleGPUFactory::GetDescription() const
{
  return "CudaImageFilters: ResampleImageFilter with cubic B-spline interpolation on the GPU";
}

void
CubicResampleGPUFactory::RegisterOneFactory()
{
  static std::once_flag once;
  std::call_once(once, [] { ObjectFactoryBase::RegisterFactory(Self::New()); });
}
} // namespace itk
