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
#ifndef itkSharedDomainImageRegistrationMethodv4_h
#define itkSharedDomainImageRegistrationMethodv4_h

#include "itkImageRegistrationMethodv4.h"
#include "itkVirtualDomainShrinkImageFilter.h"

namespace itk
{
/** \class SharedDomainImageRegistrationMethodv4
 * \brief ImageRegistrationMethodv4 that does not copy its virtual domain image at
 * levels whose shrink factors are all 1.
 *
 * ITK shrinks the full-size virtual domain image at every level, copying it where the
 * factors are 1 (the finest level of every multi-resolution schedule): 30-40 ms of
 * host time at 256^3 for pixels no metric reads. This class marks that image while
 * ITK initializes each level, and registers VirtualDomainShrinkFactory, so that
 * the shrink shares it instead (VirtualDomainShrinkImageFilter). Everything else is
 * ImageRegistrationMethodv4's: the same levels, metric, optimizer and results.
 *
 * \ingroup CudaImageFilters
 */
template <typename TFixedImage, typename TMovingImage, typename TOutputTransform>
class SharedDomainImageRegistrationMethodv4
  : public ImageRegistrationMethodv4<TFixedImage, TMovingImage, TOutputTransform>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(SharedDomainImageRegistrationMethodv4);
  using Self = SharedDomainImageRegistrationMethodv4;
  using Superclass = ImageRegistrationMethodv4<TFixedImage, TMovingImage, TOutputTransform>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(SharedDomainImageRegistrationMethodv4, ImageRegistrationMethodv4);

protected:
  SharedDomainImageRegistrationMethodv4()
  {
    static_assert(std::is_same_v<typename Superclass::FixedImageType, typename Superclass::VirtualImageType>,
                  "ITK shrinks a fixed-image-typed filter over the virtual domain: the types must match");
    VirtualDomainShrinkFactory<typename Superclass::VirtualImageType>::RegisterOneFactory();
  }
  ~SharedDomainImageRegistrationMethodv4() override = default;

  void
  InitializeRegistrationAtEachLevel(const SizeValueType level) override
  {
    // At level 0 ITK creates the domain image inside this call: nothing to mark yet
    // (the coarsest level is rarely unshrunk).
    typename VirtualDomainShrinkImageFilter<typename Superclass::VirtualImageType>::MarkScope mark(
      this->m_VirtualDomainImage.GetPointer());
    Superclass::InitializeRegistrationAtEachLevel(level);
  }
};
} // namespace itk

#endif
