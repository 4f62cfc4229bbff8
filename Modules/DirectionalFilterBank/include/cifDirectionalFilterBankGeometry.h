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
#ifndef cifDirectionalFilterBankGeometry_h
#define cifDirectionalFilterBankGeometry_h

// Which frequency directions each subband of the directional filter bank holds.
//
// Angles are those of the frequency vector (ωx, ωy) of an oriented pattern
// cos(ωx·x + ωy·y), with x the column (ITK index[0]) and y the row (index[1]), in
// degrees in [0, 180) (a real pattern's ±ω are one direction). A pattern with
// frequency angle θ has its stripes running at θ + 90°.
//
// With n levels the 2^n wedges are bounded by the directions of slope ±k/2^(n-2)
// and their reciprocals (the Bamberger–Smith partition; for n = 3: 0°, 26.6°, 45°,
// 63.4°, 90°, ...). Subband b holds wedge (b − 2^(n−2)) mod 2^n counted from 0°
// counter-clockwise (for n = 1: subband 0 the horizontal hourglass |ωx| > |ωy|,
// subband 1 the vertical one). Measured, not assumed: DirectionalFilterBankTest
// checks every subband of n = 2 and 3 against this table.
#include <cmath>

namespace cif
{
/** The angular range [low, high) in degrees of subband `subband` of an n-level bank;
 * for n = 1, subband 0 is [135, 225) (it wraps through 0°) and subband 1 [45, 135). */
inline void
DirectionalSubbandAngles(int levels, int subband, double & low, double & high)
{
  const double degrees = 180.0 / 3.14159265358979323846;
  if (levels == 1)
  {
    low = subband == 0 ? 135.0 : 45.0;
    high = low + 90.0;
    return;
  }
  const int count = 1 << levels;
  const int quarter = count / 4; // wedges per 45° sector
  const int wedge = ((subband - count / 4) % count + count) % count;
  const int sector = wedge / quarter;
  const int k = wedge % quarter;
  auto      boundary = [&](int sectorIndex, int kk) {
    // the boundary between wedges kk-1 and kk of a sector, in degrees
    switch (sectorIndex)
    {
      case 0:
        return std::atan(static_cast<double>(kk) / quarter) * degrees;
      case 1:
        return 90.0 - std::atan(static_cast<double>(quarter - kk) / quarter) * degrees;
      case 2:
        return 90.0 + std::atan(static_cast<double>(kk) / quarter) * degrees;
      default:
        return 180.0 - std::atan(static_cast<double>(quarter - kk) / quarter) * degrees;
    }
  };
  low = boundary(sector, k);
  high = boundary(sector, k + 1);
}

/** The middle direction of a subband's wedge (degrees). */
inline double
DirectionalSubbandMiddleAngle(int levels, int subband)
{
  double low, high;
  DirectionalSubbandAngles(levels, subband, low, high);
  const double middle = 0.5 * (low + high);
  return middle >= 180.0 ? middle - 180.0 : middle;
}
} // namespace cif

#endif
