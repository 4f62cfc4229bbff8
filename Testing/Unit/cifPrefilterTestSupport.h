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
#ifndef cifPrefilterTestSupport_h
#define cifPrefilterTestSupport_h

// Runs BSplinePrefilterGPUImageFilter on one path and ITK's
// BSplineDecompositionImageFilter in double on the same input.
#include "cifTestHelpers.h"
#include "itkBSplineDecompositionImageFilter.h"
#include "itkBSplinePrefilterGPUImageFilter.h"

#include <type_traits>

namespace cif_test
{
enum class Path
{
  CPU,
  GPU
};

inline const char *
ToString(Path p)
{
  return p == Path::CPU ? "CPU path" : "GPU path";
}

/** Float results: max |error| within this fraction of the data range (DESIGN.md 3:
 * "a few 1e-6 of the data's range"), or of the largest coefficient where that is
 * larger: float rounding scales with the numbers computed, and high orders amplify
 * noise (order 5 turns random data of range 300 into coefficients near 15000).
 * Double: relative 1e-12 of the largest coefficient. */
constexpr double kFloatToleranceOfRange = 4e-6;
constexpr double kDoubleRelativeTolerance = 1e-12;

template <typename TOutputComponent>
double
Tolerance(double dataRange, double maxReference, unsigned int dimension = 3)
{
  return std::is_same_v<TOutputComponent, double>
           ? kDoubleRelativeTolerance * std::max(1.0, maxReference)
           : kFloatToleranceOfRange * std::max(dataRange, maxReference) * FloatPassGrowth(dimension);
}

/** Runs the module's filter on \a input through \a path and returns its output. */
template <typename TOutputImage, typename TInputImage>
typename TOutputImage::Pointer
RunPrefilter(const TInputImage * input,
             Path                path,
             unsigned int        order = 3,
             cif::BoundaryMode   mode = cif::BoundaryMode::Mirror)
{
  using Filter = itk::BSplinePrefilterGPUImageFilter<TInputImage, TOutputImage>;
  auto filter = Filter::New();
  filter->SetInput(input);
  filter->SetSplineOrder(order);
  filter->SetBoundaryMode(mode);
  filter->SetUseGPU(path == Path::GPU);
  filter->Update();
  EXPECT_EQ(filter->GetLastExecutionPath(),
            path == Path::GPU ? Filter::ExecutionPath::GPU : Filter::ExecutionPath::CPU);
  typename TOutputImage::Pointer output = filter->GetOutput();
  output->DisconnectPipeline();
  return output;
}

/** ITK's own filter, double output: the reference. */
template <typename TInputImage>
auto
RunITK(const TInputImage * input, unsigned int order = 3)
{
  using Reference = itk::Image<double, TInputImage::ImageDimension>;
  auto filter = itk::BSplineDecompositionImageFilter<TInputImage, Reference>::New();
  filter->SetInput(input);
  filter->SetSplineOrder(order);
  filter->Update();
  typename Reference::Pointer output = filter->GetOutput();
  output->DisconnectPipeline();
  return output;
}
} // namespace cif_test

#endif
