#ifndef cifDirectionalFilterBankOps_h
#define cifDirectionalFilterBankOps_h

// The elementary operations of the directional filter bank and their per-sample
// evaluation, shared by the CPU reference and the GPU kernels. A filter bank run is
// a list of these operations (a plan, cifDirectionalFilterBankPlan.h) over a few
// work buffers; each operation writes whole arrays and reads others, so on the GPU
// one operation is one kernel launch and the data never leaves the device.
#include "cifDirectionalFilterBankSampling.h"

#include <cstdint>

namespace cif
{
/** A rows × cols array stored row-major at `offset` in work buffer `buffer`. */
struct DFBArray
{
  int           buffer = 0;
  std::int64_t  offset = 0;
  int           rows = 0;
  int           cols = 0;

  CIF_HD std::int64_t
  Size() const
  {
    return static_cast<std::int64_t>(rows) * cols;
  }
};

enum class DFBOpKind
{
  Split,           ///< source → out0 (coset 0), out1 (coset 1), by `split`
  Merge,           ///< out0 ← in0 (coset 0), in1 (coset 1): the inverse of Split
  FilterRows,      ///< out = kernel along each row (j), periodic
  FilterColumns,   ///< out = alpha·aux + beta·(kernel along each column (i)), periodic,
                   ///< a wrap past the last row shifting the columns by `wrapShift`
  Butterfly,       ///< (out0, out1) ← ((a − b)/√2, (a + b)/√2), a = out0, b = out1, in place
  InverseButterfly,///< (out0, out1) ← ((a + b)/√2, (b − a)/√2): undoes Butterfly
  Resample,        ///< out = source ∘ R_shearType^shift
  BacksampleOneLevel,       ///< out = backsampled source (one-level tree)
  UndoBacksampleOneLevel    ///< its inverse
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

/** The number of output elements an operation computes (its launch size). */
CIF_HD std::int64_t
DFBOpOutputCount(const DFBOp & op)
{
  return op.out0.Size(); // Split: one element of each component per output element
}

/** Computes element `e` (row-major in the operation's output array) of `op`.
 * `buffers` are the work buffers, `taps` the plan's tap table converted to T. */
template <typename T>
CIF_HD void
RunDFBOpAt(const DFBOp & op, T * const * buffers, const T * taps, std::int64_t e)
{
  const int i = static_cast<int>(e / op.out0.cols);
  const int j = static_cast<int>(e - static_cast<std::int64_t>(i) * op.out0.cols);
  auto      at = [buffers](const DFBArray & a, int r, int c) -> T & {
    return buffers[a.buffer][a.offset + static_cast<std::int64_t>(r) * a.cols + c];
  };
  switch (op.kind)
  {
    case DFBOpKind::Split:
    {
      // one element of each component: the launch covers one component's size
      const GridIndex s0 = PolyphaseSource(op.split, 0, { i, j }, op.in0.rows, op.in0.cols);
      const GridIndex s1 = PolyphaseSource(op.split, 1, { i, j }, op.in0.rows, op.in0.cols);
      at(op.out0, i, j) = at(op.in0, s0.i, s0.j);
      at(op.out1, i, j) = at(op.in0, s1.i, s1.j);
      break;
    }
    case DFBOpKind::Merge:
    {
      GridIndex c;
      const int coset = PolyphaseDestination(op.split, { i, j }, op.out0.rows, op.out0.cols, c);
      at(op.out0, i, j) = coset == 0 ? at(op.in0, c.i, c.j) : at(op.in1, c.i, c.j);
      break;
    }
    case DFBOpKind::FilterRows:
    {
      const int cols = op.in0.cols;
      const T * row = &at(op.in0, i, 0);
      T         sum = 0;
      int       c = WrapIndex(static_cast<std::int64_t>(j) + op.kernelFirst, cols);
      for (int k = 0; k < op.kernelCount; ++k)
      {
        sum += taps[op.kernelOffset + k] * row[c];
        c = (c + 1 == cols) ? 0 : c + 1;
      }
      at(op.out0, i, j) = sum;
      break;
    }
    case DFBOpKind::FilterColumns:
    {
      const int    rows = op.in0.rows;
      const int    cols = op.in0.cols;
      std::int64_t r = static_cast<std::int64_t>(i) + op.kernelFirst;
      // Periodic along the column, a wrap moving `wrapShift` columns (the lattice of
      // the first quincunx level); floor division counts the wraps.
      std::int64_t wraps = (r >= 0) ? r / rows : -((-r + rows - 1) / rows);
      r -= wraps * rows;
      int c = WrapIndex(static_cast<std::int64_t>(j) + wraps * op.wrapShift, cols);
      T   sum = 0;
      for (int k = 0; k < op.kernelCount; ++k)
      {
        sum += taps[op.kernelOffset + k] * at(op.in0, static_cast<int>(r), c);
        if (++r == rows)
        {
          r = 0;
          c = WrapIndex(static_cast<std::int64_t>(c) + op.wrapShift, cols);
        }
      }
      T value = static_cast<T>(op.beta) * sum;
      if (op.alpha != 0.0)
      {
        value += static_cast<T>(op.alpha) * at(op.aux, i, j);
      }
      at(op.out0, i, j) = value;
      break;
    }
    case DFBOpKind::Butterfly:
    {
      const T a = at(op.out0, i, j);
      const T b = at(op.out1, i, j);
      const T s = static_cast<T>(0.70710678118654752440);
      at(op.out0, i, j) = (a - b) * s;
      at(op.out1, i, j) = (a + b) * s;
      break;
    }
    case DFBOpKind::InverseButterfly:
    {
      const T a = at(op.out0, i, j);
      const T b = at(op.out1, i, j);
      const T s = static_cast<T>(0.70710678118654752440);
      at(op.out0, i, j) = (a + b) * s;
      at(op.out1, i, j) = (b - a) * s;
      break;
    }
    case DFBOpKind::Resample:
    {
      const GridIndex s = ShearSource({ i, j }, op.shearType, op.shearShift, op.in0.rows, op.in0.cols);
      at(op.out0, i, j) = at(op.in0, s.i, s.j);
      break;
    }
    case DFBOpKind::BacksampleOneLevel:
    {
      const GridIndex s = BacksampleOneLevelSource({ i, j }, op.in0.rows, op.in0.cols);
      at(op.out0, i, j) = at(op.in0, s.i, s.j);
      break;
    }
    case DFBOpKind::UndoBacksampleOneLevel:
    {
      const GridIndex s = BacksampleOneLevelDestination({ i, j }, op.in0.rows, op.in0.cols);
      at(op.out0, i, j) = at(op.in0, s.i, s.j);
      break;
    }
  }
}
} // namespace cif

#endif
