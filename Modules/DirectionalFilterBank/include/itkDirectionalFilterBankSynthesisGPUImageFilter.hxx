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
#ifndef itkDirectionalFilterBankSynthesisGPUImageFilter_hxx
#define itkDirectionalFilterBankSynthesisGPUImageFilter_hxx

#include "cifCudaRuntime.h"
#include "cifDirectionalFilterBankDevice.h"
#include "cifDirectionalFilterBankHost.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaParallelFor.h"
#include "itkDirectionalFilterBankGeometryITK.h"
#include "itkFilterStageProgress.h"
#include "itkImageRegionIterator.h"

namespace itk
{
template <typename TInputImage, typename TOutputImage>
DirectionalFilterBankSynthesisGPUImageFilter<TInputImage, TOutputImage>::DirectionalFilterBankSynthesisGPUImageFilter()
{
  this->SetNumberOfLevels(3);
}

template <typename TInputImage, typename TOutputImage>
void
DirectionalFilterBankSynthesisGPUImageFilter<TInputImage, TOutputImage>::SetNumberOfLevels(unsigned int levels)
{
  if (levels < 1 || levels > 5)
  {
    itkExceptionMacro("the number of levels must be 1 to 5 (2 to 32 directions), not " << levels);
  }
  m_NumberOfLevels = levels;
  this->SetNumberOfRequiredInputs(1u << levels);
  this->Modified();
}

template <typename TInputImage, typename TOutputImage>
void
DirectionalFilterBankSynthesisGPUImageFilter<TInputImage, TOutputImage>::ImageSize(int & rows, int & cols) const
{
  if (InputImageType::ImageDimension != 2)
  {
    itkExceptionMacro("the directional filter bank works on 2-D images; these subbands are "
                      << InputImageType::ImageDimension << "-D");
  }
  for (unsigned int b = 0; b < this->GetNumberOfSubbands(); ++b)
  {
    if (this->GetInput(b) == nullptr)
    {
      itkExceptionMacro("subband " << b << " of " << this->GetNumberOfSubbands() << " is not set");
    }
  }
  const auto size = this->GetInput(0)->GetLargestPossibleRegion().GetSize();
  const int  r0 = static_cast<int>(size[InputImageType::ImageDimension > 1 ? 1 : 0]);
  const int  c0 = static_cast<int>(size[0]);
  const int  n = static_cast<int>(m_NumberOfLevels);
  rows = n == 1 ? 2 * r0 : (n == 2 ? 2 * r0 : r0 << (n - 1));
  cols = n == 1 ? c0 : 2 * c0;
  const std::string problem = cif::DirectionalFilterBankSizeProblem(rows, cols, n);
  if (!problem.empty())
  {
    itkExceptionMacro("subband 0 (" << c0 << " x " << r0 << ") is not a subband of a valid image: " << problem);
  }
  const cif::DFBPlan plan = cif::MakeDirectionalAnalysisPlan(rows, cols, n, cif::DirectionalFilterSet::LadderPKVA6);
  for (unsigned int b = 0; b < this->GetNumberOfSubbands(); ++b)
  {
    const auto s = this->GetInput(b)->GetLargestPossibleRegion().GetSize();
    if (static_cast<int>(s[0]) != plan.subbands[b].cols ||
        static_cast<int>(s[InputImageType::ImageDimension > 1 ? 1 : 0]) != plan.subbands[b].rows)
    {
      itkExceptionMacro("subband " << b << " is " << s[0] << " x " << s[InputImageType::ImageDimension > 1 ? 1 : 0]
                                   << "; a " << n << "-level bank of a " << cols << " x " << rows << " image has it "
                                   << plan.subbands[b].cols << " x " << plan.subbands[b].rows);
    }
  }
}

template <typename TInputImage, typename TOutputImage>
void
DirectionalFilterBankSynthesisGPUImageFilter<TInputImage, TOutputImage>::GenerateOutputInformation()
{
  int rows, cols;
  this->ImageSize(rows, cols);
  const cif::DFBPlan plan = cif::MakeDirectionalAnalysisPlan(
    rows, cols, static_cast<int>(m_NumberOfLevels), cif::DirectionalFilterSet::LadderPKVA6);
  SetImageInformationFromSubband(*this->GetInput(0), plan.subbands[0], rows, cols, *this->GetOutput());
}

template <typename TInputImage, typename TOutputImage>
void
DirectionalFilterBankSynthesisGPUImageFilter<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion();
  for (unsigned int b = 0; b < this->GetNumberOfIndexedInputs(); ++b)
  {
    auto * input = const_cast<InputImageType *>(this->GetInput(b));
    if (input != nullptr)
    {
      input->SetRequestedRegionToLargestPossibleRegion();
    }
  }
}

template <typename TInputImage, typename TOutputImage>
void
DirectionalFilterBankSynthesisGPUImageFilter<TInputImage, TOutputImage>::EnlargeOutputRequestedRegion(
  DataObject * output)
{
  Superclass::EnlargeOutputRequestedRegion(output);
  this->GetOutput()->SetRequestedRegionToLargestPossibleRegion();
}

template <typename TInputImage, typename TOutputImage>
void
DirectionalFilterBankSynthesisGPUImageFilter<TInputImage, TOutputImage>::GenerateData()
{
  using T = ComputePixelType;
  int rows, cols;
  this->ImageSize(rows, cols);
  const cif::DFBPlan plan =
    cif::MakeDirectionalSynthesisPlan(rows, cols, static_cast<int>(m_NumberOfLevels), m_FilterSet);

  OutputImageType * output = this->GetOutput();
  try
  {
    // Stages: the subbands in (uploaded on the GPU path), each of the plan's stages
    // (the backsampling undone, a tree level), the image out.
    FilterStageProgress progress(this, static_cast<unsigned int>(plan.stageEnds.size()) + 2);

    // All subbands, at their places in the plan's subband buffer.
    const int      subbandBuffer = plan.subbands.front().buffer;
    std::vector<T> subbands(static_cast<std::size_t>(plan.image.Size()));
    for (unsigned int b = 0; b < this->GetNumberOfSubbands(); ++b)
    {
      const T * source = this->GetInput(b)->GetBufferPointer();
      std::copy(source, source + plan.subbands[b].Size(), subbands.begin() + plan.subbands[b].offset);
    }
    output->SetBufferedRegion(output->GetRequestedRegion());
    output->Allocate();
    std::vector<T> image(static_cast<std::size_t>(plan.image.Size()));

    if (this->RunsOnGPU())
    {
      CIF_ITK_TRY_CUDA([&] {
        cif::DFBDeviceWorkspace<T> workspace(plan);
        workspace.Upload(subbandBuffer, subbands.data(), plan.image.Size());
        progress.CompletedOnDevice();
        workspace.Run(progress.DeviceCallback());
        workspace.Download(plan.image.buffer, image.data(), plan.image.Size());
      });
      this->SetLastExecutionPath(CudaExecutionPath::GPU);
    }
    else
    {
      cif::DFBHostBuffers<T> buffers(plan);
      std::copy(subbands.begin(), subbands.end(), buffers.storage[subbandBuffer].begin());
      progress.Completed();
      cif::RunDFBPlanOnHost(plan, buffers, MakeParallelFor(this->GetMultiThreader()), progress.HostCallback());
      std::copy(buffers.At(plan.image), buffers.At(plan.image) + plan.image.Size(), image.begin());
      this->SetLastExecutionPath(CudaExecutionPath::CPU);
    }
    std::size_t k = 0;
    for (ImageRegionIterator<OutputImageType> it(output, output->GetBufferedRegion()); !it.IsAtEnd(); ++it)
    {
      it.Set(static_cast<typename OutputImageType::PixelType>(image[k++]));
    }
    progress.Completed();
  }
  catch (...)
  {
    output->Initialize(); // no half-reconstructed (or aborted) image is left behind
    throw;
  }
}

template <typename TInputImage, typename TOutputImage>
void
DirectionalFilterBankSynthesisGPUImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os,
                                                                                   Indent         indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "NumberOfLevels: " << m_NumberOfLevels << " (" << (1u << m_NumberOfLevels) << " subbands)\n";
  os << indent << "FilterSet: " << cif::ToString(m_FilterSet) << '\n';
}
} // namespace itk

#endif
