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
#ifndef itkCudaFilterFactory_h
#define itkCudaFilterFactory_h

#include "itkObjectFactoryBase.h"
#include "itkVersion.h"

#include <mutex>
#include <typeinfo>

namespace itk
{
/** \class CudaFilterFactory
 * \brief What the module's object factories share: each makes ITK's New() of a CPU
 * filter return its GPU twin for a list of image types.
 *
 * A factory derives from CudaFilterFactory<itself>, names what it replaces in the
 * constructor and calls OverrideWith<CPU filter, GPU filter>() for every type
 * combination it serves; RegisterOneFactory() registers one instance however often
 * it is called.
 *
 * \ingroup CudaImageFilters
 */
template <typename TFactory>
class CudaFilterFactory : public ObjectFactoryBase
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaFilterFactory);

  const char *
  GetITKSourceVersion() const override
  {
    return ITK_SOURCE_VERSION;
  }
  const char *
  GetDescription() const override
  {
    return m_Description;
  }

  /** Registers an instance unless one is registered (further calls do nothing; after
   * ObjectFactoryBase::UnRegisterFactory of it, the next call registers one again). */
  static void
  RegisterOneFactory()
  {
    static std::mutex                 mutex; // two threads must not both find none
    const std::lock_guard<std::mutex> lock(mutex);
    for (ObjectFactoryBase * registered : ObjectFactoryBase::GetRegisteredFactories())
    {
      if (dynamic_cast<TFactory *>(registered) != nullptr)
      {
        return;
      }
    }
    ObjectFactoryBase::RegisterFactory(TFactory::New());
  }

protected:
  /** \a description: "CudaImageFilters: <ITK class> on the GPU"; \a overrideText: what
   * each override says of itself (ITK lists it per type). */
  CudaFilterFactory(const char * description, const char * overrideText)
    : m_Description(description)
    , m_OverrideText(overrideText)
  {}
  ~CudaFilterFactory() override = default;

  /** New() of \a TCPUFilter returns a \a TGPUFilter. */
  template <typename TCPUFilter, typename TGPUFilter>
  void
  OverrideWith()
  {
    this->RegisterOverride(typeid(TCPUFilter).name(),
                           typeid(TGPUFilter).name(),
                           m_OverrideText,
                           true,
                           CreateObjectFunction<TGPUFilter>::New());
  }

private:
  const char * const m_Description;
  const char * const m_OverrideText;
};
} // namespace itk

#endif
