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
#ifndef cifChainedAxisPass_h
#define cifChainedAxisPass_h

#include "CudaImageFiltersExport.h"
#include "cifBSplinePrefilterMath.h"
#include "cifDeviceBuffer.h"
#include "cifPrefilterTileSize.h"

#include <cstdint>
#include <vector>

/** \file cifChainedAxisPass.h
 * The slowest axis's pass of a buffer whose planes are cut into parts along that
 * axis, each part filtering its own planes where they lie (on its own device, or
 * several parts on one), with only the recursion's states passed between the parts:
 * no line is gathered whole.
 *
 * The one-piece tiled pass (cifBSplinePrefilterKernels.cu) cuts each line into 16
 * chunks of ChainedAxisChunkLength(n) samples, sweeps every chunk from a zero state,
 * folds the chunks' outgoing states into each chunk's entering state (causal: from
 * the first chunk on; anticausal: from the last one back) and sweeps again. A part
 * whose planes start and end on chunk bounds runs the same operations on its chunks;
 * the fold over the chunks before it (causal) comes from the part before, one value
 * a line, and the fold over the chunks after it (anticausal) from the part after.
 * So the parts give the bits of one piece. A part waits for those values in the
 * kernel, its tile kept in shared memory (a block spins on a flag that the other
 * part's block raises), so each sample is read and written once, as in one piece.
 *
 * Deadlock-free as long as every part runs: blocks take their line groups in order
 * from a ticket (a part's group g waits only for group g of its neighbours, which
 * an earlier ticket there holds or a later one will take once an earlier group has
 * ended). A part whose neighbour never comes gives up after a timeout, and the call
 * throws. Parts on several devices need the devices to write to each other's
 * memory (peer access to the pools: detail::LetDeviceReadPool). */
namespace cif
{
/** The most parts one launch takes (several parts of one device; the parts of a
 * chain over devices launch one a device). */
constexpr int kMaxChainedPartsPerLaunch = 4;

/** One part of the chain: its planes of the buffer and where its neighbours' values
 * arrive and go. Mailboxes hold one value a line (T) per pole, flags one word a group
 * of lines per pole (ChainedAxisMailbox). */
struct ChainedAxisPart
{
  void *         planes = nullptr; ///< T *: planes [firstPlane, endPlane) of the buffer, dense, on the launching device
  std::int64_t   firstPlane = 0;
  std::int64_t   endPlane = 0;
  const void *   causalIn = nullptr; ///< the causal fold entering firstPlane (null for the first part)
  unsigned int * causalInFlags = nullptr;
  void *         causalOut = nullptr; ///< the next part's causalIn (null for the last part)
  unsigned int * causalOutFlags = nullptr;
  const void *   anticausalIn = nullptr; ///< the anticausal fold entering endPlane - 1 (null for the last part)
  unsigned int * anticausalInFlags = nullptr;
  void *         anticausalOut = nullptr; ///< the previous part's anticausalIn (null for the first part)
  unsigned int * anticausalOutFlags = nullptr;
};

/** Samples per chunk of the one-piece pass over lines of \a n samples: the parts'
 * planes must start at multiples of it. */
inline std::int64_t
ChainedAxisChunkLength(std::int64_t n)
{
  return PrefilterChunkLength(n);
}

/** Whether the slowest axis of \a shape (T of \a scalarBytes) cut at \a bounds (the
 * parts' first planes, then the axis's length) can be chained with one piece's bits:
 * the one-piece pass takes its tiled kernel, every inner bound is a chunk bound, the
 * parts' tiles are equally wide, the first part holds the samples of the causal start
 * and \a mode's starting values read only their own end (not Periodic). */
inline bool
CanChainSlowestAxis(const BufferShape &               shape,
                    const std::vector<std::int64_t> & bounds,
                    const SplinePoles &               poles,
                    BoundaryMode                      mode,
                    int                               scalarBytes)
{
  const std::int64_t n = shape.size[shape.dimension - 1];
  const auto         bytes = static_cast<std::size_t>(scalarBytes);
  if (poles.count == 0 || n < 2 || mode == BoundaryMode::Periodic || bounds.size() < 3 || bounds.front() != 0 ||
      bounds.back() != n || PrefilterTileLanes(bytes, n) == 0)
  {
    return false; // the one-piece pass of such lines is not the tiled one, or nothing to chain
  }
  const std::int64_t chunk = ChainedAxisChunkLength(n);
  for (std::size_t k = 1; k < bounds.size(); ++k)
  {
    if (bounds[k] <= bounds[k - 1] || (k + 1 < bounds.size() && bounds[k] % chunk != 0))
    {
      return false;
    }
  }
  // The parts' tiles must be equally wide, so that a group of lines and its mailbox
  // flags mean the same lines on every device, each of which chooses its tiles from
  // its own parts (PrefilterTileLanes, as the launcher does).
  for (std::size_t k = 2; k < bounds.size(); ++k)
  {
    if (PrefilterTileLanes(bytes, bounds[k] - bounds[k - 1]) != PrefilterTileLanes(bytes, bounds[1] - bounds[0]))
    {
      return false;
    }
  }
  for (int p = 0; p < poles.count; ++p)
  {
    if (poles.horizon[p] >= n || poles.horizon[p] > bounds[1])
    {
      return false; // the causal start would read past the first part
    }
  }
  return bounds.back() - bounds[bounds.size() - 2] >= 2; // the anticausal start reads the last two
}

/** The pass along the slowest axis of \a shape over \a count parts of it on the
 * current device, in one launch (the parts of other devices launched there at the
 * same time with the same \a epoch). \a epoch: a number the mailboxes' flags have not
 * shown yet (1, 2, ... run by run), the same for every part of the run. Synchronous: returns
 * when the parts here are done; throws CudaError where a neighbour's values did not
 * come within \a timeoutSeconds. */
template <typename T>
CudaImageFilters_EXPORT void
PrefilterChainedAxisOnDevice(const ChainedAxisPart * parts,
                             int                     count,
                             const BufferShape &     shape,
                             const SplinePoles &     poles,
                             BoundaryMode            mode,
                             unsigned int            epoch,
                             double                  timeoutSeconds = 20.0);

/** The inboxes of one part, on the current device at Allocate: the causal values the
 * part before sends, the anticausal values the part after sends, and their flags
 * (zero, so that any epoch from 1 on is new). */
class CudaImageFilters_EXPORT ChainedAxisMailbox
{
public:
  /** Flag words a pole for lines of \a planeScalars scalars: one a group of lines (a
   * tile, at least 8 lines wide). */
  CIF_HD static std::int64_t
  FlagsPerPole(std::int64_t planeScalars)
  {
    return (planeScalars + 7) / 8;
  }
  /** For lines of \a planeScalars scalars of \a scalarBytes, \a poles poles (on the
   * current device; synchronous). */
  void
  Allocate(std::int64_t planeScalars, int poles, std::size_t scalarBytes);
  void
  Release()
  {
    m_Causal.Release();
    m_Anticausal.Release();
    m_CausalFlags.Release();
    m_AnticausalFlags.Release();
  }

  /** Part \a k of \a mailboxes (one a part, in order) over planes [first, end) at
   * \a planes: its inboxes, and its neighbours' as its outboxes. */
  static ChainedAxisPart
  Part(std::vector<ChainedAxisMailbox> & mailboxes, std::size_t k, void * planes, std::int64_t first, std::int64_t end)
  {
    ChainedAxisPart part;
    part.planes = planes;
    part.firstPlane = first;
    part.endPlane = end;
    if (k > 0)
    {
      part.causalIn = mailboxes[k].m_Causal.Data();
      part.causalInFlags = mailboxes[k].m_CausalFlags.As<unsigned int>();
      part.anticausalOut = mailboxes[k - 1].m_Anticausal.Data();
      part.anticausalOutFlags = mailboxes[k - 1].m_AnticausalFlags.As<unsigned int>();
    }
    if (k + 1 < mailboxes.size())
    {
      part.causalOut = mailboxes[k + 1].m_Causal.Data();
      part.causalOutFlags = mailboxes[k + 1].m_CausalFlags.As<unsigned int>();
      part.anticausalIn = mailboxes[k].m_Anticausal.Data();
      part.anticausalInFlags = mailboxes[k].m_AnticausalFlags.As<unsigned int>();
    }
    return part;
  }

private:
  DeviceBuffer m_Causal;
  DeviceBuffer m_Anticausal;
  DeviceBuffer m_CausalFlags;
  DeviceBuffer m_AnticausalFlags;
};

#define CIF_INSTANTIATE_CHAINED_AXIS(T)          \
  template void PrefilterChainedAxisOnDevice<T>( \
    const ChainedAxisPart *, int, const BufferShape &, const SplinePoles &, BoundaryMode, unsigned int, double);
} // namespace cif

#endif
