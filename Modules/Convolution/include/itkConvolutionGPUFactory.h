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
