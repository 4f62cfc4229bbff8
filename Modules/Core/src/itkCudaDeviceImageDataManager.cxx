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
#include "itkCudaDeviceImageDataManager.h"
#include "itkCudaExceptionTranslation.h"

namespace itk
{

void
CudaDeviceImageDataManager::EnsureDeviceBuffer(std::size_t bytes)
{
  if (m_DeviceBuffer.Bytes() != bytes)
  {
    // A new size means new contents: whatever the device held is meaningless now.
    CIF_ITK_TRY_CUDA([&] { m_DeviceBuffer.Allocate(bytes); });
    m_Residency = Residency::HostOnly;
  }
}

const void *
CudaDeviceImageDataManager::GetDeviceBufferForReading(const void * host, std::size_t bytes)
{
  this->EnsureDeviceBuffer(bytes);
  if (m_Residency == Residency::HostOnly)
  {
    if (host == nullptr)
    {
      itkExceptionMacro("the image has no pixel buffer to upload");
    }
    CIF_ITK_TRY_CUDA([&] { m_DeviceBuffer.Upload(host, bytes); });
    m_Residency = Residency::Both;
  }
  return m_DeviceBuffer.Data();
}

void *
CudaDeviceImageDataManager::GetDeviceBufferForWriting(const void * host, std::size_t bytes, bool keepContents)
{
  if (keepContents)
  {
    this->GetDeviceBufferForReading(host, bytes);
  }
  else
  {
    this->EnsureDeviceBuffer(bytes);
  }
  m_Residency = Residency::DeviceOnly;
  this->Modified(); // the pixels may change: what caches them (a kept texture) must see it
  return m_DeviceBuffer.Data();
}

void
CudaDeviceImageDataManager::SynchronizeHost(void * host, std::size_t bytes, bool hostWillBeModified)
{
  if (m_Residency == Residency::DeviceOnly)
  {
    if (host == nullptr || bytes > m_DeviceBuffer.Bytes())
    {
      itkExceptionMacro("the device copy of the image cannot be downloaded: host buffer missing or too small");
    }
    CIF_ITK_TRY_CUDA([&] { m_DeviceBuffer.Download(host, bytes); });
    m_Residency = Residency::Both;
  }
  if (hostWillBeModified)
  {
    m_Residency = Residency::HostOnly;
    this->Modified();
  }
}

void
CudaDeviceImageDataManager::MarkHostModified()
{
  m_Residency = Residency::HostOnly;
  this->Modified();
}

void
CudaDeviceImageDataManager::ReleaseDeviceBuffer()
{
  m_DeviceBuffer.Release();
  m_Residency = Residency::HostOnly;
}

void
CudaDeviceImageDataManager::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  const char * names[] = { "HostOnly", "DeviceOnly", "Both" };
  os << indent << "Residency: " << names[static_cast<int>(m_Residency)] << std::endl;
  os << indent << "DeviceBufferBytes: " << m_DeviceBuffer.Bytes() << std::endl;
}

} // namespace itk
