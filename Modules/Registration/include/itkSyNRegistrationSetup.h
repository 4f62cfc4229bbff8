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
// ANTs' SyN stage as antsRegistration sets it up, for ITK's SyN method or the module's.
#ifndef itkSyNRegistrationSetup_h
#define itkSyNRegistrationSetup_h

#include "itkANTSNeighborhoodCorrelationImageToImageMetricv4.h"
#include "itkDisplacementFieldTransformParametersAdaptor.h"
#include "itkMacro.h"
#include "itkShrinkImageFilter.h"

#include <string>
#include <vector>

namespace itk
{
/** The SyN stage's parameters, with antsRegistrationSyN.sh's defaults: SyN[0.1,3,0],
 * CC[fixed,moving,1,4], 100x70x50x20 iterations, shrink 8x4x2x1, smoothing 3x2x1x0
 * voxels (level l of L shrinks by 2^(L-1-l) and smooths by L-1-l voxels). */
struct SyNStageSettings
{
  unsigned int              radius = 4;                    ///< the correlation window's radius, voxels
  double                    learningRate = 0.1;            ///< SyN's gradient step
  double                    updateFieldVariance = 3.0;     ///< voxels^2
  double                    totalFieldVariance = 0.0;      ///< voxels^2
  std::vector<unsigned int> iterations{ 100, 70, 50, 20 }; ///< per level, coarsest first
  double                    convergenceThreshold = 1e-6;
  unsigned int              convergenceWindow = 10;
};

/** \a method (itk::SyNImageRegistrationMethod or SyNImageRegistrationMethodGPU) set up
 * with \a settings for \a fixed and \a moving: ANTs' neighbourhood correlation with
 * central differences (antsRegistration's choice), the levels, their field adaptors
 * (the shrunk fixed image's grids) and zero initial fields. Throws
 * itk::ExceptionObject for settings that cannot run. */
template <typename TMethod, typename TImage>
void
ConfigureSyN(TMethod * method, const TImage * fixed, const TImage * moving, const SyNStageSettings & settings)
{
  using FieldTransform = typename TMethod::OutputTransformType;
  using Field = typename FieldTransform::DisplacementFieldType;
  using Metric = ANTSNeighborhoodCorrelationImageToImageMetricv4<TImage, TImage>;
  const auto levels = static_cast<unsigned int>(settings.iterations.size());
  if (levels == 0 || levels > 8 || settings.radius == 0 || !(settings.learningRate > 0.0) ||
      settings.updateFieldVariance < 0.0 || settings.totalFieldVariance < 0.0)
  {
    itkGenericExceptionMacro("SyN: 1 to 8 levels, a radius of at least 1, a positive learning rate and variances of "
                             "0 or more are needed");
  }
  auto                        metric = Metric::New();
  typename Metric::RadiusType radius;
  radius.Fill(settings.radius);
  metric->SetRadius(radius);
  metric->SetUseMovingImageGradientFilter(false);
  metric->SetUseFixedImageGradientFilter(false);
  method->SetFixedImage(fixed);
  method->SetMovingImage(moving);
  method->SetMetric(metric);
  method->SetNumberOfLevels(levels);
  typename TMethod::ShrinkFactorsArrayType                   shrink(levels);
  typename TMethod::SmoothingSigmasArrayType                 sigmas(levels);
  typename TMethod::NumberOfIterationsArrayType              perLevel(levels);
  typename TMethod::TransformParametersAdaptorsContainerType adaptors;
  for (unsigned int level = 0; level < levels; ++level)
  {
    shrink[level] = 1u << (levels - 1 - level);
    sigmas[level] = static_cast<double>(levels - 1 - level);
    perLevel[level] = settings.iterations[level];
    auto shrinker = ShrinkImageFilter<TImage, TImage>::New();
    shrinker->SetShrinkFactors(shrink[level]);
    shrinker->SetInput(fixed);
    shrinker->UpdateOutputInformation();
    const auto * grid = shrinker->GetOutput();
    auto         adaptor = DisplacementFieldTransformParametersAdaptor<FieldTransform>::New();
    adaptor->SetRequiredSpacing(grid->GetSpacing());
    adaptor->SetRequiredSize(grid->GetLargestPossibleRegion().GetSize());
    adaptor->SetRequiredDirection(grid->GetDirection());
    adaptor->SetRequiredOrigin(grid->GetOrigin());
    adaptors.push_back(adaptor);
  }
  method->SetShrinkFactorsPerLevel(shrink);
  method->SetSmoothingSigmasPerLevel(sigmas);
  method->SetSmoothingSigmasAreSpecifiedInPhysicalUnits(false);
  method->SetNumberOfIterationsPerLevel(perLevel);
  method->SetTransformParametersAdaptorsPerLevel(adaptors);
  method->SetLearningRate(settings.learningRate);
  method->SetGaussianSmoothingVarianceForTheUpdateField(settings.updateFieldVariance);
  method->SetGaussianSmoothingVarianceForTheTotalField(settings.totalFieldVariance);
  method->SetConvergenceThreshold(settings.convergenceThreshold);
  method->SetConvergenceWindowSize(settings.convergenceWindow);
  // The output transform starts as zero fields on the fixed image's grid.
  for (bool inverse : { false, true })
  {
    auto zero = Field::New();
    zero->CopyInformation(fixed);
    zero->SetRegions(fixed->GetLargestPossibleRegion());
    zero->Allocate();
    zero->FillBuffer(typename Field::PixelType(0.0));
    if (inverse)
    {
      method->GetModifiableTransform()->SetInverseDisplacementField(zero);
    }
    else
    {
      method->GetModifiableTransform()->SetDisplacementField(zero);
    }
  }
}
} // namespace itk

#endif
