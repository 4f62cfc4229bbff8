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
// SyN benchmark: itk::SyNImageRegistrationMethodGPU (GPU, and the module's CPU path)
// against ITK's SyNImageRegistrationMethod (all host threads) on the same pair: an
// N^3 float image of smoothed noise (sigma 1.5 voxels) and its warp by a known smooth
// field (up to 3 voxels), ANTs' neighbourhood correlation (radius 2, central
// differences), three levels (shrink 4, 2, 1; sigmas 2, 1, 0 voxels), learning rate
// 0.25, variances 3 and 0.5. Each row: the wall time of Update() (the shrinking and
// smoothing of ITK's levels included), the last metric value, the mean error of the
// recovered warp in voxels (the output's inverse field against the known warp, inner
// voxels), and the time against ITK's. The GPU row is the median of --repeat runs
// (default 5; the range printed below the table), the others one run each.
//
//   SyNBenchmark [--size 128] [--iterations 20 10 5] [--repeat 5] [--no-itk] [--no-cpu-path] [--quick]
//
// Without a GPU (CI) the GPU row reads n/a.
#include "cifBenchmarkSupport.h"
#include "cifITKPoolParking.h"
#include "cifCudaRuntime.h"
#include "itkImageRegionIteratorWithIndex.h"
#include "itkResampleImageFilter.h"
#include "itkSmoothingRecursiveGaussianImageFilter.h"
#include "itkSyNImageRegistrationMethodGPU.h"
#include "itkSyNRegistrationSetup.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace
{
constexpr unsigned int D = 3;
using Image = itk::Image<float, D>;
using FieldTransform = itk::DisplacementFieldTransform<double, D>;
using Field = FieldTransform::DisplacementFieldType;

struct Pair
{
  Image::Pointer fixed, moving;
  Field::Pointer warp;
};

Pair
MakePair(unsigned int n)
{
  std::mt19937    rng(20261203);
  Pair            p;
  Image::Pointer  noise = Image::New();
  Image::SizeType size;
  size.Fill(n);
  noise->SetRegions(size);
  noise->Allocate();
  std::uniform_real_distribution<float> u(0.0f, 1000.0f);
  for (itk::ImageRegionIterator<Image> it(noise, noise->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    it.Set(u(rng));
  }
  auto smoother = itk::SmoothingRecursiveGaussianImageFilter<Image, Image>::New();
  smoother->SetInput(noise);
  smoother->SetSigma(1.5);
  smoother->Update();
  p.fixed = smoother->GetOutput();
  p.warp = Field::New();
  p.warp->CopyInformation(p.fixed);
  p.warp->SetRegions(p.fixed->GetLargestPossibleRegion());
  p.warp->Allocate();
  for (itk::ImageRegionIteratorWithIndex<Field> it(p.warp, p.warp->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    double envelope = 1.0;
    for (unsigned int a = 0; a < D; ++a)
    {
      envelope *= std::sqrt(std::sin(M_PI * it.GetIndex()[a] / (n - 1.0)));
    }
    Field::PixelType v;
    for (unsigned int a = 0; a < D; ++a)
    {
      v[a] = 3.0 * envelope * std::cos(2.0 * M_PI * it.GetIndex()[(a + 1) % D] / n + a);
    }
    it.Set(v);
  }
  auto transform = FieldTransform::New();
  transform->SetDisplacementField(p.warp);
  auto resample = itk::ResampleImageFilter<Image, Image>::New();
  resample->SetInput(p.fixed);
  resample->SetTransform(transform);
  resample->SetReferenceImage(p.fixed);
  resample->UseReferenceImageOn();
  resample->Update();
  p.moving = resample->GetOutput();
  return p;
}

/** A value that may be negative (cif_bench::Cell reads those as n/a). */
std::string
Signed(double v)
{
  char text[32];
  std::snprintf(text, sizeof(text), "%.5f", v);
  return text;
}

struct Result
{
  double seconds = 0.0;
  double metric = 0.0;
  double warpError = 0.0;
  bool   ran = false;
};

template <typename TMethod>
Result
Run(TMethod * method, const Pair & p, const std::vector<unsigned int> & iterations)
{
  itk::SyNStageSettings settings;
  settings.radius = 2;
  settings.learningRate = 0.25;
  settings.updateFieldVariance = 3.0;
  settings.totalFieldVariance = 0.5;
  settings.iterations = iterations;
  settings.convergenceThreshold = 0.0; // every iteration runs
  itk::ConfigureSyN(method, p.fixed.GetPointer(), p.moving.GetPointer(), settings);
  Result     r;
  const auto start = std::chrono::steady_clock::now();
  method->Update();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.metric = method->GetCurrentMetricValue();
  const auto * inverse = method->GetTransformOutput()->Get()->GetInverseDisplacementField();
  const auto   n = p.fixed->GetLargestPossibleRegion().GetSize()[0];
  double       sum = 0.0;
  std::size_t  count = 0;
  for (itk::ImageRegionConstIteratorWithIndex<Field> it(p.warp, p.warp->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    bool inner = true;
    for (unsigned int a = 0; a < D; ++a)
    {
      inner = inner && it.GetIndex()[a] >= static_cast<long>(n / 8) && it.GetIndex()[a] < static_cast<long>(n - n / 8);
    }
    if (inner)
    {
      const auto recovered = inverse->GetPixel(it.GetIndex());
      double     e = 0.0;
      for (unsigned int a = 0; a < D; ++a)
      {
        e += (recovered[a] - it.Get()[a]) * (recovered[a] - it.Get()[a]);
      }
      sum += std::sqrt(e);
      ++count;
    }
  }
  r.warpError = sum / static_cast<double>(count);
  r.ran = true;
  return r;
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  unsigned int                   size = 128;
  std::vector<unsigned int>      iterations{ 20, 10, 5 };
  bool                           itk = true, cpuPath = true;
  unsigned int                   repeat = 5;
  for (int k = 1; k < argc; ++k)
  {
    if (!std::strcmp(argv[k], "--size") && k + 1 < argc)
    {
      size = static_cast<unsigned int>(std::atoi(argv[++k]));
    }
    else if (!std::strcmp(argv[k], "--iterations"))
    {
      iterations.clear();
      while (k + 1 < argc && argv[k + 1][0] != '-')
      {
        iterations.push_back(static_cast<unsigned int>(std::atoi(argv[++k])));
      }
    }
    else if (!std::strcmp(argv[k], "--repeat") && k + 1 < argc)
    {
      repeat = static_cast<unsigned int>(std::atoi(argv[++k]));
    }
    else if (!std::strcmp(argv[k], "--no-itk"))
    {
      itk = false;
    }
    else if (!std::strcmp(argv[k], "--no-cpu-path"))
    {
      cpuPath = false;
    }
    else if (!std::strcmp(argv[k], "--quick"))
    {
      size = 32;
      iterations = { 4, 2, 1 };
    }
    else
    {
      std::fprintf(stderr,
                   "usage: SyNBenchmark [--size N] [--iterations I1 I2 ...] [--repeat N] [--no-itk] [--no-cpu-path] "
                   "[--quick]\n");
      return 2;
    }
  }
  if (size < 16 || iterations.empty() || repeat < 1)
  {
    std::fprintf(
      stderr, "error: --size must be at least 16, --iterations name at least one level and --repeat be at least 1\n");
    return 2;
  }
  using ModuleSyN = itk::SyNImageRegistrationMethodGPU<Image, Image, FieldTransform>;
  using ITKSyN = itk::SyNImageRegistrationMethod<Image, Image, FieldTransform>;
  const bool gpu = cif::IsGPUAvailable();
  std::printf("SyNBenchmark, %s; %s; ITK with %u threads\n",
              cif_bench::Today().c_str(),
              gpu ? cif::GetDeviceInfo().name.c_str() : "no GPU",
              itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads());
  std::string schedule;
  for (unsigned int i : iterations)
  {
    schedule += (schedule.empty() ? "" : "x") + std::to_string(i);
  }
  std::printf("pair: %u^3 float smoothed noise and its known warp; %zu levels, %s iterations; CC radius 2\n\n",
              size,
              iterations.size(),
              schedule.c_str());
  const Pair  p = MakePair(size);
  Result      onGPU, onCPU, byITK;
  std::string gpuRange;
  if (gpu)
  {
    auto warm = ModuleSyN::New(); // the context and the kernels' first load, outside the timed run
    (void)Run(warm.GetPointer(), MakePair(16), { 1 });
    std::vector<Result> runs;
    for (unsigned int k = 0; k < repeat; ++k)
    {
      auto method = ModuleSyN::New();
      runs.push_back(Run(method.GetPointer(), p, iterations));
      if (method->GetLastExecutionPath() != itk::CudaExecutionPath::GPU)
      {
        std::fprintf(stderr, "error: the GPU path did not run: %s\n", method->GetLastExecutionReason().c_str());
        return 1;
      }
    }
    std::sort(runs.begin(), runs.end(), [](const Result & a, const Result & b) { return a.seconds < b.seconds; });
    onGPU = runs[runs.size() / 2];
    gpuRange = "GPU path: median of " + std::to_string(repeat) + " runs, " + cif_bench::Cell(runs.front().seconds) +
               " to " + cif_bench::Cell(runs.back().seconds) + " s\n";
  }
  if (cpuPath)
  {
    auto method = ModuleSyN::New();
    method->SetUseGPU(false);
    onCPU = Run(method.GetPointer(), p, iterations);
  }
  if (itk)
  {
    auto method = ITKSyN::New();
    byITK = Run(method.GetPointer(), p, iterations);
  }
  std::printf(
    "| path | wall (s) | last metric | recovered warp: mean error (voxels) | vs ITK |\n|---|---|---|---|---|\n");
  const auto row = [&](const char * name, const Result & r) {
    std::printf("| %s | %s | %s | %s | %s |\n",
                name,
                r.ran ? cif_bench::Cell(r.seconds).c_str() : "n/a",
                r.ran ? Signed(r.metric).c_str() : "n/a",
                r.ran ? cif_bench::Cell(r.warpError).c_str() : "n/a",
                r.ran && byITK.ran ? cif_bench::Ratio(byITK.seconds, r.seconds).c_str() : "n/a");
  };
  row("SyNImageRegistrationMethodGPU, GPU", onGPU);
  row("SyNImageRegistrationMethodGPU, CPU path", onCPU);
  row("ITK SyNImageRegistrationMethod", byITK);
  std::printf("\n%s", gpuRange.c_str());
  return 0;
}
