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
// The resampler's mirror-padded coefficients (cifMirrorPadding.h): a halo of 2
// samples around each axis holding what ITK's mirror reads there, so that the support
// of every point inside the buffer lies inside the padded grid. Checked on the CPU
// path (the arithmetic the kernels share):
// - the prefilter's line addressing (AxisLines) over a dense buffer is the one it
//   always was, and over a padded layout visits every interior sample exactly once;
// - the halo MirrorPadOnHost writes is ITK's 64-bit mirror (MirroredOffset), on grids
//   of 1 to 9 samples per axis;
// - resampling from padded coefficients gives the bits of resampling from dense ones
//   (the mirrored sum), voxel by voxel and on ITK's linear path, 2-D to 4-D, float and
//   double, for maps that cross every face.
#include "cifMirrorPadding.h"
#include "cifResampleMath.h"
#include "cifTestHelpers.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace
{
template <typename T>
bool
SameBits(T a, T b)
{
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

cif::BufferShape
ShapeOf(const cif::CoefficientGrid & grid, int dimension)
{
  cif::BufferShape shape;
  shape.dimension = dimension;
  for (int a = 0; a < dimension; ++a)
  {
    shape.size[a] = grid.size[a];
  }
  return shape;
}

/** A random grid of 1 to 9 samples per axis (D axes) starting anywhere near 0. */
template <int D>
cif::CoefficientGrid
RandomGrid(std::mt19937 & rng, int minimumSize = 1)
{
  std::uniform_int_distribution<int> size(minimumSize, 9), start(-5, 5);
  cif::CoefficientGrid               grid;
  for (int a = 0; a < D; ++a)
  {
    grid.size[a] = size(rng);
    grid.start[a] = start(rng);
  }
  return grid;
}
} // namespace

TEST(MirrorPaddingCPU, DenseLinesAreAddressedAsBefore)
{
  // The formula AxisLines::Start had before layouts: (line % stride) + (line / stride)
  // * stride * length, for dense buffers with components and axes of one sample.
  const std::int64_t sizes[][4] = { { 5, 4, 3, 2 }, { 1, 6, 1, 3 }, { 7, 1, 1, 1 }, { 2, 3, 4, 1 } };
  for (const auto & size : sizes)
  {
    for (int components : { 1, 3 })
    {
      cif::BufferShape shape;
      shape.dimension = 4;
      shape.components = components;
      std::copy(size, size + 4, shape.size);
      for (int axis = 0; axis < 4; ++axis)
      {
        const cif::AxisLines lines = cif::MakeAxisLines(shape, axis);
        std::int64_t         stride = components;
        for (int d = 0; d < axis; ++d)
        {
          stride *= shape.size[d];
        }
        ASSERT_EQ(lines.stride, stride);
        ASSERT_LE(lines.digits, 2) << "contiguous digits merge";
        for (std::int64_t line = 0; line < lines.count; ++line)
        {
          ASSERT_EQ(lines.Start(line), (line % stride) + (line / stride) * stride * lines.length)
            << "axis " << axis << ", line " << line;
        }
      }
    }
  }
}

TEST(MirrorPaddingCPU, PaddedLinesVisitEveryInteriorSampleOnce)
{
  std::mt19937 rng(11);
  for (int trial = 0; trial < 30; ++trial)
  {
    const cif::CoefficientGrid grid = RandomGrid<3>(rng);
    const cif::BufferShape     shape = ShapeOf(grid, 3);
    const cif::BufferLayout    layout = cif::MirrorPaddedLayout<3>(grid);
    const cif::CoefficientGrid padded = cif::MirrorPaddedGrid<3>(grid);
    for (int axis = 0; axis < 3; ++axis)
    {
      std::vector<int>     visits(static_cast<std::size_t>(cif::MirrorPaddedCount<3>(grid)), 0);
      const cif::AxisLines lines = cif::MakeAxisLines(shape, axis, layout);
      ASSERT_EQ(lines.count * lines.length, shape.ScalarCount());
      for (std::int64_t line = 0; line < lines.count; ++line)
      {
        for (std::int64_t k = 0; k < lines.length; ++k)
        {
          ++visits[static_cast<std::size_t>(lines.Start(line) + k * lines.stride)];
        }
      }
      ASSERT_EQ(padded.size[0] % cif::kMirrorPadRowAlignment, 0);
      for (std::size_t i = 0; i < visits.size(); ++i)
      {
        // the lead, then rows of padded.size[0] samples: halo, interior, halo, unused
        const auto         j = static_cast<std::int64_t>(i) - cif::kMirrorPaddedLead;
        const std::int64_t x = j % padded.size[0], y = j / padded.size[0] % padded.size[1],
                           z = j / padded.size[0] / padded.size[1];
        const bool interior =
          j >= 0 && x >= 2 && x < grid.size[0] + 2 && y >= 2 && y < grid.size[1] + 2 && z >= 2 && z < grid.size[2] + 2;
        ASSERT_EQ(visits[i], interior ? 1 : 0) << "axis " << axis << " at (" << x << "," << y << "," << z << ")";
        ASSERT_TRUE(!interior || x > 2 || static_cast<std::int64_t>(i) % cif::kMirrorPadRowAlignment == 0)
          << "a row's interior starts aligned";
      }
    }
  }
}

TEST(MirrorPaddingCPU, HaloHoldsWhatITKsMirrorReads)
{
  std::mt19937 rng(12);
  for (int trial = 0; trial < 60; ++trial)
  {
    const cif::CoefficientGrid grid = RandomGrid<3>(rng);
    const cif::CoefficientGrid padded = cif::MirrorPaddedGrid<3>(grid);
    std::vector<double>        dense(static_cast<std::size_t>(grid.size[0] * grid.size[1] * grid.size[2]));
    for (std::size_t i = 0; i < dense.size(); ++i)
    {
      dense[i] = static_cast<double>(i); // each sample names itself
    }
    std::vector<double> out(static_cast<std::size_t>(cif::MirrorPaddedCount<3>(grid)), -1.0);
    cif::MirrorPadOnHost<3>(dense.data(), grid, out.data());
    for (std::int64_t i = 0; i < cif::kMirrorPaddedLead; ++i)
    {
      ASSERT_EQ(out[static_cast<std::size_t>(i)], -1.0) << "the lead is never written";
    }
    for (std::int64_t z = 0; z < padded.size[2]; ++z)
      for (std::int64_t y = 0; y < padded.size[1]; ++y)
        for (std::int64_t x = 0; x < padded.size[0]; ++x)
        {
          const auto at =
            static_cast<std::size_t>(cif::kMirrorPaddedLead + (z * padded.size[1] + y) * padded.size[0] + x);
          if (x >= grid.size[0] + 2 * cif::kMirrorPad)
          {
            ASSERT_EQ(out[at], -1.0) << "a row's samples past its halo are never written";
            continue;
          }
          const std::int64_t p[3] = { x, y, z };
          std::int64_t       source = 0, stride = 1;
          for (int a = 0; a < 3; ++a)
          {
            // the absolute index this padded sample stands for, mirrored as ITK does
            source += cif::MirroredOffset(padded.start[a] + p[a], grid.start[a], grid.size[a]) * stride;
            stride *= grid.size[a];
          }
          ASSERT_EQ(out[at], static_cast<double>(source))
            << "grid " << grid.size[0] << "x" << grid.size[1] << "x" << grid.size[2] << " at (" << x << "," << y << ","
            << z << ")";
        }
  }
}

namespace
{
/** Random maps of random grids through ResampleVoxel and ResampleVoxelOnRow, from
 * dense and from padded coefficients: the same bits. Adds the voxels inside to
 * \a inside. */
template <int D, typename T>
void
ExpectSameBitsFromPaddedCoefficients(std::mt19937 & rng, std::int64_t & inside)
{
  std::uniform_real_distribution<double> entry(-1.4, 1.4), shift(-4.0, 4.0), value(-3.0, 3.0);
  for (int trial = 0; trial < 12; ++trial)
  {
    cif::ResampleGeometry dense;
    dense.input = RandomGrid<D>(rng);
    std::int64_t inCount = 1;
    for (int a = 0; a < D; ++a)
    {
      dense.outputSize[a] = 4 + trial % 5;
      inCount *= dense.input.size[a];
    }
    dense.lineLength = dense.outputSize[0];
    cif::TransformChain chain;
    chain.count = 1;
    for (int i = 0; i < D; ++i)
    {
      for (int j = 0; j < D; ++j)
      {
        chain.stage[0].matrix[i][j] = entry(rng);
      }
      chain.stage[0].offset[i] = shift(rng) + static_cast<double>(dense.input.start[i]) + 2.0;
    }
    std::vector<T> coefficients(static_cast<std::size_t>(inCount));
    for (T & c : coefficients)
    {
      c = static_cast<T>(value(rng));
    }
    std::vector<T> padded(static_cast<std::size_t>(cif::MirrorPaddedCount<D>(dense.input)));
    cif::MirrorPadOnHost<D>(coefficients.data(), dense.input, padded.data());
    cif::ResampleGeometry paddedGeometry = dense;
    paddedGeometry.inputMirrorPadded = true;

    const T outside = static_cast<T>(-1000);
    for (std::int64_t i = 0; i < dense.OutputCount(); ++i)
    {
      const T expected = cif::ResampleVoxel<D, T, T>(coefficients.data(), dense, chain, nullptr, i, outside);
      const T actual = cif::ResampleVoxel<D, T, T>(padded.data(), paddedGeometry, chain, nullptr, i, outside);
      ASSERT_TRUE(SameBits(expected, actual)) << "voxel " << i << ": " << expected << " vs " << actual;
      inside += expected != outside;
    }
    for (std::int64_t row = 0; row < dense.OutputRows(); ++row)
    {
      double start[cif::kMaxDimension], end[cif::kMaxDimension];
      cif::RowEndpoints<D>(dense, chain, row, start, end);
      for (std::int64_t x = 0; x < dense.outputSize[0]; ++x)
      {
        const T expected = cif::ResampleVoxelOnRow<D, T, T>(coefficients.data(), dense, start, end, x, outside);
        const T actual = cif::ResampleVoxelOnRow<D, T, T>(padded.data(), paddedGeometry, start, end, x, outside);
        ASSERT_TRUE(SameBits(expected, actual)) << "row " << row << ", x " << x;
      }
    }
  }
}
} // namespace

TEST(MirrorPaddingCPU, ResamplingFromPaddedCoefficientsGivesTheSameBits)
{
  std::mt19937 rng(13);
  std::int64_t inside = 0;
  ExpectSameBitsFromPaddedCoefficients<2, float>(rng, inside);
  ExpectSameBitsFromPaddedCoefficients<2, double>(rng, inside);
  ExpectSameBitsFromPaddedCoefficients<3, float>(rng, inside);
  ExpectSameBitsFromPaddedCoefficients<3, double>(rng, inside);
  ExpectSameBitsFromPaddedCoefficients<4, float>(rng, inside);
  ExpectSameBitsFromPaddedCoefficients<4, double>(rng, inside);
  EXPECT_GT(inside, 1000) << "the maps should put many voxels inside the input";
}
