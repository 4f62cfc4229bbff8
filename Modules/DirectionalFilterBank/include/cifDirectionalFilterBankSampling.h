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
#ifndef cifDirectionalFilterBankSampling_h
#define cifDirectionalFilterBankSampling_h

// The lattice bookkeeping of the Bamberger–Smith directional filter bank, written
// once for the CPU reference and the GPU kernels (CIF_HD).
//
// Arrays are periodic 2-D images stored row-major: element (i, j) is row i (the
// image's y, ITK index[1]) and column j (x, ITK index[0]); `rows` × `cols`.
//
// Every sampling operation of the tree is a permutation of samples, so each one is
// written as a gather: "which input sample lands at output (i, j)". The operators
// are those of Park–Smith–Mersereau and Do–Vetterli:
//   resampling (unimodular shears, periodic wrap along the sheared axis)
//     R1 = [1 1; 0 1]   R2 = [1 -1; 0 1]   R3 = [1 0; 1 1]   R4 = [1 0; -1 1]
//   quincunx   Q1 = [1 -1; 1 1] = R2·D1·R3,   Q2 = [1 1; -1 1] = R4·D2·R1
//   parallelogram P1 = R1·Q1 = D1·R3, P2 = R2·Q2 = D1·R4, P3 = R3·Q2 = D2·R1,
//                 P4 = R4·Q1 = D2·R2
// with D1 = diag(2, 1) (every other row) and D2 = diag(1, 2) (every other column).
// Writing Q and P through these Smith forms turns each polyphase component into a
// rectangular array: a pre-shear, a separable decimation by 2, a post-shear.
#include "cifHostDevice.h"

#include <cstdint>

namespace cif
{
/** Non-negative remainder (the periodic wrap). */
CIF_HD int
WrapIndex(std::int64_t value, int period)
{
  const std::int64_t r = value % period;
  return static_cast<int>(r < 0 ? r + period : r);
}

/** The same in 32-bit arithmetic (the common case: index sums of one image; sides
 * are limited to 2^24 so that shear products stay in range). */
CIF_HD int
WrapIndex(int value, int period)
{
  // Most values are within one period of the range: no division for them (integer
  // division is the costliest instruction of the gather kernels).
  if (value >= 0)
  {
    if (value < period)
    {
      return value;
    }
    if (value < 2 * period)
    {
      return value - period;
    }
  }
  else if (value >= -period)
  {
    return value + period;
  }
  const int r = value % period;
  return r < 0 ? r + period : r;
}

/** A row/column position in a periodic array. */
struct GridIndex
{
  int i;
  int j;
};

/** Source of output (i, j) for the resampling y = x ∘ R_type, repeated `shift`
 * times (a negative shift is the inverse), on a rows × cols array:
 * R1/R2 circularly shift column j by ±shift·j along the rows; R3/R4 circularly
 * shift row i by ±shift·i along the columns. */
CIF_HD GridIndex
ShearSource(GridIndex out, int type, int shift, int rows, int cols)
{
  switch (type)
  {
    case 1:
      return { WrapIndex(out.i + shift * out.j, rows), out.j };
    case 2:
      return { WrapIndex(out.i - shift * out.j, rows), out.j };
    case 3:
      return { out.i, WrapIndex(out.j + shift * out.i, cols) };
    case 4:
      return { out.i, WrapIndex(out.j - shift * out.i, cols) };
    default:
      return out;
  }
}

/** Inverse resampling of type t is the same type with the opposite shift. */
CIF_HD GridIndex
ShearDestination(GridIndex in, int type, int shift, int rows, int cols)
{
  return ShearSource(in, type, -shift, rows, cols);
}

/** One 2-band polyphase decomposition, x → (p0, p1), as pre-shear, decimation by 2
 * along rows (D1) or columns (D2), post-shear. p1 is the coset of the decimation
 * shifted by one along the decimated axis and by `cosetShift` along the other one
 * (the coset vector carried through the pre-shear). */
struct PolyphaseSplit
{
  int  preShear;     ///< 0 (none) or a resampling type applied to the input
  bool decimateRows; ///< D1 (rows halved) or D2 (columns halved)
  int  cosetShift;   ///< 0 or 1
  int  postShear;    ///< resampling type applied to each decimated component
};

/** The six decompositions of the tree: quincunx '1r' (level 1), quincunx '2c'
 * (level 2) and parallelogram P1..P4 (levels 3 and up). */
CIF_HD PolyphaseSplit
QuincunxSplit1r()
{
  return { 2, true, 1, 3 }; // Q1 = R2·D1·R3
}
CIF_HD PolyphaseSplit
QuincunxSplit2c()
{
  return { 4, false, 1, 1 }; // Q2 = R4·D2·R1
}
CIF_HD PolyphaseSplit
ParallelogramSplit(int type)
{
  switch (type)
  {
    case 1:
      return { 0, true, 1, 3 }; // P1 = D1·R3
    case 2:
      return { 0, true, 0, 4 }; // P2 = D1·R4
    case 3:
      return { 0, false, 1, 1 }; // P3 = D2·R1
    default:
      return { 0, false, 0, 2 }; // P4 = D2·R2
  }
}

/** Size of each polyphase component of a rows × cols input. */
CIF_HD void
PolyphaseComponentSize(const PolyphaseSplit & split, int rows, int cols, int & componentRows, int & componentCols)
{
  componentRows = split.decimateRows ? rows / 2 : rows;
  componentCols = split.decimateRows ? cols : cols / 2;
}

/** Input sample that becomes element (i, j) of component `coset` (0 or 1). */
CIF_HD GridIndex
PolyphaseSource(const PolyphaseSplit & split, int coset, GridIndex out, int rows, int cols)
{
  int componentRows, componentCols;
  PolyphaseComponentSize(split, rows, cols, componentRows, componentCols);
  const GridIndex decimated = ShearSource(out, split.postShear, 1, componentRows, componentCols);
  GridIndex       sheared;
  if (split.decimateRows)
  {
    sheared = { 2 * decimated.i + coset, WrapIndex(decimated.j + coset * split.cosetShift, cols) };
  }
  else
  {
    sheared = { WrapIndex(decimated.i + coset * split.cosetShift, rows), 2 * decimated.j + coset };
  }
  return ShearSource(sheared, split.preShear, 1, rows, cols);
}

/** The inverse: which component (returned) and element hold input sample `in`. */
CIF_HD int
PolyphaseDestination(const PolyphaseSplit & split, GridIndex in, int rows, int cols, GridIndex & component)
{
  int componentRows, componentCols;
  PolyphaseComponentSize(split, rows, cols, componentRows, componentCols);
  const GridIndex sheared = ShearDestination(in, split.preShear, 1, rows, cols);
  int             coset;
  GridIndex       decimated;
  if (split.decimateRows)
  {
    coset = sheared.i & 1;
    decimated = { sheared.i >> 1, WrapIndex(sheared.j - coset * split.cosetShift, cols) };
  }
  else
  {
    coset = sheared.j & 1;
    decimated = { WrapIndex(sheared.i - coset * split.cosetShift, rows), sheared.j >> 1 };
  }
  component = ShearDestination(decimated, split.postShear, 1, componentRows, componentCols);
  return coset;
}

/** Backsampling after a one-level tree (Q1 = R2·D1·R3): y ∘ R4, then R1 on the even
 * and on the odd columns separately, so that the overall sampling of both subbands
 * is rectangular. Source of output (i, j) in a rows × cols subband. */
CIF_HD GridIndex
BacksampleOneLevelSource(GridIndex out, int rows, int cols)
{
  // R1 on the sub-array of columns with j's parity: column j/2 of it shifts by j/2.
  const GridIndex inSubArray = { WrapIndex(out.i + (out.j >> 1), rows), out.j };
  return ShearSource(inSubArray, 4, 1, rows, cols);
}

CIF_HD GridIndex
BacksampleOneLevelDestination(GridIndex in, int rows, int cols)
{
  const GridIndex unsheared = ShearDestination(in, 4, 1, rows, cols);
  return { WrapIndex(unsheared.i - (unsheared.j >> 1), rows), unsheared.j };
}
} // namespace cif

#endif
