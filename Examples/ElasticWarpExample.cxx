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
// Elastic warp: a 2-D picture deformed by a cubic BSplineTransform with random
// control-point displacements, the way elastic registration applies its current
// estimate. Warps it with CubicResampleGPUImageFilter (GPU, or the CPU path) and with
// ITK's ResampleImageFilter + BSplineInterpolateImageFunction, computes the dense
// deformation field with TransformToDisplacementFieldGPUFilter and with ITK's
// TransformToDisplacementFieldFilter, prints the differences and times, and writes
// the original, the warped picture and the difference (x1000) as PNG files.
//
//   ElasticWarpExample [output prefix, default "elastic"] [edge length, default 512]
#include "cifITKPoolParking.h"
#include "cifCudaRuntime.h"
#include "cifExampleTiming.h"
#include "cifExampleImages.h"
#include "itkBSplineTransform.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkTransformToDisplacementFieldGPUFilter.h"

#include <chrono>
#include <iostream>
#include <random>

using cif_example::Image2D;
using cif_example::Milliseconds;

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  const std::string              prefix = argc > 1 ? argv[1] : "elastic";
  const unsigned int             n = argc > 2 ? static_cast<unsigned int>(std::atoi(argv[2])) : 512;
  if (n < 16 || n > 8192)
  {
    std::cerr << "usage: ElasticWarpExample [output prefix] [edge length 16..8192]\n";
    return 2;
  }
  try
  {
    const auto picture = cif_example::MakeTestPicture(n);

    using BSpline = itk::BSplineTransform<double, 2, 3>;
    auto                            bspline = BSpline::New();
    BSpline::PhysicalDimensionsType extent;
    BSpline::MeshSizeType           mesh;
    extent.Fill(n - 1.0);
    mesh.Fill(8);
    bspline->SetTransformDomainPhysicalDimensions(extent);
    bspline->SetTransformDomainMeshSize(mesh);
    BSpline::ParametersType                parameters(bspline->GetNumberOfParameters());
    std::mt19937                           rng(std::random_device{}());
    std::uniform_real_distribution<double> displacement(-0.015 * n, 0.015 * n);
    for (auto & p : parameters)
    {
      p = displacement(rng);
    }
    bspline->SetParametersByValue(parameters);

    std::cout << "Elastic warp example: a " << n << "x" << n
              << " picture warped by a random B-spline transform (8x8 mesh), and the transform's deformation "
                 "field, by the module ("
              << (cif::IsGPUAvailable() ? "GPU" : "CPU path, no GPU") << ") and by ITK, compared\n";

    auto interpolator = itk::BSplineInterpolateImageFunction<Image2D, double, double>::New();
    auto module = itk::CubicResampleGPUImageFilter<Image2D, Image2D>::New();
    module->SetInput(picture);
    module->SetInterpolator(interpolator);
    module->SetTransform(bspline);
    module->SetOutputParametersFromImage(picture);
    module->Update(); // warm-up
    module->Modified();
    const double moduleMs = Milliseconds([&] { module->Update(); });

    auto itkFilter = itk::ResampleImageFilter<Image2D, Image2D>::New();
    itkFilter->SetInput(picture);
    itkFilter->SetInterpolator(itk::BSplineInterpolateImageFunction<Image2D, double, double>::New());
    itkFilter->SetTransform(bspline);
    itkFilter->SetOutputParametersFromImage(picture);
    const double itkMs = Milliseconds([&] { itkFilter->Update(); });

    auto difference = Image2D::New();
    difference->SetRegions(picture->GetBufferedRegion());
    difference->Allocate();
    double     maxDiff = 0;
    const auto count = picture->GetBufferedRegion().GetNumberOfPixels();
    for (std::size_t i = 0; i < count; ++i)
    {
      const double d = module->GetOutput()->GetBufferPointer()[i] - itkFilter->GetOutput()->GetBufferPointer()[i];
      maxDiff = std::max(maxDiff, std::fabs(d));
      difference->GetBufferPointer()[i] = static_cast<float>(128.0 + 1000.0 * d);
    }
    std::printf("warp:  module %.2f ms, ITK %.1f ms (%.0fx); max |difference| %.2e (of 255)\n",
                moduleMs,
                itkMs,
                itkMs / moduleMs,
                maxDiff);

    using Field = itk::Image<itk::Vector<float, 2>, 2>;
    auto fieldModule = itk::TransformToDisplacementFieldGPUFilter<Field, double>::New();
    fieldModule->SetTransform(bspline);
    fieldModule->SetReferenceImage(picture);
    fieldModule->SetUseReferenceImage(true);
    fieldModule->Update();
    fieldModule->Modified();
    const double fieldMs = Milliseconds([&] { fieldModule->Update(); });
    auto         fieldITK = itk::TransformToDisplacementFieldFilter<Field, double>::New();
    fieldITK->SetTransform(bspline);
    fieldITK->SetReferenceImage(picture);
    fieldITK->SetUseReferenceImage(true);
    const double fieldItkMs = Milliseconds([&] { fieldITK->Update(); });
    double       maxField = 0, maxVector = 0;
    for (std::size_t i = 0; i < count; ++i)
    {
      for (unsigned int a = 0; a < 2; ++a)
      {
        maxField = std::max<double>(maxField,
                                    std::fabs(fieldModule->GetOutput()->GetBufferPointer()[i][a] -
                                              fieldITK->GetOutput()->GetBufferPointer()[i][a]));
        maxVector = std::max<double>(maxVector, std::fabs(fieldITK->GetOutput()->GetBufferPointer()[i][a]));
      }
    }
    std::printf("field: module %.2f ms, ITK %.1f ms (%.0fx); max |difference| %.2e pixels (largest displacement "
                "%.1f pixels)\n",
                fieldMs,
                fieldItkMs,
                fieldItkMs / fieldMs,
                maxField,
                maxVector);

    cif_example::WritePNG(picture, prefix + "_original.png");
    cif_example::WritePNG(module->GetOutput(), prefix + "_warped.png");
    cif_example::WritePNG(difference, prefix + "_difference_x1000.png");
    std::cout << "wrote " << prefix << "_original.png, " << prefix << "_warped.png, " << prefix
              << "_difference_x1000.png\n";
    return maxDiff < 4e-6 * 255 * 10 ? 0 : 1;
  }
  catch (const std::exception & e)
  {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
