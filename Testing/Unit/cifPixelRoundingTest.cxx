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
// cif::RoundToPixelType: a double rounded to float comes back as that float, also in
// the pattern that GCC 12.2's SLP vectorizer miscompiled (two round trips stored next
// to each other in a struct, returned from a function of their own); double is kept.
#include "cifPixelRounding.h"
#include "cifTestHelpers.h"

#include <gtest/gtest.h>

#include <random>

#if defined(__GNUC__) || defined(__clang__)
#  define CIF_TEST_NOINLINE __attribute__((noinline))
#else
#  define CIF_TEST_NOINLINE
#endif

namespace
{
struct TwoSamples
{
  bool   valid = false;
  double first = 0.0;
  double second = 0.0;
};

/** The shape of cif::SampleMetricPointThrough's ending (not inlined into the test,
 * as there it is a function of its own). */
template <typename TPixel>
CIF_TEST_NOINLINE TwoSamples
RoundBoth(double a, double b)
{
  TwoSamples s;
  s.first = cif::RoundToPixelType<TPixel>(a);
  s.second = cif::RoundToPixelType<TPixel>(b);
  s.valid = true;
  return s;
}

/** The float nearest \a v, through memory (volatile: no folding). */
double
NearestFloat(double v)
{
  volatile float f = static_cast<float>(v);
  return static_cast<double>(f);
}

TEST(PixelRounding, FloatRoundTripsAreRoundedInPairs)
{
  const std::uint32_t seed = cif_test::FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> u(-1000.0, 1000.0);
  int                                    notFloat = 0;
  for (int k = 0; k < 1000; ++k)
  {
    const double     a = u(rng), b = u(rng);
    const TwoSamples s = RoundBoth<float>(a, b);
    ASSERT_EQ(s.first, NearestFloat(a)) << a;
    ASSERT_EQ(s.second, NearestFloat(b)) << b;
    notFloat += (NearestFloat(a) != a) + (NearestFloat(b) != b);
  }
  // The inputs are doubles that floats do not hold, so a dropped rounding shows.
  EXPECT_GT(notFloat, 1900);
}

TEST(PixelRounding, DoubleIsKept)
{
  const std::uint32_t seed = cif_test::FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> u(-1000.0, 1000.0);
  for (int k = 0; k < 1000; ++k)
  {
    const double     a = u(rng), b = u(rng);
    const TwoSamples s = RoundBoth<double>(a, b);
    ASSERT_EQ(s.first, a);
    ASSERT_EQ(s.second, b);
  }
}
} // namespace
