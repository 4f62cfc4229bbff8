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
#ifndef itkCudaDeviceImage_h
#define itkCudaDeviceImage_h

#include "itkCudaDeviceImageDataManager.h"
#include "itkImage.h"

namespace itk
{
/** \class CudaDeviceImage
 * \brief An itk::Image whose pixels can live on the GPU between GPU filters.
 *
 * Used as the output type of a GPU filter, it keeps the result on the device; the
 * next GPU filter reads it there with no copy, and the host copy is downloaded only
 * when host code asks for the buffer (GetBufferPointer(), iterators, GetPixel(),
 * writers). It is an itk::Image in every other respect.
 *
 * Host writes: code that writes pixels through a pointer or iterator obtained
 * from a const image must call Modified() afterwards so the device copy is
 * refreshed; the non-const GetBufferPointer() does this itself.
 *
 * \ingroup CudaImageFilters
 */
template <typename TPixel, unsigned int VImageDimension = 2>
class ITK_TEMPLATE_EXPORT CudaDeviceImage : public Image<TPixel, VImageDimension>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaDeviceImage);
  using Self = CudaDeviceImage;
  using Superclass = Image<TPixel, VImageDimension>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaDeviceImage, Image);

  using typename Superclass::PixelType;
  using typename Superclass::IndexType;
  using typename Superclass::PixelContainer;
  using DataManagerType = CudaDeviceImageDataManager;

  template <typename UPixelType, unsigned int NUImageDimension = VImageDimension>
  using RebindImageType = CudaDeviceImage<UPixelType, NUImageDimension>;

  void
  Allocate(bool initializePixels = false) override
  {
    Superclass::Allocate(initializePixels);
    m_DataManager->MarkHostModified();
  }

  void
  Initialize() override
  {
    Superclass::Initialize();
    if (m_DataManager)
    {
      // A grafted image may share this manager: give this image a fresh one rather
      // than freeing device data that another image still uses.
      m_DataManager = DataManagerType::New();
    }
  }

  /** Host pointer, made current first; the device copy becomes stale. */
  TPixel *
  GetBufferPointer() override
  {
    m_DataManager->SynchronizeHost(Superclass::GetBufferPointer(), this->GetBufferBytes(), true);
    return Superclass::GetBufferPointer();
  }

  /** Host pointer, made current first. */
  const TPixel *
  GetBufferPointer() const override
  {
    m_DataManager->SynchronizeHost(const_cast<TPixel *>(Superclass::GetBufferPointer()), this->GetBufferBytes(), false);
    return Superclass::GetBufferPointer();
  }

  PixelContainer *
  GetPixelContainer()
  {
    this->GetBufferPointer();
    return Superclass::GetPixelContainer();
  }
  const PixelContainer *
  GetPixelContainer() const
  {
    this->GetBufferPointer();
    return Superclass::GetPixelContainer();
  }
  void
  SetPixelContainer(PixelContainer * container)
  {
    Superclass::SetPixelContainer(container);
    m_DataManager->MarkHostModified();
  }

  const TPixel &
  GetPixel(const IndexType & index) const
  {
    this->GetBufferPointer();
    return Superclass::GetPixel(index);
  }
  TPixel &
  GetPixel(const IndexType & index)
  {
    this->GetBufferPointer();
    return Superclass::GetPixel(index);
  }
  void
  SetPixel(const IndexType & index, const TPixel & value)
  {
    this->GetBufferPointer();
    Superclass::SetPixel(index, value);
  }
  const TPixel &
  operator[](const IndexType & index) const
  {
    return this->GetPixel(index);
  }
  TPixel &
  operator[](const IndexType & index)
  {
    return this->GetPixel(index);
  }

  void
  FillBuffer(const TPixel & value)
  {
    this->GetBufferPointer();
    Superclass::FillBuffer(value);
  }

  /** Pixels written through a const path: the host copy is the current one. A
   * pipeline's own Modified() calls (after GenerateData) find a device-only copy and
   * leave it alone. */
  void
  Modified() const override
  {
    Superclass::Modified();
    if (m_DataManager && m_DataManager->GetResidency() == DataManagerType::Residency::Both)
    {
      m_DataManager->MarkHostModified();
    }
  }

  /** Shares both the pixel container and, for a CudaDeviceImage source, the device copy.
   * (Image::Graft(const DataObject *) forwards here too.) */
  void
  Graft(const Superclass * image) override
  {
    Superclass::Graft(image);
    if (const auto * cudaImage = dynamic_cast<const Self *>(image))
    {
      m_DataManager = cudaImage->m_DataManager;
    }
    else
    {
      m_DataManager = DataManagerType::New();
    }
  }
  using Superclass::Graft;

  /** Size in bytes of the buffered pixels (the bytes a transfer moves). */
  std::size_t
  GetBufferBytes() const
  {
    return static_cast<std::size_t>(this->GetOffsetTable()[VImageDimension]) * sizeof(TPixel);
  }

  /** Device pointer for GPU filters; see CudaDeviceImageDataManager. */
  const void *
  GetDeviceBufferForReading() const
  {
    return m_DataManager->GetDeviceBufferForReading(Superclass::GetBufferPointer(), this->GetBufferBytes());
  }
  void *
  GetDeviceBufferForWriting(bool keepContents)
  {
    return m_DataManager->GetDeviceBufferForWriting(
      Superclass::GetBufferPointer(), this->GetBufferBytes(), keepContents);
  }
  DataManagerType *
  GetDataManager() const
  {
    return m_DataManager.GetPointer();
  }

protected:
  CudaDeviceImage() = default;
  ~CudaDeviceImage() override = default;

  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "DataManager:" << std::endl;
    m_DataManager->Print(os, indent.GetNextIndent());
  }

private:
  typename DataManagerType::Pointer m_DataManager{ DataManagerType::New() };
};
} // namespace itk

#endif
