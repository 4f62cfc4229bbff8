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
#ifndef cifExampleImages_h
#define cifExampleImages_h

// Synthetic test pictures and image helpers shared by the examples.
#include "itkImage.h"
#include "itkImageFileWriter.h"
#include "itkImageRegionIteratorWithIndex.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace cif_example
{
using Image2D = itk::Image<float, 2>;

/** A 2-D picture with edges of all orientations and fine detail inside a disc (zero
 * outside it, so rotations never carry content across the image border): rings, a
 * checkerboard quadrant, and a smooth blob; values in [0, 255]. */
inline Image2D::Pointer
MakeTestPicture(unsigned int n)
{
  auto image = Image2D::New();
  image->SetRegions(itk::Size<2>{ { n, n } });
  image->Allocate();
  const double c = 0.5 * (n - 1), radius = 0.42 * n;
  for (itk::ImageRegionIteratorWithIndex<Image2D> it(image, image->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    const double x = it.GetIndex()[0] - c, y = it.GetIndex()[1] - c, r = std::sqrt(x * x + y * y);
    double       v = 0.0;
    if (r < radius)
    {
      v = 128.0 + 60.0 * std::cos(r * 0.35); // rings
      if (x > 0 && y > 0)
      {
        v = ((static_cast<int>(x / 6) + static_cast<int>(y / 6)) % 2) ? 220.0 : 40.0; // checkerboard
      }
      v += 40.0 * std::exp(-((x + 0.2 * n) * (x + 0.2 * n) + (y - 0.15 * n) * (y - 0.15 * n)) / (0.01 * n * n));
      v *= std::min(1.0, (radius - r) / 3.0); // soft edge of the disc
    }
    it.Set(static_cast<float>(std::clamp(v, 0.0, 255.0)));
  }
  return image;
}

/** PSNR (peak 255) of \a test against \a reference inside the disc of radius
 * \a fraction * n around the centre. */
inline double
PSNRInDisc(const Image2D * test, const Image2D * reference, double fraction)
{
  const auto   size = reference->GetBufferedRegion().GetSize();
  const double c = 0.5 * (size[0] - 1), radius = fraction * size[0];
  double       sum = 0;
  std::size_t  count = 0;
  for (itk::ImageRegionConstIteratorWithIndex<Image2D> it(reference, reference->GetBufferedRegion()); !it.IsAtEnd();
       ++it)
  {
    const double x = it.GetIndex()[0] - c, y = it.GetIndex()[1] - c;
    if (x * x + y * y < radius * radius)
    {
      const double d = test->GetPixel(it.GetIndex()) - it.Get();
      sum += d * d;
      ++count;
    }
  }
  return 10.0 * std::log10(255.0 * 255.0 / (sum / count));
}

/** Writes \a image clamped to [0, 255] as 8-bit PNG, to a temporary name first and
 * renamed at the end, so that a failure leaves no half-written file. */
inline void
WritePNG(const Image2D * image, const std::string & path)
{
  using Byte = itk::Image<unsigned char, 2>;
  auto bytes = Byte::New();
  bytes->SetRegions(image->GetBufferedRegion());
  bytes->Allocate();
  const std::size_t count = image->GetBufferedRegion().GetNumberOfPixels();
  for (std::size_t i = 0; i < count; ++i)
  {
    bytes->GetBufferPointer()[i] =
      static_cast<unsigned char>(std::clamp(std::lround(image->GetBufferPointer()[i]), 0L, 255L));
  }
  const std::string partial = path + ".partial.png";
  auto              writer = itk::ImageFileWriter<Byte>::New();
  writer->SetFileName(partial);
  writer->SetInput(bytes);
  writer->Update();
  if (std::rename(partial.c_str(), path.c_str()) != 0)
  {
    std::remove(partial.c_str());
    throw std::runtime_error("cannot rename " + partial + " to " + path);
  }
}
} // namespace cif_example

#endif
