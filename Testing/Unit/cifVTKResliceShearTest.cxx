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
// The reslice kernel's sheared assignment of voxels to threads
// (cifVTKResliceShear.h): every output voxel is taken exactly once, and at
// VTKBenchmark's turn a warp's voxels read under half the input rows that a row of
// output voxels does. Plain math, run on the CPU; the kernel's values are checked
// against VTK by the reslice tests.
#include "cifVTKResliceShear.h"
#include "cifTestHelpers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>
#include <vector>

namespace
{
using cif::vtkmath::PointSource;
using cif::vtkmath::ResliceJob;
using cif::vtkmath::ResliceShear;

/** An index matrix turning by \a angle about \a axis (normalized here) and scaling
 * by \a scale, for an output extent of \a size voxels starting at \a start. */
ResliceJob
TurnedJob(const double axis[3], double angle, double scale, const int size[3], const int start[3])
{
  const double n = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  const double u[3] = { axis[0] / n, axis[1] / n, axis[2] / n };
  const double c = std::cos(angle), s = std::sin(angle), t = 1 - c;
  const double r[3][3] = { { c + t * u[0] * u[0], t * u[0] * u[1] - s * u[2], t * u[0] * u[2] + s * u[1] },
                           { t * u[0] * u[1] + s * u[2], c + t * u[1] * u[1], t * u[1] * u[2] - s * u[0] },
                           { t * u[0] * u[2] - s * u[1], t * u[1] * u[2] + s * u[0], c + t * u[2] * u[2] } };
  ResliceJob   job;
  for (int a = 0; a < 3; ++a)
  {
    job.outputExtent[2 * a] = start[a];
    job.outputExtent[2 * a + 1] = start[a] + size[a] - 1;
    for (int b = 0; b < 3; ++b)
    {
      job.matrix[a][b] = scale * r[a][b];
    }
    job.matrix[a][3] = 0.5 * size[a];
  }
  return job;
}

/** How many times the kernel's grid (x, sheet, q) takes each output voxel. */
std::vector<int>
TimesTaken(const ResliceJob & job, const ResliceShear & shear)
{
  const int        nx = static_cast<int>(job.OutputSize(0)), ny = static_cast<int>(job.OutputSize(1));
  const int        sheets = static_cast<int>(job.OutputSize(shear.sheetAxis));
  std::vector<int> taken(static_cast<std::size_t>(job.OutputVoxels()), 0);
  for (int x = 0; x < nx; ++x)
  {
    const int offset = cif::vtkmath::ShearOffset(shear, x, nx);
    for (int sheet = 0; sheet < sheets; ++sheet)
    {
      for (int q = 0; q < shear.walkLength; ++q)
      {
        int y, z;
        if (cif::vtkmath::ShearedVoxel(job, shear, offset, sheet, q, y, z))
        {
          ++taken[(static_cast<std::size_t>(z) * ny + y) * nx + x];
        }
      }
    }
  }
  return taken;
}

} // namespace

TEST(VTKResliceShear, TakesEveryOutputVoxelOnceAndReadsFewerRows)
{
  const std::uint32_t seed = cif_test::FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int>     length(2, 70);
  int                                    sheared = 0;
  // Random turns until 20 were sheared (about one in three is; the others are near an
  // axis or too steep), at most 400.
  for (int trial = 0; trial < 400 && sheared < 20; ++trial)
  {
    const double axis[3] = { unit(rng), unit(rng), unit(rng) + 0.01 };
    int          size[3] = { length(rng), length(rng), length(rng) };
    const int    start[3] = { length(rng) - 30, length(rng) - 30, length(rng) - 30 };
    // The first trial is VTKBenchmark's turn: 30 degrees about (1, 1, 0), 64^3.
    const double benchmarkAxis[3] = { 1, 1, 0 };
    if (trial == 0)
    {
      size[0] = size[1] = size[2] = 64;
    }
    const ResliceJob   job = trial == 0 ? TurnedJob(benchmarkAxis, M_PI / 6, 1.0, size, start)
                                        : TurnedJob(axis, 1.5 * unit(rng), 1.0 + 0.3 * unit(rng), size, start);
    const ResliceShear shear = cif::vtkmath::MakeResliceShear(job);
    SCOPED_TRACE(testing::Message() << "trial " << trial << ", output " << size[0] << " x " << size[1] << " x "
                                    << size[2] << ", slope " << shear.slope << " along axis " << shear.walkAxis);
    if (trial == 0)
    {
      // There a row of output voxels reads a third of an input row per lane; the
      // sheared warp reads under half as many rows.
      ASSERT_TRUE(shear.on);
      double m[3][3], origin[3];
      for (int r = 0; r < 3; ++r)
      {
        for (int c = 0; c < 3; ++c)
        {
          m[r][c] = job.matrix[r][c];
        }
        origin[r] = job.matrix[r][3];
      }
      ResliceShear unsheared = shear;
      unsheared.on = false;
      const double rowsSheared = cif::vtkmath::MeanRowsRead(m, origin, shear);
      const double rowsUnsheared = cif::vtkmath::MeanRowsRead(m, origin, unsheared);
      std::cout << "VTKBenchmark's turn: a warp reads " << rowsSheared << " input rows sheared, " << rowsUnsheared
                << " along an output row\n";
      EXPECT_LT(rowsSheared, 0.5 * rowsUnsheared);
      // Each warp walks its own lanes' positions only: the output's 64 and the
      // spread of 32 lanes' shifts, not that of the whole row's 64.
      EXPECT_LE(shear.walkLength, 64 + static_cast<std::int64_t>(std::ceil(31 * std::fabs(shear.slope))) + 1);
    }
    if (!shear.on)
    {
      continue;
    }
    ++sheared;
    EXPECT_LE(std::fabs(shear.slope), 1.0);
    const std::vector<int> taken = TimesTaken(job, shear);
    for (std::size_t v = 0; v < taken.size(); ++v)
    {
      ASSERT_EQ(taken[v], 1) << "output voxel number " << v;
    }
  }
  EXPECT_EQ(sheared, 20) << "too few random turns were sheared to test the assignment";
}
