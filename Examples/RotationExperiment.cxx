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
// Seed 000's repeated-rotation experiment (Fig. 5): rotate a picture 36 times by
// 10 degrees, each result feeding the next, with nearest-neighbour, linear, cubic
// B-spline without prefilter (samples used as coefficients: a smoothing filter) and
// cubic B-spline with prefilter (CubicResampleGPUImageFilter: GPU, or the CPU path).
// Prints the PSNR of each final picture against the original inside the disc that
// never leaves the field of view, writes the four results side by side as one PNG,
// and exits non-zero unless the prefiltered cubic comes out best.
//
//   RotationExperiment [output.png] [edge length, default 256]
#include "cifITKPoolParking.h"
#include "cifCudaRuntime.h"
#include "cifExampleImages.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkEuler2DTransform.h"
#include "itkLinearInterpolateImageFunction.h"
#include "itkNearestNeighborInterpolateImageFunction.h"
#include "itkTileImageFilter.h"

#include <chrono>
#include <iostream>

using cif_example::Image2D;

namespace
{
enum class Method
{
  Nearest,
  Linear,
  CubicWithoutPrefilter,
  CubicWithPrefilter
};
const char * const kNames[] = { "nearest neighbour",
                                "linear",
                                "cubic B-spline, no prefilter",
                                "cubic B-spline, prefiltered" };

Image2D::Pointer
RotateOnce(const Image2D * input, Method method)
{
  auto               rotation = itk::Euler2DTransform<double>::New();
  Image2D::PointType centre;
  centre.Fill(0.5 * (input->GetLargestPossibleRegion().GetSize()[0] - 1));
  rotation->SetCenter(centre);
  rotation->SetAngleInDegrees(10.0);

  using Filter = itk::CubicResampleGPUImageFilter<Image2D, Image2D>;
  auto filter = Filter::New(); // a ResampleImageFilter for the other interpolators
  filter->SetInput(input);
  filter->SetTransform(rotation);
  filter->SetOutputParametersFromImage(input);
  filter->SetDefaultPixelValue(0);
  switch (method)
  {
    case Method::Nearest:
      filter->SetInterpolator(itk::NearestNeighborInterpolateImageFunction<Image2D, double>::New());
      break;
    case Method::Linear:
      filter->SetInterpolator(itk::LinearInterpolateImageFunction<Image2D, double>::New());
      break;
    case Method::CubicWithoutPrefilter:
    case Method::CubicWithPrefilter:
    {
      auto cubic = itk::BSplineInterpolateImageFunction<Image2D, double, double>::New();
      cubic->SetSplineOrder(3);
      filter->SetInterpolator(cubic);
      filter->SetInputIsCoefficients(method == Method::CubicWithoutPrefilter);
      break;
    }
  }
  filter->Update();
  Image2D::Pointer out = filter->GetOutput();
  out->DisconnectPipeline();
  return out;
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  const std::string              output = argc > 1 ? argv[1] : "rotation_experiment.png";
  const unsigned int             n = argc > 2 ? static_cast<unsigned int>(std::atoi(argv[2])) : 256;
  if (n < 32 || n > 4096)
  {
    std::cerr << "usage: RotationExperiment [output.png] [edge length 32..4096]\n";
    return 2;
  }
  try
  {
    std::cout << "Rotation experiment: a " << n << "x" << n
              << " picture rotated 36 times by 10 degrees with nearest, linear, cubic and prefiltered cubic "
                 "interpolation, PSNR against the original ("
              << (cif::IsGPUAvailable() ? "cubic on the GPU" : "cubic on the module's CPU path") << ")\n";
    const auto                    original = cif_example::MakeTestPicture(n);
    std::vector<Image2D::Pointer> results;
    std::vector<double>           psnr;
    for (int m = 0; m < 4; ++m)
    {
      const auto       start = std::chrono::steady_clock::now();
      Image2D::Pointer image = original;
      for (int step = 0; step < 36; ++step)
      {
        image = RotateOnce(image, static_cast<Method>(m));
      }
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      results.push_back(image);
      psnr.push_back(cif_example::PSNRInDisc(image, original, 0.40));
      std::printf("%-30s PSNR %6.2f dB   (36 rotations: %.0f ms)\n", kNames[m], psnr.back(), ms);
    }

    auto                             tile = itk::TileImageFilter<Image2D, Image2D>::New();
    itk::FixedArray<unsigned int, 2> layout;
    layout[0] = 4;
    layout[1] = 1;
    tile->SetLayout(layout);
    for (unsigned int m = 0; m < 4; ++m)
    {
      tile->SetInput(m, results[m]);
    }
    tile->Update();
    cif_example::WritePNG(tile->GetOutput(), output);
    std::cout << "wrote " << output
              << " (left to right: nearest, linear, cubic without prefilter, cubic with prefilter)\n";

    const bool best = psnr[3] > psnr[0] && psnr[3] > psnr[1] && psnr[3] > psnr[2];
    std::cout << (best ? "PASS" : "FAIL") << ": the prefiltered cubic B-spline keeps the picture best\n";
    return best ? 0 : 1;
  }
  catch (const std::exception & e)
  {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
