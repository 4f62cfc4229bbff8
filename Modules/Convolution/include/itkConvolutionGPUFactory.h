#ifndef itkConvolutionGPUFactory_h
#define itkConvolutionGPUFactory_h

#include "CudaImageFiltersExport.h"
#include "itkCudaFilterFactory.h"

namespace itk
{
/** \class ConvolutionGPUFactory
 * \brief Makes ConvolutionImageFilter<...>::New() return ConvolutionGPUImageFilter.
 *
 * After ConvolutionGPUFactory::RegisterOneFactory(), every
 * itk::ConvolutionImageFilter<itk::Image<T, D>, itk::Image<float, D>, itk::Image<T, D>>
 * and itk::ConvolutionImageFilter<itk::Image<T, D>> (the kernel of the image's own
 * type) with T in {unsigned char, short, unsigned short, float, double} and D in
 * {2, 3} returns the GPU filter, which runs ITK's own code for whatever it does not
 * take (see ConvolutionGPUImageFilter), so existing pipelines need no change.
 *
 * \ingroup CudaImageFilters
 */
class CudaImageFilters_EXPORT ConvolutionGPUFactory : public CudaFilterFactory<ConvolutionGPUFactory>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ConvolutionGPUFactory);
  using Self = ConvolutionGPUFactory;
  using Superclass = CudaFilterFactory<ConvolutionGPUFactory>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkFactorylessNewMacro(Self);
  itkTypeMacro(ConvolutionGPUFactory, ObjectFactoryBase);

protected:
  ConvolutionGPUFactory();
  ~ConvolutionGPUFactory() override = default;

private:
  template <typename TPixel, typename TKernelPixel, unsigned int VDimension>
  void
  OverrideFor();
};
} // namespace itk

#endif
