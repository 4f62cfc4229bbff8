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
#ifndef itkSmoothingGPUFactory_h
#define itkSmoothingGPUFactory_h

#include "CudaImageFiltersExport.h"
#include "itkCudaFilterFactory.h"

namespace itk
{
/** \class SmoothingGPUFactory
 * \brief Makes New() of ITK's recursive Gaussian filters return their GPU twins.
 *
 * After SmoothingGPUFactory::RegisterOneFactory(), for T in {float, double} and D in
 * {2, 3}:
 * - SmoothingRecursiveGaussianImageFilter<Image<T, D>, Image<T, D>>::New() returns a
 *   SmoothingRecursiveGaussianGPUImageFilter (what ImageRegistrationMethodv4 smooths
 *   the fixed and moving images with at every level);
 * - GradientRecursiveGaussianImageFilter<Image<T, D>, Image<CovariantVector<double,
 *   D>, D>>::New() returns a GradientRecursiveGaussianGPUImageFilter (the v4 image
 *   metrics' default gradient filter, DefaultImageToImageMetricTraitsv4).
 *
 * RecursiveGaussianImageFilter (one axis) is left to ITK: the mini-pipelines of ITK's
 * own filters create it, and a GPU pass per axis with its own upload and download
 * would not pay there. Use RecursiveGaussianGPUImageFilter by name.
 *
 * \ingroup CudaImageFilters
 */
class CudaImageFilters_EXPORT SmoothingGPUFactory : public CudaFilterFactory<SmoothingGPUFactory>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(SmoothingGPUFactory);
  using Self = SmoothingGPUFactory;
  using Superclass = CudaFilterFactory<SmoothingGPUFactory>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkFactorylessNewMacro(Self);
  itkTypeMacro(SmoothingGPUFactory, ObjectFactoryBase);

protected:
  SmoothingGPUFactory();
  ~SmoothingGPUFactory() override = default;

private:
  template <typename T, unsigned int VDimension>
  void
  OverrideFor();
};
} // namespace itk

#endif
