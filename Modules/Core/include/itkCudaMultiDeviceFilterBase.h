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
#ifndef itkCudaMultiDeviceFilterBase_h
#define itkCudaMultiDeviceFilterBase_h

#include "cifDeviceThreads.h"
#include "itkCudaImageFilterBase.h"

#include <algorithm>
#include <vector>

namespace itk
{
/** \class CudaMultiDeviceFilterBase
 * \brief CudaImageFilterBase for the GPU filters that spread a job over several GPUs:
 * which devices an update may use (NumberOfDevices, Devices), declared, printed and
 * resolved in one place. Each filter's own documentation says what it spreads and
 * which jobs stay on one device.
 *
 * \ingroup CudaImageFilters
 */
template <typename TSuperclass>
class ITK_TEMPLATE_EXPORT CudaMultiDeviceFilterBase : public CudaImageFilterBase<TSuperclass>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaMultiDeviceFilterBase);
  using Self = CudaMultiDeviceFilterBase;
  using Superclass = CudaImageFilterBase<TSuperclass>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  /** The devices a job is spread over: the first n visible ones that run this build's
   * kernels; 0 (the default) takes every such device, 1 keeps to the current device.
   * With one visible device a job takes the one-device path itself (no worker thread,
   * no peer set-up). The same bits as one device. */
  itkSetMacro(NumberOfDevices, unsigned int);
  itkGetConstMacro(NumberOfDevices, unsigned int);

  /** The devices to spread over, in order, instead of the first NumberOfDevices; a
   * device may be listed twice (two host threads on one GPU: what tests on a one-GPU
   * machine use). Empty (the default): NumberOfDevices decides. A device that is not
   * visible is an error of the update. */
  void
  SetDevices(const std::vector<int> & devices)
  {
    if (devices != m_Devices)
    {
      m_Devices = devices;
      this->Modified();
    }
  }
  const std::vector<int> &
  GetDevices() const
  {
    return m_Devices;
  }

protected:
  CudaMultiDeviceFilterBase() = default;
  ~CudaMultiDeviceFilterBase() override = default;

  /** The devices the settings name (cif::DevicesToSpreadOver); throws cif::CudaError
   * for a listed device that is not visible. */
  std::vector<int>
  DevicesFromSettings() const
  {
    return cif::DevicesToSpreadOver(m_NumberOfDevices, m_Devices);
  }

  /** How many devices the settings ask for, before any is looked at: the list's
   * length, else NumberOfDevices (0 counting as 1: no device is queried here). */
  unsigned int
  DevicesAskedFor() const
  {
    return m_Devices.empty() ? std::max(1u, m_NumberOfDevices) : static_cast<unsigned int>(m_Devices.size());
  }

  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "NumberOfDevices: " << m_NumberOfDevices
       << (m_NumberOfDevices == 0 ? " (every visible device)" : "") << std::endl;
    os << indent << "Devices:";
    for (const int d : m_Devices)
    {
      os << ' ' << d;
    }
    os << (m_Devices.empty() ? " (from NumberOfDevices)" : "") << std::endl;
  }

private:
  unsigned int     m_NumberOfDevices{ 0 }; // every visible device
  std::vector<int> m_Devices;
};
} // namespace itk

#endif
