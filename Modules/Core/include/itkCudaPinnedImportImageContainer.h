#ifndef itkCudaPinnedImportImageContainer_h
#define itkCudaPinnedImportImageContainer_h

#include "cifPinnedHostMemory.h"
#include "cifPinnedStaging.h"
#include "itkImage.h"
#include "itkImportImageContainer.h"

#include <memory>
#include <type_traits>

namespace itk
{
/** \class CudaPinnedImportImageContainer
 * \brief An image's pixel buffer in pinned (page-locked) host memory, so that the
 * GPU filters copy it to and from the device in one DMA at the bus's speed.
 *
 * The buffer comes from cif::AllocatePinnedHostMemory; where that declines (past the
 * library's cap on pinned memory, or the driver refuses, or no CUDA) the container
 * allocates ordinary memory as ImportImageContainer does, so an image never fails
 * for want of pinned memory. Everything else is ImportImageContainer's: ITK keeps
 * the container across updates of the same size (Reserve reuses its capacity), a
 * pointer imported with SetImportPointer is the caller's, and every filter and
 * iterator reads the pixels as from any image.
 *
 * \ingroup CudaImageFilters
 */
template <typename TElementIdentifier, typename TElement>
class ITK_TEMPLATE_EXPORT CudaPinnedImportImageContainer : public ImportImageContainer<TElementIdentifier, TElement>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaPinnedImportImageContainer);
  using Self = CudaPinnedImportImageContainer;
  using Superclass = ImportImageContainer<TElementIdentifier, TElement>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using ElementIdentifier = TElementIdentifier;
  using Element = TElement;
  itkNewMacro(Self);
  itkTypeMacro(CudaPinnedImportImageContainer, ImportImageContainer);

  static_assert(std::is_trivially_destructible_v<TElement>,
                "pinned pixel buffers hold pixels that need no destructor (scalars, RGB, vectors)");

  /** Whether the current buffer is pinned (false: ordinary memory, or none). */
  bool
  IsPinned() const
  {
    return m_Pinned && m_PinnedPointer == const_cast<Self *>(this)->GetImportPointer();
  }

protected:
  CudaPinnedImportImageContainer() = default;
  // The base destructor's call of DeallocateManagedMemory is not virtual any more
  // by then: free a pinned buffer here, with our own deallocation.
  ~CudaPinnedImportImageContainer() override { this->DeallocateManagedMemory(); }

  TElement *
  AllocateElements(ElementIdentifier size, bool useDefaultConstructor = false) const override
  {
    void * memory = cif::AllocatePinnedHostMemory(static_cast<std::size_t>(size) * sizeof(TElement));
    if (memory == nullptr)
    {
      m_Pinned = false;
      return Superclass::AllocateElements(size, useDefaultConstructor);
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
    m_Pinned = true;
    m_PinnedPointer = data;
    return data;
  }

  void
  DeallocateManagedMemory() override
  {
    TElement * current = this->GetImportPointer();
    // Only memory this container pinned goes back to the pinned allocator (a
    // pointer imported with SetImportPointer is the caller's, or new[]'s).
    if (this->GetContainerManageMemory() && current != nullptr && cif::FreePinnedHostMemory(current))
    {
      if (current == m_PinnedPointer)
      {
        m_PinnedPointer = nullptr;
      }
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
    os << indent << "Pinned: " << (this->IsPinned() ? "yes" : "no") << std::endl;
  }

private:
  // What the last AllocateElements gave (it is const in ITK's interface).
  mutable bool       m_Pinned{ false };
  mutable TElement * m_PinnedPointer{ nullptr };
};

/** Before a GPU filter allocates its host output \a image (an itk::Image) for a
 * second time: give the image a pinned pixel container unless it has one, so that
 * the download and the next GPU filter's upload go at the bus's speed from then on.
 *
 * Only an image that already holds a buffer (an earlier update's) is switched:
 * pinning is slow to allocate (512 MiB: about 0.2 s on an H100 host, against 0.05 s
 * for ordinary pages first touched by the download), so a one-shot update (a CLI
 * run) keeps ordinary memory, and a filter updated again and again (a registration
 * loop, an interactive pipeline) pays it once and then copies at the bus's speed.
 * Buffers smaller than the staging rings' direct-copy threshold are left alone (a
 * pageable copy that small costs little). The allocation itself stays ITK's
 * (Allocate), on the container given here. */
template <typename TPixel, unsigned int VDimension>
void
UsePinnedPixelContainer(Image<TPixel, VDimension> * image)
{
  using ImageType = Image<TPixel, VDimension>;
  using Pinned = CudaPinnedImportImageContainer<typename ImageType::PixelContainer::ElementIdentifier,
                                                typename ImageType::PixelContainer::Element>;
  if constexpr (std::is_trivially_destructible_v<typename ImageType::PixelContainer::Element>)
  {
    const std::size_t bytes =
      static_cast<std::size_t>(image->GetRequestedRegion().GetNumberOfPixels()) * sizeof(TPixel);
    const auto * current = image->GetPixelContainer();
    if (current == nullptr || current->Capacity() == 0 || dynamic_cast<const Pinned *>(current) != nullptr ||
        bytes < cif::GetPinnedStagingSettings().directBelowBytes || cif::GetPinnedHostLimit() == 0)
    {
      return;
    }
    image->SetPixelContainer(Pinned::New());
  }
}

/** Other images (CudaImage, which lives on the device; VectorImage): as they are. */
template <typename TImage>
void
UsePinnedPixelContainer(TImage *)
{}
} // namespace itk

#endif
