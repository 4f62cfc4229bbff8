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
#ifndef itkCudaDeviceImageDataManager_h
#define itkCudaDeviceImageDataManager_h

#include "CudaImageFiltersExport.h"
#include "cifDeviceBuffer.h"
#include "itkObject.h"
#include "itkObjectFactory.h"

namespace itk
{
/** \class CudaDeviceImageDataManager
 * \brief Keeps the host and the device copy of one image buffer and knows which is current.
 *
 * Copies happen lazily, only when the side that asks is stale: a GPU filter that
 * reads an image whose device copy is current uploads nothing, and a GPU filter that
 * writes its output marks the host copy stale without downloading it. The host is
 * brought up to date only when host code asks for the buffer. Grafted images share
 * one manager (it is reference counted), as they share their pixel container.
 *
 * \ingroup CudaImageFilters
 */
class CudaImageFilters_EXPORT CudaDeviceImageDataManager : public Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaDeviceImageDataManager);
  using Self = CudaDeviceImageDataManager;
  using Superclass = Object;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaDeviceImageDataManager, Object);

  enum class Residency
  {
    HostOnly,   ///< the host copy is current, the device copy stale or absent
    DeviceOnly, ///< the device copy is current, the host copy stale
    Both
  };

  Residency
  GetResidency() const
  {
    return m_Residency;
  }

  /** Device copy for reading; uploads from \a host if the device copy is stale. */
  const void *
  GetDeviceBufferForReading(const void * host, std::size_t bytes);

  /** Device copy for writing. With \a keepContents the current contents are made
   * present first (an upload if stale); without, the caller overwrites all of it.
   * Either way the host copy becomes stale. */
  void *
  GetDeviceBufferForWriting(const void * host, std::size_t bytes, bool keepContents);

  /** Brings the host copy up to date (a download if it is stale). With
   * \a hostWillBeModified the device copy becomes stale. */
  void
  SynchronizeHost(void * host, std::size_t bytes, bool hostWillBeModified);

  /** The host buffer was replaced or rewritten behind the manager's back.
   * This, GetDeviceBufferForWriting and SynchronizeHost(..., true) — every way the
   * pixels may be written — also bump the manager's MTime, which a filter caching
   * something derived from the pixels (the resampler's kept texture) compares,
   * since writes through those paths need not touch the image's own MTime. */
  void
  MarkHostModified();

  /** Frees the device copy; the host copy is the current one. */
  void
  ReleaseDeviceBuffer();

  std::size_t
  GetDeviceBufferBytes() const
  {
    return m_DeviceBuffer.Bytes();
  }

protected:
  CudaDeviceImageDataManager() = default;
  ~CudaDeviceImageDataManager() override = default;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  void
  EnsureDeviceBuffer(std::size_t bytes);

  cif::DeviceBuffer m_DeviceBuffer;
  Residency         m_Residency{ Residency::HostOnly };
};
} // namespace itk

#endif
