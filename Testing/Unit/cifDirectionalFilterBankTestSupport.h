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
#ifndef cifDirectionalFilterBankTestSupport_h
#define cifDirectionalFilterBankTestSupport_h

// Analysis → synthesis through the ITK filters, and the oriented test patterns.
#include "cifTestHelpers.h"
#include "itkDirectionalFilterBankGPUImageFilter.h"
#include "itkDirectionalFilterBankSynthesisGPUImageFilter.h"

#include <cmath>
#include <vector>

namespace cif_test
{
template <typename T>
using Image2 = itk::Image<T, 2>;

/** Runs the analysis and returns its filter (subbands in its outputs). */
template <typename T>
typename itk::DirectionalFilterBankGPUImageFilter<Image2<T>, Image2<T>>::Pointer
Analyze(const Image2<T> * image, unsigned int levels, cif::DirectionalFilterSet set, bool useGPU)
{
  auto analysis = itk::DirectionalFilterBankGPUImageFilter<Image2<T>, Image2<T>>::New();
  analysis->SetInput(image);
  analysis->SetNumberOfLevels(levels);
  analysis->SetFilterSet(set);
  analysis->SetUseGPU(useGPU);
  analysis->Update();
  return analysis;
}

template <typename T, typename TAnalysis>
typename Image2<T>::Pointer
Synthesize(TAnalysis * analysis, bool useGPU)
{
  auto synthesis = itk::DirectionalFilterBankSynthesisGPUImageFilter<Image2<T>>::New();
  synthesis->SetNumberOfLevels(analysis->GetNumberOfLevels());
  synthesis->SetFilterSet(analysis->GetFilterSet());
  synthesis->SetUseGPU(useGPU);
  for (unsigned int b = 0; b < analysis->GetNumberOfSubbands(); ++b)
  {
    synthesis->SetSubband(b, analysis->GetSubband(b));
  }
  synthesis->Update();
  return synthesis->GetOutput();
}

/** cos(2π (kx·x + ky·y)/N) on an N × N image: a pattern with the frequency vector
 * (kx, ky) cycles per image, exactly periodic (the bank extends periodically). */
template <typename T>
typename Image2<T>::Pointer
MakeOrientedCosine(int size, int kx, int ky, double phase = 0.0)
{
  auto image = Image2<T>::New();
  image->SetRegions(typename Image2<T>::RegionType(
    { { 0, 0 } }, { { static_cast<itk::SizeValueType>(size), static_cast<itk::SizeValueType>(size) } }));
  image->Allocate();
  const double pi = 3.14159265358979323846;
  for (int y = 0; y < size; ++y)
  {
    for (int x = 0; x < size; ++x)
    {
      image->SetPixel({ { x, y } }, static_cast<T>(std::cos(2.0 * pi * (kx * x + ky * y) / size + phase)));
    }
  }
  return image;
}

/** Frequency vector of magnitude `cycles` at `degrees`, rounded to the image's grid. */
inline void
FrequencyAt(double degrees, double cycles, int & kx, int & ky)
{
  const double radians = degrees * 3.14159265358979323846 / 180.0;
  kx = static_cast<int>(std::lround(cycles * std::cos(radians)));
  ky = static_cast<int>(std::lround(cycles * std::sin(radians)));
}

template <typename TImage>
double
Energy(const TImage * image)
{
  const auto * p = image->GetBufferPointer();
  double       sum = 0;
  for (std::size_t k = 0; k < image->GetBufferedRegion().GetNumberOfPixels(); ++k)
  {
    sum += static_cast<double>(p[k]) * p[k];
  }
  return sum;
}

/** Energy share of each subband (fractions summing to 1). */
template <typename TAnalysis>
std::vector<double>
SubbandEnergyShares(TAnalysis * analysis)
{
  std::vector<double> e;
  double              total = 0;
  for (unsigned int b = 0; b < analysis->GetNumberOfSubbands(); ++b)
  {
    e.push_back(Energy(analysis->GetSubband(b)));
    total += e.back();
  }
  for (double & v : e)
  {
    v /= total;
  }
  return e;
}
} // namespace cif_test

#endif
