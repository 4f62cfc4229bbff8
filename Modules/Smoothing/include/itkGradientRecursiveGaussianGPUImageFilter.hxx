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
#ifndef itkGradientRecursiveGaussianGPUImageFilter_hxx
#define itkGradientRecursiveGaussianGPUImageFilter_hxx

#include "cifDeviceBuffer.h"
#include "cifRecursiveGaussianDevice.h"
#include "cifRecursiveGaussianHost.h"

#include <vector>

namespace itk
{
template <typename TInputImage, typename TOutputImage>
void
GradientRecursiveGaussianGPUImageFilter<TInputImage, TOutputImage>::GenerateData()
{
  if constexpr (!TypesSupported)
  {
    Superclass::GenerateData();
    this->SetLastExecutionPath(CudaExecutionPath::ITK);
  }
  else
  {
    m_HostOutputPending = false;
    m_DeviceResult.Release();
    constexpr unsigned int D = ImageDimension;
    const TInputImage *    input = this->GetInput();
    TOutputImage *         output = this->GetOutput();
    const auto             region = input->GetBufferedRegion();
    if (region != input->GetLargestPossibleRegion())
    {
      // ITK's internal filters update the largest region; a partly buffered input is its business.
      Superclass::GenerateData();
      this->SetLastExecutionPath(CudaExecutionPath::ITK);
      return;
    }
    // ITK's checks: each internal filter's sigma (VerifyPreconditions), spacing (SetUp)
    // and line length (BeforeThreadedGenerateData).
    const auto sigma = this->GetSigmaArray();
    for (unsigned int d = 0; d < D; ++d)
    {
      if (sigma[d] <= 0.0)
      {
        itkExceptionMacro("Sigma must be greater than zero.");
      }
    }
    const bool normalize = this->GetNormalizeAcrossScale();
    const auto spacing = input->GetSpacing();
    // Per component: the derivative's axis and coefficients, then the smoothing passes.
    int                                axes[D][D];
    cif::RecursiveGaussianCoefficients coefficients[D][D];
    for (unsigned int dim = 0; dim < D; ++dim)
    {
      axes[dim][0] = static_cast<int>(dim);
      coefficients[dim][0] = SmoothingGPUDetail::RecursiveGaussianCoefficientProbe::Compute(
        sigma[D - 1], GaussianOrderEnum::FirstOrder, normalize, spacing[dim]);
      if (region.GetSize(dim) < 4)
      {
        itkExceptionMacro(<< SmoothingGPUDetail::TooShortMessage(dim));
      }
      for (unsigned int i = 0, j = 0; i + 1 < D; ++i, ++j)
      {
        if (j == dim)
        {
          ++j;
        }
        axes[dim][i + 1] = static_cast<int>(j);
        coefficients[dim][i + 1] = SmoothingGPUDetail::RecursiveGaussianCoefficientProbe::Compute(
          sigma[i], GaussianOrderEnum::ZeroOrder, normalize, spacing[j]);
      }
    }
    double direction[D * D];
    for (unsigned int i = 0; i < D; ++i)
    {
      for (unsigned int j = 0; j < D; ++j)
      {
        direction[i * D + j] = input->GetDirection()[i][j];
      }
    }
    const bool rotate = this->GetUseImageDirection();

    const bool onGPU = this->RunsOnGPU();
    using TIn = InputPixelType;
    const std::size_t n = static_cast<std::size_t>(region.GetNumberOfPixels());
    const int         workVolumes = D >= 3 ? 2 : (D == 2 ? 1 : 0);
    if (onGPU)
    {
      // Before the output is touched: a job that cannot fit fails here.
      CIF_ITK_TRY_CUDA([&] {
        cif::RequireDeviceMemory(n * sizeof(TIn) + workVolumes * n * sizeof(double) + D * n * sizeof(double),
                                 "the recursive Gaussian gradient of a " + std::to_string(n) + "-pixel image");
      });
    }
    const bool keepOnDevice = onGPU && m_KeepResultOnDevice;
    output->SetBufferedRegion(region);
    if (!keepOnDevice) // kept: the host buffer may never be read, so no pinned memory for it
    {
      this->PrepareHostOutput(output);
    }
    output->Allocate();
    const cif::GaussianShape shape = SmoothingGPUDetail::ShapeOf(region);
    const std::int64_t       count = shape.Count();
    double *                 result = output->GetBufferPointer()->GetDataPointer();
    // The pass of component \a dim number \a k: the last one writes the component,
    // divided by the spacing as ITK divides (it.Get() / spacing).
    const auto passOutput = [&](unsigned int dim, unsigned int k) {
      cif::GaussianPassOutput pass;
      pass.roundToFloat = std::is_same_v<InternalPixelType, float>;
      if (k + 1 == D)
      {
        pass.components = static_cast<int>(D);
        pass.component = static_cast<int>(dim);
        pass.divisor = spacing[dim];
      }
      return pass;
    };
    if (onGPU)
    {
      CIF_ITK_TRY_CUDA([&] {
        cif::DeviceBuffer in(n * sizeof(TIn));
        cif::DeviceBuffer gradient(D * n * sizeof(double));
        cif::DeviceBuffer work[2];
        for (int w = 0; w < workVolumes; ++w)
        {
          work[w].Allocate(n * sizeof(double));
        }
        in.Upload(input->GetBufferPointer(), n * sizeof(TIn));
        for (unsigned int dim = 0; dim < D; ++dim)
        {
          int current = 0;
          for (unsigned int k = 0; k < D; ++k)
          {
            const cif::GaussianPassOutput pass = passOutput(dim, k);
            double *                      target = k + 1 == D ? gradient.As<double>() : work[k % 2].As<double>();
            if (k == 0)
            {
              cif::RecursiveGaussianPassOnDevice<TIn>(
                in.As<TIn>(), target, shape, axes[dim][k], coefficients[dim][k], pass);
            }
            else
            {
              cif::RecursiveGaussianPassOnDevice<double>(
                work[current].As<double>(), target, shape, axes[dim][k], coefficients[dim][k], pass);
            }
            current = static_cast<int>(k % 2);
          }
        }
        if (rotate)
        {
          cif::RotateCovariantOnDevice(gradient.As<double>(), count, static_cast<int>(D), direction);
        }
        if (keepOnDevice)
        {
          m_DeviceResult = std::move(gradient);
          m_HostOutputPending = true;
        }
        else
        {
          gradient.Download(result, D * n * sizeof(double));
        }
      });
      this->SetLastExecutionPath(CudaExecutionPath::GPU);
    }
    else
    {
      auto                parallelFor = MakeParallelFor(this->GetMultiThreader());
      std::vector<double> work(D > 1 ? static_cast<std::size_t>(count) : 0);
      for (unsigned int dim = 0; dim < D; ++dim)
      {
        for (unsigned int k = 0; k < D; ++k)
        {
          const cif::GaussianPassOutput pass = passOutput(dim, k);
          double *                      target = k + 1 == D ? result : work.data();
          if (k == 0)
          {
            cif::RecursiveGaussianPassOnHost(
              input->GetBufferPointer(), target, shape, axes[dim][k], coefficients[dim][k], pass, parallelFor);
          }
          else
          {
            cif::RecursiveGaussianPassOnHost(
              work.data(), target, shape, axes[dim][k], coefficients[dim][k], pass, parallelFor);
          }
        }
      }
      if (rotate)
      {
        cif::RotateCovariantOnHost(result, count, static_cast<int>(D), direction, parallelFor);
      }
      this->SetLastExecutionPath(CudaExecutionPath::CPU);
    }
  }
}
template <typename TInputImage, typename TOutputImage>
void
GradientRecursiveGaussianGPUImageFilter<TInputImage, TOutputImage>::DownloadResultToHost()
{
  if (!m_HostOutputPending)
  {
    return;
  }
  TOutputImage *    output = this->GetOutput();
  const std::size_t n = static_cast<std::size_t>(output->GetBufferedRegion().GetNumberOfPixels());
  CIF_ITK_TRY_CUDA([&] {
    m_DeviceResult.Download(output->GetBufferPointer()->GetDataPointer(), ImageDimension * n * sizeof(double));
  });
  m_HostOutputPending = false;
  m_DeviceResult.Release();
}
} // namespace itk

#endif
