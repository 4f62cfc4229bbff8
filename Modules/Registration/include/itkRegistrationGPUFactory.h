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
#ifndef itkRegistrationGPUFactory_h
#define itkRegistrationGPUFactory_h

#include "CudaImageFiltersExport.h"
#include "itkCudaFilterFactory.h"

namespace itk
{
/** \class RegistrationGPUFactory
 * \brief Makes the v4 image metrics' New() return their GPU twins.
 *
 * After RegistrationGPUFactory::RegisterOneFactory(),
 * MeanSquaresImageToImageMetricv4<Image<T, D>, Image<T, D>>::New(),
 * MattesMutualInformationImageToImageMetricv4<...>::New() and
 * CorrelationImageToImageMetricv4<...>::New() (T float or double, D 2 or
 * 3, the default virtual image, double computation and traits) return their GPU
 * twins: a registration program that creates its metric that way runs it on the
 * GPU without another change.
 *
 * \ingroup CudaImageFilters
 */
class CudaImageFilters_EXPORT RegistrationGPUFactory : public CudaFilterFactory<RegistrationGPUFactory>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(RegistrationGPUFactory);
  using Self = RegistrationGPUFactory;
  using Superclass = CudaFilterFactory<RegistrationGPUFactory>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkFactorylessNewMacro(Self);
  itkTypeMacro(RegistrationGPUFactory, ObjectFactoryBase);

protected:
  RegistrationGPUFactory();
  ~RegistrationGPUFactory() override = default;

private:
  template <typename TPixel, unsigned int VDimension>
  void
  OverrideFor();
};
} // namespace itk

#endif
