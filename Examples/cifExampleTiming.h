#ifndef cifExampleTiming_h
#define cifExampleTiming_h

#include <chrono>

namespace cif_example
{
/** Wall-clock milliseconds that \a f takes: the examples print what their steps cost. */
template <typename F>
double
Milliseconds(F && f)
{
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}
} // namespace cif_example

#endif
