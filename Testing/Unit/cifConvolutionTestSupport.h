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
#ifndef cifConvolutionTestSupport_h
#define cifConvolutionTestSupport_h

// Shared pieces of the convolution and zoom tests: ITK's result per component (ITK
// 5.2's ConvolutionImageFilter cannot convolve RGB pixels), and the error measured
// against the data range of ITK's result.
#include "cifConvolutionKernel.h"
#include "cifTestHelpers.h"
#include "itkConvolutionImageFilter.h"
#include "itkImageRegionConstIterator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace cif_test
{
/** max |a - b| / (max b - min b) over the scalars of two equally sized buffers,
 * with the reference's range in \a range. */
template <typename TA, typename TB>
double
RelativeError(const TA * a, const TB * b, std::size_t count, double * range = nullptr)
{
  double low = std::numeric_limits<double>::max(), high = std::numeric_limits<double>::lowest(), worst = 0;
  for (std::size_t i = 0; i < count; ++i)
  {
    low = std::min(low, static_cast<double>(b[i]));
    high = std::max(high, static_cast<double>(b[i]));
    worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  }
  const double span = high > low ? high - low : 1.0;
  if (range)
  {
    *range = span;
  }
  return worst / span;
}

/** Component \a c of a multi-component image as a float image (same grid). */
template <typename TImage>
typename itk::Image<float, TImage::ImageDimension>::Pointer
ComponentImage(const TImage * image, unsigned int c, unsigned int components)
{
  using Out = itk::Image<float, TImage::ImageDimension>;
  auto out = Out::New();
  out->CopyInformation(image);
  out->SetRegions(image->GetBufferedRegion());
  out->Allocate();
  const auto * in = reinterpret_cast<const typename itk::NumericTraits<typename TImage::PixelType>::ValueType *>(
    image->GetBufferPointer());
  for (std::size_t i = 0, n = out->GetBufferedRegion().GetNumberOfPixels(); i < n; ++i)
  {
    out->GetBufferPointer()[i] = static_cast<float>(in[i * components + c]);
  }
  return out;
}

/** A random kernel of the given size with weights in [-1, 1]. */
inline cif::ConvolutionKernel
RandomKernel(int sx, int sy, int sz, std::uint32_t seed)
{
  cif::ConvolutionKernel k;
  k.dimension = sz > 1 ? 3 : 2;
  k.size[0] = sx;
  k.size[1] = sy;
  k.size[2] = sz;
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (std::int64_t i = 0; i < k.Count(); ++i)
  {
    k.weights.push_back(u(rng));
  }
  return k;
}

/** The 5x3x7 outer product of three random 1-D kernels (seeds seed + 2 .. seed + 4):
 * a separable kernel with a z pass. */
inline cif::ConvolutionKernel
OuterProductKernel(std::uint32_t seed)
{
  cif::ConvolutionKernel product;
  product.name = "5x3x7 outer product";
  product.dimension = 3;
  product.size[0] = 5;
  product.size[1] = 3;
  product.size[2] = 7;
  const auto a = RandomKernel(5, 1, 1, seed + 2), b = RandomKernel(3, 1, 1, seed + 3),
             c = RandomKernel(7, 1, 1, seed + 4);
  for (int z = 0; z < 7; ++z)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 5; ++x)
        product.weights.push_back(a.weights[x] * b.weights[y] * c.weights[z]);
  return product;
}
} // namespace cif_test

#endif
