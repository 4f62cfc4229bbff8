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
#ifndef cifBenchmarkSupport_h
#define cifBenchmarkSupport_h

// Timing helpers shared by the benchmark programs.
#include "cifDeviceBuffer.h"
#include "itkAffineTransform.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <ctime>
#include <string>
#include <vector>

namespace cif_bench
{
/** A table cell: \a v printed with \a format, or "n/a" where it was not measured
 * (negative or NaN). */
/** The date a run's table carries (local time, YYYY-MM-DD). */
inline std::string
Today()
{
  const std::time_t now = std::time(nullptr);
  char              text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d", std::localtime(&now));
  return text;
}

inline std::string
Cell(double v, const char * format = "%.3f")
{
  if (!(v >= 0))
  {
    return "n/a";
  }
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, v);
  return buffer;
}

/** "12.3x": how many times faster ours is than a peer's time; "n/a" without both. */
inline std::string
Ratio(double peer, double ours)
{
  return peer > 0 && ours > 0 ? Cell(peer / ours, "%.1fx") : "n/a";
}

inline double
Median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/** Median CUDA-event time of \a f over \a repeat runs after one warm-up. */
template <typename F>
double
DeviceMilliseconds(int repeat, F && f)
{
  cif::DeviceTimer    timer;
  std::vector<double> t;
  f();
  cif::Synchronize();
  for (int r = 0; r < repeat; ++r)
  {
    timer.Start();
    f();
    t.push_back(timer.StopMilliseconds());
  }
  return Median(t);
}

template <typename F>
double
WallMilliseconds(F && f)
{
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}
/** Runs the CuPy peer \a script (--cupy: Testing/Benchmark/cupy_peer.py) for \a sizes and returns
 * its "key: value" lines; empty when CuPy is missing or no script is given. */
inline std::map<std::string, std::string>
RunCuPy(const std::string & script, const std::vector<long> & sizes, int repeat)
{
  std::map<std::string, std::string> rows;
  if (script.empty())
  {
    return rows;
  }
  std::string command = "python3 " + script + " --repeat " + std::to_string(repeat) + " --sizes";
  for (long n : sizes)
  {
    command += " " + std::to_string(n);
  }
  FILE * pipe = popen((command + " 2>&1").c_str(), "r");
  char   line[512];
  while (pipe && fgets(line, sizeof(line), pipe))
  {
    std::string s(line);
    const auto  colon = s.find(": ");
    if (colon != std::string::npos)
    {
      rows[s.substr(0, colon)] = s.substr(colon + 2, s.find_last_not_of("\r\n") - colon - 1);
    }
  }
  if (pipe)
  {
    pclose(pipe);
  }
  return rows;
}

/** Command line shared by the benchmark programs. */
struct Options
{
  std::vector<long> sizes{ 256, 512 };
  int               repeat = 10;
  long              itkMax = 256;
  std::string       cupyScript;
  bool              ok = true;
};

/** Parses [--sizes N...] [--repeat R] [--cupy script] [--itk-max N]; prints the usage
 * and sets ok = false on anything else. */
inline Options
ParseOptions(int argc, char * argv[], const char * program, long defaultItkMax)
{
  Options           o;
  std::vector<long> sizes;
  o.itkMax = defaultItkMax;
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
    else if (a == "--itk-max" && i + 1 < argc)
    {
      o.itkMax = std::atol(argv[++i]);
    }
    else if (a == "--sizes")
    {
      while (i + 1 < argc && argv[i + 1][0] != '-')
      {
        sizes.push_back(std::atol(argv[++i]));
      }
    }
    else
    {
      std::fprintf(stderr,
                   "usage: %s [--sizes N...] [--repeat R] [--cupy Testing/Benchmark/cupy_peer.py] [--itk-max N]\n",
                   program);
      o.ok = false;
    }
  }
  if (!sizes.empty())
  {
    o.sizes = sizes;
  }
  return o;
}

/** The device's copy bandwidth: a 1 GiB device-to-device copy, read + written bytes
 * per second (GB/s), median of \a repeat. */
inline double
MeasureCopyBandwidth(int repeat)
{
  const std::size_t bytes = std::size_t(1) << 30;
  cif::DeviceBuffer a(bytes), b(bytes);
  const double      ms = DeviceMilliseconds(repeat, [&] { cif::CopyDeviceToDevice(b.Data(), a.Data(), bytes); });
  return 2.0 * bytes / (ms * 1e-3) / 1e9;
}
/** The host-transfer and large-data benchmarks' affine for an n^3 volume: a turn by
 * 0.1 rad about y and a 2% enlargement, about the volume's centre. */
inline itk::AffineTransform<double, 3>::Pointer
TurnAndEnlarge(long n)
{
  auto                                            affine = itk::AffineTransform<double, 3>::New();
  itk::AffineTransform<double, 3>::InputPointType centre;
  centre.Fill(0.5 * (n - 1));
  affine->SetCenter(centre);
  affine->Rotate(0, 1, 0.1);
  affine->Scale(1.02);
  return affine;
}
} // namespace cif_bench

#endif
