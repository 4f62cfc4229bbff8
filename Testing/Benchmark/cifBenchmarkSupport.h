#ifndef cifBenchmarkSupport_h
#define cifBenchmarkSupport_h

// Timing helpers shared by the benchmark programs.
#include "cifDeviceBuffer.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace cif_bench
{
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
} // namespace cif_bench

#endif
