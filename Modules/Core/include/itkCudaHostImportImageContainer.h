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
#ifndef itkCudaHostImportImageContainer_h
#define itkCudaHostImportImageContainer_h

#include "cifHostWorkArea.h"
#include "cifPinnedHostMemory.h"
#include "cifPinnedStaging.h"
#include "itkImage.h"
#include "itkImportImageContainer.h"

#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

namespace itk
{
/** \class CudaHostImportImageContainer
 * \brief The pixel buffer of a GPU filter's host output: memory the device's copies
 * reach fast.
 *
 * Two kinds of memory, by SetPinned():
 * - pinned (page-locked, cif::AllocatePinnedHostMemory): a download into it, and the
 *   next GPU filter's upload from it, is one DMA at the bus's speed. Slow to
 *   allocate (512 MiB: about 0.2 s), so it is for buffers that are reused.
 * - otherwise ordinary memory aligned to 2 MiB and advised as transparent huge pages
 *   (cifHostWorkArea.h): the first download into a fresh buffer maps it 2 MiB per
 *   page fault instead of 4 KiB (4 GiB on the H100 host: 248 ms instead of 509).
 * Where pinning is declined (past the library's cap, or the driver refuses) the
 * buffer is ordinary memory, so an image never fails for want of pinned memory.
 * Everything else is ImportImageContainer's: ITK keeps the container across updates
 * of the same size (Reserve reuses its capacity), a pointer imported with
 * SetImportPointer stays the caller's, and every filter and iterator reads the
 * pixels as from any image.
 *
 * \ingroup CudaImageFilters
 */
template <typename TElementIdentifier, typename TElement>
class ITK_TEMPLATE_EXPORT CudaHostImportImageContainer : public ImportImageContainer<TElementIdentifier, TElement>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaHostImportImageContainer);
  using Self = CudaHostImportImageContainer;
  using Superclass = ImportImageContainer<TElementIdentifier, TElement>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using ElementIdentifier = TElementIdentifier;
  using Element = TElement;
  itkNewMacro(Self);
  itkTypeMacro(CudaHostImportImageContainer, ImportImageContainer);

  static_assert(std::is_trivially_destructible_v<TElement>,
                "host output buffers hold pixels that need no destructor (scalars, RGB, vectors)");

  /** Whether the next allocation asks for pinned memory (default off). */
  itkSetMacro(Pinned, bool);
  itkGetConstMacro(Pinned, bool);

  /** Whether the current buffer is pinned (false: ordinary memory, or none). */
  bool
  IsPinned() const
  {
    const TElement * current = const_cast<Self *>(this)->GetImportPointer();
    return std::any_of(m_Allocations.begin(), m_Allocations.end(), [current](const Allocation & a) {
      return a.memory == current && a.kind == Kind::Pinned;
    });
  }

protected:
  CudaHostImportImageContainer() = default;
  // The base destructor's call of DeallocateManagedMemory is not virtual any more
  // by then: free the buffer here, with our own deallocation.
  ~CudaHostImportImageContainer() override { this->DeallocateManagedMemory(); }

  TElement *
  AllocateElements(ElementIdentifier size, bool useDefaultConstructor = false) const override
  {
    const std::size_t bytes = static_cast<std::size_t>(size) * sizeof(TElement);
    void *            memory = m_Pinned ? cif::AllocatePinnedHostMemory(bytes) : nullptr;
    Kind              kind = Kind::Pinned;
    if (memory == nullptr)
    {
      memory = cif::AllocateHostWorkArea<unsigned char>(bytes).release();
      kind = Kind::WorkArea;
    }
    auto * data = static_cast<TElement *>(memory);
    // As new TElement[size]() and new TElement[size] initialise them.
    if (useDefaultConstructor)
    {
      std::uninitialized_value_construct_n(data, size);
    }
    else
    {
      std::uninitialized_default_construct_n(data, size);
    }
    m_Allocations.push_back({ data, kind });
    return data;
  }

  void
  DeallocateManagedMemory() override
  {
    TElement * current = this->GetImportPointer();
    // Only what AllocateElements gave goes back to its allocator; a pointer imported
    // with SetImportPointer is the caller's (or new[]'s, when the container manages
    // it). When Reserve grows the buffer, the new one is allocated before the old one
    // is freed: both are listed then.
    const auto ours = std::find_if(
      m_Allocations.begin(), m_Allocations.end(), [current](const Allocation & a) { return a.memory == current; });
    if (this->GetContainerManageMemory() && current != nullptr && ours != m_Allocations.end())
    {
      if (!(ours->kind == Kind::Pinned && cif::FreePinnedHostMemory(current)))
      {
        cif::HostWorkAreaFree{}(current);
      }
      m_Allocations.erase(ours);
      this->SetImportPointer(nullptr);
      this->SetCapacity(0);
      this->SetSize(0);
      return;
    }
    Superclass::DeallocateManagedMemory();
  }

  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "Pinned: " << (m_Pinned ? "On" : "Off") << ", buffer " << (this->IsPinned() ? "pinned" : "ordinary")
       << std::endl;
  }

private:
  enum class Kind
  {
    Pinned,
    WorkArea
  };
  struct Allocation
  {
    TElement * memory;
    Kind       kind;
  };
  bool m_Pinned{ false };
  // What AllocateElements gave and is not freed yet (it is const in ITK's interface).
  mutable std::vector<Allocation> m_Allocations;
};

/** Before a GPU filter allocates its host output \a image (an itk::Image): give it a
 * CudaHostImportImageContainer, of huge pages on its first update and pinned from
 * its second on.
 *
 * Pinning is slow to allocate (512 MiB: about 0.2 s on an H100 host, against about
 * 0.05 s for ordinary pages first touched by the download), so a one-shot update (a
 * CLI run) gets huge pages, and a filter updated again and again (a registration
 * loop, an interactive pipeline) pays pinning once and then copies at the bus's
 * speed. Outputs smaller than cif::GetPinnedOutputMinimumBytes() (16 MiB) keep
 * huge pages (pinning them would take 20 to 30 updates to pay back), and buffers
 * smaller than the staging rings' direct-copy threshold are left alone (a copy that
 * small costs little). The allocation itself stays ITK's
 * (Allocate), on the container given here. */
template <typename TPixel, unsigned int VDimension>
void
UseCudaHostPixelContainer(Image<TPixel, VDimension> * image)
{
  using ImageType = Image<TPixel, VDimension>;
  using Container = CudaHostImportImageContainer<typename ImageType::PixelContainer::ElementIdentifier,
                                                 typename ImageType::PixelContainer::Element>;
  if constexpr (std::is_trivially_destructible_v<typename ImageType::PixelContainer::Element>)
  {
    const std::size_t bytes =
      static_cast<std::size_t>(image->GetRequestedRegion().GetNumberOfPixels()) * sizeof(TPixel);
    if (bytes < cif::GetPinnedStagingSettings().directBelowBytes)
    {
      return;
    }
    auto *     current = image->GetPixelContainer();
    const bool updatedBefore = current != nullptr && current->Capacity() > 0;
    const bool pin = updatedBefore && bytes >= cif::GetPinnedOutputMinimumBytes() && cif::GetPinnedHostLimit() > 0;
    auto *     ours = dynamic_cast<Container *>(current);
    if (ours == nullptr)
    {
      auto fresh = Container::New();
      fresh->SetPinned(pin);
      image->SetPixelContainer(fresh); // the old buffer goes with the old container
    }
    else if (pin && !ours->GetPinned())
    {
      ours->SetPinned(true);
      ours->Initialize(); // so that Allocate makes the pinned buffer
    }
  }
}

/** Other images (CudaDeviceImage, which lives on the device; VectorImage): as they are. */
template <typename TImage>
void
UseCudaHostPixelContainer(TImage *)
{}
} // namespace itk

#endif
