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
#ifndef cifITKVTKBridge_h
#define cifITKVTKBridge_h

#include "itkCudaDeviceImage.h"
#include "itkImage.h"
#include "itkImportImageContainer.h"
#include "itkMacro.h"
#include "itkNumericTraits.h"
#include "itkVectorImage.h"

#include "vtkAOSDataArrayTemplate.h"
#include "vtkCudaDeviceArray.h"
#include "vtkCudaHostBufferOwner.h"
#include "vtkImageData.h"
#include "vtkMatrix3x3.h"
#include "vtkPointData.h"
#include "vtkSmartPointer.h"
#include "vtkTypeTraits.h"

#include <memory>
#include <type_traits>

/** \file cifITKVTKBridge.h
 * vtkImageData <-> itk::Image, itk::VectorImage and itk::CudaDeviceImage without copying
 * the pixels: both sides share one host buffer, and the side that did not allocate it
 * holds a reference that keeps it alive (the VTK array holds the ITK pixel container
 * through a vtkCudaHostBufferOwner; the ITK image holds the VTK array through its
 * pixel container). Geometry is carried whole: extent start <-> region index, origin,
 * spacing and the direction matrix (VTK 9.1 images have one; a 2-D ITK image takes the
 * upper-left 2x2 of it and needs a single-slice extent along z).
 *
 * Where both ends run on the GPU the pixels need not visit the host: an itk::CudaDeviceImage
 * whose device copy is current becomes a vtkImageData whose array carries that device
 * copy (a vtkCudaDeviceArray), which vtkCudaImageReslice reads directly; and a VTK
 * array with a device copy (vtkCudaImageBSplineCoefficients with KeepOutputOnDevice)
 * becomes an itk::CudaDeviceImage whose device copy is current, by one device-to-device copy.
 *
 * Lifetimes: the shared buffer lives as long as either side references it. Writes on
 * one side are seen by the other (it is one buffer); VTK and ITK each expect
 * Modified() after host writes, as usual.
 */
namespace cif
{
/** What ImageToVTK does with an itk::CudaDeviceImage whose pixels are current on the GPU. */
enum class DeviceData
{
  Download,    ///< bring the host buffer up to date first (any VTK code can read it)
  KeepOnDevice ///< leave it on the GPU, attached to the VTK array (see vtkCudaDeviceArray)
};

namespace detail
{
template <typename TImage>
struct PixelLayout
{
  using PixelType = typename TImage::PixelType;
  using ComponentType = typename itk::NumericTraits<PixelType>::ValueType;
  static unsigned int
  Components(const TImage *)
  {
    return itk::NumericTraits<PixelType>::GetLength();
  }
};
template <typename T, unsigned int D>
struct PixelLayout<itk::VectorImage<T, D>>
{
  using ComponentType = T;
  static unsigned int
  Components(const itk::VectorImage<T, D> * image)
  {
    return image->GetNumberOfComponentsPerPixel();
  }
};

/** The host pointer of an image's buffer without synchronising a CudaDeviceImage. */
template <typename TImage>
void *
RawBuffer(TImage * image)
{
  using Base = std::conditional_t<
    std::is_same_v<TImage, itk::VectorImage<typename TImage::InternalPixelType, TImage::ImageDimension>>,
    TImage,
    itk::Image<typename TImage::PixelType, TImage::ImageDimension>>;
  return static_cast<void *>(image->Base::GetBufferPointer());
}

/** The device copy of an itk::CudaDeviceImage, seen from a VTK array. */
template <typename TPixel, unsigned int D>
class CudaImageStorage : public vtkCudaDeviceArray::Storage
{
public:
  explicit CudaImageStorage(itk::CudaDeviceImage<TPixel, D> * image)
    : m_Manager(image->GetDataManager())
    , m_Container(image->itk::Image<TPixel, D>::GetPixelContainer())
    , m_Host(RawBuffer(image))
    , m_Bytes(image->GetBufferBytes())
  {}
  const void *
  DeviceData() override
  {
    return m_Manager->GetDeviceBufferForReading(m_Host, m_Bytes);
  }
  bool
  HostIsCurrent() const override
  {
    return m_Manager->GetResidency() != itk::CudaDeviceImageDataManager::Residency::DeviceOnly;
  }
  void
  SynchronizeHost() override
  {
    m_Manager->SynchronizeHost(m_Host, m_Bytes, false);
  }

private:
  itk::CudaDeviceImageDataManager::Pointer                   m_Manager;
  typename itk::Image<TPixel, D>::PixelContainerConstPointer m_Container; // keeps m_Host alive
  void *                                                     m_Host;
  std::size_t                                                m_Bytes;
};

template <typename TImage>
vtkSmartPointer<vtkImageData>
WrapBuffer(TImage * image, void * buffer, std::shared_ptr<void> owner)
{
  using Layout = PixelLayout<TImage>;
  using Component = typename Layout::ComponentType;
  constexpr unsigned int D = TImage::ImageDimension;
  static_assert(D >= 1 && D <= 3, "VTK images have 1 to 3 dimensions");
  const auto &       region = image->GetBufferedRegion();
  const unsigned int components = Layout::Components(image);

  auto array = vtkSmartPointer<vtkAOSDataArrayTemplate<Component>>::New();
  array->SetNumberOfComponents(static_cast<int>(components));
  array->SetArray(static_cast<Component *>(buffer),
                  static_cast<vtkIdType>(region.GetNumberOfPixels() * components),
                  1); // 1: VTK never frees it; owner keeps it alive
  array->SetName("ImageScalars");
  vtkCudaHostBufferOwner::Attach(array, std::move(owner));

  auto   vtk = vtkSmartPointer<vtkImageData>::New();
  int    extent[6] = { 0, 0, 0, 0, 0, 0 };
  double spacing[3] = { 1, 1, 1 }, origin[3] = { 0, 0, 0 };
  double direction[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  for (unsigned int a = 0; a < D; ++a)
  {
    extent[2 * a] = static_cast<int>(region.GetIndex(a));
    extent[2 * a + 1] = static_cast<int>(region.GetIndex(a) + static_cast<itk::IndexValueType>(region.GetSize(a)) - 1);
    spacing[a] = image->GetSpacing()[a];
    origin[a] = image->GetOrigin()[a];
    for (unsigned int b = 0; b < D; ++b)
    {
      direction[3 * a + b] = image->GetDirection()(a, b);
    }
  }
  vtk->SetExtent(extent);
  vtk->SetSpacing(spacing);
  vtk->SetOrigin(origin);
  vtk->SetDirectionMatrix(direction);
  vtk->GetPointData()->SetScalars(array);
  return vtk;
}
} // namespace detail

/** A vtkImageData sharing \a image's pixel buffer (no copy): itk::Image of scalar or
 * fixed-length vector pixels (RGB, Vector, ...) or itk::VectorImage, 1-D to 3-D. */
template <typename TImage>
vtkSmartPointer<vtkImageData>
ImageToVTK(TImage * image)
{
  typename TImage::PixelContainerPointer container = image->GetPixelContainer();
  auto                                   owner = std::make_shared<typename TImage::PixelContainerPointer>(container);
  return detail::WrapBuffer(image, detail::RawBuffer(image), owner);
}

/** The same for an itk::CudaDeviceImage: with DeviceData::KeepOnDevice and pixels current
 * on the GPU, the VTK array carries that device copy and its host memory stays stale
 * (vtkCudaDeviceArray::SynchronizeHost brings it up to date); otherwise the host copy
 * is made current first. */
template <typename TPixel, unsigned int D>
vtkSmartPointer<vtkImageData>
ImageToVTK(itk::CudaDeviceImage<TPixel, D> * image, DeviceData mode = DeviceData::Download)
{
  using Base = itk::Image<TPixel, D>;
  const bool onDevice =
    image->GetDataManager()->GetResidency() == itk::CudaDeviceImageDataManager::Residency::DeviceOnly;
  if (mode == DeviceData::Download || !onDevice)
  {
    // const: downloads if the host copy is stale and keeps the device copy current
    static_cast<const itk::CudaDeviceImage<TPixel, D> *>(image)->GetBufferPointer();
  }
  using ContainerPointer = typename Base::PixelContainerPointer;
  ContainerPointer                         container = image->Base::GetPixelContainer();
  itk::CudaDeviceImageDataManager::Pointer manager = image->GetDataManager();
  auto                                     owner =
    std::make_shared<std::pair<ContainerPointer, itk::CudaDeviceImageDataManager::Pointer>>(container, manager);
  auto vtk = detail::WrapBuffer<Base>(image, detail::RawBuffer(image), owner);
  if (mode == DeviceData::KeepOnDevice && onDevice)
  {
    vtkCudaDeviceArray::Attach(vtk->GetPointData()->GetScalars(),
                               std::make_shared<detail::CudaImageStorage<TPixel, D>>(image));
  }
  return vtk;
}

/** An ImportImageContainer that holds the vtkDataArray whose memory it imports. */
template <typename TElement>
class VTKArrayImportContainer : public itk::ImportImageContainer<itk::SizeValueType, TElement>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(VTKArrayImportContainer);
  using Self = VTKArrayImportContainer;
  using Superclass = itk::ImportImageContainer<itk::SizeValueType, TElement>;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(VTKArrayImportContainer, ImportImageContainer);

  void
  ImportArray(vtkDataArray * array, itk::SizeValueType elements)
  {
    m_Array = array;
    this->SetImportPointer(static_cast<TElement *>(array->GetVoidPointer(0)), elements, false);
  }

protected:
  VTKArrayImportContainer() = default;
  ~VTKArrayImportContainer() override = default;

private:
  vtkSmartPointer<vtkDataArray> m_Array;
};

/** An ITK image (itk::Image, itk::VectorImage or itk::CudaDeviceImage, of \a TImage's
 * dimension) sharing \a vtk's scalars (no copy). Throws itk::ExceptionObject when the
 * scalar type, the component count or the extent does not fit TImage. A VTK array
 * whose values are current on the GPU only is downloaded first, except into an
 * itk::CudaDeviceImage, which gets them by a device-to-device copy and stays device-only. */
template <typename TImage>
typename TImage::Pointer
VTKToImage(vtkImageData * vtk)
{
  using Layout = detail::PixelLayout<TImage>;
  using Component = typename Layout::ComponentType;
  constexpr unsigned int D = TImage::ImageDimension;
  vtkDataArray *         scalars = vtk ? vtk->GetPointData()->GetScalars() : nullptr;
  if (!scalars)
  {
    itkGenericExceptionMacro("VTKToImage: the vtkImageData has no scalars");
  }
  if (scalars->GetDataType() != vtkTypeTraits<Component>::VTKTypeID())
  {
    itkGenericExceptionMacro("VTKToImage: the scalars are " << scalars->GetDataTypeAsString()
                                                            << ", the image's components are not");
  }
  const int * e = vtk->GetExtent();
  for (unsigned int a = D; a < 3; ++a)
  {
    if (e[2 * a] != e[2 * a + 1])
    {
      itkGenericExceptionMacro("VTKToImage: a " << D << "-D image needs a single sample along axis " << a);
    }
  }
  auto                           image = TImage::New();
  typename TImage::RegionType    region;
  typename TImage::SpacingType   spacing;
  typename TImage::PointType     origin;
  typename TImage::DirectionType direction;
  const double *                 vtkDirection = vtk->GetDirectionMatrix()->GetData();
  for (unsigned int a = 0; a < D; ++a)
  {
    region.SetIndex(a, e[2 * a]);
    region.SetSize(a, static_cast<itk::SizeValueType>(e[2 * a + 1] - e[2 * a] + 1));
    spacing[a] = vtk->GetSpacing()[a];
    origin[a] = vtk->GetOrigin()[a];
    for (unsigned int b = 0; b < D; ++b)
    {
      direction(a, b) = vtkDirection[3 * a + b];
    }
  }
  const unsigned int components = static_cast<unsigned int>(scalars->GetNumberOfComponents());
  if constexpr (std::is_same_v<TImage, itk::VectorImage<Component, D>>)
  {
    image->SetNumberOfComponentsPerPixel(components);
  }
  else if (components != Layout::Components(image.GetPointer()))
  {
    itkGenericExceptionMacro("VTKToImage: " << components << " components per voxel, the pixel type has "
                                            << Layout::Components(image.GetPointer()));
  }
  image->SetRegions(region);
  image->SetSpacing(spacing);
  image->SetOrigin(origin);
  image->SetDirection(direction);

  using Element = typename TImage::PixelContainer::Element;
  const itk::SizeValueType elements =
    region.GetNumberOfPixels() * (std::is_same_v<Element, Component> ? components : 1);
  vtkCudaDeviceArray * device = vtkCudaDeviceArray::Get(scalars);
  constexpr bool       isCudaImage = std::is_same_v<TImage, itk::CudaDeviceImage<typename TImage::PixelType, D>>;
  if (device && !device->GetHostIsCurrent() && !isCudaImage)
  {
    vtkCudaDeviceArray::SynchronizeHost(scalars);
  }
  auto container = VTKArrayImportContainer<Element>::New();
  container->ImportArray(scalars, elements);
  image->SetPixelContainer(container);
  if constexpr (isCudaImage)
  {
    if (device && !device->GetHostIsCurrent())
    {
      const std::size_t bytes = image->GetBufferBytes();
      void *            destination =
        image->GetDataManager()->GetDeviceBufferForWriting(detail::RawBuffer(image.GetPointer()), bytes, false);
      cif::CopyDeviceToDevice(destination, device->GetDeviceData(), bytes);
    }
  }
  return image;
}
} // namespace cif

#endif
