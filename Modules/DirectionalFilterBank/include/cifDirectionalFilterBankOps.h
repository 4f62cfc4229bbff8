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
#ifndef cifDirectionalFilterBankOps_h
#define cifDirectionalFilterBankOps_h

// The elementary operations of the directional filter bank and their per-sample
// evaluation, shared by the CPU reference and the GPU kernels. A filter bank run is
// a list of these operations (a plan, cifDirectionalFilterBankPlan.h) over a few
// work buffers; each operation writes whole arrays and reads others, so on the GPU
// one operation is one kernel launch and the data never leaves the device.
#include "cifDirectionalFilterBankSampling.h"

#include <cstdint>
#include <type_traits>

namespace cif
{
/** A rows × cols array stored row-major at `offset` in work buffer `buffer`. */
struct DFBArray
{
  int          buffer = 0;
  std::int64_t offset = 0;
  int          rows = 0;
  int          cols = 0;

  CIF_HD std::int64_t
         Size() const
  {
    return static_cast<std::int64_t>(rows) * cols;
  }
};

enum class DFBOpKind
{
  Split,                 ///< source → out0 (coset 0), out1 (coset 1), by `split`
  Merge,                 ///< out0 ← in0 (coset 0), in1 (coset 1): the inverse of Split
  FilterRows,            ///< out = kernel along each row (j), periodic
  FilterColumns,         ///< out = alpha·aux + beta·(kernel along each column (i)), periodic,
                         ///< a wrap past the last row shifting the columns by `wrapShift`
  Butterfly,             ///< (out0, out1) ← ((a − b)/√2, (a + b)/√2), a = out0, b = out1, in place
  InverseButterfly,      ///< (out0, out1) ← ((a + b)/√2, (b − a)/√2): undoes Butterfly
  Resample,              ///< out = source ∘ R_shearType^shift
  BacksampleOneLevel,    ///< out = backsampled source (one-level tree)
  UndoBacksampleOneLevel ///< its inverse
};

/** One operation. Arrays not used by a kind are left default. */
struct DFBOp
{
  DFBOpKind      kind = DFBOpKind::FilterRows;
  DFBArray       in0, in1, aux;
  DFBArray       out0, out1;
  PolyphaseSplit split{};
  int            kernelFirst = 0;  ///< correlation kernel: taps[k] applies to x[i + first + k]
  int            kernelOffset = 0; ///< where its taps start in the plan's tap table
  int            kernelCount = 0;
  int            wrapShift = 0;
  double         alpha = 0.0;
  double         beta = 1.0;
  int            shearType = 0;
  int            shearShift = 0;
};

/** The arrays of one operation, resolved to pointers (on the device: kernel
 * arguments in registers, not an array indexed at run time). */
template <typename T>
struct DFBOpPointers
{
  T * in0 = nullptr;
  T * in1 = nullptr;
  T * aux = nullptr;
  T * out0 = nullptr;
  T * out1 = nullptr;
};

template <typename T>
inline DFBOpPointers<T>
ResolveDFBOp(const DFBOp & op, T * const * buffers)
{
  auto at = [buffers](const DFBArray & a) -> T * { return a.Size() > 0 ? buffers[a.buffer] + a.offset : nullptr; };
  return { at(op.in0), at(op.in1), at(op.aux), at(op.out0), at(op.out1) };
}

/** Element (i, j) of the output of an operation of kind K (a compile-time constant,
 * so each GPU kernel carries only its own kind's code). `taps` is the plan's tap
 * table converted to T. */
template <int K, typename T>
CIF_HD void
RunDFBOpKindAt(const DFBOp & op, const DFBOpPointers<T> & p, const T * taps, int i, int j)
{
  const std::int64_t outIndex = static_cast<std::int64_t>(i) * op.out0.cols + j;
  if (K == static_cast<int>(DFBOpKind::Split))
  {
    // one element of each component: the launch covers one component's size
    const GridIndex s0 = PolyphaseSource(op.split, 0, { i, j }, op.in0.rows, op.in0.cols);
    const GridIndex s1 = PolyphaseSource(op.split, 1, { i, j }, op.in0.rows, op.in0.cols);
    p.out0[outIndex] = p.in0[static_cast<std::int64_t>(s0.i) * op.in0.cols + s0.j];
    p.out1[outIndex] = p.in0[static_cast<std::int64_t>(s1.i) * op.in0.cols + s1.j];
  }
  else if (K == static_cast<int>(DFBOpKind::Merge))
  {
    GridIndex c;
    const int coset = PolyphaseDestination(op.split, { i, j }, op.out0.rows, op.out0.cols, c);
    p.out0[outIndex] = (coset == 0 ? p.in0 : p.in1)[static_cast<std::int64_t>(c.i) * op.in0.cols + c.j];
  }
  else if (K == static_cast<int>(DFBOpKind::FilterRows))
  {
    const int cols = op.in0.cols;
    const T * row = p.in0 + static_cast<std::int64_t>(i) * cols;
    const T * w = taps + op.kernelOffset;
    T         sum = 0;
    const int first = j + op.kernelFirst;
    if (first >= 0 && first + op.kernelCount <= cols)
    {
      for (int k = 0; k < op.kernelCount; ++k) // the window is inside the row: no wrap
      {
        sum += w[k] * row[first + k];
      }
    }
    else
    {
      int c = WrapIndex(first, cols);
      for (int k = 0; k < op.kernelCount; ++k)
      {
        sum += w[k] * row[c];
        c = (c + 1 == cols) ? 0 : c + 1;
      }
    }
    p.out0[outIndex] = sum;
  }
  else if (K == static_cast<int>(DFBOpKind::FilterColumns))
  {
    const int rows = op.in0.rows;
    const int cols = op.in0.cols;
    const T * w = taps + op.kernelOffset;
    T         sum = 0;
    int       r = i + op.kernelFirst;
    if (r >= 0 && r + op.kernelCount <= rows)
    {
      const T * x = p.in0 + static_cast<std::int64_t>(r) * cols + j; // inside the column: no wrap
      for (int k = 0; k < op.kernelCount; ++k, x += cols)
      {
        sum += w[k] * *x;
      }
    }
    else
    {
      // Periodic along the column, a wrap moving `wrapShift` columns (the lattice of
      // the first quincunx level); floor division counts the wraps.
      const int wraps = (r >= 0) ? r / rows : -((-r + rows - 1) / rows);
      r -= wraps * rows;
      int c = WrapIndex(static_cast<std::int64_t>(j) + static_cast<std::int64_t>(wraps) * op.wrapShift, cols);
      for (int k = 0; k < op.kernelCount; ++k)
      {
        sum += w[k] * p.in0[static_cast<std::int64_t>(r) * cols + c];
        if (++r == rows)
        {
          r = 0;
          c = WrapIndex(c + op.wrapShift, cols);
        }
      }
    }
    T value = static_cast<T>(op.beta) * sum;
    if (op.alpha != 0.0)
    {
      value += static_cast<T>(op.alpha) * p.aux[outIndex];
    }
    p.out0[outIndex] = value;
  }
  else if (K == static_cast<int>(DFBOpKind::Butterfly) || K == static_cast<int>(DFBOpKind::InverseButterfly))
  {
    const T    a = p.out0[outIndex];
    const T    b = p.out1[outIndex];
    const T    s = static_cast<T>(0.70710678118654752440);
    const bool inverse = K == static_cast<int>(DFBOpKind::InverseButterfly);
    p.out0[outIndex] = (inverse ? a + b : a - b) * s;
    p.out1[outIndex] = (inverse ? b - a : a + b) * s;
  }
  else
  {
    GridIndex s;
    if (K == static_cast<int>(DFBOpKind::Resample))
    {
      s = ShearSource({ i, j }, op.shearType, op.shearShift, op.in0.rows, op.in0.cols);
    }
    else if (K == static_cast<int>(DFBOpKind::BacksampleOneLevel))
    {
      s = BacksampleOneLevelSource({ i, j }, op.in0.rows, op.in0.cols);
    }
    else
    {
      s = BacksampleOneLevelDestination({ i, j }, op.in0.rows, op.in0.cols);
    }
    p.out0[outIndex] = p.in0[static_cast<std::int64_t>(s.i) * op.in0.cols + s.j];
  }
}

/** Calls `body.template operator()<K>()` with the operation's kind as a constant. */
template <typename TBody>
void
DispatchDFBOpKind(DFBOpKind kind, TBody && body)
{
  switch (kind)
  {
    case DFBOpKind::Split:
      return body(std::integral_constant<int, static_cast<int>(DFBOpKind::Split)>{});
    case DFBOpKind::Merge:
      return body(std::integral_constant<int, static_cast<int>(DFBOpKind::Merge)>{});
    case DFBOpKind::FilterRows:
      return body(std::integral_constant<int, static_cast<int>(DFBOpKind::FilterRows)>{});
    case DFBOpKind::FilterColumns:
      return body(std::integral_constant<int, static_cast<int>(DFBOpKind::FilterColumns)>{});
    case DFBOpKind::Butterfly:
      return body(std::integral_constant<int, static_cast<int>(DFBOpKind::Butterfly)>{});
    case DFBOpKind::InverseButterfly:
      return body(std::integral_constant<int, static_cast<int>(DFBOpKind::InverseButterfly)>{});
    case DFBOpKind::Resample:
      return body(std::integral_constant<int, static_cast<int>(DFBOpKind::Resample)>{});
    case DFBOpKind::BacksampleOneLevel:
      return body(std::integral_constant<int, static_cast<int>(DFBOpKind::BacksampleOneLevel)>{});
    case DFBOpKind::UndoBacksampleOneLevel:
      return body(std::integral_constant<int, static_cast<int>(DFBOpKind::UndoBacksampleOneLevel)>{});
  }
}
} // namespace cif

#endif
