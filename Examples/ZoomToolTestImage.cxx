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
// Writes the zoom tool's test picture: an RGB image of the seed's size (640 x 426)
// built from the examples' synthetic picture (edges of all orientations, rings, a
// checkerboard), as binary PPM and as PNG.
//
//   ZoomToolTestImage out.ppm out.png
#include "cifITKPoolParking.h"
#include "cifExampleImages.h"
#include "cifPortablePixmap.h"
#include "itkImageFileWriter.h"
#include "itkPNGImageIOFactory.h"
#include "itkRGBPixel.h"

#include <iostream>

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  if (argc != 3)
  {
    std::cerr << "usage: " << argv[0] << " out.ppm out.png\n";
    return 2;
  }
  try
  {
    itk::PNGImageIOFactory::RegisterOneFactory();
    const unsigned int  w = 640, h = 426;
    auto                picture = cif_example::MakeTestPicture(w); // square; the rows of its middle band are used
    cif_example::Pixmap pixmap;
    pixmap.width = w;
    pixmap.height = h;
    pixmap.components = 3;
    using RGB = itk::Image<itk::RGBPixel<unsigned char>, 2>;
    auto rgb = RGB::New();
    rgb->SetRegions(itk::Size<2>{ { w, h } });
    rgb->Allocate();
    for (unsigned int y = 0; y < h; ++y)
    {
      for (unsigned int x = 0; x < w; ++x)
      {
        const float v = picture->GetPixel({ { x, y + (w - h) / 2 } });
        const float channel[3] = { v, 255.0f * x / (w - 1), 0.5f * v + 127.0f * y / (h - 1) };
        for (int c = 0; c < 3; ++c)
        {
          const auto byte = static_cast<unsigned char>(std::clamp(std::lround(channel[c]), 0L, 255L));
          pixmap.data.push_back(byte);
          rgb->GetBufferPointer()[y * w + x][c] = byte;
        }
      }
    }
    cif_example::WritePortablePixmap(pixmap, argv[1]);
    const std::string partial = std::string(argv[2]) + ".partial.png";
    auto              writer = itk::ImageFileWriter<RGB>::New();
    writer->SetFileName(partial);
    writer->SetInput(rgb);
    writer->Update();
    if (std::rename(partial.c_str(), argv[2]) != 0)
    {
      std::remove(partial.c_str());
      throw std::runtime_error(std::string("cannot rename ") + partial);
    }
    std::cout << "ZoomToolTestImage: the zoom tool's 640 x 426 RGB test picture; wrote " << argv[1] << " and "
              << argv[2] << "\n";
    return 0;
  }
  catch (const std::exception & e)
  {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
