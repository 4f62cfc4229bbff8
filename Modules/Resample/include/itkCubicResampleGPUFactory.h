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
#ifndef itkCubicResampleGPUFactory_h
#define itkCubicResampleGPUFactory_h

#include "CudaImageFiltersExport.h"
#include "itkCudaFilterFactory.h"

namespace itk
{
/** \class CubicResampleGPUFactory
 * \brief Makes ResampleImageFilter<...>::New() return CubicResampleGPUImageFilter.
 *
 * After CubicResampleGPUFactory::RegisterOneFactory(), every
 * itk::ResampleImageFilter<itk::Image<T, D>, itk::Image<T, D>> (double precision
 * interpolator and transform) with T in {unsigned char, short, unsigned short, float,
 * double} and D in 2..4, and float output from the integer inputs, returns the GPU
 * filter. It takes the GPU path when the pipeline hands it a cubic
 * BSplineInterpolateImageFunction and behaves exactly as ITK's filter otherwise, so
 * existing pipelines need no change.
 *
 * \ingroup CudaImageFilters
 */
class CudaImageFilters_EXPORT CubicResampleGPUFactory : public CudaFilterFactory<CubicResampleGPUFactory>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CubicResampleGPUFactory);
  using Self = CubicResampleGPUFactory;
  using Superclass = CudaFilterFactory<CubicResampleGPUFactory>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkFactorylessNewMacro(Self);
  itkTypeMacro(CubicResampleGPUFactory, ObjectFactoryBase);

protected:
  CubicResampleGPUFactory();
  ~CubicResampleGPUFactory() override = default;

private:
  template <typename TIn, typename TOut, unsigned int VDimension>
  void
  OverrideFor();
};
} // namespace itk

#endif
