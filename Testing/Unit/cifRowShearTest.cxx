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
// The assignment of output voxels to the resampling kernels' threads (cifRowShear.h):
// on the linear path the lanes lie along the output axis closest to the input's rows,
// the slope follows the input's rows, and every output voxel is taken exactly once, in
// 2-D and 3-D, for turns below and beyond 45 degrees; the one-thread-per-voxel kernel
// runs its threads across the rows only where that crosses clearly fewer input rows,
// and takes every voxel once.
#include "cifRowShear.h"
#include "cifRowTurnTestSupport.h"
#include "cifTestHelpers.h"

#include <array>
#include <cmath>
#include <vector>

namespace
{
struct Expected
{
  double angle;
  int    p, q;  // the plane turned
  int    lane;  // laneAxis
  int    walk;  // walkAxis
  double slope; // walk positions per lane position along which the input's row stays
};

TEST(RowShear, LanesFollowTheInputRowsAndTheSlopeKeepsThem)
{
  const std::array<std::int64_t, 3> size = { 300, 40, 30 };
  const double                      halfTurn = 1.5707963267948966;
  // 2-D: input y = sin(a) x + cos(a) y. Below 45 degrees the lanes lie along x and
  // input y stays put along y = -tan(a) x; beyond, along y, with x = -y / tan(a).
  for (const Expected & e : { Expected{ -0.7, 0, 1, 0, 1, -std::tan(-0.7) },
                              Expected{ 0.0, 0, 1, 0, 1, 0.0 },
                              Expected{ 0.1, 0, 1, 0, 1, -std::tan(0.1) },
                              Expected{ 0.7, 0, 1, 0, 1, -std::tan(0.7) },
                              Expected{ 0.9, 0, 1, 1, 0, -1 / std::tan(0.9) },
                              Expected{ -1.2, 0, 1, 1, 0, -1 / std::tan(-1.2) },
                              Expected{ halfTurn, 0, 1, 1, 0, 0.0 } })
  {
    cif::ResampleGeometry g;
    cif::TransformChain   chain;
    cif_test::MakeTurn<2>(size, e.p, e.q, e.angle, 1, 2, 0.0, 1.0, -1, g, chain);
    const cif::RowShear shear = cif::MakeRowShear<2>(g, chain);
    EXPECT_EQ(shear.laneAxis, e.lane) << "2-D, angle " << e.angle;
    EXPECT_EQ(shear.walkAxis, e.walk) << "2-D, angle " << e.angle;
    EXPECT_NEAR(shear.slope, e.slope, 1e-12) << "2-D, angle " << e.angle;
  }
  // 3-D: a turn in the x-z plane, input z = sin(a) x + cos(a) z: below 45 degrees the
  // lanes lie along x and walk along z (z = -tan(a) x keeps the row); beyond, along z,
  // walking along x. A turn in y-z leaves the lanes along x, walking along y.
  for (const Expected & e : { Expected{ 0.5, 0, 2, 0, 2, -std::tan(0.5) },
                              Expected{ 1.2, 0, 2, 2, 0, -1 / std::tan(1.2) },
                              Expected{ -halfTurn, 0, 2, 2, 0, 0.0 },
                              Expected{ 0.4, 0, 1, 0, 1, -std::tan(0.4) },
                              Expected{ 1.1, 0, 1, 1, 0, -1 / std::tan(1.1) },
                              Expected{ 0.8, 1, 2, 0, 1, 0.0 } })
  {
    cif::ResampleGeometry g;
    cif::TransformChain   chain;
    cif_test::MakeTurn<3>(size, e.p, e.q, e.angle, 1, 2, 0.0, 1.0, -1, g, chain);
    const cif::RowShear shear = cif::MakeRowShear<3>(g, chain);
    EXPECT_EQ(shear.laneAxis, e.lane) << "3-D, plane " << e.p << e.q << ", angle " << e.angle;
    EXPECT_EQ(shear.walkAxis, e.walk) << "3-D, plane " << e.p << e.q << ", angle " << e.angle;
    EXPECT_EQ(shear.sheetAxis, 3 - e.lane - e.walk) << "3-D, plane " << e.p << e.q << ", angle " << e.angle;
    EXPECT_NEAR(shear.slope, e.slope, 1e-12) << "3-D, plane " << e.p << e.q << ", angle " << e.angle;
  }
}

/** Every voxel of \a g is visited once by the kernel's enumeration: sheet s, sheared
 * position j, lane coordinate l -> lane axis l, walk axis j - before + Shift(l). */
template <int D>
void
ExpectEveryVoxelTakenOnce(const cif::ResampleGeometry & g, const cif::RowShear & shear, const std::string & what)
{
  const std::int64_t size[3] = { g.outputSize[0], g.outputSize[1], D == 3 ? g.outputSize[2] : 1 };
  const int          sheetAxis = D == 3 ? shear.sheetAxis : 2;
  std::vector<int>   taken(static_cast<std::size_t>(size[0] * size[1] * size[2]), 0);
  for (std::int64_t s = 0; s < size[sheetAxis]; ++s)
  {
    for (std::int64_t j = 0; j < shear.walkLength; ++j)
    {
      for (std::int64_t l = 0; l < size[shear.laneAxis]; ++l)
      {
        std::int64_t at[3];
        at[sheetAxis] = s;
        at[shear.laneAxis] = l;
        at[shear.walkAxis] = j - shear.before + cif::ShiftOf(shear, l);
        if (at[shear.walkAxis] >= 0 && at[shear.walkAxis] < size[shear.walkAxis])
        {
          ++taken[static_cast<std::size_t>((at[2] * size[1] + at[1]) * size[0] + at[0])];
        }
      }
    }
  }
  for (std::size_t i = 0; i < taken.size(); ++i)
  {
    ASSERT_EQ(taken[i], 1) << what << ", voxel " << i;
  }
  // and a kernel block's shared memory holds every walk position its lanes touch
  for (const int lanes : { 32, 64, 256 })
  {
    for (std::int64_t first = 0; first < size[shear.laneAxis]; first += lanes)
    {
      const std::int64_t last = std::min<std::int64_t>(first + lanes, size[shear.laneAxis]) - 1;
      const std::int64_t spread = std::abs(cif::ShiftOf(shear, last) - cif::ShiftOf(shear, first));
      EXPECT_LE(32 + spread, cif::RowsTouched(shear, 32, lanes)) << what << ", " << lanes;
    }
  }
}

TEST(RowShear, TakesEveryOutputVoxelExactlyOnce)
{
  for (const double angle : { -0.6, -0.05, 0.0, 0.2, 0.75, 0.95, -1.3, 1.5707963267948966, 2.5 })
  {
    cif::ResampleGeometry g;
    cif::TransformChain   chain;
    cif_test::MakeTurn<2>({ 517, 83, 1 }, 0, 1, angle, 1, 2, 0.0, 1.0, -1, g, chain);
    ExpectEveryVoxelTakenOnce<2>(g, cif::MakeRowShear<2>(g, chain), "2-D, angle " + std::to_string(angle));
    for (const auto & plane : { std::array<int, 2>{ 0, 1 }, std::array<int, 2>{ 0, 2 }, std::array<int, 2>{ 1, 2 } })
    {
      cif::ResampleGeometry g3;
      cif::TransformChain   chain3;
      cif_test::MakeTurn<3>({ 77, 45, 39 }, plane[0], plane[1], angle, 1, 2, 0.0, 1.0, -1, g3, chain3);
      ExpectEveryVoxelTakenOnce<3>(g3,
                                   cif::MakeRowShear<3>(g3, chain3),
                                   "3-D, plane " + std::to_string(plane[0]) + std::to_string(plane[1]) + ", angle " +
                                     std::to_string(angle));
    }
  }
}

TEST(VoxelLaneAxis, CrossesTheFewestInputRows)
{
  const double degree = 3.14159265358979323846 / 180;
  struct Turn
  {
    double angle;
    int    p, q, lane;
  };
  for (const Turn & t : { Turn{ 6, 0, 1, 0 },
                          Turn{ 46, 0, 1, 0 },
                          Turn{ 60, 0, 1, 1 },
                          Turn{ 90, 0, 1, 1 },
                          Turn{ -120, 0, 1, 1 },
                          Turn{ 30, 0, 2, 0 },
                          Turn{ 90, 0, 2, 2 },
                          Turn{ 90, 1, 2, 0 } })
  {
    cif::ResampleGeometry g;
    cif::TransformChain   chain;
    cif_test::MakeTurn<3>({ 40, 30, 20 }, t.p, t.q, t.angle * degree, 1, 2, 0.0, 1.0, -1, g, chain);
    // a grid transform after the turn counts as the identity
    chain.count = 2;
    chain.stage[1].kind = cif::TransformKind::BSpline;
    EXPECT_EQ(cif::VoxelLaneAxis<3>(g, chain), t.lane) << t.angle << " degrees in plane " << t.p << t.q;
  }
  cif::ResampleGeometry flat;
  cif::TransformChain   quarter;
  cif_test::MakeTurn<3>({ 40, 30, 1 }, 0, 2, 90 * degree, 1, 2, 0.0, 1.0, -1, flat, quarter);
  EXPECT_EQ(cif::VoxelLaneAxis<3>(flat, quarter), 0) << "no lanes along an axis one voxel long";
}

TEST(VoxelLaneAxis, EveryVoxelTakenOnce)
{
  for (const int dimension : { 2, 3 })
  {
    for (const int lane : { 0, 1, 2 })
    {
      if (lane >= dimension)
      {
        continue;
      }
      cif::ResampleGeometry g;
      g.outputSize[0] = 13;
      g.outputSize[1] = 7;
      g.outputSize[2] = dimension == 3 ? 5 : 1;
      std::vector<int> taken(static_cast<std::size_t>(g.OutputCount()), 0);
      for (std::int64_t i = 0; i < g.OutputCount(); ++i)
      {
        const std::int64_t voxel =
          dimension == 3 ? cif::VoxelOfThread<3>(g, lane, i) : cif::VoxelOfThread<2>(g, lane, i);
        ASSERT_TRUE(voxel >= 0 && voxel < g.OutputCount()) << dimension << "-D, lane axis " << lane << ", thread " << i;
        ++taken[static_cast<std::size_t>(voxel)];
        if (i + 1 < g.outputSize[lane]) // the first threads run along the lane axis
        {
          const std::int64_t stride = lane == 0 ? 1 : (lane == 1 ? 13 : 13 * 7);
          EXPECT_EQ(voxel, i * stride) << dimension << "-D, lane axis " << lane;
        }
      }
      for (std::size_t v = 0; v < taken.size(); ++v)
      {
        ASSERT_EQ(taken[v], 1) << dimension << "-D, lane axis " << lane << ", voxel " << v;
      }
    }
  }
}
} // namespace
