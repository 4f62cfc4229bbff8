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
#ifndef itkCudaImageFilterBase_h
#define itkCudaImageFilterBase_h

#include "cifCudaRuntime.h"
#include "itkCudaExecutionPath.h"
#include "itkCudaHostImportImageContainer.h"
#include "itkIndent.h"
#include "itkMacro.h"
#include "itkSmartPointer.h"

namespace itk
{
/** \class CudaImageFilterBase
 * \brief What every GPU filter of the module adds to the ITK class it derives from:
 * the UseGPU switch, which code produced the last output, and their PrintSelf lines.
 *
 * A GPU filter derives from CudaImageFilterBase<its ITK twin or ImageToImageFilter>,
 * so it stays a subclass of the ITK class (every Set/Get a user knows still works)
 * and asks RunsOnGPU() which path an update takes.
 *
 * \ingroup CudaImageFilters
 */
template <typename TSuperclass>
class ITK_TEMPLATE_EXPORT CudaImageFilterBase : public TSuperclass
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaImageFilterBase);
  using Self = CudaImageFilterBase;
  using Superclass = TSuperclass;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  /** Which code produced the last output. */
  using ExecutionPath = CudaExecutionPath;

  /** Use the GPU when one is present (default on). Off forces the module's CPU path. */
  itkSetMacro(UseGPU, bool);
  itkGetConstMacro(UseGPU, bool);
  itkBooleanMacro(UseGPU);

  /** GPU, CPU (the module's CPU path), ITK (the superclass's own code, for cases the
   * module does not take), or None before the first update. */
  ExecutionPath
  GetLastExecutionPath() const
  {
    return m_LastExecutionPath;
  }

protected:
  CudaImageFilterBase() = default;
  ~CudaImageFilterBase() override = default;

  /** Whether this update takes the GPU path: UseGPU on and a CUDA device usable. */
  bool
  RunsOnGPU() const
  {
    return m_UseGPU && cif::IsGPUAvailable();
  }

  /** Call before allocating a host output \a image: on the GPU path an itk::Image
   * gets memory the device's copies reach fast (UseCudaHostPixelContainer): huge
   * pages on its first update, pinned memory from its second on, so its download,
   * and the upload of the next GPU filter that reads it, run at the bus's speed. */
  template <typename TImage>
  void
  PrepareHostOutput(TImage * image) const
  {
    if (this->RunsOnGPU())
    {
      UseCudaHostPixelContainer(image);
    }
  }

  void
  SetLastExecutionPath(ExecutionPath path)
  {
    m_LastExecutionPath = path;
  }

  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "UseGPU: " << (m_UseGPU ? "On" : "Off") << std::endl;
    os << indent << "LastExecutionPath: " << ToString(m_LastExecutionPath) << std::endl;
  }

private:
  bool          m_UseGPU{ true };
  ExecutionPath m_LastExecutionPath{ ExecutionPath::None };
};
} // namespace itk

#endif
