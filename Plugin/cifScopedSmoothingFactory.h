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
#ifndef cifScopedSmoothingFactory_h
#define cifScopedSmoothingFactory_h

#include "itkObjectFactoryBase.h"
#include "itkSmoothingGPUFactory.h"

namespace cif
{
/** While it lives, ImageRegistrationMethodv4's per-level smoothing
 * (SmoothingRecursiveGaussianImageFilter::New()) is the GPU twin; unregistered when
 * the run ends, so that a host that unloads the module keeps no factory of it. */
class ScopedSmoothingFactory
{
public:
  explicit ScopedSmoothingFactory(bool on)
  {
    if (on)
    {
      m_Factory = itk::SmoothingGPUFactory::New();
      itk::ObjectFactoryBase::RegisterFactory(m_Factory);
    }
  }
  ~ScopedSmoothingFactory()
  {
    if (m_Factory)
    {
      itk::ObjectFactoryBase::UnRegisterFactory(m_Factory);
    }
  }
  ScopedSmoothingFactory(const ScopedSmoothingFactory &) = delete;
  ScopedSmoothingFactory &
  operator=(const ScopedSmoothingFactory &) = delete;

private:
  itk::ObjectFactoryBase::Pointer m_Factory;
};
} // namespace cif

#endif
