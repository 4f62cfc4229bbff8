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
#ifndef itkCudaHostInputRegistration_h
#define itkCudaHostInputRegistration_h

#include "CudaImageFiltersExport.h"
#include "itkObject.h"

#include <cstddef>

/** \file itkCudaHostInputRegistration.h
 * Host input images that the GPU filters upload again and again are page-locked in
 * place, so that later uploads are one DMA at the bus's speed.
 *
 * An ordinary itk::Image's pixels are pageable memory: each upload goes through the
 * staging rings (cifPinnedStaging.h), whose host copies take 1.15-1.5x the pinned
 * copy's time depending on the host's memory bandwidth. When the same buffer of the
 * same pixel container comes back for its (N+1)-th upload (N =
 * GetHostInputUploadsBeforeRegistration(), default 8), the library registers it
 * (cudaHostRegister, counted against cif::GetPinnedHostLimit()) before copying. That
 * is what a pipeline does whose input stays and whose filter re-runs: a registration
 * optimizer resampling the same moving image, a parameter sweep, a benchmark.
 *
 * What it costs (H100 host, 2026-11-25): registering 0.06-0.07 ms per MiB once,
 * unregistering about 0.025 ms per MiB when the buffer goes; each later upload saves
 * the staged copy's excess over the pinned one, which varies with the host. In the
 * filters' updates (192 and 512 MiB inputs) the one-time cost came to 5 to 48 updates'
 * savings: N = 8 registers no short loop, and costs a long one at most 8 updates'
 * excess over registering at once.
 * See Modules/Core/README.md, "Host inputs uploaded again and again".
 *
 * A registration must end before its memory is freed: it outlives a free(), and a
 * later allocation at the same address would be copied from the old pages (measured:
 * a copy from a fresh mapping at a just-freed registered address delivered the old
 * data). So only buffers that their container owns are registered (an imported
 * pointer the caller owns may be freed behind the container's back), and the
 * container is watched:
 * - DeleteEvent (the container's last reference going; ITK invokes it before the
 *   destructor frees the buffer): unregistered first.
 * - ModifiedEvent with a different buffer, size or ownership (Reserve growing it,
 *   Initialize, Squeeze, SetImportPointer, SetContainerManageMemory): unregistered.
 *   ImportImageContainer frees the old buffer a few instructions before it calls
 *   Modified(), so for these explicit calls on a registered container there is a
 *   short window in which the old range is still registered; only a copy, by
 *   another thread, into or out of a new allocation that the system placed at the
 *   same address within that window could see the old pages. Pipelines do not take
 *   this path: a filter re-running gives its output image a new container
 *   (Image::Initialize), and the old one goes through DeleteEvent.
 * Turn registration off with SetHostInputUploadsBeforeRegistration(0) or the
 * environment CIF_REGISTER_INPUTS_AFTER=0 where inputs' containers are re-allocated
 * by hand while other threads copy to or from the GPU.
 *
 * Thread safe. Without CUDA (or with no GPU) nothing is ever registered. */
namespace cif
{
/** Uploads of one buffer that go through the staging rings before the next one
 * registers it; 0 never registers. Default 8; environment CIF_REGISTER_INPUTS_AFTER,
 * read once. */
CudaImageFilters_EXPORT unsigned
GetHostInputUploadsBeforeRegistration();

/** Changes that count; registrations already made stay. */
CudaImageFilters_EXPORT void
SetHostInputUploadsBeforeRegistration(unsigned uploads);

/** Buffers smaller than this are never registered: their staged copies cost little
 * over the bus, and registering costs about 0.06 ms per MiB. 16 MiB. */
constexpr std::size_t kSmallestRegisteredHostInput = std::size_t(16) << 20;

/** What the registrations have done since the process began. */
struct HostInputRegistrationStatistics
{
  std::size_t registeredBytes = 0;        ///< held now
  std::size_t registrations = 0;          ///< made so far
  double      registerMilliseconds = 0;   ///< spent registering, so far
  double      unregisterMilliseconds = 0; ///< spent unregistering, so far
};

CudaImageFilters_EXPORT HostInputRegistrationStatistics
GetHostInputRegistrationStatistics();

/** Ends every registration now (the containers stay watched; their upload counts
 * start again). */
CudaImageFilters_EXPORT void
ReleaseHostInputRegistrations();

namespace detail
{
/** One upload of a pixel container's buffer, as NoteHostInputUpload describes it. */
struct HostInputBuffer
{
  const itk::Object * container = nullptr;
  void *              buffer = nullptr;
  std::size_t         bytes = 0;
  bool                ownedByContainer = false;
  /** Reads the container's current buffer, size in bytes and ownership (the watch's
   * ModifiedEvent compares them with the registered ones). */
  void (*current)(const itk::Object * container, void *& buffer, std::size_t & bytes, bool & owned) = nullptr;
};

CudaImageFilters_EXPORT void
NoteHostInputUpload(const HostInputBuffer & upload);
} // namespace detail
} // namespace cif

namespace itk
{
/** To be called by a GPU filter just before it uploads the pixels of \a container
 * (an ImportImageContainer, e.g. image->GetPixelContainer()): counts the upload and,
 * at the (N+1)-th of the same buffer, registers it, so that the upload that follows
 * takes the direct path. */
template <typename TContainer>
void
NoteHostInputUpload(const TContainer * container)
{
  if (container == nullptr)
  {
    return;
  }
  cif::detail::HostInputBuffer upload;
  upload.container = container;
  upload.current = [](const itk::Object * object, void *& buffer, std::size_t & bytes, bool & owned) {
    auto * c = const_cast<TContainer *>(static_cast<const TContainer *>(object));
    buffer = c->GetImportPointer();
    bytes = static_cast<std::size_t>(c->Size()) * sizeof(typename TContainer::Element);
    owned = c->GetContainerManageMemory();
  };
  upload.current(container, upload.buffer, upload.bytes, upload.ownedByContainer);
  cif::detail::NoteHostInputUpload(upload);
}
} // namespace itk

#endif
