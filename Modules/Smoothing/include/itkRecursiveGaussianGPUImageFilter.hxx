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
#ifndef itkRecursiveGaussianGPUImageFilter_hxx
#define itkRecursiveGaussianGPUImageFilter_hxx

#include "cifDeviceBuffer.h"
#include "cifRecursiveGaussianDevice.h"
#include "cifRecursiveGaussianHost.h"

namespace itk
{
template <typename TInputImage, typename TOutputImage>
void
RecursiveGaussianGPUImageFilter<TInputImage, TOutputImage>::GenerateData()
{
  if constexpr (!TypesSupported)
  {
    Superclass::GenerateData();
    this->SetLastExecutionPath(CudaExecutionPath::ITK);
  }
  else
  {
    const TInputImage * input = this->GetInput();
    TOutputImage *      output = this->GetOutput();
    const auto          region = output->GetRequestedRegion();
    if (input->GetBufferedRegion() != region)
    {
      // A part of the image: ITK's code, which filters the requested lines only.
      Superclass::GenerateData();
      this->SetLastExecutionPath(CudaExecutionPath::ITK);
      return;
    }
    const unsigned int direction = this->GetDirection();
    if (direction >= ImageDimension)
    {
      itkExceptionMacro("Direction selected for filtering is greater than ImageDimension");
    }
    const cif::RecursiveGaussianCoefficients c = SmoothingGPUDetail::RecursiveGaussianCoefficientProbe::Compute(
      this->GetSigma(), this->GetOrder(), this->GetNormalizeAcrossScale(), input->GetSpacing()[direction]);
    if (region.GetSize(direction) < 4)
    {
      itkExceptionMacro(<< SmoothingGPUDetail::TooShortMessage(direction));
    }
    const bool onGPU = this->RunsOnGPU();
    using TIn = InputPixelType;
    using TOut = OutputPixelType;
    const std::size_t n = static_cast<std::size_t>(region.GetNumberOfPixels());
    if (onGPU)
    {
      // Before the output is touched: a job that cannot fit fails here.
      CIF_ITK_TRY_CUDA([&] {
        const std::size_t converted = std::is_same_v<TOut, double> ? 0 : n * sizeof(TOut);
        cif::RequireDeviceMemory(n * sizeof(TIn) + n * sizeof(double) + converted,
                                 "a recursive Gaussian pass of a " + std::to_string(n) + "-pixel image");
      });
    }
    if (this->GetInPlace() && this->CanRunInPlace())
    {
      this->AllocateOutputs(); // shares the input's buffer: both paths read a line whole before writing it
    }
    else
    {
      output->SetBufferedRegion(region);
      this->PrepareHostOutput(output);
      output->Allocate();
    }
    const cif::GaussianShape      shape = SmoothingGPUDetail::ShapeOf(region);
    const std::int64_t            count = shape.Count();
    const cif::GaussianPassOutput pass; // ITK casts the double result to the output type
    if (onGPU)
    {
      CIF_ITK_TRY_CUDA([&] {
        cif::DeviceBuffer in(n * sizeof(TIn));
        cif::DeviceBuffer result(n * sizeof(double));
        in.Upload(input->GetBufferPointer(), n * sizeof(TIn));
        cif::RecursiveGaussianPassOnDevice<TIn>(
          in.As<TIn>(), result.As<double>(), shape, static_cast<int>(direction), c, pass);
        if constexpr (std::is_same_v<TOut, double>)
        {
          result.Download(output->GetBufferPointer(), n * sizeof(double));
        }
        else
        {
          cif::DeviceBuffer converted(n * sizeof(TOut));
          cif::ConvertFromDoubleOnDevice<TOut>(result.As<double>(), converted.As<TOut>(), count);
          converted.Download(output->GetBufferPointer(), n * sizeof(TOut));
        }
      });
      this->SetLastExecutionPath(CudaExecutionPath::GPU);
    }
    else
    {
      cif::RecursiveGaussianPassOnHost(input->GetBufferPointer(),
                                       output->GetBufferPointer(),
                                       shape,
                                       static_cast<int>(direction),
                                       c,
                                       pass,
                                       MakeParallelFor(this->GetMultiThreader()));
      this->SetLastExecutionPath(CudaExecutionPath::CPU);
    }
  }
}
} // namespace itk

#endif
