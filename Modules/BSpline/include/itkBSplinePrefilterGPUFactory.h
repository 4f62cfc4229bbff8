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
#ifndef itkBSplinePrefilterGPUFactory_h
#define itkBSplinePrefilterGPUFactory_h

#include "CudaImageFiltersExport.h"
#include "itkCudaFilterFactory.h"

namespace itk
{
/** \class BSplinePrefilterGPUFactory
 * \brief Makes BSplineDecompositionImageFilter<...>::New() return the GPU filter.
 *
 * After BSplinePrefilterGPUFactory::RegisterOneFactory(), every
 * itk::BSplineDecompositionImageFilter<itk::Image<TIn, D>, itk::Image<TOut, D>>::New()
 * with TIn in {unsigned char, short, unsigned short, int, float, double}, TOut in
 * {float, double} and D in 1..4, with RGB/vector pixels of float and double for D
 * in 2..3, and VectorImage<float, 2|3> and VectorImage<double, 3>, returns a BSplinePrefilterGPUImageFilter: existing
 * pipelines run on the GPU unchanged. Other types keep ITK's filter.
 *
 * \ingroup CudaImageFilters
 */
class CudaImageFilters_EXPORT BSplinePrefilterGPUFactory : public CudaFilterFactory<BSplinePrefilterGPUFactory>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(BSplinePrefilterGPUFactory);
  using Self = BSplinePrefilterGPUFactory;
  using Superclass = CudaFilterFactory<BSplinePrefilterGPUFactory>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkFactorylessNewMacro(Self);
  itkTypeMacro(BSplinePrefilterGPUFactory, ObjectFactoryBase);

protected:
  BSplinePrefilterGPUFactory();
  ~BSplinePrefilterGPUFactory() override = default;

private:
  template <typename TInputImage, typename TOutputImage>
  void
  OverrideFor();
  template <typename TIn, typename TOut, unsigned int VDimension>
  void
  OverrideForScalars();
};
} // namespace itk

#endif
