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
#ifndef itkDirectionalFilterBankGPUImageFilter_hxx
#define itkDirectionalFilterBankGPUImageFilter_hxx

#include "cifCudaRuntime.h"
#include "cifDirectionalFilterBankDevice.h"
#include "cifDirectionalFilterBankHost.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaParallelFor.h"
#include "itkDirectionalFilterBankGeometryITK.h"
#include "itkFilterStageProgress.h"
#include "itkImageAlgorithm.h"
#include "itkImageRegionConstIterator.h"

namespace itk
{
template <typename TInputImage, typename TOutputImage>
DirectionalFilterBankGPUImageFilter<TInputImage, TOutputImage>::DirectionalFilterBankGPUImageFilter()
{
  this->SetNumberOfRequiredInputs(1);
  this->SetNumberOfLevels(3);
}

template <typename TInputImage, typename TOutputImage>
void
DirectionalFilterBankGPUImageFilter<TInputImage, TOutputImage>::SetNumberOfLevels(unsigned int levels)
{
  if (levels < 1 || levels > 5)
  {
    itkExceptionMacro("the number of levels must be 1 to 5 (2 to 32 directions), not " << levels);
  }
  if (levels == m_NumberOfLevels && this->GetNumberOfIndexedOutputs() == (1u << levels))
  {
    return;
  }
  m_NumberOfLevels = levels;
  const unsigned int subbands = 1u << levels;
  this->SetNumberOfRequiredOutputs(subbands);
  this->SetNumberOfIndexedOutputs(subbands);
  for (unsigned int b = 0; b < subbands; ++b)
  {
    if (this->GetOutput(b) == nullptr)
    {
      this->SetNthOutput(b, this->MakeOutput(b));
    }
  }
  this->Modified();
}

template <typename TInputImage, typename TOutputImage>
void
DirectionalFilterBankGPUImageFilter<TInputImage, TOutputImage>::GenerateOutputInformation()
{
  const InputImageType * input = this->GetInput();
  if (input == nullptr)
  {
    itkExceptionMacro("no input image");
  }
  if (InputImageType::ImageDimension != 2)
  {
    itkExceptionMacro("the directional filter bank works on 2-D images; this input is "
                      << InputImageType::ImageDimension << "-D");
  }
  const auto        region = input->GetLargestPossibleRegion();
  const int         cols = static_cast<int>(region.GetSize(0));
  const int         rows = static_cast<int>(region.GetSize(InputImageType::ImageDimension > 1 ? 1 : 0));
  const std::string problem = cif::DirectionalFilterBankSizeProblem(rows, cols, static_cast<int>(m_NumberOfLevels));
  if (!problem.empty())
  {
    itkExceptionMacro(<< problem);
  }
  const cif::DFBPlan plan =
    cif::MakeDirectionalAnalysisPlan(rows, cols, static_cast<int>(m_NumberOfLevels), m_FilterSet);
  for (unsigned int b = 0; b < this->GetNumberOfSubbands(); ++b)
  {
    SetSubbandInformation(*input, plan.subbands[b], *this->GetOutput(b));
  }
}

template <typename TInputImage, typename TOutputImage>
void
DirectionalFilterBankGPUImageFilter<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion();
  auto * input = const_cast<InputImageType *>(this->GetInput());
  if (input != nullptr)
  {
    input->SetRequestedRegionToLargestPossibleRegion(); // every subband sample depends on the whole image
  }
}

template <typename TInputImage, typename TOutputImage>
void
DirectionalFilterBankGPUImageFilter<TInputImage, TOutputImage>::GenerateOutputRequestedRegion(DataObject *)
{
  for (unsigned int b = 0; b < this->GetNumberOfIndexedOutputs(); ++b)
  {
    this->GetOutput(b)->SetRequestedRegionToLargestPossibleRegion();
  }
}

template <typename TInputImage, typename TOutputImage>
void
DirectionalFilterBankGPUImageFilter<TInputImage, TOutputImage>::GenerateData()
{
  using T = OutputPixelType;
  const InputImageType * input = this->GetInput();
  const auto             region = input->GetLargestPossibleRegion();
  const int              cols = static_cast<int>(region.GetSize(0));
  const int              rows = static_cast<int>(region.GetSize(InputImageType::ImageDimension > 1 ? 1 : 0));
  const cif::DFBPlan     plan =
    cif::MakeDirectionalAnalysisPlan(rows, cols, static_cast<int>(m_NumberOfLevels), m_FilterSet);

  try
  {
    // Stages: the image in (uploaded on the GPU path), each of the plan's stages (a
    // tree level, the backsampling), the subbands out.
    FilterStageProgress progress(this, static_cast<unsigned int>(plan.stageEnds.size()) + 2);

    // The image, row-major in the computation type (ITK's buffer order: x fastest).
    std::vector<T> image(static_cast<std::size_t>(plan.image.Size()));
    {
      std::size_t k = 0;
      for (ImageRegionConstIterator<InputImageType> it(input, region); !it.IsAtEnd(); ++it)
      {
        image[k++] = static_cast<T>(it.Get());
      }
    }
    for (unsigned int b = 0; b < this->GetNumberOfSubbands(); ++b)
    {
      OutputImageType * output = this->GetOutput(b);
      output->SetBufferedRegion(output->GetRequestedRegion());
      output->Allocate();
    }
    auto copyOut = [&](const T * subbandBuffer, std::int64_t base) {
      for (unsigned int b = 0; b < this->GetNumberOfSubbands(); ++b)
      {
        const cif::DFBArray & a = plan.subbands[b];
        const T *             source = subbandBuffer + (a.offset - base);
        std::copy(source, source + a.Size(), this->GetOutput(b)->GetBufferPointer());
      }
    };

    if (this->RunsOnGPU())
    {
      CIF_ITK_TRY_CUDA([&] {
        cif::DFBDeviceWorkspace<T> workspace(plan);
        workspace.Upload(plan.image.buffer, image.data(), plan.image.Size());
        progress.CompletedOnDevice();
        workspace.Run(progress.DeviceCallback());
        // the subbands lie one after another in one buffer: one download
        const int      buffer = plan.subbands.front().buffer;
        std::vector<T> subbands(static_cast<std::size_t>(plan.bufferSizes[buffer]));
        workspace.Download(buffer, subbands.data(), plan.rows * static_cast<std::int64_t>(plan.cols));
        copyOut(subbands.data(), 0);
        progress.Completed();
      });
      this->SetLastExecutionPath(CudaExecutionPath::GPU);
    }
    else
    {
      cif::DFBHostBuffers<T> buffers(plan);
      std::copy(image.begin(), image.end(), buffers.At(plan.image));
      progress.Completed();
      cif::RunDFBPlanOnHost(plan, buffers, MakeParallelFor(this->GetMultiThreader()), progress.HostCallback());
      copyOut(buffers.storage[plan.subbands.front().buffer].data(), 0);
      progress.Completed();
      this->SetLastExecutionPath(CudaExecutionPath::CPU);
    }
  }
  catch (...)
  {
    // No subband of a half-run (or aborted) bank is left behind.
    for (unsigned int b = 0; b < this->GetNumberOfIndexedOutputs(); ++b)
    {
      if (OutputImageType * output = this->GetOutput(b))
      {
        output->Initialize();
      }
    }
    throw;
  }
}

template <typename TInputImage, typename TOutputImage>
void
DirectionalFilterBankGPUImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "NumberOfLevels: " << m_NumberOfLevels << " (" << (1u << m_NumberOfLevels) << " subbands)\n";
  os << indent << "FilterSet: " << cif::ToString(m_FilterSet) << '\n';
}
} // namespace itk

#endif
