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
#ifndef cifShiftedPairTestSupport_h
#define cifShiftedPairTestSupport_h

// The registration pair of the optimizer tests: an image and its copy translated by a
// known shift (outside filled with 50), and the v4 metric between the two.
#include "itkBSplineInterpolateImageFunction.h"
#include "itkResampleImageFilter.h"
#include "itkTranslationTransform.h"

namespace cif_test
{
/** \a image resampled through the translation \a shift on its own grid, points outside
 * it 50; cubic B-spline interpolation where \a cubic, ITK's linear default otherwise. */
template <typename TImage>
typename TImage::Pointer
ShiftedCopy(const TImage * image, const itk::Vector<double, TImage::ImageDimension> & shift, bool cubic)
{
  auto translation = itk::TranslationTransform<double, TImage::ImageDimension>::New();
  translation->Translate(shift);
  auto resample = itk::ResampleImageFilter<TImage, TImage>::New();
  resample->SetInput(image);
  resample->SetTransform(translation);
  resample->UseReferenceImageOn();
  resample->SetReferenceImage(image);
  if (cubic)
  {
    resample->SetInterpolator(itk::BSplineInterpolateImageFunction<TImage, double, double>::New());
  }
  resample->SetDefaultPixelValue(50.0);
  resample->Update();
  return resample->GetOutput();
}

/** \a metric between \a fixed and \a moving through \a transform, the moving image
 * sampled by cubic B-spline without a precomputed gradient image (as elastix does). */
template <typename TMetric, typename TImage, typename TTransform>
void
ConfigureShiftedPairMetric(TMetric * metric, const TImage * fixed, const TImage * moving, TTransform * transform)
{
  metric->SetFixedImage(fixed);
  metric->SetMovingImage(moving);
  metric->SetMovingTransform(transform);
  metric->SetMovingInterpolator(itk::BSplineInterpolateImageFunction<TImage, double, double>::New());
  metric->SetUseMovingImageGradientFilter(false);
}
} // namespace cif_test

#endif
