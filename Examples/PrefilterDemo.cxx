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
// The README's demo: makes a volume, computes its cubic B-spline coefficients with
// BSplinePrefilterGPUImageFilter (on the GPU, or on the CPU path when there is none,
// saying so), checks them against ITK's BSplineDecompositionImageFilter in double,
// prints the accuracy and the time of each, and writes the volume and its
// coefficients as NRRD files into the output folder. Exits non-zero if the check fails.
// README's command 1 ends with it.
//
//   PrefilterDemo [edge length, default 160] [output folder, default prefilter-demo]
#include "cifITKPoolParking.h"
#include "cifCudaRuntime.h"
#include "itkBSplineDecompositionImageFilter.h"
#include "itkBSplinePrefilterGPUImageFilter.h"
#include "itkImageFileWriter.h"
#include "itkImageRegionIteratorWithIndex.h"
#include "itksys/SystemTools.hxx"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <random>

namespace
{
using Clock = std::chrono::steady_clock;
double
MillisecondsSince(Clock::time_point start)
{
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  const long                     edge = argc > 1 ? std::atol(argv[1]) : 160;
  const std::string              folder = argc > 2 ? argv[2] : "prefilter-demo";
  if (edge < 1 || edge > 2048 || argc > 3)
  {
    std::cerr << "usage: PrefilterDemo [edge length 1..2048] [output folder]\n";
    return 2;
  }
  using Image = itk::Image<float, 3>;
  using Reference = itk::Image<double, 3>;

  // A smooth anatomy-like volume (a few blobs) with noise: values in about [0, 1000].
  auto image = Image::New();
  image->SetRegions(itk::Size<3>{ { static_cast<itk::SizeValueType>(edge),
                                    static_cast<itk::SizeValueType>(edge),
                                    static_cast<itk::SizeValueType>(edge) } });
  image->Allocate();
  std::mt19937                     rng(std::random_device{}());
  std::normal_distribution<double> noise(0.0, 20.0);
  for (itk::ImageRegionIteratorWithIndex<Image> it(image, image->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    const auto   i = it.GetIndex();
    const double x = (i[0] + 0.5) / edge - 0.5, y = (i[1] + 0.5) / edge - 0.5, z = (i[2] + 0.5) / edge - 0.5;
    const double blobs = 800.0 * std::exp(-(x * x + y * y + z * z) * 12.0) +
                         300.0 * std::exp(-((x - 0.2) * (x - 0.2) + y * y + (z + 0.1) * (z + 0.1)) * 80.0);
    it.Set(static_cast<float>(blobs + noise(rng)));
  }

  const bool gpu = cif::IsGPUAvailable(); // on stderr, once, why not when it is not
  std::cout << "CudaImageFilters prefilter demo: cubic B-spline coefficients of a " << edge
            << "^3 float volume (mirror boundary) by the module and by ITK's BSplineDecompositionImageFilter, "
               "compared for accuracy and time\n";
  if (gpu)
  {
    const cif::DeviceInfo info = cif::GetDeviceInfo();
    std::cout << "device: " << info.name << " (compute " << info.computeMajor << "." << info.computeMinor << ")\n";
  }
  else
  {
    std::cout << "no usable GPU (" << cif::GetNoDeviceReason()
              << "): running the module's CPU path, the same arithmetic\n";
  }

  try
  {
    auto filter = itk::BSplinePrefilterGPUImageFilter<Image, Image>::New();
    filter->SetInput(image);
    filter->Update(); // warm-up: CUDA context, first launch
    filter->Modified();
    auto start = Clock::now();
    filter->Update();
    const double moduleMs = MillisecondsSince(start);

    auto reference = itk::BSplineDecompositionImageFilter<Image, Reference>::New();
    reference->SetInput(image);
    start = Clock::now();
    reference->Update();
    const double itkMs = MillisecondsSince(start);

    const float *  got = filter->GetOutput()->GetBufferPointer();
    const double * want = reference->GetOutput()->GetBufferPointer();
    const auto     count = image->GetBufferedRegion().GetNumberOfPixels();
    double         maxAbs = 0, sum = 0, range = 0;
    for (std::size_t i = 0; i < count; ++i)
    {
      const double d = got[i] - want[i];
      maxAbs = std::max(maxAbs, std::fabs(d));
      sum += d * d;
      range = std::max(range, std::fabs(want[i]));
    }
    const double      relative = maxAbs / range;
    const std::string path = itk::ToString(filter->GetLastExecutionPath());
    std::cout << std::setprecision(3) << "module (ran on: " << path << (gpu ? ", incl. transfers" : "")
              << "): " << moduleMs << " ms\n"
              << "ITK BSplineDecompositionImageFilter (double, CPU): " << itkMs << " ms\n"
              << "speed-up: " << itkMs / moduleMs << "x\n"
              << "accuracy vs ITK: max |diff| " << maxAbs << " (" << relative << " of the coefficients' range), rms "
              << std::sqrt(sum / count) << "\n";
    const bool ok = relative < 4e-6;
    std::cout << (ok ? "PASS" : "FAIL") << ": float result within 4e-6 of ITK's double result\n";

    itksys::SystemTools::MakeDirectory(folder);
    const std::string volumeFile = folder + "/volume.nrrd", coefficientsFile = folder + "/coefficients.nrrd";
    itk::WriteImage(image, volumeFile);
    itk::WriteImage(filter->GetOutput(), coefficientsFile);
    std::cout << "results: " << volumeFile << " (the volume), " << coefficientsFile
              << " (its cubic B-spline coefficients); open them in 3D Slicer or any NRRD viewer\n";
    return ok ? 0 : 1;
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << "error: " << e.GetDescription() << "\n";
    return 1;
  }
}
