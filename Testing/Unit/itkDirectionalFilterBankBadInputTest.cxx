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
// The directional filter bank refuses what it cannot decompose, with a message that
// says why: sizes the tree cannot halve, level counts out of range, non-2-D images,
// missing or mismatched subbands in the synthesis.
#include "cifDirectionalFilterBankTestSupport.h"

namespace
{
using namespace cif_test;

template <typename TFilter>
std::string
UpdateError(TFilter * filter)
{
  try
  {
    filter->Update();
  }
  catch (const itk::ExceptionObject & e)
  {
    return e.GetDescription();
  }
  return {};
}

TEST(DirectionalFilterBankBadInput, SizesTheTreeCannotHalveAreRefusedWithTheSizesThatWork)
{
  auto image = MakeImage<Image2<float>>({ { 60, 64 } }, { { 0, 0 } }, Content::Random, FreshSeed());
  auto analysis = itk::DirectionalFilterBankGPUImageFilter<Image2<float>>::New();
  analysis->SetInput(image);
  analysis->SetNumberOfLevels(4); // width must be a multiple of 8; 60 is not
  const std::string message = UpdateError(analysis.GetPointer());
  EXPECT_NE(message.find("multiple of 8"), std::string::npos) << message;
  EXPECT_NE(message.find("60 x 64"), std::string::npos) << message;

  auto odd = MakeImage<Image2<float>>({ { 64, 33 } }, { { 0, 0 } }, Content::Random, FreshSeed());
  analysis->SetInput(odd);
  analysis->SetNumberOfLevels(1);
  EXPECT_FALSE(UpdateError(analysis.GetPointer()).empty());
}

TEST(DirectionalFilterBankBadInput, LevelCountOutOfRange)
{
  auto analysis = itk::DirectionalFilterBankGPUImageFilter<Image2<float>>::New();
  EXPECT_THROW(analysis->SetNumberOfLevels(0), itk::ExceptionObject);
  EXPECT_THROW(analysis->SetNumberOfLevels(6), itk::ExceptionObject);
  auto synthesis = itk::DirectionalFilterBankSynthesisGPUImageFilter<Image2<float>>::New();
  EXPECT_THROW(synthesis->SetNumberOfLevels(6), itk::ExceptionObject);
}

TEST(DirectionalFilterBankBadInput, ThreeDimensionalImagesAreRefused)
{
  using Image3 = itk::Image<float, 3>;
  auto volume = MakeImage<Image3>({ { 16, 16, 16 } }, { { 0, 0, 0 } }, Content::Random, FreshSeed());
  auto analysis = itk::DirectionalFilterBankGPUImageFilter<Image3>::New();
  analysis->SetInput(volume);
  analysis->SetNumberOfLevels(2);
  const std::string message = UpdateError(analysis.GetPointer());
  EXPECT_NE(message.find("2-D"), std::string::npos) << message;
}

TEST(DirectionalFilterBankBadInput, SynthesisNeedsEverySubbandWithItsSize)
{
  auto image = MakeImage<Image2<float>>({ { 64, 64 } }, { { 0, 0 } }, Content::Random, FreshSeed());
  auto analysis = Analyze<float>(image, 3, cif::DirectionalFilterSet::LadderPKVA12, false);
  auto synthesis = itk::DirectionalFilterBankSynthesisGPUImageFilter<Image2<float>>::New();
  synthesis->SetNumberOfLevels(3);
  for (unsigned int b = 0; b < 7; ++b) // the last one missing
  {
    synthesis->SetSubband(b, analysis->GetSubband(b));
  }
  EXPECT_FALSE(UpdateError(synthesis.GetPointer()).empty());
  synthesis->SetSubband(7, analysis->GetSubband(0)); // wrong shape: 0 is 32 x 16, 7 is 16 x 32
  const std::string message = UpdateError(synthesis.GetPointer());
  EXPECT_NE(message.find("subband 7"), std::string::npos) << message;
}
} // namespace
