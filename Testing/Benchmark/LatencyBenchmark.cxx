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
// First-call costs: what a CLI run or a short pipeline pays before
// the GPU does useful work. Each case runs in a fresh process (this program started
// again with --case), so that nothing is warm:
//   - context: CUDA context creation alone (cudaFree(0));
//   - resample: context creation, then the first, second and third Update() of a
//     CubicResampleGPUImageFilter (128x128x64 float, cubic B-spline, an affine), each
//     on new input data;
//   - convolution: likewise for a 512^2 float ConvolutionGPUImageFilter (15x15
//     Gaussian).
// Targets: the first Update() <= 30 ms beyond context creation; the second resample
// Update() <= 2 ms.
//
//   LatencyBenchmark [--runs 5]     (median over that many fresh processes)
//   LatencyBenchmark --case resample --stages   (one process; where the first call's
//                                                time goes, stage by stage)
#include "cifITKPoolParking.h"
#include "cifBenchmarkSupport.h"
#include "cifContextCreation.h"
#include "cifStageClock.h"
#include "itkAffineTransform.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkCubicResampleGPUImageFilter.h"
#ifdef CIF_BENCHMARK_CONVOLUTION
#  include "cifKernelPresets.h"
#  include "itkConvolutionGPUImageFilter.h"
#  include "itkConvolutionKernelImage.h"
#endif

#include "itkCommand.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace
{
template <typename TImage>
void
FillRandom(TImage * image, std::mt19937 & rng)
{
  std::uniform_real_distribution<float> v(0.f, 100.f);
  for (std::size_t i = 0, count = image->GetBufferedRegion().GetNumberOfPixels(); i < count; ++i)
  {
    image->GetBufferPointer()[i] = v(rng);
  }
  image->Modified();
}

template <typename TImage>
typename TImage::Pointer
MakeImage(const typename TImage::SizeType & size)
{
  auto image = TImage::New();
  image->SetRegions(typename TImage::RegionType(size));
  image->Allocate();
  return image;
}

bool g_Stages = false;

/** Times three Update()s, each after new input data; prints the case's line. */
template <typename TFilter, typename TImage>
void
TimeUpdates(const char * name, TFilter * filter, TImage * input, double contextMs)
{
  std::mt19937 rng(std::random_device{}());
  auto         clock = cif_bench::StageClock::New();
  if (g_Stages)
  {
    filter->AddObserver(itk::StartEvent(), clock);
    filter->AddObserver(itk::ProgressEvent(), clock);
  }
  double ms[3];
  for (double & t : ms)
  {
    FillRandom(input, rng);
    t = cif_bench::WallMilliseconds([&] { filter->Update(); });
    if (g_Stages && &t == ms)
    {
      cif_bench::PrintStages((std::string(name) + ", first Update()").c_str(), *clock);
    }
  }
  const bool gpu = filter->GetLastExecutionPath() == itk::CudaExecutionPath::GPU;
  std::printf("RESULT %s context=%.3f first=%.3f second=%.3f third=%.3f gpu=%d\n",
              name,
              contextMs,
              ms[0],
              ms[1],
              ms[2],
              gpu ? 1 : 0);
}

int
RunCase(const std::string & which)
{
  const double contextMs = cif_bench::CreateContextMs();
  if (which == "context")
  {
    std::printf("RESULT context context=%.3f first=-1 second=-1 third=-1 gpu=%d\n", contextMs, contextMs >= 0);
    return 0;
  }
  if (which == "resample")
  {
    using Image = itk::Image<float, 3>;
    auto             input = MakeImage<Image>({ { 128, 128, 64 } });
    auto             affine = itk::AffineTransform<double, 3>::New();
    Image::PointType centre;
    centre[0] = centre[1] = 63.5;
    centre[2] = 31.5;
    affine->SetCenter(centre);
    affine->Rotate(0, 1, 0.1);
    auto filter = itk::CubicResampleGPUImageFilter<Image, Image>::New();
    filter->SetInput(input);
    filter->SetInterpolator(itk::BSplineInterpolateImageFunction<Image, double, double>::New());
    filter->SetTransform(affine);
    filter->SetOutputParametersFromImage(input);
    TimeUpdates("resample", filter.GetPointer(), input.GetPointer(), contextMs);
    return 0;
  }
#ifdef CIF_BENCHMARK_CONVOLUTION
  if (which == "convolution")
  {
    using Image = itk::Image<float, 2>;
    auto input = MakeImage<Image>({ { 512, 512 } });
    auto filter = itk::ConvolutionGPUImageFilter<Image, Image, Image>::New();
    filter->SetInput(input);
    filter->SetKernelImage(itk::MakeKernelImage<Image>(cif::MakeGaussianKernel(15, 5.0)));
    TimeUpdates("convolution", filter.GetPointer(), input.GetPointer(), contextMs);
    return 0;
  }
#endif
  std::fprintf(stderr, "LatencyBenchmark: unknown case '%s'\n", which.c_str());
  return 2;
}

/** Runs this program with --case \a which in a fresh process; its RESULT fields. */
std::map<std::string, double>
RunFresh(const std::string & self, const std::string & which)
{
  std::map<std::string, double> fields;
  FILE *                        pipe = popen((self + " --case " + which + " 2>/dev/null").c_str(), "r");
  if (!pipe)
  {
    return fields;
  }
  char line[512];
  while (std::fgets(line, sizeof(line), pipe))
  {
    std::istringstream words(line);
    std::string        word;
    words >> word;
    if (word != "RESULT")
    {
      continue;
    }
    words >> word; // the case
    while (words >> word)
    {
      const auto eq = word.find('=');
      if (eq != std::string::npos)
      {
        fields[word.substr(0, eq)] = std::atof(word.c_str() + eq + 1);
      }
    }
  }
  pclose(pipe);
  return fields;
}

} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  int                            runs = 5;
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    if (a == "--stages")
    {
      g_Stages = true;
    }
    else if (a == "--case" && i + 1 < argc)
    {
      for (int j = i + 2; j < argc; ++j)
      {
        g_Stages = g_Stages || std::string(argv[j]) == "--stages";
      }
      return RunCase(argv[i + 1]);
    }
    if (a == "--runs" && i + 1 < argc)
    {
      runs = std::max(1, std::atoi(argv[++i]));
    }
  }
  std::printf("LatencyBenchmark: first-call costs, each case in %d fresh processes (median); wall clock\n\n", runs);
  std::printf("| case | path | context creation (ms) | first Update(), beyond the context (ms) | second (ms) | third "
              "(ms) |\n|---|---|---|---|---|---|\n");
  // This program's own path (popen's shell would read its own /proc/self/exe).
  char      self[4096] = {};
  const int length = static_cast<int>(readlink("/proc/self/exe", self, sizeof(self) - 1));
  if (length <= 0)
  {
    std::fprintf(stderr, "LatencyBenchmark: cannot find its own executable\n");
    return 1;
  }
  std::vector<std::string> cases{ "context", "resample" };
#ifdef CIF_BENCHMARK_CONVOLUTION
  cases.push_back("convolution");
#endif
  for (const auto & which : cases)
  {
    std::map<std::string, std::vector<double>> samples;
    bool                                       gpu = true;
    for (int r = 0; r < runs; ++r)
    {
      const auto fields = RunFresh(self, which);
      if (fields.empty())
      {
        std::fprintf(stderr, "LatencyBenchmark: case %s gave no result\n", which.c_str());
        return 1;
      }
      for (const auto & [key, value] : fields)
      {
        samples[key].push_back(value);
      }
      gpu = gpu && fields.at("gpu") > 0;
    }
    const double context = cif_bench::Median(samples["context"]);
    const double first = cif_bench::Median(samples["first"]);
    if (which == "context")
    {
      std::printf("| CUDA context alone | %s | %s | | | |\n",
                  gpu ? "GPU" : "no device",
                  cif_bench::Cell(context, "%.2f").c_str());
      continue;
    }
    std::printf("| %s | %s | %s | %s | %s | %s |\n",
                which == "resample" ? "CubicResampleGPUImageFilter, 128x128x64 float, affine"
                                    : "ConvolutionGPUImageFilter, 512^2 float, 15x15 Gaussian",
                gpu ? "GPU" : "CPU",
                cif_bench::Cell(context, "%.2f").c_str(),
                cif_bench::Cell(first, "%.2f").c_str(),
                cif_bench::Cell(cif_bench::Median(samples["second"]), "%.2f").c_str(),
                cif_bench::Cell(cif_bench::Median(samples["third"]), "%.2f").c_str());
  }
  std::printf("\nThe context is created before the filter is made, so 'first Update()' is what comes on top of it "
              "(module loading, memory pool, allocations, set-up, the work). Targets: first <= 30 ms beyond the "
              "context; second resample <= 2 ms.\n");
  return 0;
}
