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
// Convergence of CubicBSplineTable lookups: a smooth analytic function tabulated at
// spacing h and looked up at random points must be approximated to O(h^4), the
// order of cubic spline interpolation. The order is measured from three spacings
// (the least-squares slope of log max error against log h) in 4-D, 5-D and 6-D.
//
// The function, f(x) = sin(1 + sum_a c_a cos(pi x_a)) on [0, 1]^D, is even about
// both ends of every axis, as the table's boundary (ITK's mirror) continues it: its
// mirrored continuation is as smooth as f, so the h^4 holds up to the edges and the
// random points may fall anywhere in the table. (For a function with a slope at an
// end, the mirror adds a kink there, and an error of order h that decays by
// |z| = 0.27 per sample into the table: a property of the boundary condition, not
// of the interpolation, and not what this test measures.)
#include "cifTestHelpers.h"
#include "itkCubicBSplineTable.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace
{
using namespace cif_test;

struct Smooth
{
  static constexpr double pi = 3.14159265358979323846;
  double                  c[6] = { 0.6, 0.5, 0.45, 0.4, 0.35, 0.3 };

  double
  Value(const double * x, unsigned int D) const
  {
    double s = 1.0;
    for (unsigned int a = 0; a < D; ++a)
    {
      s += c[a] * std::cos(pi * x[a]);
    }
    return std::sin(s);
  }
};

/** Max |table - f| over \a points random points of [0, 1]^D, for a table of n^D
 * samples of f (spacing 1 / (n - 1)). */
template <typename TCoefficient>
double
MaxError(unsigned int D, unsigned int n, bool useGPU, std::uint32_t seed, std::size_t points = 4000)
{
  const Smooth f;
  const double h = 1.0 / (n - 1);
  auto         table = itk::CubicBSplineTable<TCoefficient>::New();
  table->SetUseGPU(useGPU);
  table->SetSize(itk::CubicBSplineTable<>::SizeType(D, n));
  table->SetSpacing(std::vector<double>(D, h));
  // the samples, axis 0 fastest: f is a sum of per-axis cosines inside a sine
  std::vector<double> cosines(D * n);
  for (unsigned int a = 0; a < D; ++a)
  {
    for (unsigned int i = 0; i < n; ++i)
    {
      cosines[a * n + i] = f.c[a] * std::cos(Smooth::pi * i * h);
    }
  }
  std::int64_t count = 1;
  for (unsigned int a = 0; a < D; ++a)
  {
    count *= n;
  }
  std::vector<double> samples(static_cast<std::size_t>(count));
  for (std::int64_t s = 0; s < count; ++s)
  {
    double       sum = 1.0;
    std::int64_t rest = s;
    for (unsigned int a = 0; a < D; ++a)
    {
      sum += cosines[a * n + static_cast<unsigned int>(rest % n)];
      rest /= n;
    }
    samples[s] = std::sin(sum);
  }
  table->SetValues(samples);

  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double>                    x(points * D), values;
  for (auto & v : x)
  {
    v = u(rng);
  }
  table->Evaluate(x, values);
  double worst = 0;
  for (std::size_t i = 0; i < points; ++i)
  {
    worst = std::max(worst, std::fabs(values[i] - f.Value(&x[D * i], D)));
  }
  return worst;
}

/** The least-squares slope of log(error) against log(h) over three table sizes. */
template <typename TCoefficient>
void
CheckOrder(unsigned int D, const unsigned int (&n)[3], bool useGPU)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << D << "-D, " << (useGPU ? "GPU" : "CPU") << ", seed " << seed);
  double logH[3], logE[3];
  for (int s = 0; s < 3; ++s)
  {
    const double error = MaxError<TCoefficient>(D, n[s], useGPU, seed + s);
    ASSERT_GT(error, 0.0);
    logH[s] = std::log(1.0 / (n[s] - 1));
    logE[s] = std::log(error);
    std::printf(
      "  %u-D %s: %u^%u samples, h = 1/%u: max error %.3e\n", D, useGPU ? "GPU" : "CPU", n[s], D, n[s] - 1, error);
  }
  const double meanH = (logH[0] + logH[1] + logH[2]) / 3, meanE = (logE[0] + logE[1] + logE[2]) / 3;
  double       sxy = 0, sxx = 0;
  for (int s = 0; s < 3; ++s)
  {
    sxy += (logH[s] - meanH) * (logE[s] - meanE);
    sxx += (logH[s] - meanH) * (logH[s] - meanH);
  }
  const double order = sxy / sxx;
  std::printf("  %u-D %s: measured order %.2f (pairwise %.2f, %.2f)\n",
              D,
              useGPU ? "GPU" : "CPU",
              order,
              (logE[1] - logE[0]) / (logH[1] - logH[0]),
              (logE[2] - logE[1]) / (logH[2] - logH[1]));
  EXPECT_GE(order, 3.5) << "the max error should fall as h^4";
}

// Double coefficients: the errors at the finest spacing (1e-6 to 5e-5) stay far above
// double rounding, so the slope is the interpolation's alone. Measured on the CPU
// path, 25 runs: orders 3.98-4.24 (4-D), 4.06-4.53 (5-D), 4.22-4.69 (6-D; its
// coarsest table, h = 1/5, is not quite in the asymptotic range yet).
TEST(CubicBSplineTableCPU, ErrorFallsAsH4In4D) { CheckOrder<double>(4, { 9, 17, 33 }, false); }
TEST(CubicBSplineTableCPU, ErrorFallsAsH4In5D) { CheckOrder<double>(5, { 7, 13, 19 }, false); }
TEST(CubicBSplineTableCPU, ErrorFallsAsH4In6D) { CheckOrder<double>(6, { 6, 9, 13 }, false); }
TEST(CubicBSplineTableGPU, ErrorFallsAsH4)
{
  CIF_REQUIRE_GPU();
  CheckOrder<double>(4, { 9, 17, 33 }, true);
  CheckOrder<double>(5, { 7, 13, 19 }, true);
  CheckOrder<double>(6, { 6, 9, 13 }, true);
}
} // namespace
