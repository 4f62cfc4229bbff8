// The assignment of output voxels to the linear-path kernel's threads (cifRowShear.h):
// the slope follows the input's rows, and every output voxel is taken exactly once.
#include "cifRowShear.h"
#include "cifTestHelpers.h"

#include <cmath>
#include <vector>

namespace
{
/** A 2-D geometry of unit grids and a rotation by \a angle from output to input. */
void
MakeRotation(double angle, std::int64_t width, std::int64_t height, cif::ResampleGeometry & g,
             cif::TransformChain & chain)
{
  g.outputSize[0] = width;
  g.outputSize[1] = height;
  g.lineLength = width;
  chain.count = 1;
  chain.stage[0].kind = cif::TransformKind::Affine;
  chain.stage[0].matrix[0][0] = std::cos(angle);
  chain.stage[0].matrix[0][1] = -std::sin(angle);
  chain.stage[0].matrix[1][0] = std::sin(angle);
  chain.stage[0].matrix[1][1] = std::cos(angle);
}

TEST(RowShear, FollowsTheInputRowsUpToOneRowPerColumn)
{
  for (const double angle : { -0.7, -0.3, 0.0, 0.1, 0.3, 0.7 })
  {
    cif::ResampleGeometry g;
    cif::TransformChain   chain;
    MakeRotation(angle, 300, 40, g, chain);
    const cif::RowShear shear = cif::MakeRowShear<2>(g, chain);
    // input y = sin(a) x + cos(a) y stays put along y = -tan(a) x
    EXPECT_NEAR(shear.slope, -std::tan(angle), 1e-12) << "angle " << angle;
  }
  for (const double angle : { 0.9, -1.2, 1.5707963267948966 })
  {
    cif::ResampleGeometry g;
    cif::TransformChain   chain;
    MakeRotation(angle, 300, 40, g, chain);
    const cif::RowShear shear = cif::MakeRowShear<2>(g, chain);
    EXPECT_EQ(shear.slope, 0.0) << "angle " << angle << ": steeper than one row per column";
    EXPECT_EQ(shear.rowsPerPlane, 40);
  }
}

TEST(RowShear, TakesEveryOutputVoxelExactlyOnce)
{
  for (const double angle : { -0.6, -0.05, 0.0, 0.2, 0.75 })
  {
    cif::ResampleGeometry g;
    cif::TransformChain   chain;
    const std::int64_t    width = 517, height = 23;
    MakeRotation(angle, width, height, g, chain);
    const cif::RowShear shear = cif::MakeRowShear<2>(g, chain);
    std::vector<int>    taken(static_cast<std::size_t>(width * height), 0);
    for (std::int64_t j = 0; j < shear.rowsPerPlane; ++j)
    {
      for (std::int64_t x = 0; x < width; ++x)
      {
        const std::int64_t y = j - shear.before + cif::ShiftOf(shear, x);
        if (y >= 0 && y < height)
        {
          ++taken[static_cast<std::size_t>(y * width + x)];
        }
      }
    }
    for (std::size_t i = 0; i < taken.size(); ++i)
    {
      ASSERT_EQ(taken[i], 1) << "angle " << angle << ", voxel " << i;
    }
    // and a kernel block's shared memory holds every row its columns touch
    for (const int columns : { 32, 64, 256 })
    {
      for (std::int64_t first = 0; first < width; first += columns)
      {
        const std::int64_t last = std::min<std::int64_t>(first + columns, width) - 1;
        const std::int64_t spread = std::abs(cif::ShiftOf(shear, last) - cif::ShiftOf(shear, first));
        EXPECT_LE(32 + spread, cif::RowsTouched(shear, 32, columns)) << "angle " << angle << ", " << columns;
      }
    }
  }
}
} // namespace
