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
#ifndef itkSmoothingRecursiveGaussianGPUImageFilter_hxx
#define itkSmoothingRecursiveGaussianGPUImageFilter_hxx

#include "cifDeviceBuffer.h"
#include "cifRecursiveGaussianDevice.h"
#include "cifRecursiveGaussianHost.h"

#include <vector>

namespace itk
{
template <typename TInputImage, typename TOutputImage>
void
SmoothingRecursiveGaussianGPUImageFilter<TInputImage, TOutputImage>::GenerateData()
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
    const auto          region = input->GetRequestedRegion();
    if (input->GetBufferedRegion() != region || output->GetRequestedRegion() != region)
    {
      Superclass::GenerateData();
      this->SetLastExecutionPath(CudaExecutionPath::ITK);
      return;
    }
    // ITK's checks, in its order: the sizes (its GenerateData), then each internal
    // filter's sigma (VerifyPreconditions) and spacing (SetUp, below).
    for (unsigned int d = 0; d < ImageDimension; ++d)
    {
      if (region.GetSize(d) < 4)
      {
        itkExceptionMacro("The number of pixels along dimension "
                          << d
                          << " is less than 4. This filter requires a minimum of four pixels along the dimension to "
                             "be processed.");
      }
    }
    const auto sigma = this->GetSigmaArray();
    for (unsigned int d = 0; d < ImageDimension; ++d)
    {
      if (sigma[d] <= 0.0)
      {
        itkExceptionMacro("Sigma must be greater than zero.");
      }
    }
    // The passes in ITK's order: the last axis, then 0, 1, ..., D - 2.
    int                                axes[ImageDimension];
    cif::RecursiveGaussianCoefficients coefficients[ImageDimension];
    for (unsigned int k = 0; k < ImageDimension; ++k)
    {
      const unsigned int axis = k == 0 ? ImageDimension - 1 : k - 1;
      axes[k] = static_cast<int>(axis);
      coefficients[k] = SmoothingGPUDetail::RecursiveGaussianCoefficientProbe::Compute(
        sigma[axis], GaussianOrderEnum::ZeroOrder, this->GetNormalizeAcrossScale(), input->GetSpacing()[axis]);
    }

    const bool onGPU = this->RunsOnGPU();
    using TIn = InputPixelType;
    using TOut = OutputPixelType;
    using TInternal = InternalPixelType;
    const std::size_t n = static_cast<std::size_t>(region.GetNumberOfPixels());
    if (onGPU)
    {
      // Before the output is touched: a job that cannot fit fails here.
      CIF_ITK_TRY_CUDA([&] {
        cif::RequireDeviceMemory(n * sizeof(TIn) + 2 * n * sizeof(double),
                                 "the recursive Gaussian smoothing of a " + std::to_string(n) + "-pixel image");
      });
    }
    if (this->GetInPlace() && this->CanRunInPlace())
    {
      this->AllocateOutputs(); // may share the input's buffer: a line is read whole before it is written
    }
    else
    {
      output->SetBufferedRegion(region);
      this->PrepareHostOutput(output);
      output->Allocate();
    }
    const cif::GaussianShape shape = SmoothingGPUDetail::ShapeOf(region);
    const std::int64_t       count = shape.Count();
    cif::GaussianPassOutput  pass;
    pass.roundToFloat = std::is_same_v<TInternal, float>;
    if (onGPU)
    {
      CIF_ITK_TRY_CUDA([&] {
        cif::DeviceBuffer in(n * sizeof(TIn));
        cif::DeviceBuffer work[2] = { cif::DeviceBuffer(n * sizeof(double)), cif::DeviceBuffer(n * sizeof(double)) };
        in.Upload(input->GetBufferPointer(), n * sizeof(TIn));
        cif::RecursiveGaussianPassOnDevice<TIn>(
          in.As<TIn>(), work[0].As<double>(), shape, axes[0], coefficients[0], pass);
        int current = 0;
        for (unsigned int k = 1; k < ImageDimension; ++k)
        {
          cif::RecursiveGaussianPassOnDevice<double>(
            work[current].As<double>(), work[1 - current].As<double>(), shape, axes[k], coefficients[k], pass);
          current = 1 - current;
        }
        // The values are TInternal already; the cast to the output is exact or ITK's
        // CastImageFilter's static_cast.
        if constexpr (std::is_same_v<TOut, double>)
        {
          work[current].Download(output->GetBufferPointer(), n * sizeof(double));
        }
        else
        {
          cif::ConvertFromDoubleOnDevice<TOut>(work[current].As<double>(), work[1 - current].As<TOut>(), count);
          work[1 - current].Download(output->GetBufferPointer(), n * sizeof(TOut));
        }
      });
      this->SetLastExecutionPath(CudaExecutionPath::GPU);
    }
    else
    {
      auto       parallelFor = MakeParallelFor(this->GetMultiThreader());
      const auto passes = [&](TInternal * data) {
        cif::RecursiveGaussianPassOnHost(
          input->GetBufferPointer(), data, shape, axes[0], coefficients[0], pass, parallelFor);
        for (unsigned int k = 1; k < ImageDimension; ++k)
        {
          cif::RecursiveGaussianPassOnHost(data, data, shape, axes[k], coefficients[k], pass, parallelFor);
        }
      };
      if constexpr (std::is_same_v<TInternal, TOut>)
      {
        passes(output->GetBufferPointer());
      }
      else
      {
        std::vector<TInternal> internal(static_cast<std::size_t>(count));
        passes(internal.data());
        CudaParallelConvert(this->GetMultiThreader(), internal.data(), output->GetBufferPointer(), count);
      }
      this->SetLastExecutionPath(CudaExecutionPath::CPU);
    }
  }
}
} // namespace itk

#endif
