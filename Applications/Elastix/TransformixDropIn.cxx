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
// transformix's command line over the module's GPU resampling and field evaluation:
// a drop-in for the transformix executable,
//
//   transformix -tp TransformParameters.N.txt -out folder [-in image] [-def all] [-threads N] [-priority P]
//
// It reads the chain the file starts (itk::ElastixTransformFileReader: elastix's files
// and the drop-in's alike) and writes, in -out, result.<ResultImageFormat> (-in: the
// image resampled onto the file's grid with its FinalBSplineInterpolationOrder, as
// ResultImagePixelType), deformationField.<ResultImageFormat> (-def all: the
// displacement at every voxel of the grid, float vectors), and transformix.log.
#include "cifElastixResultImage.h"
#include "itkElastixParameterFile.h"
#include "itkElastixTransformFileReader.h"
#include "itkImageFileReader.h"
#include "itkMultiThreaderBase.h"
#include "itksys/SystemTools.hxx"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

namespace
{
constexpr const char * kUsage =
  "transformix (the CudaImageFilters GPU drop-in for transformix 5.0.1's command line)\n"
  "usage: transformix -tp TransformParameters.N.txt -out folder [-in image] [-def all] [-threads N] [-priority P]\n"
  "  -tp   an elastix transform parameter file (its chain of initial transforms followed)\n"
  "  -out  an existing folder: result.*, deformationField.*, transformix.log\n"
  "  -in   the image to resample onto the file's grid; -def all: the displacement field\n";

std::map<std::string, std::string>
Parse(int argc, char * argv[])
{
  std::map<std::string, std::string> values;
  for (int k = 1; k < argc; ++k)
  {
    const std::string key = argv[k];
    if (key == "--help" || key == "-help" || key == "-h")
    {
      std::cout << kUsage;
      std::exit(0);
    }
    if (key == "--version" || key == "-version")
    {
      std::cout << "transformix version: 5.0.1 (the CudaImageFilters GPU drop-in)\n";
      std::exit(0);
    }
    const bool fieldOfAll = k + 1 < argc && argv[k + 1] == std::string("all");
    if (key == "-jac" || key == "-jacmat" || key == "-ipp" || (key == "-def" && !fieldOfAll))
    {
      throw std::runtime_error(key + " " + (k + 1 < argc ? argv[k + 1] : "") +
                               " is not served by the GPU drop-in (it serves -in and -def all)");
    }
    static const char * known[] = { "-tp", "-out", "-in", "-def", "-threads", "-priority" };
    if (std::find(std::begin(known), std::end(known), key) == std::end(known))
    {
      throw std::runtime_error("unknown argument \"" + key +
                               "\" (the drop-in takes -tp -out -in -def -threads -priority)");
    }
    if (k + 1 >= argc)
    {
      throw std::runtime_error(key + " needs a value");
    }
    if (!values.emplace(key, argv[++k]).second)
    {
      throw std::runtime_error(key + " is given twice");
    }
  }
  for (const char * required : { "-tp", "-out" })
  {
    if (values.count(required) == 0)
    {
      throw std::runtime_error(std::string(required) + " is missing\n" + kUsage);
    }
  }
  if (values.count("-in") == 0 && values.count("-def") == 0)
  {
    throw std::runtime_error(std::string("nothing to do: give -in or -def all\n") + kUsage);
  }
  return values;
}

template <unsigned int D>
void
Run(std::map<std::string, std::string> & arguments, const itk::ElastixParameterFile & file, std::ostream & log)
{
  itk::ElastixOutputGrid<D> grid;
  const auto                transform = itk::ReadElastixTransform<D>(arguments["-tp"], &grid);
  if (!grid.IsValid())
  {
    throw std::runtime_error(arguments["-tp"] + " names no output grid (Size)");
  }
  const std::string format = file.GetString("ResultImageFormat", "mhd");
  const bool        compress = file.GetBoolean("CompressResultImage", false);
  const std::string out = arguments["-out"];
  if (arguments.count("-in"))
  {
    const auto start = std::chrono::steady_clock::now();
    auto       reader = itk::ImageFileReader<itk::Image<float, D>>::New();
    reader->SetFileName(arguments["-in"]);
    reader->Update();
    const auto order = static_cast<unsigned int>(file.GetIntegers("FinalBSplineInterpolationOrder", 1, 0).front());
    if (order > 5)
    {
      file.Fail("FinalBSplineInterpolationOrder", "FinalBSplineInterpolationOrder must be 0 to 5");
    }
    const auto        resampled = cif::ResampleForElastix<D>(reader->GetOutput(), transform, grid, order, true);
    const std::string path = out + "/result." + format;
    cif::WriteElastixResultImage<D>(resampled, path, file.GetString("ResultImagePixelType", "short"), compress);
    log << "Resampled " << arguments["-in"] << " (B-spline order " << order << ") into " << path << " in "
        << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n";
  }
  if (arguments.count("-def"))
  {
    const auto start = std::chrono::steady_clock::now();
    using Field = itk::Image<itk::Vector<float, D>, D>;
    auto filter = itk::TransformToDisplacementFieldGPUFilter<Field, double>::New();
    filter->SetTransform(transform);
    cif::ApplyOutputGrid(filter.GetPointer(), grid);
    filter->SetUseReferenceImage(false);
    filter->Update();
    const std::string path = out + "/deformationField." + format;
    cif::WriteImageStaged(filter->GetOutput(), path, compress);
    log << "Wrote the displacement field " << path << " in "
        << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n";
  }
}
} // namespace

int
main(int argc, char * argv[])
{
  std::ofstream logFile;
  try
  {
    auto arguments = Parse(argc, argv);
    if (!itksys::SystemTools::FileIsDirectory(arguments["-out"]))
    {
      throw std::runtime_error("the output folder " + arguments["-out"] + " does not exist");
    }
    logFile.open(arguments["-out"] + "/transformix.log");
    if (arguments.count("-threads"))
    {
      const int n = std::atoi(arguments["-threads"].c_str());
      if (n < 1)
      {
        throw std::runtime_error("-threads needs a positive number");
      }
      itk::MultiThreaderBase::SetGlobalDefaultNumberOfThreads(n);
    }
    const auto file = itk::ElastixParameterFile::Read(arguments["-tp"]);
    const auto dimension = file.GetImageDimension();
    if (dimension == 2)
    {
      Run<2>(arguments, file, logFile);
    }
    else if (dimension == 3)
    {
      Run<3>(arguments, file, logFile);
    }
    else
    {
      throw std::runtime_error("the drop-in applies 2-D and 3-D transforms, not " + std::to_string(dimension) +
                               "-D ones");
    }
    std::cout << "transformix (GPU drop-in): done\n";
    return 0;
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << "ERROR: " << cif::ReasonOf(e) << "\n";
    logFile << "ERROR: " << cif::ReasonOf(e) << "\n";
  }
  catch (const std::exception & e)
  {
    std::cerr << "ERROR: " << e.what() << "\n";
    logFile << "ERROR: " << e.what() << "\n";
  }
  return 1;
}
