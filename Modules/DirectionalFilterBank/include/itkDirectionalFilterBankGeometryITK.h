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
#ifndef itkDirectionalFilterBankGeometryITK_h
#define itkDirectionalFilterBankGeometryITK_h

// Image information of the directional filter bank's subbands: a subband covers
// the image's physical extent with fewer samples (spacing × decimation per axis),
// same origin and direction, start index 0.
#include "cifDirectionalFilterBankOps.h"
#include "itkImageBase.h"

namespace itk
{
template <typename TImage, typename TSubband>
void
SetSubbandInformation(const TImage & image, const cif::DFBArray & subband, TSubband & output)
{
  const auto                     imageSize = image.GetLargestPossibleRegion().GetSize();
  typename TSubband::RegionType  region;
  typename TSubband::SpacingType spacing = image.GetSpacing();
  region.SetSize(0, static_cast<SizeValueType>(subband.cols));
  spacing[0] *= static_cast<double>(imageSize[0]) / subband.cols;
  if (TSubband::ImageDimension > 1)
  {
    region.SetSize(1, static_cast<SizeValueType>(subband.rows));
    spacing[1] *= static_cast<double>(imageSize[1]) / subband.rows;
  }
  output.SetLargestPossibleRegion(region);
  output.SetSpacing(spacing);
  output.SetOrigin(image.GetOrigin());
  output.SetDirection(image.GetDirection());
}

/** The inverse: the image information of the reconstruction from one subband. */
template <typename TSubband, typename TImage>
void
SetImageInformationFromSubband(const TSubband &      subband,
                               const cif::DFBArray & layout,
                               int                   rows,
                               int                   cols,
                               TImage &              output)
{
  typename TImage::RegionType  region;
  typename TImage::SpacingType spacing = subband.GetSpacing();
  region.SetSize(0, static_cast<SizeValueType>(cols));
  spacing[0] *= static_cast<double>(layout.cols) / cols;
  if (TImage::ImageDimension > 1)
  {
    region.SetSize(1, static_cast<SizeValueType>(rows));
    spacing[1] *= static_cast<double>(layout.rows) / rows;
  }
  output.SetLargestPossibleRegion(region);
  output.SetSpacing(spacing);
  output.SetOrigin(subband.GetOrigin());
  output.SetDirection(subband.GetDirection());
}
} // namespace itk

#endif
