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
#include "itkBSplinePrefilterGPUFactory.h"
#include "itkBSplinePrefilterGPUImageFilter.h"
#include "itkCovariantVector.h"
#include "itkRGBPixel.h"
#include "itkVector.h"
#include "itkVectorImage.h"

namespace itk
{

template <typename TInputImage, typename TOutputImage>
void
BSplinePrefilterGPUFactory::OverrideFor()
{
  using CPUFilter = BSplineDecompositionImageFilter<TInputImage, TOutputImage>;
  using GPUFilter = BSplinePrefilterGPUImageFilter<TInputImage, TOutputImage>;
  this->OverrideWith<CPUFilter, GPUFilter>();
}

template <typename TIn, typename TOut, unsigned int VDimension>
void
BSplinePrefilterGPUFactory::OverrideForScalars()
{
  this->OverrideFor<Image<TIn, VDimension>, Image<TOut, VDimension>>();
}

BSplinePrefilterGPUFactory::BSplinePrefilterGPUFactory()
  : Superclass("CudaImageFilters: BSplineDecompositionImageFilter on the GPU", "B-spline prefilter on the GPU")
{
  auto forEachDimension = [this](auto inputTag, auto outputTag) {
    using TIn = typename decltype(inputTag)::type;
    using TOut = typename decltype(outputTag)::type;
    this->OverrideForScalars<TIn, TOut, 1>();
    this->OverrideForScalars<TIn, TOut, 2>();
    this->OverrideForScalars<TIn, TOut, 3>();
    this->OverrideForScalars<TIn, TOut, 4>();
  };
  auto forEachOutput = [&](auto inputTag) {
    forEachDimension(inputTag, std::common_type<float>{});
    forEachDimension(inputTag, std::common_type<double>{});
  };
  forEachOutput(std::common_type<unsigned char>{});
  forEachOutput(std::common_type<short>{});
  forEachOutput(std::common_type<unsigned short>{});
  forEachOutput(std::common_type<int>{});
  forEachOutput(std::common_type<float>{});
  forEachOutput(std::common_type<double>{});

  this->OverrideFor<Image<RGBPixel<float>, 2>, Image<RGBPixel<float>, 2>>();
  this->OverrideFor<Image<RGBPixel<float>, 3>, Image<RGBPixel<float>, 3>>();
  this->OverrideFor<Image<Vector<float, 2>, 2>, Image<Vector<float, 2>, 2>>();
  this->OverrideFor<Image<Vector<float, 3>, 3>, Image<Vector<float, 3>, 3>>();
  this->OverrideFor<Image<Vector<double, 2>, 2>, Image<Vector<double, 2>, 2>>();
  this->OverrideFor<Image<Vector<double, 3>, 3>, Image<Vector<double, 3>, 3>>();
  this->OverrideFor<Image<CovariantVector<float, 3>, 3>, Image<CovariantVector<float, 3>, 3>>();
  this->OverrideFor<VectorImage<float, 2>, VectorImage<float, 2>>();
  this->OverrideFor<VectorImage<float, 3>, VectorImage<float, 3>>();
  this->OverrideFor<VectorImage<double, 3>, VectorImage<double, 3>>();
}

} // namespace itk
