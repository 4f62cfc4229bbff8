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
#ifndef cifDirectionalFilterBankPlan_h
#define cifDirectionalFilterBankPlan_h

// The Bamberger–Smith directional filter bank as a list of operations (a plan):
// the tree of 2-band stages of Park–Smith–Mersereau in the form of Do & Vetterli
// (their contourlet toolbox's dfbdec/dfbrec ordering), with
//   level 1: quincunx Q1 ('1r'); level 2: quincunx Q2 ('2c') on both channels;
//   level l ≥ 3: parallelogram P1/P2 on the first half of the channels, P3/P4 on the
//   second half (alternating by channel), each 2-band stage in polyphase form;
//   then backsampling, so every subband's overall sampling is rectangular, and the
//   second half of the channels in reverse order (the angles then run monotonically).
// Planned once per (size, levels, filter set); the CPU reference and the GPU path
// run the same plan.
#include "cifDirectionalFilterBankFilters.h"
#include "cifDirectionalFilterBankOps.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace cif
{
/** An executable plan: operations over `bufferSizes.size()` work buffers. Buffer 0
 * holds the image (input of the analysis, output of the synthesis); the subbands,
 * in their final order, are `subbands` (where the analysis leaves them and where the
 * synthesis expects them). */
struct DFBPlan
{
  int                       rows = 0;
  int                       cols = 0;
  int                       levels = 0;
  DirectionalFilterSet      filterSet = DirectionalFilterSet::LadderPKVA12;
  std::vector<DFBOp>        ops;
  std::vector<double>       taps;
  std::vector<std::int64_t> bufferSizes;
  DFBArray                  image;
  std::vector<DFBArray>     subbands;
  /** The plan's stages, for progress: stage k is ops [stageEnds[k-1], stageEnds[k])
   * (from 0 for k = 0): one tree level, or the backsampling. A stage never ends
   * between a row pass and its column pass (AddSeparable adds them together), so
   * running the stages one by one fuses the same pairs as running all ops at once. */
  std::vector<std::size_t> stageEnds;

  /** Inverse QMF kernels by (phase, period): a tree repeats a few periods many times. */
  std::map<std::pair<int, long long>, CorrelationKernel> inverseKernels;
};

/** Empty string if a rows × cols image can be decomposed in `levels` levels, else
 * the reason, naming the sizes that would work. */
inline std::string
DirectionalFilterBankSizeProblem(int rows, int cols, int levels)
{
  if (levels < 1 || levels > 5)
  {
    return "the number of levels must be 1 to 5 (2 to 32 directions), not " + std::to_string(levels);
  }
  if (rows >= (1 << 24) || cols >= (1 << 24))
  {
    return "image sides must be below 2^24 samples";
  }
  // Level 1 halves the rows; from level 2 on every channel is halved along rows
  // (first half) or columns (second half) once per level after the first.
  const int rowFactor = levels == 1 ? 2 : (1 << (levels - 1));
  const int colFactor = levels == 1 ? 1 : (1 << (levels - 1));
  const int minimumRows = std::max(2 * rowFactor, 4);
  const int minimumCols = std::max(2 * colFactor, 4);
  if (rows % rowFactor != 0 || cols % colFactor != 0 || rows < minimumRows || cols < minimumCols)
  {
    return "a " + std::to_string(levels) + "-level directional filter bank needs the image width to be a multiple of " +
           std::to_string(colFactor) + " (at least " + std::to_string(minimumCols) + ") and the height a multiple of " +
           std::to_string(rowFactor) + " (at least " + std::to_string(minimumRows) + "); got " + std::to_string(cols) +
           " x " + std::to_string(rows);
  }
  return {};
}

namespace dfb_detail
{
struct Stage
{
  DFBArray       parent;
  DFBArray       child0; ///< the polyphase component p0, then the subband y0
  DFBArray       child1;
  PolyphaseSplit split;
  int            wrapShift; ///< vertical periodic wrap of the components (see FilterColumns)
};

inline int
AddKernel(DFBPlan & plan, const CorrelationKernel & kernel, DFBOp & op)
{
  op.kernelFirst = kernel.first;
  op.kernelOffset = static_cast<int>(plan.taps.size());
  op.kernelCount = static_cast<int>(kernel.taps.size());
  plan.taps.insert(plan.taps.end(), kernel.taps.begin(), kernel.taps.end());
  return op.kernelOffset;
}

inline DFBOp
Filter(DFBOpKind kind, const DFBArray & in, const DFBArray & out, int wrapShift = 0)
{
  DFBOp op;
  op.kind = kind;
  op.in0 = in;
  op.out0 = out;
  op.wrapShift = kind == DFBOpKind::FilterColumns ? wrapShift : 0;
  return op;
}

/** Period of a column pass: the rows, times how many wraps bring the column back. */
inline long long
ColumnPeriod(int rows, int cols, int wrapShift)
{
  if (wrapShift % cols == 0)
  {
    return rows;
  }
  return static_cast<long long>(rows) * (cols / std::gcd(cols, wrapShift % cols));
}

/** Adds out = kernel ⊗ kernel applied to `in` (rows, then columns), optionally
 * combined as alpha·aux + beta·filtered; `temp` holds the row pass. */
inline void
AddSeparable(DFBPlan &                 plan,
             const CorrelationKernel & rowKernel,
             const CorrelationKernel & columnKernel,
             const DFBArray &          in,
             const DFBArray &          out,
             const DFBArray &          temp,
             int                       wrapShift,
             double                    alpha,
             const DFBArray &          aux,
             double                    beta)
{
  DFBOp rowsOp = Filter(DFBOpKind::FilterRows, in, temp);
  AddKernel(plan, rowKernel, rowsOp);
  plan.ops.push_back(rowsOp);
  DFBOp columnsOp = Filter(DFBOpKind::FilterColumns, temp, out, wrapShift);
  AddKernel(plan, columnKernel, columnsOp);
  columnsOp.alpha = alpha;
  columnsOp.aux = aux;
  columnsOp.beta = beta;
  plan.ops.push_back(columnsOp);
}

inline void
AddAnalysisStage(DFBPlan & plan, const Stage & s, const DFBArray & tempBase)
{
  DFBOp split;
  split.kind = DFBOpKind::Split;
  split.in0 = s.parent;
  split.out0 = s.child0;
  split.out1 = s.child1;
  split.split = s.split;
  plan.ops.push_back(split);
  DFBArray temp = tempBase;
  temp.rows = s.child0.rows;
  temp.cols = s.child0.cols;
  const double root2 = 1.41421356237309504880;
  if (IsLadder(plan.filterSet))
  {
    const CorrelationKernel f1 = LadderKernel(plan.filterSet, 1);
    const CorrelationKernel f0 = LadderKernel(plan.filterSet, 0);
    // y0 = (p0 − F1 p1)/√2, in place over p0; then y1 = −√2 p1 − F0 y0 over p1.
    AddSeparable(plan, f1, f1, s.child1, s.child0, temp, s.wrapShift, 1.0 / root2, s.child0, -1.0 / root2);
    AddSeparable(plan, f0, f0, s.child0, s.child1, temp, s.wrapShift, -root2, s.child1, -1.0);
  }
  else
  {
    const CorrelationKernel a = QMFPolyphaseKernel(plan.filterSet, 0);
    const CorrelationKernel b = QMFPolyphaseKernel(plan.filterSet, 1);
    AddSeparable(plan, a, a, s.child0, s.child0, temp, s.wrapShift, 0.0, DFBArray{}, 1.0);
    AddSeparable(plan, b, b, s.child1, s.child1, temp, s.wrapShift, 0.0, DFBArray{}, 1.0);
    DFBOp butterfly;
    butterfly.kind = DFBOpKind::Butterfly;
    butterfly.out0 = s.child0;
    butterfly.out1 = s.child1;
    plan.ops.push_back(butterfly);
  }
}

inline void
AddSynthesisStage(DFBPlan & plan, const Stage & s, const DFBArray & tempBase)
{
  DFBArray temp = tempBase;
  temp.rows = s.child0.rows;
  temp.cols = s.child0.cols;
  const double root2 = 1.41421356237309504880;
  if (IsLadder(plan.filterSet))
  {
    const CorrelationKernel f1 = LadderKernel(plan.filterSet, 1);
    const CorrelationKernel f0 = LadderKernel(plan.filterSet, 0);
    // p1 = −(y1 + F0 y0)/√2 over y1; then p0 = √2 y0 + F1 p1 over y0.
    AddSeparable(plan, f0, f0, s.child0, s.child1, temp, s.wrapShift, -1.0 / root2, s.child1, -1.0 / root2);
    AddSeparable(plan, f1, f1, s.child1, s.child0, temp, s.wrapShift, root2, s.child0, 1.0);
  }
  else
  {
    DFBOp butterfly;
    butterfly.kind = DFBOpKind::InverseButterfly;
    butterfly.out0 = s.child0;
    butterfly.out1 = s.child1;
    plan.ops.push_back(butterfly);
    const long long rowPeriod = s.child0.cols;
    const long long columnPeriod = ColumnPeriod(s.child0.rows, s.child0.cols, s.wrapShift);
    for (int phase = 0; phase < 2; ++phase)
    {
      const CorrelationKernel forward = QMFPolyphaseKernel(plan.filterSet, phase);
      const DFBArray &        c = phase == 0 ? s.child0 : s.child1;
      auto                    inverseOf = [&](long long period) -> const CorrelationKernel & {
        auto found = plan.inverseKernels.find({ phase, period });
        if (found == plan.inverseKernels.end())
        {
          found =
            plan.inverseKernels.emplace(std::make_pair(phase, period), InversePeriodicKernel(forward, period)).first;
        }
        return found->second;
      };
      const CorrelationKernel rowInverse = inverseOf(rowPeriod);
      const CorrelationKernel columnInverse = inverseOf(columnPeriod);
      AddSeparable(plan, rowInverse, columnInverse, c, c, temp, s.wrapShift, 0.0, DFBArray{}, 1.0);
    }
  }
  DFBOp merge;
  merge.kind = DFBOpKind::Merge;
  merge.in0 = s.child0;
  merge.in1 = s.child1;
  merge.out0 = s.parent;
  merge.split = s.split;
  plan.ops.push_back(merge);
}

/** The tree: the stages of every level, and the subbands after the last level (in
 * the toolbox's order, before backsampling and flipping). */
struct Tree
{
  std::vector<std::vector<Stage>> levels;
  std::vector<DFBArray>           leaves;
};

inline Tree
BuildTree(int rows, int cols, int levels)
{
  Tree                  tree;
  std::vector<DFBArray> current{ DFBArray{ 0, 0, rows, cols } };
  for (int level = 1; level <= levels; ++level)
  {
    const int                 buffer = (level % 2 == 1) ? 1 : 2;
    const int                 parents = static_cast<int>(current.size());
    std::vector<DFBArray>     next(2 * parents);
    std::vector<Stage>        stages;
    std::int64_t              offset = 0;
    std::vector<std::int64_t> childSize(2 * parents);
    // The outputs of parent k are channels 2k and 2k+1 (0-based); which of them is
    // y0 follows the toolbox: [y{2k}, y{2k-1}] = fbdec(...) for levels ≥ 2.
    for (int k = 0; k < parents; ++k)
    {
      Stage s;
      s.parent = current[k];
      if (level == 1)
      {
        s.split = QuincunxSplit1r();
      }
      else if (level == 2)
      {
        s.split = QuincunxSplit2c();
      }
      else
      {
        const int firstHalf = parents / 2;
        s.split = ParallelogramSplit(k < firstHalf ? (k % 2) + 1 : (k % 2) + 3);
      }
      int childRows, childCols;
      PolyphaseComponentSize(s.split, s.parent.rows, s.parent.cols, childRows, childCols);
      s.wrapShift = level == 1 ? (childRows % childCols) : 0;
      const int y0Channel = level == 1 ? 2 * k : 2 * k + 1;
      const int y1Channel = level == 1 ? 2 * k + 1 : 2 * k;
      next[y0Channel] = DFBArray{ buffer, 0, childRows, childCols };
      next[y1Channel] = DFBArray{ buffer, 0, childRows, childCols };
      stages.push_back(s);
    }
    for (auto & a : next)
    {
      a.offset = offset;
      offset += a.Size();
    }
    for (int k = 0; k < parents; ++k)
    {
      stages[k].child0 = next[level == 1 ? 2 * k : 2 * k + 1];
      stages[k].child1 = next[level == 1 ? 2 * k + 1 : 2 * k];
    }
    tree.levels.push_back(stages);
    current = next;
  }
  tree.leaves = current;
  return tree;
}

/** The backsampling resampling of leaf `k` for levels ≥ 3 (type, shift). */
inline void
BacksamplingOf(int levels, int k, int & type, int & shift)
{
  const int quarter = 1 << (levels - 2);
  const int half = 1 << (levels - 1);
  const int pair = (k % half) / 2 + 1; // the toolbox's k in 1..2^(n-2)
  shift = 2 * pair - (quarter + 1);
  type = k < half ? 3 : 1;
}

inline void
InitializePlan(DFBPlan & plan, int rows, int cols, int levels, DirectionalFilterSet set)
{
  const std::string problem = DirectionalFilterBankSizeProblem(rows, cols, levels);
  if (!problem.empty())
  {
    throw std::invalid_argument(problem);
  }
  plan.rows = rows;
  plan.cols = cols;
  plan.levels = levels;
  plan.filterSet = set;
  const std::int64_t size = static_cast<std::int64_t>(rows) * cols;
  plan.bufferSizes = { size, size, size, size / 2 };
  plan.image = DFBArray{ 0, 0, rows, cols };
}

/** Final subband order: the second half of the channels reversed. */
inline int
LeafOfSubband(int levels, int subband)
{
  const int half = 1 << (levels - 1);
  return subband < half ? subband : (2 * half - 1 - (subband - half));
}
} // namespace dfb_detail

/** The analysis plan: image (buffer 0) → 2^levels subbands. */
inline DFBPlan
MakeDirectionalAnalysisPlan(int rows, int cols, int levels, DirectionalFilterSet set)
{
  using namespace dfb_detail;
  DFBPlan plan;
  InitializePlan(plan, rows, cols, levels, set);
  const Tree     tree = BuildTree(rows, cols, levels);
  const DFBArray temp{ 3, 0, 0, 0 };
  for (const auto & stages : tree.levels)
  {
    for (const auto & s : stages)
    {
      AddAnalysisStage(plan, s, temp);
    }
    plan.stageEnds.push_back(plan.ops.size());
  }
  // Backsampling into the other level buffer (levels 1 and ≥ 3; level 2 needs none).
  std::vector<DFBArray> leaves = tree.leaves;
  if (levels != 2)
  {
    const int otherBuffer = (levels % 2 == 1) ? 2 : 1;
    for (int k = 0; k < static_cast<int>(leaves.size()); ++k)
    {
      DFBOp op;
      op.in0 = leaves[k];
      op.out0 = leaves[k];
      op.out0.buffer = otherBuffer;
      if (levels == 1)
      {
        op.kind = DFBOpKind::BacksampleOneLevel;
      }
      else
      {
        op.kind = DFBOpKind::Resample;
        BacksamplingOf(levels, k, op.shearType, op.shearShift);
      }
      plan.ops.push_back(op);
      leaves[k] = op.out0;
    }
    plan.stageEnds.push_back(plan.ops.size());
  }
  for (int b = 0; b < (1 << levels); ++b)
  {
    plan.subbands.push_back(leaves[LeafOfSubband(levels, b)]);
  }
  return plan;
}

/** The synthesis plan: the subbands (where the analysis plan leaves them) → image
 * in buffer 0. Every step undoes one of the analysis. */
inline DFBPlan
MakeDirectionalSynthesisPlan(int rows, int cols, int levels, DirectionalFilterSet set)
{
  using namespace dfb_detail;
  DFBPlan plan;
  InitializePlan(plan, rows, cols, levels, set);
  const Tree            tree = BuildTree(rows, cols, levels);
  const DFBArray        temp{ 3, 0, 0, 0 };
  std::vector<DFBArray> leaves = tree.leaves;
  if (levels != 2)
  {
    const int otherBuffer = (levels % 2 == 1) ? 2 : 1;
    for (int k = 0; k < static_cast<int>(leaves.size()); ++k)
    {
      DFBOp op;
      op.in0 = leaves[k];
      op.in0.buffer = otherBuffer;
      op.out0 = leaves[k];
      if (levels == 1)
      {
        op.kind = DFBOpKind::UndoBacksampleOneLevel;
      }
      else
      {
        op.kind = DFBOpKind::Resample;
        BacksamplingOf(levels, k, op.shearType, op.shearShift);
        op.shearShift = -op.shearShift;
      }
      plan.ops.push_back(op);
      leaves[k] = op.in0;
    }
    plan.stageEnds.push_back(plan.ops.size());
  }
  for (int b = 0; b < (1 << levels); ++b)
  {
    plan.subbands.push_back(leaves[LeafOfSubband(levels, b)]);
  }
  for (auto level = tree.levels.rbegin(); level != tree.levels.rend(); ++level)
  {
    for (const auto & s : *level)
    {
      AddSynthesisStage(plan, s, temp);
    }
    plan.stageEnds.push_back(plan.ops.size());
  }
  return plan;
}
} // namespace cif

#endif
