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
#ifndef itkVirtualDomainShrinkImageFilter_h
#define itkVirtualDomainShrinkImageFilter_h

#include "itkCudaFilterFactory.h"
#include "itkShrinkImageFilter.h"

#include <atomic>
#include <cstddef>

namespace itk
{
/** \class VirtualDomainShrinkImageFilter
 * \brief ShrinkImageFilter that shares, instead of copying, the one image marked on
 * the calling thread when every shrink factor is 1.
 *
 * ImageRegistrationMethodv4 shrinks its full-size virtual domain image at every level
 * (InitializeRegistrationAtEachLevel), also where the factors are 1: a copy of the
 * whole image (64 MB at 256^3 float, 30-40 ms on two cores) whose pixels no metric
 * reads, only its geometry. While a VirtualDomainShrinkImageFilter::MarkScope names
 * that image on the thread that updates the filter, and every factor is 1 and the
 * input's buffer is exactly the output's requested region, the output takes the
 * input's pixel container: the same values as the copy, the same geometry (computed
 * by ShrinkImageFilter as always). Any other input, factor or thread: ShrinkImageFilter's
 * own copy. New() of ShrinkImageFilter<TImage, TImage> returns this class once
 * VirtualDomainShrinkFactory<TImage> is registered.
 *
 * \ingroup CudaImageFilters
 */
template <typename TImage>
class VirtualDomainShrinkImageFilter : public ShrinkImageFilter<TImage, TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(VirtualDomainShrinkImageFilter);
  using Self = VirtualDomainShrinkImageFilter;
  using Superclass = ShrinkImageFilter<TImage, TImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(VirtualDomainShrinkImageFilter, ShrinkImageFilter);

  /** Marks \a image on this thread for as long as the scope lives (scopes nest). */
  class MarkScope
  {
  public:
    explicit MarkScope(const TImage * image)
      : m_Previous(Marked())
    {
      Marked() = image;
    }
    ~MarkScope() { Marked() = m_Previous; }
    MarkScope(const MarkScope &) = delete;
    MarkScope &
    operator=(const MarkScope &) = delete;

  private:
    const TImage * m_Previous;
  };

  /** Whether the last update shared its input's pixels. */
  itkGetConstMacro(SharedInput, bool);

  /** Updates that shared their input's pixels in this process, for every filter of
   * this image type (what a registration saved, for tests and reports). */
  static std::size_t
  GetNumberOfSharedUpdates()
  {
    return SharedUpdates().load();
  }

protected:
  VirtualDomainShrinkImageFilter() = default;
  ~VirtualDomainShrinkImageFilter() override = default;

  void
  GenerateData() override
  {
    m_SharedInput = false;
    const TImage * input = this->GetInput();
    TImage *       output = this->GetOutput();
    bool           identity = true;
    for (unsigned int a = 0; a < TImage::ImageDimension; ++a)
    {
      identity = identity && this->GetShrinkFactors()[a] == 1;
    }
    if (input != nullptr && input == Marked() && identity && input->GetBufferedRegion() == output->GetRequestedRegion())
    {
      output->SetBufferedRegion(output->GetRequestedRegion());
      output->SetPixelContainer(const_cast<typename TImage::PixelContainer *>(input->GetPixelContainer()));
      m_SharedInput = true;
      ++SharedUpdates();
      return;
    }
    Superclass::GenerateData();
  }

  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "SharedInput: " << m_SharedInput << std::endl;
  }

private:
  static const TImage *&
  Marked()
  {
    thread_local const TImage * marked = nullptr;
    return marked;
  }

  static std::atomic<std::size_t> &
  SharedUpdates()
  {
    static std::atomic<std::size_t> count{ 0 };
    return count;
  }

  bool m_SharedInput = false;
};

/** \class VirtualDomainShrinkFactory
 * \brief Makes ShrinkImageFilter<TImage, TImage>::New() return a
 * VirtualDomainShrinkImageFilter<TImage>, which copies as ShrinkImageFilter does
 * except for the image marked on the calling thread.
 *
 * \ingroup CudaImageFilters
 */
template <typename TImage>
class VirtualDomainShrinkFactory : public CudaFilterFactory<VirtualDomainShrinkFactory<TImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(VirtualDomainShrinkFactory);
  using Self = VirtualDomainShrinkFactory;
  using Superclass = CudaFilterFactory<VirtualDomainShrinkFactory<TImage>>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkFactorylessNewMacro(Self);
  itkTypeMacro(VirtualDomainShrinkFactory, ObjectFactoryBase);

protected:
  VirtualDomainShrinkFactory()
    : Superclass("CudaImageFilters: ShrinkImageFilter that shares a registration's virtual domain at factor 1",
                 "ShrinkImageFilter sharing the marked virtual domain")
  {
    this->template OverrideWith<ShrinkImageFilter<TImage, TImage>, VirtualDomainShrinkImageFilter<TImage>>();
  }
  ~VirtualDomainShrinkFactory() override = default;
};
} // namespace itk

#endif
