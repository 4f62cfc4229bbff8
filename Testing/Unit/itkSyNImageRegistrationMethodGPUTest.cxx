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
// SyNImageRegistrationMethodGPU against ITK's SyNImageRegistrationMethod on fresh
// random images with a known smooth warp: the metric at every iteration of two levels
// within 1e-4 of ITK's, the fields within a hundredth of a voxel; the warp recovered
// within a third of a voxel; the forward field after its inverse within 0.1 voxel of
// the identity; ITK's own loop, with the reason, for what the module does not take.
// The CPU path runs everywhere (CI); the GPU cases skip without a device.
#include "cifTestHelpers.h"
#include "itkANTSNeighborhoodCorrelationImageToImageMetricv4.h"
#include "itkCommand.h"
#include "itkComposeDisplacementFieldsImageFilter.h"
#include "itkImageRegionIteratorWithIndex.h"
#include "itkResampleImageFilter.h"
#include "itkSmoothingRecursiveGaussianImageFilter.h"
#include "itkSyNImageRegistrationMethodGPU.h"
#include "itkSyNRegistrationSetup.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace
{
using namespace cif_test;

constexpr unsigned int D = 3;
using ImageType = itk::Image<float, D>;
using FieldTransform = itk::DisplacementFieldTransform<double, D>;
using FieldType = FieldTransform::DisplacementFieldType;
using Metric = itk::ANTSNeighborhoodCorrelationImageToImageMetricv4<ImageType, ImageType>;
using ITKSyN = itk::SyNImageRegistrationMethod<ImageType, ImageType, FieldTransform>;
using ModuleSyN = itk::SyNImageRegistrationMethodGPU<ImageType, ImageType, FieldTransform>;

/** A smooth field on \a image's grid, up to \a voxels voxels long, zero on the border. */
FieldType::Pointer
SmoothWarp(const ImageType * image, double voxels, std::mt19937 & rng)
{
  auto field = FieldType::New();
  field->CopyInformation(image);
  field->SetRegions(image->GetLargestPossibleRegion());
  field->Allocate();
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double                                 phase[D], amplitude[D];
  for (unsigned int a = 0; a < D; ++a)
  {
    phase[a] = 3.0 * u(rng);
    amplitude[a] = voxels * (0.6 + 0.4 * u(rng));
  }
  const auto size = image->GetLargestPossibleRegion().GetSize();
  for (itk::ImageRegionIteratorWithIndex<FieldType> it(field, field->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    double envelope = 1.0; // 0 on the border, near 1 inside
    for (unsigned int a = 0; a < D; ++a)
    {
      envelope *= std::sqrt(std::sin(M_PI * it.GetIndex()[a] / (size[a] - 1.0)));
    }
    FieldType::PixelType v;
    for (unsigned int a = 0; a < D; ++a)
    {
      v[a] = amplitude[a] * image->GetSpacing()[a] * envelope *
             std::cos(2.0 * M_PI * it.GetIndex()[(a + 1) % D] / size[(a + 1) % D] + phase[a]);
    }
    it.Set(v);
  }
  return field;
}

struct Pair
{
  ImageType::Pointer fixed, moving;
  FieldType::Pointer warp; ///< moving(x) = fixed(x + warp(x))
};

Pair
MakePair(std::uint32_t seed, unsigned int size = 24)
{
  std::mt19937 rng(seed);
  Pair         p;
  // Texture at the scale of a few voxels (smoothed noise): what local correlation
  // registers; low-frequency content leaves a warp undetermined (aperture problem).
  auto noise = MakeImage<ImageType>(
    ImageType::SizeType{ { size, size + 2, size + 4 } }, ImageType::IndexType{ { 0, 0, 0 } }, Content::Random, rng());
  ImageType::SpacingType spacing;
  spacing[0] = 1.0;
  spacing[1] = 1.2;
  spacing[2] = 0.9;
  noise->SetSpacing(spacing);
  auto smoother = itk::SmoothingRecursiveGaussianImageFilter<ImageType, ImageType>::New();
  smoother->SetInput(noise);
  smoother->SetSigma(1.5);
  smoother->Update();
  p.fixed = smoother->GetOutput();
  p.warp = SmoothWarp(p.fixed, 2.0, rng);
  auto transform = FieldTransform::New();
  transform->SetDisplacementField(p.warp);
  auto resample = itk::ResampleImageFilter<ImageType, ImageType>::New();
  resample->SetInput(p.fixed);
  resample->SetTransform(transform);
  resample->SetReferenceImage(p.fixed);
  resample->UseReferenceImageOn();
  resample->Update();
  p.moving = resample->GetOutput();
  return p;
}

/** ITK's SyN or the module's, configured alike (itkSyNRegistrationSetup.h: ANTs'
 * central differences, CC radius 2, two levels), run, with the metric value of every
 * iteration report. */
template <typename TMethod>
std::vector<double>
Register(TMethod * method, const Pair & p, unsigned int iterations)
{
  itk::SyNStageSettings settings;
  settings.radius = 2;
  settings.learningRate = 0.25;
  settings.updateFieldVariance = 3.0;
  settings.totalFieldVariance = 0.5;
  settings.iterations = { iterations, iterations };
  settings.convergenceThreshold = 0.0; // every iteration runs
  itk::ConfigureSyN(method, p.fixed.GetPointer(), p.moving.GetPointer(), settings);
  std::vector<double> values;
  auto                observer = itk::CStyleCommand::New();
  observer->SetClientData(&values);
  observer->SetCallback([](itk::Object * caller, const itk::EventObject &, void * data) {
    static_cast<std::vector<double> *>(data)->push_back(static_cast<TMethod *>(caller)->GetCurrentMetricValue());
  });
  method->AddObserver(itk::IterationEvent(), observer);
  method->Update();
  return values;
}

/** The largest difference of two fields in voxels (of \a grid's spacing). */
double
LargestDifference(const FieldType * a, const FieldType * b)
{
  double largest = 0.0;
  for (itk::ImageRegionConstIteratorWithIndex<FieldType> it(a, a->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    const auto other = b->GetPixel(it.GetIndex());
    for (unsigned int k = 0; k < D; ++k)
    {
      largest = std::max(largest, std::abs(it.Get()[k] - other[k]) / a->GetSpacing()[k]);
    }
  }
  return largest;
}

void
ExpectTracksITK(bool useGPU)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Pair p = MakePair(seed);
  auto       reference = ITKSyN::New();
  const auto expected = Register(reference.GetPointer(), p, 10);
  auto       module = ModuleSyN::New();
  module->SetUseGPU(useGPU);
  const auto actual = Register(module.GetPointer(), p, 10);
  EXPECT_EQ(module->GetLastExecutionPath(), useGPU ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU)
    << module->GetLastExecutionReason();
  ASSERT_EQ(actual.size(), expected.size());
  ASSERT_GE(actual.size(), 20u); // ITK reports each level's start too
  double              worst = 0.0;
  std::vector<double> iterates; // ITK's values at the iterations (each level's start reports 0)
  for (std::size_t k = 0; k < actual.size(); ++k)
  {
    if (expected[k] == 0.0)
    {
      EXPECT_EQ(actual[k], 0.0) << "report " << k;
      continue;
    }
    iterates.push_back(expected[k]);
    const double error = std::abs(actual[k] - expected[k]) / std::abs(expected[k]);
    worst = std::max(worst, error);
    EXPECT_LE(error, 1e-4) << "iteration " << k << ": " << actual[k] << " vs ITK's " << expected[k];
  }
  ASSERT_EQ(iterates.size(), 20u);
  EXPECT_LT(iterates.back(), iterates.front()) << "ITK's SyN did not improve the metric";
  const auto * out = module->GetTransformOutput()->Get();
  const auto * itkOut = reference->GetTransformOutput()->Get();
  const double fieldDifference = LargestDifference(out->GetDisplacementField(), itkOut->GetDisplacementField());
  const double inverseDifference =
    LargestDifference(out->GetInverseDisplacementField(), itkOut->GetInverseDisplacementField());
  EXPECT_LE(fieldDifference, 0.01);
  EXPECT_LE(inverseDifference, 0.01);
  std::cout << "[ measure  ] " << (useGPU ? "GPU" : "CPU path") << ": metric per iteration within " << worst
            << " of ITK's (relative); fields within " << fieldDifference << " (forward) and " << inverseDifference
            << " (inverse) voxels; metric " << iterates.front() << " -> " << iterates.back() << std::endl;
}
CIF_TEST_ON_CPU_AND_GPU(SyNImageRegistrationMethod, TracksITKsSyN, ExpectTracksITK)

/** The known warp recovered: the output's inverse field (the map from the moving
 * image's grid back) is the warp the moving image was made with, within a third of a
 * voxel on average over the inner voxels; the output after its inverse within 0.1
 * voxel of the identity there. */
void
ExpectRecoversTheWarp(bool useGPU)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Pair p = MakePair(seed, 32);
  auto       module = ModuleSyN::New();
  module->SetUseGPU(useGPU);
  Register(module.GetPointer(), p, 20);
  ASSERT_NE(module->GetLastExecutionPath(), itk::CudaExecutionPath::ITK) << module->GetLastExecutionReason();
  const auto * out = module->GetTransformOutput()->Get();
  auto         composer = itk::ComposeDisplacementFieldsImageFilter<FieldType>::New();
  composer->SetDisplacementField(out->GetInverseDisplacementField());
  composer->SetWarpingField(out->GetDisplacementField());
  composer->Update();
  const auto * identity = composer->GetOutput();
  double       error = 0.0, before = 0.0, roundTrip = 0.0;
  std::size_t  count = 0;
  const auto   size = p.fixed->GetLargestPossibleRegion().GetSize();
  for (itk::ImageRegionConstIteratorWithIndex<FieldType> it(p.warp, p.warp->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    bool inner = true;
    for (unsigned int a = 0; a < D; ++a)
    {
      inner = inner && it.GetIndex()[a] >= 4 && it.GetIndex()[a] < static_cast<long>(size[a]) - 4;
    }
    if (!inner)
    {
      continue;
    }
    const auto recovered = out->GetInverseDisplacementField()->GetPixel(it.GetIndex());
    const auto there = identity->GetPixel(it.GetIndex());
    double     e = 0.0, b = 0.0, r = 0.0;
    for (unsigned int a = 0; a < D; ++a)
    {
      const double s = p.fixed->GetSpacing()[a];
      e += std::pow((recovered[a] - it.Get()[a]) / s, 2);
      b += std::pow(it.Get()[a] / s, 2);
      r += std::pow(there[a] / s, 2);
    }
    error += std::sqrt(e);
    before += std::sqrt(b);
    roundTrip = std::max(roundTrip, std::sqrt(r));
    ++count;
  }
  error /= count;
  before /= count;
  EXPECT_LT(error, 1.0 / 3.0) << "mean error in voxels (the warp itself: " << before << ")";
  EXPECT_LT(roundTrip, 0.1) << "largest |forward after inverse| in voxels";
  std::cout << "[ measure  ] " << (useGPU ? "GPU" : "CPU path") << ": warp of mean " << before
            << " voxels recovered within " << error << " on average; forward after inverse within " << roundTrip
            << " voxels of the identity" << std::endl;
}
CIF_TEST_ON_CPU_AND_GPU(SyNImageRegistrationMethod, RecoversAKnownWarp, ExpectRecoversTheWarp)

/** A metric whose moving gradient comes from the gradient filter runs ITK's own loop,
 * with the reason. */
TEST(SyNImageRegistrationMethodCPU, GradientFilterRunsITKsLoop)
{
  const Pair p = MakePair(FreshSeed(), 16);
  auto       module = ModuleSyN::New();
  module->SetUseGPU(false);
  auto metric = Metric::New();
  module->SetFixedImage(p.fixed);
  module->SetMovingImage(p.moving);
  module->SetMetric(metric);
  module->SetNumberOfLevels(1);
  ModuleSyN::ShrinkFactorsArrayType shrink(1);
  shrink[0] = 1;
  module->SetShrinkFactorsPerLevel(shrink);
  ModuleSyN::SmoothingSigmasArrayType sigmas(1);
  sigmas[0] = 0.0;
  module->SetSmoothingSigmasPerLevel(sigmas);
  ModuleSyN::NumberOfIterationsArrayType iterations(1);
  iterations[0] = 2;
  module->SetNumberOfIterationsPerLevel(iterations);
  module->Update();
  EXPECT_EQ(module->GetLastExecutionPath(), itk::CudaExecutionPath::ITK);
  EXPECT_NE(module->GetLastExecutionReason().find("gradient filter"), std::string::npos)
    << module->GetLastExecutionReason();
}
} // namespace
