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
// Seed 001's experiment: a smooth function of 4 variables tabulated on a 64^4 grid
// and looked up at 64^4 random points by cubic B-spline interpolation
// (CubicBSplineTable: every axis prefiltered, the lookups batched). Prints the error
// of the lookups against the function itself, over all points and over the central
// half of every axis, and the times, beside the seed's own figures.
//
// The two errors differ by orders of magnitude: ITK's mirror boundary continues the
// samples symmetrically about each edge, which puts a kink there wherever the
// function has a slope; within a few samples of an edge that costs an error of
// order h (it decays by |z| = 0.27 per sample inward), in the centre the error is
// cubic interpolation's, of order h^4.
//
//   TableLookupExample [--size N (default 64)] [--lookups M (default N^4)] [--double] [--cpu]
//
// Exits 1 on a non-finite result, or (tables of 16 samples per axis or more, whose
// centre the edges no longer reach) where the central error exceeds 0.2 h^2: about a
// sixth of what skipping the prefilter on the last axis, the seed's flaw, costs this
// function (measured with the module's own line filter: 5.3e-3 at 16^4, 3.0e-4 at
// 64^4, against 2.6e-4 and 4.9e-7 with every axis), so a small run (--size 16) is a
// test that tells the two apart.
#include "cifITKPoolParking.h"
#include "cifCudaRuntime.h"
#include "cifExampleTiming.h"
#include "itkCubicBSplineTable.h"
#include "itkMultiThreaderBase.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace
{
using cif_example::Milliseconds;

/** The tabulated function on [0, 1]^4: a Gaussian bump times a plane wave, smooth,
 * values in [-1, 1], with slopes at the table's edges. */
double
Function(const double x[4])
{
  const double c[4] = { 0.4, 0.5, 0.6, 0.45 };
  double       r2 = 0;
  for (int a = 0; a < 4; ++a)
  {
    r2 += (x[a] - c[a]) * (x[a] - c[a]);
  }
  return std::exp(-2.0 * r2) * std::cos(3.0 * x[0] - 2.0 * x[1] + x[2] + 2.0 * x[3]);
}

struct Options
{
  long n = 64;
  long lookups = -1;
  bool useDouble = false;
  bool useGPU = true;
};

template <typename TCoefficient>
int
Run(const Options & o)
{
  const long         n = o.n;
  const std::int64_t samples = static_cast<std::int64_t>(n) * n * n * n;
  const std::int64_t lookups = o.lookups > 0 ? o.lookups : samples;
  const double       h = 1.0 / (n - 1);

  auto table = itk::CubicBSplineTable<TCoefficient>::New();
  table->SetUseGPU(o.useGPU);
  table->SetSize({ static_cast<itk::SizeValueType>(n),
                   static_cast<itk::SizeValueType>(n),
                   static_cast<itk::SizeValueType>(n),
                   static_cast<itk::SizeValueType>(n) });
  table->SetSpacing({ h, h, h, h }); // origin 0: the table spans [0, 1]^4

  std::vector<float> values(static_cast<std::size_t>(samples));
  for (std::int64_t s = 0; s < samples; ++s)
  {
    const double x[4] = { (s % n) * h, (s / n % n) * h, (s / n / n % n) * h, (s / n / n / n) * h };
    values[s] = static_cast<float>(Function(x)); // a table of floats, as the seed's
  }
  const double setupMs = Milliseconds([&] { table->SetValues(values); });

  std::mt19937                           rng(2024);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double>                    points(static_cast<std::size_t>(4 * lookups)), results;
  for (auto & p : points)
  {
    p = u(rng);
  }
  const double lookupMs = Milliseconds([&] { table->Evaluate(points, results); });
  double       onDeviceMs = -1;
  if (table->GetCoefficientsOnDevice())
  {
    // the same lookups with the points already on the device and the values left there
    cif::DeviceBuffer p(points.size() * sizeof(double)), v(static_cast<std::size_t>(lookups) * sizeof(double));
    p.Upload(points.data(), p.Bytes());
    table->EvaluateOnDevice(p.As<const double>(), lookups, v.As<double>()); // warm-up
    cif::Synchronize();
    onDeviceMs = Milliseconds([&] {
      table->EvaluateOnDevice(p.As<const double>(), lookups, v.As<double>());
      cif::Synchronize();
    });
  }

  // Errors against the function: over all points, and over the central half of
  // every axis, where the kink that the mirror boundary puts at each edge (the
  // function has slopes there) has decayed by 0.27 per sample: n/4 samples in.
  double maxAll = 0, sumAll = 0, maxCentral = 0;
  long   central = 0;
  for (std::int64_t i = 0; i < lookups; ++i)
  {
    const double * x = &points[4 * i];
    const double   e = std::fabs(results[i] - Function(x));
    maxAll = std::max(maxAll, e);
    sumAll += e * e;
    bool inside = true;
    for (int a = 0; a < 4; ++a)
    {
      inside = inside && x[a] >= 0.25 && x[a] <= 0.75;
    }
    if (inside)
    {
      maxCentral = std::max(maxCentral, e);
      ++central;
    }
  }
  const double bound = 0.2 * h * h;
  std::printf("table %ld^4 = %lld %s coefficients (%s), %lld random lookups\n",
              n,
              static_cast<long long>(samples),
              sizeof(TCoefficient) == 4 ? "float" : "double",
              table->GetCoefficientsOnDevice() ? "on the GPU" : "CPU path",
              static_cast<long long>(lookups));
  std::printf("error against the function: max %.3g, rms %.3g over all points (the largest within a few samples "
              "of an edge: the mirror boundary); max %.3g over the %ld points in the central half of every axis "
              "(check: below 0.2 h^2 = %.3g%s)\n",
              maxAll,
              std::sqrt(sumAll / lookups),
              maxCentral,
              central,
              bound,
              n < 16 ? ", not applied below 16^4" : "");
  std::printf("time: coefficients (upload + prefilter of every axis) %.1f ms; lookups %.1f ms (points from and "
              "values to host memory)",
              setupMs,
              lookupMs);
  if (onDeviceMs >= 0)
  {
    std::printf("; %.1f ms with points and values in device memory", onDeviceMs);
  }
  std::printf("\nseed 001 (thesis, 64^4 table, 64^4 lookups, single precision, its own hardware): CPU with SSE "
              "5324 ms, GPU 1227 ms; it prefiltered only 3 of the 4 axes\n");
  if (!std::isfinite(maxAll) || (n >= 16 && !(maxCentral <= bound)))
  {
    std::printf("FAILED: %s\n", std::isfinite(maxAll) ? "the central error exceeds 0.2 h^2" : "non-finite results");
    return 1;
  }
  return 0;
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  Options                        o;
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    if (a == "--size" && i + 1 < argc)
    {
      o.n = std::atol(argv[++i]);
    }
    else if (a == "--lookups" && i + 1 < argc)
    {
      o.lookups = std::atol(argv[++i]);
    }
    else if (a == "--double")
    {
      o.useDouble = true;
    }
    else if (a == "--cpu")
    {
      o.useGPU = false;
    }
    else
    {
      std::cerr << "usage: TableLookupExample [--size N (8..256, default 64)] [--lookups M (default N^4)] "
                   "[--double] [--cpu]\n";
      return 2;
    }
  }
  if (o.n < 8 || o.n > 256)
  {
    std::cerr << "TableLookupExample: --size must be 8..256\n";
    return 2;
  }
  std::printf("TableLookupExample: seed 001's experiment, a smooth 4-D function tabulated on %ld^4 samples and "
              "looked up by cubic B-spline interpolation at random points (CubicBSplineTable), error and time\n",
              o.n);
  if (o.useGPU && !cif::IsGPUAvailable())
  {
    std::printf("no usable CUDA device (%s): the CPU path, on %u threads\n",
                cif::GetNoDeviceReason().c_str(),
                itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads());
  }
  try
  {
    return o.useDouble ? Run<double>(o) : Run<float>(o);
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << "TableLookupExample: " << e.GetDescription() << "\n";
    return 1;
  }
}
