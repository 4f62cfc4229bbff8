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
// SharedDomainImageRegistrationMethodv4 against ImageRegistrationMethodv4: the same
// registration bit for bit (final parameters and metric value, two levels, the
// finest unshrunk), with the finest level's virtual domain shared instead of copied;
// and VirtualDomainShrinkImageFilter, which ShrinkImageFilter's New() returns once its
// factory is registered, copying as ShrinkImageFilter does for every image but the
// one marked on the calling thread at factors of 1. Fresh random images (seed printed
// on failure); CPU only (the metric is ITK's own).
#include "cifTestHelpers.h"
#include "itkBSplineTransform.h"
#include "itkBSplineTransformParametersAdaptor.h"
#include "itkImageRegionConstIterator.h"
#include "itkImageRegistrationMethodv4.h"
#include "itkMeanSquaresImageToImageMetricv4.h"
#include "itkRegularStepGradientDescentOptimizerv4.h"
#include "itkSharedDomainImageRegistrationMethodv4.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace
{
using namespace cif_test;
using ImageType = itk::Image<float, 3>;
using BSplineType = itk::BSplineTransform<double, 3, 3>;

/** ITK's ShrinkImageFilter made without the object factory: the copy to compare with. */
class PlainShrink : public itk::ShrinkImageFilter<ImageType, ImageType>
{
public:
  using Self = PlainShrink;
  using Pointer = itk::SmartPointer<Self>;
  itkFactorylessNewMacro(Self);
};

struct RegistrationResult
{
  itk::OptimizerParameters<double> parameters;
  double                           value = 0.0;
  std::size_t                      sharedDomains = 0; ///< levels whose domain was shared, not copied
};

/** Two levels (shrink 2 then 1, sigma 1 then 0), a B-spline grid refined between
 * them, ITK's MeanSquares and regular step gradient descent, 5 iterations a level. */
template <typename TMethod>
RegistrationResult
Register(const ImageType * fixed, const ImageType * moving)
{
  auto transform = BSplineType::New();
  {
    BSplineType::MeshSizeType mesh;
    mesh.Fill(2);
    BSplineType::PhysicalDimensionsType dimensions;
    for (unsigned int a = 0; a < 3; ++a)
    {
      dimensions[a] = fixed->GetSpacing()[a] * (fixed->GetLargestPossibleRegion().GetSize()[a] - 1);
    }
    transform->SetTransformDomainOrigin(fixed->GetOrigin());
    transform->SetTransformDomainDirection(fixed->GetDirection());
    transform->SetTransformDomainPhysicalDimensions(dimensions);
    transform->SetTransformDomainMeshSize(mesh);
    transform->SetIdentity();
  }
  using Registration = TMethod;
  auto registration = Registration::New();
  registration->SetFixedImage(fixed);
  registration->SetMovingImage(moving);
  registration->SetMetric(itk::MeanSquaresImageToImageMetricv4<ImageType, ImageType>::New());
  registration->SetInitialTransform(transform);
  registration->InPlaceOn();
  registration->SetNumberOfLevels(2);
  typename Registration::ShrinkFactorsArrayType shrink(2);
  shrink[0] = 2;
  shrink[1] = 1;
  registration->SetShrinkFactorsPerLevel(shrink);
  typename Registration::SmoothingSigmasArrayType sigmas(2);
  sigmas[0] = 1;
  sigmas[1] = 0;
  registration->SetSmoothingSigmasPerLevel(sigmas);
  typename Registration::TransformParametersAdaptorsContainerType adaptors;
  for (unsigned int level = 0; level < 2; ++level)
  {
    auto adaptor = itk::BSplineTransformParametersAdaptor<BSplineType>::New();
    adaptor->SetRequiredTransformDomainOrigin(transform->GetTransformDomainOrigin());
    adaptor->SetRequiredTransformDomainDirection(transform->GetTransformDomainDirection());
    adaptor->SetRequiredTransformDomainPhysicalDimensions(transform->GetTransformDomainPhysicalDimensions());
    BSplineType::MeshSizeType mesh;
    mesh.Fill(2u << level);
    adaptor->SetRequiredTransformDomainMeshSize(mesh);
    adaptors.push_back(adaptor);
  }
  registration->SetTransformParametersAdaptorsPerLevel(adaptors);
  auto optimizer = itk::RegularStepGradientDescentOptimizerv4<double>::New();
  optimizer->SetLearningRate(1.0);
  optimizer->SetMinimumStepLength(1e-6);
  optimizer->SetNumberOfIterations(5);
  registration->SetOptimizer(optimizer);
  using Shrink = itk::VirtualDomainShrinkImageFilter<ImageType>;
  const std::size_t sharedBefore = Shrink::GetNumberOfSharedUpdates();
  registration->Update();
  RegistrationResult result;
  result.sharedDomains = Shrink::GetNumberOfSharedUpdates() - sharedBefore;
  result.parameters = registration->GetModifiableTransform()->GetParameters();
  result.value = optimizer->GetCurrentMetricValue();
  return result;
}

void
ExpectSamePixels(const ImageType * a, const ImageType * b)
{
  ASSERT_EQ(a->GetBufferedRegion(), b->GetBufferedRegion());
  itk::ImageRegionConstIterator<ImageType> i(a, a->GetBufferedRegion()), j(b, b->GetBufferedRegion());
  for (; !i.IsAtEnd(); ++i, ++j)
  {
    ASSERT_EQ(i.Get(), j.Get()) << "at " << i.GetIndex();
  }
}

TEST(SharedDomainRegistration, GivesITKsRegistrationWithoutCopyingTheFinestDomain)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937         rng(seed);
  ImageType::SizeType  size = { { 20, 18, 16 } };
  ImageType::IndexType start = { { 0, 0, 0 } };
  const auto           fixed = MakeImage<ImageType>(size, start, Content::Smooth, rng());
  const auto           moving = MakeImage<ImageType>(size, start, Content::Smooth, rng());

  using ITKMethod = itk::ImageRegistrationMethodv4<ImageType, ImageType, BSplineType>;
  using SharedMethod = itk::SharedDomainImageRegistrationMethodv4<ImageType, ImageType, BSplineType>;
  const RegistrationResult itk = Register<ITKMethod>(fixed, moving);
  const RegistrationResult shared = Register<SharedMethod>(fixed, moving);
  EXPECT_EQ(itk.sharedDomains, 0u);    // ITK's method copies it, with or without the factory
  EXPECT_EQ(shared.sharedDomains, 1u); // the finest level's (factor 1), not the first level's (factor 2)
  EXPECT_EQ(shared.value, itk.value);
  ASSERT_EQ(shared.parameters.size(), itk.parameters.size());
  for (unsigned int k = 0; k < itk.parameters.size(); ++k)
  {
    ASSERT_EQ(shared.parameters[k], itk.parameters[k]) << "parameter " << k;
  }
  EXPECT_GT(itk.parameters.two_norm(), 0.0); // the registration moved the grid
}

TEST(VirtualDomainShrink, CopiesEveryImageButTheMarkedOneAtFactorOne)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937         rng(seed);
  ImageType::SizeType  size = { { 17, 12, 9 } };
  ImageType::IndexType start = { { 3, -2, 5 } };
  const auto           image = MakeImage<ImageType>(size, start, Content::Random, rng());
  const auto           other = MakeImage<ImageType>(size, start, Content::Random, rng());
  itk::VirtualDomainShrinkFactory<ImageType>::RegisterOneFactory();
  using Filter = itk::VirtualDomainShrinkImageFilter<ImageType>;
  using Marked = Filter::MarkScope;

  const auto Shrink = [](const ImageType * input, unsigned int factor, bool & shared) {
    auto   filter = itk::ShrinkImageFilter<ImageType, ImageType>::New();
    auto * ours = dynamic_cast<Filter *>(filter.GetPointer());
    EXPECT_NE(ours, nullptr) << "the factory's filter";
    filter->SetShrinkFactors(factor);
    filter->SetInput(input);
    filter->Update();
    shared = ours != nullptr && ours->GetSharedInput();
    ImageType::Pointer output = filter->GetOutput();
    output->DisconnectPipeline();
    return output;
  };
  const auto Reference = [](const ImageType * input, unsigned int factor) {
    auto filter = PlainShrink::New(); // ITK's own copy, which every case must equal
    filter->SetShrinkFactors(factor);
    filter->SetInput(input);
    filter->Update();
    return ImageType::Pointer(filter->GetOutput());
  };

  bool shared = true;
  auto unmarked = Shrink(image, 1, shared);
  EXPECT_FALSE(shared);
  EXPECT_NE(unmarked->GetBufferPointer(), image->GetBufferPointer());
  ExpectSamePixels(unmarked, image);
  {
    Marked mark(image);
    auto   same = Shrink(image, 1, shared);
    EXPECT_TRUE(shared);
    EXPECT_EQ(same->GetBufferPointer(), image->GetBufferPointer());
    const auto reference = Reference(image, 1);
    ExpectSamePixels(same, reference);
    EXPECT_EQ(same->GetOrigin(), reference->GetOrigin());
    EXPECT_EQ(same->GetSpacing(), reference->GetSpacing());
    EXPECT_EQ(same->GetLargestPossibleRegion(), reference->GetLargestPossibleRegion());

    auto halved = Shrink(image, 2, shared); // factors other than 1: the copy
    EXPECT_FALSE(shared);
    ExpectSamePixels(halved, Reference(image, 2));
    auto another = Shrink(other, 1, shared); // another image: the copy
    EXPECT_FALSE(shared);
    EXPECT_NE(another->GetBufferPointer(), other->GetBufferPointer());
    ExpectSamePixels(another, other);
  }
  auto after = Shrink(image, 1, shared); // the mark ended with its scope
  EXPECT_FALSE(shared);
  EXPECT_NE(after->GetBufferPointer(), image->GetBufferPointer());
}
} // namespace
