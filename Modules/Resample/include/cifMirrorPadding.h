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
#ifndef cifMirrorPadding_h
#define cifMirrorPadding_h

#include "cifBSplinePrefilterMath.h"
#include "cifCubicInterpolation.h"

/** \file cifMirrorPadding.h
 * Cubic B-spline coefficients stored with a halo of kMirrorPad samples around each
 * axis used, the halo holding the samples ITK's mirror reads there
 * (MirroredIndex32). The cubic support of any point inside the buffer (ITK's
 * IsInsideBuffer: start - 1/2 <= x < start + size - 1/2) then lies inside the padded
 * grid: the resampling kernels read every voxel's 4^D samples at fixed offsets from
 * one address, with no mirror arithmetic and no separate path for the voxels whose
 * support reaches past a face. The sum reads the same samples with the same weights
 * in the same order, so the values are the same bits as the mirrored sum's. The
 * resampler's own coefficients are stored so (ResampleGeometry::inputMirrorPadded);
 * the prefilter writes the interior (PrefilterIntoLayoutOnDevice at
 * MirrorPaddedLayout) and FillMirrorHaloOnDevice the halo.
 *
 * Rows along axis 0 are kMirrorPadRowAlignment samples apart or a multiple of it, and
 * the buffer starts kMirrorPaddedLead samples before the padded grid's first sample,
 * so that every row's interior starts where a dense row would (128-byte aligned for
 * float in an allocation that is): the prefilter's passes then read and write whole
 * 32-byte sectors and 64-byte DRAM atoms as they do on dense buffers (misaligned rows
 * cost its passes 40%, measured on an H100). The samples past a row's halo are never
 * written or read. */
namespace cif
{
/** Samples of halo at each end of an axis: the cubic support of a point inside the
 * buffer reaches from floor(x) - 1 >= start - 2 to floor(x) + 2 <= start + size + 1. */
constexpr int kMirrorPad = 2;

/** Samples per row of the padded buffer: a multiple of this (128 bytes of float). */
constexpr int kMirrorPadRowAlignment = 32;

/** Samples of the padded buffer before the padded grid's first sample: the interior
 * of every row then starts kMirrorPadRowAlignment-aligned. */
constexpr int kMirrorPaddedLead = kMirrorPadRowAlignment - kMirrorPad;

/** The grid of the padded buffer: each of the first \a D axes of \a grid kMirrorPad
 * samples longer at both ends, axis 0 then rounded up to a multiple of
 * kMirrorPadRowAlignment (its row pitch: the evaluation reads only the first
 * size + 2 kMirrorPad samples of a row, the support of a point inside the buffer). */
template <int D>
CIF_HD CoefficientGrid
MirrorPaddedGrid(const CoefficientGrid & grid)
{
  CoefficientGrid padded = grid;
  for (int a = 0; a < D; ++a)
  {
    padded.start[a] -= kMirrorPad;
    padded.size[a] += 2 * kMirrorPad;
  }
  padded.size[0] = (padded.size[0] + kMirrorPadRowAlignment - 1) / kMirrorPadRowAlignment * kMirrorPadRowAlignment;
  return padded;
}

/** The padded grid's first sample in a padded buffer that starts at \a buffer. */
template <typename T>
CIF_HD T *
MirrorPaddedGridStart(T * buffer)
{
  return buffer + kMirrorPaddedLead;
}

/** The sample (from the grid's start) that padded position \a p (from the padded
 * grid's start) holds along an axis of \a size samples: the grid's own sample inside,
 * ITK's mirror in the halo. */
CIF_HD std::int32_t
       MirrorHaloSource(std::int32_t p, std::int32_t size)
{
  return MirroredIndex32(p - kMirrorPad, size);
}

/** Where the samples of \a grid (D axes, one component) lie in its padded buffer
 * (from the buffer's start). */
template <int D>
BufferLayout
MirrorPaddedLayout(const CoefficientGrid & grid)
{
  const CoefficientGrid padded = MirrorPaddedGrid<D>(grid);
  BufferLayout          layout;
  layout.origin = kMirrorPaddedLead;
  std::int64_t step = 1;
  for (int a = 0; a < kMaxBufferDimension; ++a)
  {
    const bool used = a < D;
    layout.stride[a] = step;
    layout.origin += used ? kMirrorPad * step : 0;
    step *= used ? padded.size[a] : 1;
  }
  return layout;
}

/** Samples of the padded buffer of \a grid, its lead included. */
template <int D>
std::int64_t
MirrorPaddedCount(const CoefficientGrid & grid)
{
  const CoefficientGrid padded = MirrorPaddedGrid<D>(grid);
  std::int64_t          count = 1;
  for (int a = 0; a < D; ++a)
  {
    count *= padded.size[a];
  }
  return kMirrorPaddedLead + count;
}

/** Whether the kernels' 32-bit interior sum reaches the padded buffer of \a grid
 * (fewer than 2^31 samples, indices within 31 bits): where it does not, the
 * resampler keeps its coefficients unpadded. */
template <int D>
bool
MirrorPaddingFits32(const CoefficientGrid & grid)
{
  const CoefficientGrid padded = MirrorPaddedGrid<D>(grid);
  return Indexable32(padded) && SupportFits32(padded);
}
/** Rows (lines along axis 0) of the padded buffer of \a grid. */
template <int D>
CIF_HD std::int64_t
       MirrorPaddedRows(const CoefficientGrid & grid)
{
  const CoefficientGrid padded = MirrorPaddedGrid<D>(grid);
  std::int64_t          rows = 1;
  for (int a = 1; a < D; ++a)
  {
    rows *= padded.size[a];
  }
  return rows;
}

/** The halo samples of padded row \a row (axes 1.. fastest first) of the padded
 * buffer \a buffer of \a grid, whose interior holds the grid's samples: lanes \a lane of
 * \a lanes share the row's writes. A row inside the grid along axes 1.. gets its
 * 2 kMirrorPad samples at the ends; a row in the halo along some axis is written
 * whole, from the interior row ITK's mirror reads there. Every read is of an interior
 * sample, which no call writes, so the rows can be filled in any order, at once. */
template <int D, typename T>
CIF_HD void
FillMirrorHaloRow(T * buffer, const CoefficientGrid & grid, std::int64_t row, int lane, int lanes)
{
  T * const             padded = MirrorPaddedGridStart(buffer);
  const CoefficientGrid paddedGrid = MirrorPaddedGrid<D>(grid);
  std::int64_t          rowOffset = 0, sourceOffset = 0, stride = paddedGrid.size[0];
  bool                  interiorRow = true;
  for (int a = 1; a < D; ++a)
  {
    const auto p = static_cast<std::int32_t>(row % paddedGrid.size[a]);
    row /= paddedGrid.size[a];
    const std::int32_t source = MirrorHaloSource(p, static_cast<std::int32_t>(grid.size[a])) + kMirrorPad;
    interiorRow = interiorRow && p == source;
    rowOffset += p * stride;
    sourceOffset += source * stride;
    stride *= paddedGrid.size[a];
  }
  const auto width = static_cast<std::int32_t>(grid.size[0]);
  const auto paddedWidth = static_cast<std::int32_t>(grid.size[0] + 2 * kMirrorPad); // the row pitch may be more
  if (interiorRow)
  {
    for (int k = lane; k < 2 * kMirrorPad; k += lanes)
    {
      const std::int32_t p = k < kMirrorPad ? k : paddedWidth - 2 * kMirrorPad + k;
      padded[rowOffset + p] = padded[sourceOffset + MirrorHaloSource(p, width) + kMirrorPad];
    }
    return;
  }
  for (std::int32_t p = lane; p < paddedWidth; p += lanes)
  {
    padded[rowOffset + p] = padded[sourceOffset + MirrorHaloSource(p, width) + kMirrorPad];
  }
}

/** The padded buffer of \a grid from its \a dense coefficients, on the host (what
 * the device's PrefilterIntoLayoutOnDevice and FillMirrorHaloOnDevice write). */
template <int D, typename T>
void
MirrorPadOnHost(const T * dense, const CoefficientGrid & grid, T * padded)
{
  BufferShape shape;
  shape.dimension = D;
  for (int a = 0; a < D; ++a)
  {
    shape.size[a] = grid.size[a];
  }
  const AxisLines rows = MakeAxisLines(shape, 0, MirrorPaddedLayout<D>(grid)); // from padded's start
  for (std::int64_t line = 0; line < rows.count; ++line)
  {
    for (std::int64_t k = 0; k < rows.length; ++k)
    {
      padded[rows.Start(line) + k] = dense[line * rows.length + k];
    }
  }
  for (std::int64_t row = 0; row < MirrorPaddedRows<D>(grid); ++row)
  {
    FillMirrorHaloRow<D>(padded, grid, row, 0, 1);
  }
}
} // namespace cif

#endif
