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
#ifndef cifRowTurnTestSupport_h
#define cifRowTurnTestSupport_h

// The turned geometries that the CPU tests of the linear path's voxel assignment
// (cifRowShearTest, cifRowBucketsTest) build.
#include "cifResampleMath.h"

#include <array>
#include <cmath>
#include <cstdint>

namespace cif_test
{
/** A geometry of unit grids: output \a size, a centred map from output index to input
 * index of \a scale x (a turn by \a angle2 in the plane p2-q2) x (a turn by \a angle
 * in the plane p-q), rows of axis \a flip negated (-1: none). */
template <int D>
void
MakeTurn(const std::array<std::int64_t, 3> & size,
         int                                 p,
         int                                 q,
         double                              angle,
         int                                 p2,
         int                                 q2,
         double                              angle2,
         double                              scale,
         int                                 flip,
         cif::ResampleGeometry &             g,
         cif::TransformChain &               chain)
{
  double first[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } },
         second[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
  first[p][p] = first[q][q] = std::cos(angle);
  first[p][q] = -std::sin(angle);
  first[q][p] = std::sin(angle);
  second[p2][p2] = second[q2][q2] = std::cos(angle2);
  second[p2][q2] = -std::sin(angle2);
  second[q2][p2] = std::sin(angle2);
  chain.count = 1;
  chain.stage[0].kind = cif::TransformKind::Affine;
  for (int a = 0; a < D; ++a)
  {
    g.outputSize[a] = size[a];
    g.input.size[a] = size[a];
  }
  g.lineLength = size[0];
  for (int i = 0; i < 3; ++i)
  {
    chain.stage[0].offset[i] = i < D ? 0.5 * static_cast<double>(size[i] - 1) + 0.3 : 0.0;
    for (int j = 0; j < 3; ++j)
    {
      double m = 0;
      for (int k = 0; k < 3; ++k)
      {
        m += second[i][k] * first[k][j];
      }
      m *= scale * (i == flip ? -1.0 : 1.0);
      chain.stage[0].matrix[i][j] = i < D && j < D ? m : (i == j ? 1.0 : 0.0);
      chain.stage[0].offset[i] -= i < D && j < D ? m * 0.5 * static_cast<double>(size[j] - 1) : 0.0;
    }
  }
}
} // namespace cif_test

#endif
