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
#ifndef itkConvolutionKernelImage_h
#define itkConvolutionKernelImage_h

#include "cifConvolutionKernel.h"
#include "itkImage.h"
#include "itkMacro.h"

namespace itk
{
/** A kernel image (for itk::ConvolutionImageFilter and its GPU twin) holding the
 * weights of \a kernel, index (0, 0) at the first weight. */
template <typename TKernelImage>
typename TKernelImage::Pointer
MakeKernelImage(const cif::ConvolutionKernel & kernel)
{
  constexpr unsigned int D = TKernelImage::ImageDimension;
  if (static_cast<unsigned int>(kernel.dimension) > D)
  {
    itkGenericExceptionMacro("a " << kernel.dimension << "-D kernel cannot fill a " << D << "-D kernel image");
  }
  auto                            image = TKernelImage::New();
  typename TKernelImage::SizeType size;
  size.Fill(1);
  for (unsigned int a = 0; a < D && a < 3; ++a)
  {
    size[a] = static_cast<SizeValueType>(kernel.size[a]);
  }
  image->SetRegions(size);
  image->Allocate();
  for (std::size_t i = 0; i < kernel.weights.size(); ++i)
  {
    image->GetBufferPointer()[i] = static_cast<typename TKernelImage::PixelType>(kernel.weights[i]);
  }
  return image;
}

/** The weights of a scalar kernel image as the module's plain kernel; with
 * \a normalize they are divided by their sum as ITK's NormalizeToConstantImageFilter
 * does (the sum in double, each weight times its reciprocal). */
template <typename TKernelImage>
cif::ConvolutionKernel
KernelFromImage(const TKernelImage * image, bool normalize)
{
  constexpr unsigned int D = TKernelImage::ImageDimension;
  static_assert(D >= 1 && D <= 3, "kernels of 1 to 3 dimensions");
  cif::ConvolutionKernel kernel;
  kernel.dimension = static_cast<int>(D);
  const auto region = image->GetLargestPossibleRegion();
  if (image->GetBufferedRegion() != region)
  {
    itkGenericExceptionMacro("the kernel image must be buffered whole (buffered " << image->GetBufferedRegion()
                                                                                  << ", largest " << region << ")");
  }
  for (unsigned int a = 0; a < D; ++a)
  {
    kernel.size[a] = static_cast<int>(region.GetSize()[a]);
  }
  const std::size_t count = region.GetNumberOfPixels();
  kernel.weights.resize(count);
  for (std::size_t i = 0; i < count; ++i)
  {
    kernel.weights[i] = static_cast<double>(image->GetBufferPointer()[i]);
  }
  if (normalize)
  {
    const double scale = 1.0 / kernel.Sum();
    for (double & w : kernel.weights)
    {
      w *= scale;
    }
  }
  kernel.name = "kernel image";
  return kernel;
}
} // namespace itk

#endif
