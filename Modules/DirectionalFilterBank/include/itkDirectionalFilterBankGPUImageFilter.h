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
#ifndef itkDirectionalFilterBankGPUImageFilter_h
#define itkDirectionalFilterBankGPUImageFilter_h

#include "cifDirectionalFilterBankFilters.h"
#include "cifDirectionalFilterBankGeometry.h"
#include "itkCudaImageFilterBase.h"
#include "itkImageToImageFilter.h"

#include <type_traits>

namespace itk
{
/** \class DirectionalFilterBankGPUImageFilter
 * \brief Bamberger–Smith directional filter bank, analysis: a 2-D image into 2^n
 * wedge-shaped directional subbands (n = 1 … 5), maximally decimated, on the GPU.
 *
 * The tree of 2-band quincunx/parallelogram stages of Park–Smith–Mersereau in the
 * form of Do & Vetterli, periodic extension at the borders, with either a ladder
 * (lifting) filter set (PKVA, perfect reconstruction by construction) or the
 * QMF h0 of the seed thesis in Bamberger's polyphase sum/difference structure
 * (perfect reconstruction through exact periodic inverse filters in the synthesis).
 * DirectionalFilterBankSynthesisGPUImageFilter is the inverse.
 *
 * Outputs: GetSubband(b), b = 0 … 2^n − 1 (GetOutput(b)). Subband geometry:
 * - n = 1: both W × H/2; n = 2: all W/2 × H/2; n ≥ 3: the first half of the subbands
 *   W/2 × H/2^(n−1), the second half W/2^(n−1) × H/2 (W columns, H rows).
 * - Each subband's spacing is the input's times the decimation along each axis, its
 *   origin and direction the input's, so it overlays the image in physical space.
 * - Directions: GetSubbandAngles() / cif::DirectionalSubbandAngles (frequency angle
 *   in [0°, 180°), subband b holds wedge (b − 2^(n−2)) mod 2^n from 0°).
 * The image's width must be a multiple of 2^(n−1) and its height of 2^(n−1) (of 2
 * for n = 1); other sizes are refused with an exception naming the sizes that work.
 *
 * Computation in the output pixel type (float or double). The GPU path runs every
 * level on the device with one upload and one download; without a usable device
 * (or with UseGPU off) the same operations run on the CPU with ITK's threader.
 * ProgressEvent follows the stages (the image in, each level, the backsampling, the
 * subbands out); AbortGenerateData stops the filter between them with
 * ProcessAborted and leaves every subband empty (itk::FilterStageProgress).
 * \ingroup CudaImageFilters
 */
template <typename TInputImage, typename TOutputImage = Image<float, TInputImage::ImageDimension>>
class ITK_TEMPLATE_EXPORT DirectionalFilterBankGPUImageFilter
  : public CudaImageFilterBase<ImageToImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(DirectionalFilterBankGPUImageFilter);

  using Self = DirectionalFilterBankGPUImageFilter;
  using Superclass = CudaImageFilterBase<ImageToImageFilter<TInputImage, TOutputImage>>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(DirectionalFilterBankGPUImageFilter, ImageToImageFilter);

  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;
  using OutputPixelType = typename TOutputImage::PixelType;
  using FilterSetType = cif::DirectionalFilterSet;
  static_assert(std::is_same<OutputPixelType, float>::value || std::is_same<OutputPixelType, double>::value,
                "DirectionalFilterBankGPUImageFilter: the subbands are float or double images");

  /** Number of tree levels n (1 … 5): 2^n subbands. Default 3. */
  void
  SetNumberOfLevels(unsigned int levels);
  itkGetConstMacro(NumberOfLevels, unsigned int);
  unsigned int
  GetNumberOfSubbands() const
  {
    return 1u << m_NumberOfLevels;
  }

  /** The 2-band stages' filters (default cif::DirectionalFilterSet::LadderPKVA12). */
  itkSetEnumMacro(FilterSet, FilterSetType);
  itkGetEnumMacro(FilterSet, FilterSetType);

  OutputImageType *
  GetSubband(unsigned int subband)
  {
    return this->GetOutput(subband);
  }

  /** Frequency directions of subband `subband`, [low, high) degrees. */
  void
  GetSubbandAngles(unsigned int subband, double & low, double & high) const
  {
    cif::DirectionalSubbandAngles(static_cast<int>(m_NumberOfLevels), static_cast<int>(subband), low, high);
  }

protected:
  DirectionalFilterBankGPUImageFilter();
  ~DirectionalFilterBankGPUImageFilter() override = default;

  void
  GenerateOutputInformation() override;
  void
  GenerateInputRequestedRegion() override;
  /** Every subband is produced whole (and they differ in size: ITK's default would
   * copy one output's requested region to all). */
  void
  GenerateOutputRequestedRegion(DataObject * output) override;
  void
  GenerateData() override;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  unsigned int  m_NumberOfLevels = 3;
  FilterSetType m_FilterSet = FilterSetType::LadderPKVA12;
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkDirectionalFilterBankGPUImageFilter.hxx"
#endif

#endif
