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
// Prefilter benchmark: prints a markdown table of the cubic B-spline prefilter of
// N^3 float volumes on the GPU (CUDA events, median of --repeat runs after a
// warm-up, random data), the memory floor it is measured against, and in the same
// run the peers: ITK's BSplineDecompositionImageFilter, this module's CPU path, and
// CuPy's spline_filter (through cupy_peer.py, when given and importable).
//
//   PrefilterBenchmark [--sizes 256 512] [--repeat 10] [--cupy Testing/Benchmark/cupy_peer.py] [--itk-max 512]
//   PrefilterBenchmark --devices N [--sizes 1024] [--repeat 10]
//
// --devices N (N >= 2) prints, instead of the table above, the filter on a host
// image in and out (float N^3, random) on one device against N devices
// (SetNumberOfDevices): the first run of each and the median of --repeat later runs
// (same filter object, Modified() between), the ratio, and whether the spread's
// output equals the one-device output bit for bit. Before the first spread run the
// one-time set-up of every device is done and timed on its own (a thread per device,
// as the filter's: context, memory pool, a staging ring, the prefilter's kernels,
// peer access to every other device), so that the first spread run shows what an
// update costs once set-up is paid.
//
// Floor: a separable 3-axis pass reads and writes every voxel once per axis, so
// >= 3 x 8 bytes per float voxel, at the device-to-device copy bandwidth measured
// here (bytes read + written per second).
#include "cifITKPoolParking.h"
#include "cifBSplinePrefilterDevice.h"
#include "cifBenchmarkSupport.h"
#include "cifDeviceBuffer.h"
#include "cifDeviceThreads.h"
#include "itkBSplineDecompositionImageFilter.h"
#include "itkBSplinePrefilterGPUImageFilter.h"
#include "itkMultiThreaderBase.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace
{
using Clock = std::chrono::steady_clock;

using cif_bench::Median;
using cif_bench::WallMilliseconds;

template <typename T>
typename itk::Image<T, 3>::Pointer
RandomVolume(long n)
{
  using Image = itk::Image<T, 3>;
  auto image = Image::New();
  image->SetRegions(itk::Size<3>{
    { static_cast<itk::SizeValueType>(n), static_cast<itk::SizeValueType>(n), static_cast<itk::SizeValueType>(n) } });
  image->Allocate();
  std::mt19937                      rng(12345u + static_cast<unsigned>(n));
  std::uniform_real_distribution<T> unit(0, 1);
  T *                               p = image->GetBufferPointer();
  for (std::size_t i = 0, count = image->GetBufferedRegion().GetNumberOfPixels(); i < count; ++i)
  {
    p[i] = unit(rng);
  }
  return image;
}

/** Times one N^3 volume of T and prints its table row. */
template <typename T>
void
PrintRow(long n, int repeat, double copyGBps, bool runPeers, const std::map<std::string, std::string> & cupy)
{
  using Image = itk::Image<T, 3>;
  cif::SplinePoles poles;
  cif::MakeSplinePoles(3, poles);
  auto              input = RandomVolume<T>(n);
  const std::size_t count = input->GetBufferedRegion().GetNumberOfPixels();
  const std::size_t bytes = count * sizeof(T);
  cif::BufferShape  shape;
  shape.dimension = 3;
  shape.size[0] = shape.size[1] = shape.size[2] = n;

  // Kernels alone, on data already on the device (restored before each run).
  cif::DeviceBuffer source(bytes), work(bytes);
  source.Upload(input->GetBufferPointer(), bytes);
  cif::DeviceTimer    timer;
  std::vector<double> kernelMs;
  for (int r = -1; r < repeat; ++r)
  {
    cif::CopyDeviceToDevice(work.Data(), source.Data(), bytes);
    timer.Start();
    cif::PrefilterOnDevice<T>(work.template As<T>(), shape, poles, cif::BoundaryMode::Mirror);
    const double ms = timer.StopMilliseconds();
    if (r >= 0)
    {
      kernelMs.push_back(ms);
    }
  }
  const double gpuMs = Median(kernelMs);
  const double floorMs = 3.0 * 2.0 * sizeof(T) * count / (copyGBps * 1e9) * 1e3;

  // Through the ITK filter: host image in, host image out.
  auto filter = itk::BSplinePrefilterGPUImageFilter<Image, Image>::New();
  filter->SetInput(input);
  filter->SetNumberOfDevices(1); // one device's row (--devices N compares several)
  std::vector<double> endToEnd;
  for (int r = -1; r < repeat; ++r)
  {
    filter->Modified();
    const double ms = WallMilliseconds([&] { filter->Update(); });
    if (r >= 0)
    {
      endToEnd.push_back(ms);
    }
  }

  // Peers. ITK's filter is single-threaded whatever the core count.
  double itkMs = -1, cpuMs = -1, maxRel = -1;
  if (runPeers)
  {
    auto reference = itk::BSplineDecompositionImageFilter<Image, itk::Image<double, 3>>::New();
    reference->SetInput(input);
    itkMs = WallMilliseconds([&] { reference->Update(); });
    const T *      got = filter->GetOutput()->GetBufferPointer();
    const double * want = reference->GetOutput()->GetBufferPointer();
    double         maxAbs = 0, scale = 0;
    for (std::size_t i = 0; i < count; ++i)
    {
      maxAbs = std::max(maxAbs, std::fabs(got[i] - want[i]));
      scale = std::max(scale, std::fabs(want[i]));
    }
    maxRel = maxAbs / scale;

    auto cpu = itk::BSplinePrefilterGPUImageFilter<Image, Image>::New();
    cpu->SetInput(input);
    cpu->SetUseGPU(false);
    cpuMs = WallMilliseconds([&] { cpu->Update(); });
  }
  const std::string key = "spline_filter_" + std::to_string(n) + "^3_ms";
  const double      cupyMs = cupy.count(key) ? std::atof(cupy.at(key).c_str()) : -1;

  auto cell = [](double v, const char * fmt) {
    char buffer[64];
    if (v < 0)
    {
      return std::string("n/a");
    }
    std::snprintf(buffer, sizeof(buffer), fmt, v);
    return std::string(buffer);
  };
  std::printf("| %ld^3 %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
              n,
              sizeof(T) == 4 ? "float" : "double",
              cell(gpuMs, "%.3f").c_str(),
              cell(floorMs, "%.3f").c_str(),
              cell(floorMs / gpuMs * 100.0, "%.0f%%").c_str(),
              cell(Median(endToEnd), "%.1f").c_str(),
              cell(cupyMs, "%.3f").c_str(),
              cell(cupyMs > 0 ? cupyMs / gpuMs : -1, "%.1fx").c_str(),
              cell(itkMs, "%.0f").c_str(),
              cell(itkMs > 0 ? itkMs / gpuMs : -1, "%.0fx").c_str(),
              cell(cpuMs, "%.0f").c_str(),
              cell(maxRel, "%.1e").c_str());
  std::fflush(stdout);
}

/** The one-time set-up a spread pays per process, on a thread per device as the
 * filter runs them: the context, the memory pool and a staging ring (a 64 MiB
 * upload), the prefilter's kernels (one small prefilter), then peer access to every
 * other device (a small copy from each). Milliseconds of wall time. */
double
SetUpDevices(const std::vector<int> & devices)
{
  const std::size_t              bytes = std::size_t(64) << 20;
  std::vector<float>             host(bytes / sizeof(float), 1.0f);
  std::vector<cif::DeviceBuffer> buffers(devices.size());
  cif::SplinePoles               poles;
  cif::MakeSplinePoles(3, poles);
  cif::BufferShape shape;
  shape.dimension = 3;
  shape.size[0] = shape.size[1] = shape.size[2] = 64;
  return WallMilliseconds([&] {
    cif::RunOnDeviceThreads(devices, nullptr, [&](std::int64_t k) {
      cif::DeviceBuffer & b = buffers[static_cast<std::size_t>(k)];
      b.Allocate(bytes);
      b.Upload(host.data(), bytes);
      cif::PrefilterOnDevice<float>(b.As<float>(), shape, poles, cif::BoundaryMode::Mirror);
      cif::Synchronize();
    });
    cif::RunOnDeviceThreads(devices, nullptr, [&](std::int64_t k) {
      for (std::size_t j = 0; j < devices.size(); ++j)
      {
        cif::CopyBetweenDevices(buffers[static_cast<std::size_t>(k)].Data(),
                                devices[static_cast<std::size_t>(k)],
                                buffers[j].Data(),
                                devices[j],
                                4096);
      }
      cif::Synchronize();
    });
  });
}

/** One float N^3 volume, host image in and out: one device against \a devices. */
void
PrintDevicesRow(long n, int repeat, unsigned int devices, bool & setUpDone)
{
  using Image = itk::Image<float, 3>;
  auto       input = RandomVolume<float>(n);
  const auto run = [&](unsigned int numberOfDevices, double & firstMs, double & laterMs) {
    auto filter = itk::BSplinePrefilterGPUImageFilter<Image, Image>::New();
    filter->SetInput(input);
    filter->SetNumberOfDevices(numberOfDevices);
    std::vector<double> later;
    for (int r = -1; r < repeat; ++r)
    {
      filter->Modified();
      const double ms = WallMilliseconds([&] { filter->Update(); });
      if (r < 0)
      {
        firstMs = ms;
      }
      else
      {
        later.push_back(ms);
      }
    }
    laterMs = Median(later);
    Image::Pointer output = filter->GetOutput();
    output->DisconnectPipeline();
    return output;
  };
  double     first1 = -1, later1 = -1, firstN = -1, laterN = -1;
  const auto one = run(1, first1, later1);
  if (!setUpDone)
  {
    std::vector<int> list;
    for (unsigned int d = 0; d < devices; ++d)
    {
      list.push_back(static_cast<int>(d));
    }
    std::printf("one-time set-up of devices 0-%u (contexts, pools, staging rings, kernels, peer access): %.1f ms\n\n",
                devices - 1,
                SetUpDevices(list));
    std::printf("| volume | devices | first run (ms) | later runs, median (ms) | vs 1 device | output |\n"
                "|---|---|---|---|---|---|\n");
    setUpDone = true;
  }
  const auto spread = run(devices, firstN, laterN);
  const bool same = std::memcmp(one->GetBufferPointer(),
                                spread->GetBufferPointer(),
                                input->GetBufferedRegion().GetNumberOfPixels() * sizeof(float)) == 0;
  std::printf("| %ld^3 float | 1 | %.1f | %.1f | 1.00x | |\n", n, first1, later1);
  std::printf("| %ld^3 float | %u | %.1f | %.1f | %.2fx | %s |\n",
              n,
              devices,
              firstN,
              laterN,
              later1 / laterN,
              same ? "the bits of 1 device" : "DIFFERS from 1 device");
  std::fflush(stdout);
}

} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  // --devices N: the several-device table (taken out before the shared options).
  unsigned int        devices = 0;
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i)
  {
    if (std::string(argv[i]) == "--devices" && i + 1 < argc)
    {
      devices = static_cast<unsigned int>(std::max(2, std::atoi(argv[++i])));
      continue;
    }
    args.push_back(argv[i]);
  }
  argc = static_cast<int>(args.size());
  argv = args.data();
  const cif_bench::Options options = cif_bench::ParseOptions(argc, argv, "PrefilterBenchmark", 512L);
  if (!options.ok)
  {
    return 2;
  }
  const std::vector<long> & sizes = options.sizes;
  const int                 repeat = options.repeat;
  const long                itkMax = options.itkMax;
  const std::string &       cupyScript = options.cupyScript;
  if (!cif::IsGPUAvailable())
  {
    std::cerr << "PrefilterBenchmark needs a CUDA device: " << cif::GetNoDeviceReason() << "\n";
    return 1;
  }
  const cif::DeviceInfo info = cif::GetDeviceInfo();
  const unsigned        cores = itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads();
  if (devices >= 2)
  {
    if (cif::GetDeviceCount() < static_cast<int>(devices))
    {
      std::cerr << "PrefilterBenchmark --devices " << devices << ": " << cif::GetDeviceCount()
                << " CUDA device(s) visible\n";
      return 1;
    }
    std::printf("B-spline prefilter, host image in and out, 1 against %u devices (%s); %d repeats\n",
                devices,
                info.name.c_str(),
                repeat);
    bool setUpDone = false;
    for (long n : sizes)
    {
      PrintDevicesRow(n, repeat, devices, setUpDone);
    }
    std::printf("\n'vs 1 device' = later runs' median on 1 device / on %u devices. The first run of a filter object "
                "also allocates its output (huge pages), the later ones reuse pinned memory; the input is registered "
                "(page-locked) after 8 uploads.\n",
                devices);
    return 0;
  }

  const double copyGBps = cif_bench::MeasureCopyBandwidth(repeat);

  const auto cupy = cif_bench::RunCuPy(cupyScript, sizes, repeat);

  std::printf("Device: %s, %d SMs; copy bandwidth %.0f GB/s (read+write); host threads for ITK/CPU path: %u\n",
              info.name.c_str(),
              info.multiprocessorCount,
              copyGBps,
              cores);
  if (!cupy.empty() && cupy.count("copy_GBps"))
  {
    std::printf("CuPy's own copy bandwidth measurement: %s GB/s\n", cupy.at("copy_GBps").c_str());
  }
  std::printf(
    "\n| volume | GPU kernels (ms) | floor (ms) | of floor | GPU incl. transfers (ms) | CuPy spline_filter (ms) "
    "| vs CuPy | ITK CPU (ms) | vs ITK | module CPU path (ms) | max rel. error vs ITK |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");

  for (long n : sizes)
  {
    PrintRow<float>(n, repeat, copyGBps, n <= itkMax, cupy);
  }
  for (long n : sizes)
  {
    PrintRow<double>(n, repeat, copyGBps, n <= std::min(itkMax, 256L), {}); // ITK at 512^3 once is enough
  }
  std::printf("\n'of floor' = floor / GPU time (100%% = at the copy bandwidth; floor = 3 axes x (read + write) "
              "of every voxel). 'vs' columns: peer time / GPU kernel time. ITK's filter runs on one thread; its "
              "output is double. CuPy runs float only.\n");
  return 0;
}
