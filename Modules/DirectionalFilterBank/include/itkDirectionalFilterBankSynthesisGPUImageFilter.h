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
#ifndef itkDirectionalFilterBankSynthesisGPUImageFilter_h
#define itkDirectionalFilterBankSynthesisGPUImageFilter_h

#include "cifDirectionalFilterBankFilters.h"
#include "itkCudaImageFilterBase.h"
#include "itkImageToImageFilter.h"

#include <type_traits>

namespace itk
{
/** \class DirectionalFilterBankSynthesisGPUImageFilter
 * \brief Bamberger–Smith directional filter bank, synthesis: the 2^n subbands of
 * DirectionalFilterBankGPUImageFilter back into the image (perfect reconstruction,
 * to rounding, for both filter sets).
 *
 * Inputs: SetSubband(b, image) for b = 0 … 2^n − 1, with the sizes the analysis
 * produces (checked; the image size follows from them). Set the same number of
 * levels and filter set as the analysis. The output takes the first subband's
 * origin and direction and its spacing divided by the decimation. GPU path: one
 * upload of all subbands, every level on the device, one download; CPU path
 * otherwise (ITK's threader). ProgressEvent follows the stages (the subbands in,
 * each level, the image out); AbortGenerateData stops the filter between them with
 * ProcessAborted and leaves the output empty (itk::FilterStageProgress).
 * \ingroup CudaImageFilters
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT DirectionalFilterBankSynthesisGPUImageFilter
  : public CudaImageFilterBase<ImageToImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(DirectionalFilterBankSynthesisGPUImageFilter);

  using Self = DirectionalFilterBankSynthesisGPUImageFilter;
  using Superclass = CudaImageFilterBase<ImageToImageFilter<TInputImage, TOutputImage>>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(DirectionalFilterBankSynthesisGPUImageFilter, ImageToImageFilter);

  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;
  using ComputePixelType = typename TInputImage::PixelType;
  using FilterSetType = cif::DirectionalFilterSet;
  static_assert(std::is_same<ComputePixelType, float>::value || std::is_same<ComputePixelType, double>::value,
                "DirectionalFilterBankSynthesisGPUImageFilter: the subbands are float or double images");

  /** Number of tree levels n (1 … 5), as in the analysis. Default 3. */
  void
  SetNumberOfLevels(unsigned int levels);
  itkGetConstMacro(NumberOfLevels, unsigned int);
  unsigned int
  GetNumberOfSubbands() const
  {
    return 1u << m_NumberOfLevels;
  }

  itkSetEnumMacro(FilterSet, FilterSetType);
  itkGetEnumMacro(FilterSet, FilterSetType);

  void
  SetSubband(unsigned int subband, const InputImageType * image)
  {
    this->SetNthInput(subband, const_cast<InputImageType *>(image));
  }

protected:
  DirectionalFilterBankSynthesisGPUImageFilter();
  ~DirectionalFilterBankSynthesisGPUImageFilter() override = default;

  /** The subbands differ in size and spacing by design; ImageSize() checks them
   * against the tree instead of ITK's same-physical-space rule. */
  void
  VerifyInputInformation() ITKv5_CONST override
  {}
  void
  GenerateOutputInformation() override;
  void
  GenerateInputRequestedRegion() override;
  void
  EnlargeOutputRequestedRegion(DataObject * output) override;
  void
  GenerateData() override;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  /** The image size the subbands come from (checked against every subband). */
  void
  ImageSize(int & rows, int & cols) const;

  unsigned int  m_NumberOfLevels = 3;
  FilterSetType m_FilterSet = FilterSetType::LadderPKVA12;
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkDirectionalFilterBankSynthesisGPUImageFilter.hxx"
#endif

#endif
