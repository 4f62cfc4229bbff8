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
// The resampling kernels compute the voxels at the input's faces with
// EvaluateCubicMirrored32 (cifCubicInterpolation.h), a 32-bit rewrite of ITK's mirrored
// sum: it must give EvaluateCubicIndexed's bits for every point inside the buffer,
// on grids of 1 to 9 samples per axis that start anywhere, in 1-D to 4-D, for float
// and double coefficients, at random, integer and half-integer positions.
#include "cifCubicInterpolation.h"
#include "cifTestHelpers.h"

#include <cstring>
#include <random>
#include <vector>

namespace
{
template <int D, typename T>
void
ExpectSameBitsAsTheIndexedSum(std::mt19937 & rng, std::int64_t & straddling, std::int64_t & compared)
{
  std::uniform_int_distribution<int>     size(1, 9), start(-5, 5), pick(0, 3);
  std::uniform_real_distribution<double> unit(0.0, 1.0), value(-3.0, 3.0);
  for (int trial = 0; trial < 40; ++trial)
  {
    cif::CoefficientGrid grid;
    std::int64_t         count = 1;
    for (int a = 0; a < D; ++a)
    {
      grid.size[a] = size(rng);
      grid.start[a] = start(rng);
      count *= grid.size[a];
    }
    ASSERT_TRUE(cif::SupportFits32(grid));
    std::vector<T> c(static_cast<std::size_t>(count));
    for (T & v : c)
    {
      v = static_cast<T>(value(rng));
    }
    for (int point = 0; point < 200; ++point)
    {
      double x[cif::kMaxDimension] = { 0, 0, 0, 0 };
      for (int a = 0; a < D; ++a)
      {
        // inside the buffer: [start - 1/2, start + size - 1/2); a quarter of the time
        // on an integer, a quarter on a half-integer (the support's and the mirror's
        // edges), else anywhere
        const double low = static_cast<double>(grid.start[a]) - 0.5;
        const double n = static_cast<double>(grid.size[a]);
        switch (pick(rng))
        {
          case 0:
            x[a] = static_cast<double>(grid.start[a] + static_cast<std::int64_t>(unit(rng) * n));
            break;
          case 1:
            x[a] = low + static_cast<double>(static_cast<std::int64_t>(unit(rng) * n));
            break;
          default:
            x[a] = low + unit(rng) * n;
        }
      }
      std::int32_t first[cif::kMaxDimension];
      float        w[cif::kMaxDimension][4];
      straddling += !cif::CubicSupport32<D, float, true>(grid, x, first, w);
      const double expected = cif::EvaluateCubicIndexed<D, std::int32_t>(c.data(), grid, x, nullptr);
      const double actual = cif::EvaluateCubicMirrored32<D>(c.data(), grid, x);
      ASSERT_EQ(std::memcmp(&expected, &actual, sizeof(double)), 0)
        << D << "-D, grid " << grid.size[0] << "x" << grid.size[1] << "x" << grid.size[2] << "x" << grid.size[3]
        << " from " << grid.start[0] << "," << grid.start[1] << ", x = " << x[0] << ", " << x[1] << ", " << x[2] << ", "
        << x[3] << ": " << expected << " vs " << actual;
      ++compared;
    }
  }
}
} // namespace

TEST(CubicMirrored, GivesTheIndexedSumsBitsInsideTheBuffer)
{
  std::mt19937 rng(1125);
  std::int64_t straddling = 0, compared = 0;
  ExpectSameBitsAsTheIndexedSum<1, float>(rng, straddling, compared);
  ExpectSameBitsAsTheIndexedSum<2, float>(rng, straddling, compared);
  ExpectSameBitsAsTheIndexedSum<3, float>(rng, straddling, compared);
  ExpectSameBitsAsTheIndexedSum<4, float>(rng, straddling, compared);
  ExpectSameBitsAsTheIndexedSum<2, double>(rng, straddling, compared);
  ExpectSameBitsAsTheIndexedSum<3, double>(rng, straddling, compared);
  EXPECT_EQ(compared, 6 * 40 * 200);
  EXPECT_GT(straddling, compared / 2) << "small grids: most supports should reach past a face";
}
