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
// What elastix's resampler and transformix write: the moving image through a
// transform onto an output grid, with elastix's final interpolator of a given order,
// as ResultImagePixelType (clamped to the type's range, then cast as ITK casts), in
// ResultImageFormat. Shared by the elastix and transformix drop-ins.
#ifndef cifElastixResultImage_h
#define cifElastixResultImage_h

#include "cifCommandLineSupport.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkClampImageFilter.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkElastixOutputGrid.h"
#include "itkImageFileWriter.h"
#include "itkLinearInterpolateImageFunction.h"
#include "itkNearestNeighborInterpolateImageFunction.h"
#include "itkResampleImageFilter.h"
#include "itkTransformToDisplacementFieldGPUFilter.h"

#include "itksys/Directory.hxx"
#include "itksys/SystemTools.hxx"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace cif
{
/** The output grid of \a filter (a resampler or a field source) from an elastix file's. */
template <typename TFilter, unsigned int D>
void
ApplyOutputGrid(TFilter * filter, const itk::ElastixOutputGrid<D> & grid)
{
  filter->SetSize(grid.Size);
  filter->SetOutputStartIndex(grid.Index);
  filter->SetOutputSpacing(grid.Spacing);
  filter->SetOutputOrigin(grid.Origin);
  filter->SetOutputDirection(grid.Direction);
}

/** \a moving through \a transform onto \a grid (elastix's ResampleInterpolator of
 * \a order: 0 nearest, 1 linear, 2-5 B-splines; 3 on the module's cubic resampler,
 * on the GPU when \a useGPU and there is one), outside values grid.DefaultPixelValue. */
template <unsigned int D>
typename itk::Image<float, D>::Pointer
ResampleForElastix(const itk::Image<float, D> *         moving,
                   const itk::Transform<double, D, D> * transform,
                   const itk::ElastixOutputGrid<D> &    grid,
                   unsigned int                         order,
                   bool                                 useGPU)
{
  using Image = itk::Image<float, D>;
  const auto fill = static_cast<float>(grid.DefaultPixelValue);
  if (order == 3)
  {
    auto resample = itk::CubicResampleGPUImageFilter<Image, Image>::New();
    resample->SetInterpolator(itk::BSplineInterpolateImageFunction<Image, double, double>::New());
    resample->SetInput(moving);
    resample->SetTransform(transform);
    ApplyOutputGrid(resample.GetPointer(), grid);
    resample->SetDefaultPixelValue(fill);
    resample->SetUseGPU(useGPU);
    resample->Update();
    return resample->GetOutput();
  }
  auto resample = itk::ResampleImageFilter<Image, Image, double, double>::New();
  if (order == 0)
  {
    resample->SetInterpolator(itk::NearestNeighborInterpolateImageFunction<Image, double>::New());
  }
  else if (order == 1)
  {
    resample->SetInterpolator(itk::LinearInterpolateImageFunction<Image, double>::New());
  }
  else
  {
    auto bspline = itk::BSplineInterpolateImageFunction<Image, double, double>::New();
    bspline->SetSplineOrder(order);
    resample->SetInterpolator(bspline);
  }
  resample->SetInput(moving);
  resample->SetTransform(transform);
  ApplyOutputGrid(resample.GetPointer(), grid);
  resample->SetDefaultPixelValue(fill);
  resample->Update();
  return resample->GetOutput();
}

/** Writes \a image to \a path: into a hidden folder beside it first, every file then
 * moved next to it (an .mhd header names its .raw by name), so that a failure leaves
 * no half-written image. */
template <typename TImage>
void
WriteImageStaged(const TImage * image, const std::string & path, bool compress)
{
  const std::string directory = itksys::SystemTools::GetFilenamePath(itksys::SystemTools::CollapseFullPath(path));
  const std::string staging = directory + "/.writing-" + itksys::SystemTools::GetFilenameName(path);
  itksys::SystemTools::RemoveADirectory(staging);
  if (!itksys::SystemTools::MakeDirectory(staging))
  {
    throw std::runtime_error("cannot write in " + directory);
  }
  auto writer = itk::ImageFileWriter<TImage>::New();
  writer->SetInput(image);
  writer->SetFileName(staging + "/" + itksys::SystemTools::GetFilenameName(path));
  writer->SetUseCompression(compress);
  try
  {
    writer->Update();
    itksys::Directory files;
    files.Load(staging);
    for (unsigned long k = 0; k < files.GetNumberOfFiles(); ++k)
    {
      const std::string name = files.GetFile(k);
      if (name != "." && name != ".." &&
          std::rename((staging + "/" + name).c_str(), (directory + "/" + name).c_str()) != 0)
      {
        throw std::runtime_error("cannot move " + name + " into " + directory);
      }
    }
  }
  catch (...)
  {
    itksys::SystemTools::RemoveADirectory(staging);
    throw;
  }
  itksys::SystemTools::RemoveADirectory(staging);
}

/** \a image as \a TPixel (clamped to its range, then cast as ITK casts), written staged. */
template <typename TPixel, unsigned int D>
void
WriteImageAs(const itk::Image<float, D> * image, const std::string & path, bool compress)
{
  auto clamp = itk::ClampImageFilter<itk::Image<float, D>, itk::Image<TPixel, D>>::New();
  clamp->SetInput(image);
  clamp->Update();
  WriteImageStaged(clamp->GetOutput(), path, compress);
}

/** WriteImageAs for elastix's ResultImagePixelType \a pixelType. */
template <unsigned int D>
void
WriteElastixResultImage(const itk::Image<float, D> * image,
                        const std::string &          path,
                        const std::string &          pixelType,
                        bool                         compress)
{
  if (pixelType == "char")
  {
    WriteImageAs<signed char>(image, path, compress);
  }
  else if (pixelType == "unsigned char")
  {
    WriteImageAs<unsigned char>(image, path, compress);
  }
  else if (pixelType == "short")
  {
    WriteImageAs<short>(image, path, compress);
  }
  else if (pixelType == "unsigned short")
  {
    WriteImageAs<unsigned short>(image, path, compress);
  }
  else if (pixelType == "int")
  {
    WriteImageAs<int>(image, path, compress);
  }
  else if (pixelType == "unsigned int")
  {
    WriteImageAs<unsigned int>(image, path, compress);
  }
  else if (pixelType == "long")
  {
    WriteImageAs<long>(image, path, compress);
  }
  else if (pixelType == "unsigned long")
  {
    WriteImageAs<unsigned long>(image, path, compress);
  }
  else if (pixelType == "float")
  {
    WriteImageAs<float>(image, path, compress);
  }
  else if (pixelType == "double")
  {
    WriteImageAs<double>(image, path, compress);
  }
  else
  {
    throw std::runtime_error("the result pixel type \"" + pixelType + "\" is not one elastix writes");
  }
}
} // namespace cif

#endif
