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
#ifndef itkConvolutionRegions_h
#define itkConvolutionRegions_h

#include "cifConvolutionMath.h"
#include "itkImageRegion.h"

namespace itk
{
/** The samples a convolution with a kernel of \a radius reads for the output
 * \a region: the region padded by the radius, cropped to what \a available holds
 * (the input image for ConvolutionGPUImageFilter, the zoom canvas for
 * ZoomGPUImageFilter). The convolution repeats the edge of \a available, so a piece
 * of the output computed from its own cropped region has the bits of the same
 * samples computed from all of \a available. False, as ImageRegion::Crop, when the
 * padded region lies outside \a available. */
template <unsigned int D>
bool
ConvolutionReadRegion(ImageRegion<D> & region, const Size<D> & radius, const ImageRegion<D> & available)
{
  region.PadByRadius(radius);
  return region.Crop(available);
}

/** The geometry of a convolution from the buffer of region \a in to the buffer of
 * region \a out, both in one index space (out's samples read in's, clamped to in's
 * edges), \a planes planar components. */
template <unsigned int D>
cif::ConvolutionGeometry
ConvolutionGeometryOf(const ImageRegion<D> & in, const ImageRegion<D> & out, int planes)
{
  static_assert(D >= 1 && D <= 3, "the convolution geometry has 3 axes");
  cif::ConvolutionGeometry g;
  for (unsigned int a = 0; a < D; ++a)
  {
    g.inSize[a] = static_cast<std::int64_t>(in.GetSize()[a]);
    g.outSize[a] = static_cast<std::int64_t>(out.GetSize()[a]);
    g.outOffset[a] = out.GetIndex()[a] - in.GetIndex()[a];
  }
  g.planes = planes;
  return g;
}
} // namespace itk

#endif
