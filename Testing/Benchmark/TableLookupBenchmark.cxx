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
// Table lookup benchmark: prints a markdown table of batched cubic
// B-spline lookups in CubicBSplineTable, for a 64^4 table with 64^4 random lookups
// (seed 001's experiment), 32^5 with 10^7 and 16^6 with 10^6; values alone and with
// gradients. The GPU rows time EvaluateOnDevice (points, values and gradients in
// device memory) with CUDA events, median of --repeat after a warm-up, on the points
// as given and sorted by cell on the device (SortPoints); for 64^4 also Evaluate from
// and to host memory (transfers included). Peers in the same run, on the same table
// and points:
// - ITK's BSplineInterpolateImageFunction (Evaluate, EvaluateValueAndDerivative) on
//   all host threads, timed on --sample points and scaled to the batch;
// - this module's CPU path (UseGPU off), timed and scaled the same way;
// - CuPy's map_coordinates(order=3, mode='mirror', prefilter=False) through
//   cupy_table_peer.py (--cupy), on the table's own coefficients: values only (it
//   has no gradients); its first values are compared with ours;
// - seed 001's figures for 64^4 (its hardware, single precision, 3 of 4 axes
//   prefiltered), printed beside that row, not measured.
// The setup rows time SetValues (upload and prefilter of every axis) against ITK's
// SetInputImage (its BSplineDecompositionImageFilter in double).
//
//   TableLookupBenchmark [--repeat 10] [--cupy Testing/Benchmark/cupy_table_peer.py] [--sample 200000] [--small]
//
// --small: 16^4, 8^5 and 6^6 tables with 16^4, 10^5 and 10^4 lookups (a quick run;
// without a device only the CPU columns are filled).
//
// Floor: the bytes each lookup must move, D doubles of coordinates in and 8 bytes of
// value (+ 8 D of gradient) out, at the measured device copy bandwidth. The
// coefficient gathers (4^D per point) are not counted: they are what the kernel
// spends its time on, served from the caches as far as the table fits (64^4 and
// 16^6 floats: 64 MiB, 32^5: 128 MiB).
#include "cifITKPoolParking.h"
#include "cifBenchmarkSupport.h"
#include "cifCudaRuntime.h"
#include "cifDeviceBuffer.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkCubicBSplineTable.h"
#include "itkImage.h"
#include "itkMultiThreaderBase.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace
{
using cif_bench::Cell;
using cif_bench::Ratio;
using cif_bench::DeviceMilliseconds;
using cif_bench::WallMilliseconds;

struct Options
{
  int         repeat = 10;
  std::string cupyScript;
  long        sample = 200000;
  bool        small = false;
  bool        ok = true;
};

Options
Parse(int argc, char * argv[])
{
  Options o;
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc)
    {
      o.repeat = std::max(1, std::atoi(argv[++i]));
    }
    else if (a == "--cupy" && i + 1 < argc)
    {
      o.cupyScript = argv[++i];
    }
    else if (a == "--sample" && i + 1 < argc)
    {
      o.sample = std::max(1L, std::atol(argv[++i]));
    }
    else if (a == "--small")
    {
      o.small = true;
    }
    else
    {
      std::fprintf(stderr,
                   "usage: TableLookupBenchmark [--repeat R] [--cupy cupy_table_peer.py] [--sample N] "
                   "[--small]\n");
      o.ok = false;
    }
  }
  return o;
}

struct Case
{
  unsigned int D;
  long         n;
  std::int64_t lookups;
  const char * lookupsLabel;
};

/** One row: ours on the GPU, the floor, and the peers (negative: not measured). */
void
PrintRow(const std::string & what,
         double              gpuMs,
         double              floorMs,
         double              cupyMs,
         double              itkMs,
         double              cpuMs,
         const std::string & seed)
{
  std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
              what.c_str(),
              Cell(gpuMs, "%.3f").c_str(),
              Cell(floorMs, "%.3f").c_str(),
              gpuMs > 0 && floorMs > 0 ? Cell(floorMs / gpuMs * 100, "%.0f%%").c_str() : "n/a",
              Cell(cupyMs, "%.3f").c_str(),
              Ratio(cupyMs, gpuMs).c_str(),
              Cell(itkMs, "%.0f").c_str(),
              Ratio(itkMs, gpuMs).c_str(),
              Cell(cpuMs, "%.0f").c_str(),
              seed.c_str());
  std::fflush(stdout);
}

/** CuPy's map_coordinates on \a coefficients at \a points (continuous indices, D per
 * point): its time, and its first values in \a firstValues. -1 when it did not run. */
double
RunCuPy(const std::string &         script,
        unsigned int                D,
        long                        n,
        const std::vector<float> &  coefficients,
        const std::vector<double> & points,
        std::int64_t                count,
        int                         repeat,
        std::vector<double> &       firstValues,
        std::string &               note)
{
  char directory[] = "/tmp/cif_table_bench_XXXXXX";
  if (!mkdtemp(directory))
  {
    note = "no temporary directory for CuPy";
    return -1;
  }
  const std::string c = std::string(directory) + "/coefficients.f32", p = std::string(directory) + "/points.f64",
                    v = std::string(directory) + "/values.f64";
  std::ofstream(c, std::ios::binary)
    .write(reinterpret_cast<const char *>(coefficients.data()), coefficients.size() * sizeof(float));
  std::ofstream(p, std::ios::binary)
    .write(reinterpret_cast<const char *>(points.data()), points.size() * sizeof(double));
  const std::int64_t first = std::min<std::int64_t>(count, 100000);
  std::string        command = "python3 " + script + " --coefficients " + c + " --points " + p + " --values " + v +
                        " --count " + std::to_string(count) + " --first " + std::to_string(first) + " --repeat " +
                        std::to_string(repeat) + " --shape";
  for (unsigned int a = 0; a < D; ++a)
  {
    command += " " + std::to_string(n);
  }
  double ms = -1;
  FILE * pipe = popen((command + " 2>&1").c_str(), "r");
  char   line[1024];
  while (pipe && fgets(line, sizeof(line), pipe))
  {
    const std::string s(line);
    if (s.rfind("map_coordinates_ms: ", 0) == 0)
    {
      ms = std::atof(s.c_str() + 20);
    }
    else if (s.rfind("map_coordinates_error: ", 0) == 0)
    {
      note = s.substr(23, s.find_last_not_of("\r\n") - 22);
    }
  }
  if (pipe)
  {
    pclose(pipe);
  }
  if (ms > 0)
  {
    firstValues.resize(static_cast<std::size_t>(first));
    std::ifstream(v, std::ios::binary).read(reinterpret_cast<char *>(firstValues.data()), first * sizeof(double));
  }
  std::remove(c.c_str());
  std::remove(p.c_str());
  std::remove(v.c_str());
  rmdir(directory);
  return ms;
}

template <unsigned int D>
void
RunCase(const Case & c, const Options & o, double copyGBps, std::vector<std::string> & notes)
{
  const long         n = c.n;
  const std::int64_t count = c.lookups;
  std::int64_t       samples = 1;
  for (unsigned int a = 0; a < D; ++a)
  {
    samples *= n;
  }
  char table[64];
  std::snprintf(table, sizeof(table), "%ld^%u", n, D);

  // Random table (data that is not smooth: no help from the caches' luck) and random
  // points over it; origin 0 and spacing 1, so coordinates are continuous indices.
  std::vector<float>                    values(static_cast<std::size_t>(samples));
  std::mt19937                          rng(1000u + D);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  for (auto & v : values)
  {
    v = unit(rng);
  }
  std::vector<double>                    points(static_cast<std::size_t>(count) * D);
  std::uniform_real_distribution<double> coordinate(0.0, n - 1.0);
  for (auto & x : points)
  {
    x = coordinate(rng);
  }
  const itk::CubicBSplineTable<>::SizeType size(D, static_cast<itk::SizeValueType>(n));
  const std::int64_t                       sample = std::min<std::int64_t>(o.sample, count);
  const double                             scale = static_cast<double>(count) / sample;
  char                                     scaled[64];
  std::snprintf(scaled, sizeof(scaled), sample < count ? " (x%.0f from a sample)" : "", scale);

  // ITK: an image of the same samples; SetInputImage runs its prefilter.
  using Image = itk::Image<float, D>;
  auto         image = Image::New();
  itk::Size<D> imageSize;
  imageSize.Fill(static_cast<itk::SizeValueType>(n));
  image->SetRegions(imageSize);
  image->Allocate();
  std::copy(values.begin(), values.end(), image->GetBufferPointer());
  using Interpolator = itk::BSplineInterpolateImageFunction<Image, double, double>;
  auto         interpolator = Interpolator::New();
  const double itkSetupMs = WallMilliseconds([&] { interpolator->SetInputImage(image); });
  const auto   itkPoint = [&](std::int64_t i) {
    typename Image::PointType p;
    for (unsigned int a = 0; a < D; ++a)
    {
      p[a] = points[D * i + a];
    }
    return p;
  };
  const auto threader = itk::MultiThreaderBase::New();
  const auto itkTime = [&](bool withGradient) {
    return WallMilliseconds([&] {
             threader->ParallelizeArray(
               0,
               static_cast<itk::SizeValueType>(sample),
               [&](itk::SizeValueType i) {
                 if (withGradient)
                 {
                   double                                     value;
                   typename Interpolator::CovariantVectorType d;
                   interpolator->EvaluateValueAndDerivative(itkPoint(i), value, d);
                 }
                 else
                 {
                   interpolator->Evaluate(itkPoint(i));
                 }
               },
               nullptr);
           }) *
           scale;
  };
  const double itkValuesMs = itkTime(false);
  const double itkGradientsMs = itkTime(true);

  // This module's CPU path.
  auto cpuTable = itk::CubicBSplineTable<float>::New();
  cpuTable->SetUseGPU(false);
  cpuTable->SetSize(size);
  const double        cpuSetupMs = WallMilliseconds([&] { cpuTable->SetValues(values); });
  std::vector<double> out(static_cast<std::size_t>(sample)), gradientsOut(static_cast<std::size_t>(sample) * D);
  const double cpuValuesMs = WallMilliseconds([&] { cpuTable->Evaluate(points.data(), sample, out.data()); }) * scale;
  const double cpuGradientsMs =
    WallMilliseconds([&] { cpuTable->Evaluate(points.data(), sample, out.data(), gradientsOut.data()); }) * scale;
  cpuTable = nullptr;

  // The GPU.
  double gpuSetupMs = -1, valuesMs = -1, valuesSortedMs = -1, gradientsMs = -1, gradientsSortedMs = -1,
         hostArraysMs = -1, cupyMs = -1;
  if (cif::IsGPUAvailable())
  {
    auto gpuTable = itk::CubicBSplineTable<float>::New();
    gpuTable->SetSize(size);
    gpuTable->SetValues(values); // first use: the device's context and pool set up
    gpuTable->SetSize({ 1 });
    gpuTable->SetSize(size);
    gpuSetupMs = WallMilliseconds([&] { gpuTable->SetValues(values); });
    const std::size_t pointBytes = points.size() * sizeof(double);
    cif::DeviceBuffer devicePoints(pointBytes), deviceValues(static_cast<std::size_t>(count) * sizeof(double)),
      deviceGradients(pointBytes);
    devicePoints.Upload(points.data(), pointBytes);
    const auto timeOnDevice = [&](bool sorted, bool withGradient) {
      gpuTable->SetSortPoints(sorted);
      return DeviceMilliseconds(o.repeat, [&] {
        gpuTable->EvaluateOnDevice(devicePoints.As<const double>(),
                                   count,
                                   deviceValues.As<double>(),
                                   withGradient ? deviceGradients.As<double>() : nullptr);
      });
    };
    valuesMs = timeOnDevice(false, false);
    valuesSortedMs = timeOnDevice(true, false);
    gradientsMs = timeOnDevice(false, true);
    gradientsSortedMs = timeOnDevice(true, true);
    gpuTable->SetSortPoints(false);
    if (D == 4)
    {
      std::vector<double> hostValues(static_cast<std::size_t>(count));
      gpuTable->Evaluate(points.data(), count, hostValues.data()); // warm-up
      std::vector<double> times;
      for (int r = 0; r < std::max(1, o.repeat / 3); ++r)
      {
        times.push_back(WallMilliseconds([&] { gpuTable->Evaluate(points.data(), count, hostValues.data()); }));
      }
      hostArraysMs = cif_bench::Median(times);
    }
    // Agreement with the CPU path on the first points (float sums on both: rounding).
    const std::int64_t  checked = std::min<std::int64_t>(sample, 100000);
    std::vector<double> gpuFirst(static_cast<std::size_t>(checked));
    gpuTable->EvaluateOnDevice(devicePoints.As<const double>(), count, deviceValues.As<double>());
    cif::Synchronize();
    deviceValues.Download(gpuFirst.data(), gpuFirst.size() * sizeof(double));
    double differs = 0;
    for (std::int64_t i = 0; i < checked; ++i)
    {
      differs = std::max(differs, std::fabs(gpuFirst[i] - out[i]));
    }
    // (out holds the CPU path's values of the first points from the gradient run)
    if (!o.cupyScript.empty())
    {
      std::vector<float> coefficients;
      gpuTable->GetCoefficients(coefficients);
      std::vector<double> cupyFirst;
      std::string         note;
      cupyMs = RunCuPy(o.cupyScript, D, n, coefficients, points, count, o.repeat, cupyFirst, note);
      double cupyDiffers = 0;
      for (std::size_t i = 0; i < cupyFirst.size() && i < gpuFirst.size(); ++i)
      {
        cupyDiffers = std::max(cupyDiffers, std::fabs(cupyFirst[i] - gpuFirst[i]));
      }
      notes.push_back(std::string(table) + ": CuPy " +
                      (cupyMs > 0 ? "max |CuPy - ours| " + Cell(cupyDiffers, "%.2g") + " over the first " +
                                      std::to_string(cupyFirst.size()) + " values"
                                  : "did not run (" + note + ")"));
    }
    notes.push_back(std::string(table) + ": max |GPU - CPU path| " + Cell(differs, "%.2g") + " over the first " +
                    std::to_string(checked) + " values");
  }

  const double      bytesPerPoint = 8.0 * D + 8.0;
  const double      floorValues = copyGBps > 0 ? bytesPerPoint * count / (copyGBps * 1e9) * 1e3 : -1;
  const double      floorGradients = copyGBps > 0 ? (bytesPerPoint + 8.0 * D) * count / (copyGBps * 1e9) * 1e3 : -1;
  const std::string batch = std::string(table) + " table, " + c.lookupsLabel + " lookups";
  const std::string seed = D == 4 && n == 64 ? "CPU (SSE) 5324, GPU 1227" : "";
  PrintRow(batch + ", values", valuesMs, floorValues, cupyMs, itkValuesMs, cpuValuesMs, seed);
  PrintRow(batch + ", values, sorted on the device", valuesSortedMs, floorValues, cupyMs, itkValuesMs, -1, "");
  PrintRow(batch + ", values + gradients", gradientsMs, floorGradients, -1, itkGradientsMs, cpuGradientsMs, "");
  PrintRow(batch + ", values + gradients, sorted on the device",
           gradientsSortedMs,
           floorGradients,
           -1,
           itkGradientsMs,
           -1,
           "");
  if (D == 4)
  {
    PrintRow(batch + ", values, points from and values to host memory",
             hostArraysMs,
             floorValues,
             -1,
             itkValuesMs,
             cpuValuesMs,
             seed);
  }
  PrintRow(std::string(table) + " table: coefficients from host floats (SetValues; ITK: SetInputImage)",
           gpuSetupMs,
           -1,
           -1,
           itkSetupMs,
           cpuSetupMs,
           "");
  notes.push_back(std::string(table) + ": ITK and CPU-path lookups timed on " + std::to_string(sample) + " points" +
                  scaled);
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  const Options                  o = Parse(argc, argv);
  if (!o.ok)
  {
    return 2;
  }
  const std::vector<Case> cases =
    o.small ? std::vector<Case>{ { 4, 16, 65536, "16^4" }, { 5, 8, 100000, "10^5" }, { 6, 6, 10000, "10^4" } }
            : std::vector<Case>{ { 4, 64, 16777216, "64^4" }, { 5, 32, 10000000, "10^7" }, { 6, 16, 1000000, "10^6" } };
  const bool gpu = cif::IsGPUAvailable();
  double     copyGBps = -1;
  if (gpu)
  {
    const cif::DeviceInfo info = cif::GetDeviceInfo();
    copyGBps = cif_bench::MeasureCopyBandwidth(o.repeat);
    std::printf("Device: %s; copy bandwidth %.0f GB/s; ", info.name.c_str(), copyGBps);
  }
  else
  {
    std::printf("No usable CUDA device (%s): CPU columns only; ", cif::GetNoDeviceReason().c_str());
  }
  std::printf("host threads %u\n\n", itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads());
  std::printf(
    "| case | GPU (ms) | floor (ms) | of floor | CuPy map_coordinates (ms) | vs CuPy | ITK, all threads (ms) | "
    "vs ITK | this module's CPU path (ms) | seed 001 (ms, its hardware) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  std::vector<std::string> notes;
  try
  {
    for (const Case & c : cases)
    {
      switch (c.D)
      {
        case 4:
          RunCase<4>(c, o, copyGBps, notes);
          break;
        case 5:
          RunCase<5>(c, o, copyGBps, notes);
          break;
        default:
          RunCase<6>(c, o, copyGBps, notes);
          break;
      }
    }
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << "TableLookupBenchmark: " << e.GetDescription() << "\n";
    return 1;
  }
  std::printf("\nfloor: per lookup D doubles in and 8 B out (+ 8 D B of gradients), at the copy bandwidth; the 4^D "
              "coefficient gathers are not counted. GPU: EvaluateOnDevice, float coefficients, double results. CuPy: "
              "values only (float32 coefficients, float64 output), no gradients. ITK: BSplineInterpolateImageFunction "
              "(order 3) Evaluate / EvaluateValueAndDerivative. Seed 001: CPU with SSE and GPU of its thesis, single "
              "precision, 3 of 4 axes prefiltered; not measured here.\n");
  for (const auto & note : notes)
  {
    std::printf("- %s\n", note.c_str());
  }
  return 0;
}
