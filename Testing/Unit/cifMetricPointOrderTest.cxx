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
// The GPU's grouping of a point set by B-spline cell (BuildMetricPointOrderOnDevice)
// against the host's (BuildMetricPointOrder): the same order, items and item table,
// exactly, for point sets that one block groups (up to 8192 points) and for the
// general path beyond, with points outside the grid's valid region and cells of more
// than one work item. The metric's sums are reduced in this order, so any difference
// would change their bits. Also the chunks of control planes in which a dense
// evaluation's coefficients reach the device (cifControlPlaneArrival.h).
#include "cifDeviceBuffer.h"
#include "cifMetricPointOrder.h"
#include "cifMetricSumsDevice.h"
#include "cifTestHelpers.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace
{
/** A B-spline stage whose valid region ([1, size - 2) in grid index) covers physical
 * [0, 100) along every axis, with a random rotation-free affine stage before it. */
template <int D>
cif::MetricMovingTransform
RandomGridTransform(std::int64_t gridSize, std::mt19937 & random)
{
  std::uniform_real_distribution<double> small(-0.02, 0.02);
  cif::MetricMovingTransform             t;
  t.kind = cif::OptimizedStageKind::BSpline;
  t.bspline.kind = cif::TransformKind::BSpline;
  for (int a = 0; a < 3; ++a)
  {
    t.bspline.gridSize[a] = a < D ? gridSize : 1;
    const double scale = static_cast<double>(gridSize - 3) / 100.0; // physical 0 -> index 1
    t.bspline.gridPointToIndex[a][a] = a < D ? scale : 1.0;
    t.bspline.gridOrigin[a] = a < D ? -1.0 / scale : 0.0;
    for (int b = 0; b < D; ++b)
    {
      t.before.matrix[a][b] = (a == b ? 1.0 : 0.0) + (a < D ? small(random) : 0.0);
    }
    t.before.offset[a] = a < D ? 20.0 * small(random) : 0.0;
  }
  return t;
}

/** \a count points: 60 % uniform over [-5, 105) (some outside the valid region), 40 %
 * in one small cube (one cell of more than kMetricItemPoints points where count is
 * large enough). */
template <int D>
std::vector<double>
RandomPoints(std::int64_t count, std::mt19937 & random)
{
  std::uniform_real_distribution<double> anywhere(-5.0, 105.0), cluster(41.0, 41.5);
  std::vector<double>                    points(static_cast<std::size_t>(count * D));
  for (std::int64_t n = 0; n < count; ++n)
  {
    const bool clustered = n % 5 >= 3;
    for (int a = 0; a < D; ++a)
    {
      points[static_cast<std::size_t>(n * D + a)] = clustered ? cluster(random) : anywhere(random);
    }
  }
  return points;
}

template <int D>
void
ExpectDeviceOrderIsTheHosts(std::int64_t count, std::int64_t gridSize, std::mt19937 & random)
{
  SCOPED_TRACE(std::to_string(D) + "-D, " + std::to_string(count) + " points, grid " + std::to_string(gridSize));
  const cif::MetricMovingTransform transform = RandomGridTransform<D>(gridSize, random);
  const std::vector<double>        points = RandomPoints<D>(count, random);

  cif::MetricScene<float> hostScene;
  hostScene.domain.points = points.data();
  hostScene.domain.count = count;
  const auto serial = [](std::int64_t n, const auto & body) {
    for (std::int64_t i = 0; i < n; ++i)
    {
      body(i);
    }
  };
  const cif::MetricPointOrder expected = cif::BuildMetricPointOrder<D>(hostScene, transform, serial);

  cif::DeviceBuffer pointsOnDevice(std::max<std::size_t>(1, points.size() * sizeof(double)));
  pointsOnDevice.Upload(points.data(), points.size() * sizeof(double));
  cif::MetricScene<float> deviceScene = hostScene;
  deviceScene.domain.points = pointsOnDevice.As<const double>();
  cif::DeviceMetricPointOrder actual;
  cif::BuildMetricPointOrderOnDevice<D, float>(deviceScene, transform, actual);

  const std::int64_t cells = expected.cellCount + 1;
  ASSERT_EQ(actual.view.cellCount, expected.cellCount);
  std::vector<std::int64_t> cellItemBegin(static_cast<std::size_t>(cells + 1));
  actual.cellItemBegin.Download(cellItemBegin.data(), cellItemBegin.size() * sizeof(std::int64_t));
  ASSERT_EQ(cellItemBegin, expected.cellItemBegin);
  const std::int64_t itemCount = cellItemBegin.back();
  ASSERT_EQ(itemCount, static_cast<std::int64_t>(expected.items.size()));
  ASSERT_LE(itemCount, actual.view.itemCapacity);
  std::vector<cif::MetricWorkItem> items(static_cast<std::size_t>(itemCount));
  actual.items.Download(items.data(), items.size() * sizeof(cif::MetricWorkItem));
  for (std::size_t i = 0; i < items.size(); ++i)
  {
    ASSERT_EQ(items[i].cell, expected.items[i].cell) << "item " << i;
    ASSERT_EQ(items[i].begin, expected.items[i].begin) << "item " << i;
    ASSERT_EQ(items[i].end, expected.items[i].end) << "item " << i;
  }
  std::vector<std::uint32_t> order(static_cast<std::size_t>(count));
  actual.order.Download(order.data(), order.size() * sizeof(std::uint32_t));
  EXPECT_EQ(order, expected.order);
}

TEST(MetricPointOrderGPU, DeviceGroupsPointsAsTheHost)
{
  CIF_REQUIRE_GPU();
  const std::uint32_t seed = cif_test::FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  // One block: up to 8192 points on grids of up to 65536 cells (27^3 cells: its scan
  // of the cells takes three rounds); the general path beyond, and for 2048 and 8192
  // points on a grid of 81^3 cells.
  for (const std::int64_t count : { 0, 1, 700, 2048, 5000, 8192, 8193, 20000 })
  {
    ExpectDeviceOrderIsTheHosts<3>(count, 10, random);
    ExpectDeviceOrderIsTheHosts<2>(count, 37, random);
  }
  ExpectDeviceOrderIsTheHosts<3>(2048, 30, random);
  ExpectDeviceOrderIsTheHosts<3>(8192, 30, random);
  ExpectDeviceOrderIsTheHosts<3>(2048, 84, random);
  ExpectDeviceOrderIsTheHosts<3>(8192, 84, random);
}
} // namespace

/** The chunks of control planes an upload sends (cifControlPlaneArrival.h): in order,
 * every plane once, the first 5 (a first cell's support and the plane after), each
 * next doubling the planes sent, at most kMaxControlPlaneChunks; and the chunk that
 * a plane is looked up in holds it. */
TEST(ControlPlaneChunks, CoverEveryPlaneInOrder)
{
  for (std::int64_t planes : { 1, 4, 5, 6, 8, 10, 11, 28, 100, 1000, 163840, 163841, 1000000 })
  {
    SCOPED_TRACE("planes " + std::to_string(planes));
    cif::ControlPlaneArrival arrival;
    arrival.chunkCount = cif::PlanControlPlaneChunks(planes, arrival.chunkEnd);
    ASSERT_GE(arrival.chunkCount, 1);
    ASSERT_LE(arrival.chunkCount, cif::kMaxControlPlaneChunks);
    EXPECT_EQ(arrival.chunkEnd[0], std::min<std::int64_t>(planes, 5));
    EXPECT_EQ(arrival.chunkEnd[arrival.chunkCount - 1], planes);
    for (int c = 1; c < arrival.chunkCount; ++c)
    {
      EXPECT_GT(arrival.chunkEnd[c], arrival.chunkEnd[c - 1]);
      if (c + 1 < arrival.chunkCount)
      {
        EXPECT_EQ(arrival.chunkEnd[c], 2 * arrival.chunkEnd[c - 1]);
      }
    }
    for (std::int64_t plane = 0; plane < planes; plane += 1 + plane / 7)
    {
      const int c = cif::ControlPlaneChunkOf(arrival, plane);
      EXPECT_LT(plane, arrival.chunkEnd[c]);
      EXPECT_TRUE(c == 0 || plane >= arrival.chunkEnd[c - 1]);
    }
    // A plane past the end (the one after a last cell's support) is the last chunk's.
    EXPECT_EQ(cif::ControlPlaneChunkOf(arrival, planes), arrival.chunkCount - 1);
  }
}
