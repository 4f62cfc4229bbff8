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
#ifndef itkBSplinePrefilterGPUImageFilter_hxx
#define itkBSplinePrefilterGPUImageFilter_hxx

#include "cifBSplinePrefilterDevice.h"
#include "cifBSplinePrefilterHost.h"
#include "cifDeviceBuffer.h"
#include "cifDeviceMemoryLimit.h"
#include "cifDeviceThreads.h"
#include "cifSlabbedPrefilter.h"
#include "cifSpreadPrefilter.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaHostInputRegistration.h"
#include "itkCudaParallelFor.h"
#include "itkFilterStageProgress.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace itk
{

namespace BSplinePrefilterDetail
{
template <typename TImage>
cif::BufferShape
ShapeOf(const TImage * image, unsigned int components)
{
  cif::BufferShape shape;
  shape.dimension = static_cast<int>(TImage::ImageDimension);
  shape.components = static_cast<int>(components);
  const auto size = image->GetBufferedRegion().GetSize();
  for (unsigned int d = 0; d < TImage::ImageDimension; ++d)
  {
    shape.size[d] = static_cast<std::int64_t>(size[d]);
  }
  return shape;
}
} // namespace BSplinePrefilterDetail

template <typename TInputImage, typename TOutputImage>
void
BSplinePrefilterGPUImageFilter<TInputImage, TOutputImage>::GenerateData()
{
  const TInputImage * input = this->GetInput();
  if (input == nullptr || input->GetBufferedRegion().GetNumberOfPixels() == 0)
  {
    itkExceptionMacro("the input image is empty (buffered region "
                      << (input ? input->GetBufferedRegion() : typename TInputImage::RegionType()) << ")");
  }
  cif::SplinePoles poles;
  if (!cif::MakeSplinePoles(static_cast<unsigned int>(this->GetSplineOrder()), poles))
  {
    itkExceptionMacro("spline order " << this->GetSplineOrder() << " is not supported (0 to 5)");
  }

  if constexpr (!TypesSupported)
  {
    if (m_BoundaryMode != cif::BoundaryMode::Mirror)
    {
      itkExceptionMacro("boundary mode " << m_BoundaryMode
                                         << " needs a pixel type this filter handles (float or double output "
                                            "components, 1 to 6 dimensions); ITK's own filter only mirrors");
    }
    Superclass::GenerateData();
    this->SetLastExecutionPath(ExecutionPath::ITK);
  }
  else
  {
    if (m_BoundaryMode == cif::BoundaryMode::Constant)
    {
      itkExceptionMacro("boundary mode Constant is for resampling; the prefilter takes Mirror, ClampToEdge or "
                        "Periodic");
    }
    TOutputImage * output = this->GetOutput();
    output->SetBufferedRegion(output->GetRequestedRegion());
    if (output->GetBufferedRegion().GetSize() != input->GetBufferedRegion().GetSize())
    {
      itkExceptionMacro("output region " << output->GetBufferedRegion() << " differs from the input's buffer "
                                         << input->GetBufferedRegion());
    }
    this->PrepareHostOutput(output);
    output->Allocate();
    const unsigned int components = CudaImageTraits<TInputImage>::ComponentsOf(input);
    if (components != CudaImageTraits<TOutputImage>::ComponentsOf(output))
    {
      itkExceptionMacro("the output has " << CudaImageTraits<TOutputImage>::ComponentsOf(output)
                                          << " components per pixel, the input " << components);
    }
    const cif::BufferShape shape = BSplinePrefilterDetail::ShapeOf(input, components);
    try
    {
      if (this->RunsOnGPU())
      {
        this->GenerateDataOnGPU(shape, poles);
        this->SetLastExecutionPath(ExecutionPath::GPU);
      }
      else
      {
        this->GenerateDataOnCPU(shape, poles);
        this->SetLastExecutionPath(ExecutionPath::CPU);
      }
    }
    catch (...)
    {
      // Leave no half-computed coefficients behind for a caller to mistake for a result.
      output->Initialize();
      throw;
    }
  }
}

template <typename TInputImage, typename TOutputImage>
void
BSplinePrefilterGPUImageFilter<TInputImage, TOutputImage>::GenerateDataOnGPU(const cif::BufferShape & shape,
                                                                             const cif::SplinePoles & poles)
{
  if constexpr (TypesSupported)
  {
    using T = OutputComponentType;
    using TIn = InputComponentType;
    constexpr bool hostImages =
      !CudaImageTraits<TInputImage>::IsCudaDeviceImage && !CudaImageTraits<TOutputImage>::IsCudaDeviceImage;
    // Stages: the samples on the device, one pass per axis, the coefficients back.
    FilterStageProgress progress(this, static_cast<unsigned int>(shape.dimension) + 2);
    if constexpr (!hostImages)
    {
      // A CudaDeviceImage input or output lives on one device, whole.
      CIF_ITK_TRY_CUDA([&] { this->GenerateDataOnOneDevice(shape, poles, progress); });
    }
    else
    {
      // Host image in and out: several devices; else one device whole; else one
      // device in slabs (a job larger than the device or the device memory limit).
      const std::vector<int> devices = this->DevicesForThisUpdate();
      if (devices.size() > 1 && this->GenerateDataOnSeveralDevices(devices, shape, poles, progress))
      {
        return;
      }
      const std::size_t scalars = static_cast<std::size_t>(shape.ScalarCount());
      const std::size_t oneShot = scalars * (sizeof(T) + (std::is_same_v<T, TIn> ? 0 : sizeof(TIn)));
      CIF_ITK_TRY_CUDA([&] {
        const std::size_t budget = cif::GetDeviceMemoryBudget(true);
        if (oneShot <= budget)
        {
          try
          {
            this->GenerateDataOnOneDevice(shape, poles, progress);
            return;
          }
          catch (const cif::CudaOutOfMemory &)
          {
            // The driver's free memory is not all allocatable (on an H200 a 1.9 MiB
            // allocation failed with 33 MiB free): slabs within half the job instead.
          }
        }
        this->GenerateDataInSlabs(shape, poles, oneShot <= budget ? oneShot / 2 : budget, progress);
      });
    }
  }
}

template <typename TInputImage, typename TOutputImage>
void
BSplinePrefilterGPUImageFilter<TInputImage, TOutputImage>::GenerateDataOnOneDevice(const cif::BufferShape & shape,
                                                                                   const cif::SplinePoles & poles,
                                                                                   FilterStageProgress &    progress)
{
  if constexpr (TypesSupported)
  {
    using T = OutputComponentType;
    using TIn = InputComponentType;
    constexpr bool sameType = std::is_same_v<T, TIn>;
    constexpr bool inputIsCuda = CudaImageTraits<TInputImage>::IsCudaDeviceImage;
    constexpr bool outputIsCuda = CudaImageTraits<TOutputImage>::IsCudaDeviceImage;

    const TInputImage * input = this->GetInput();
    TOutputImage *      output = this->GetOutput();
    const std::size_t   count = static_cast<std::size_t>(shape.ScalarCount());
    const std::size_t   bytes = count * sizeof(T);
    const std::size_t   inputBytes = count * sizeof(TIn);

    // The whole job at once. A plain itk::Image output is written only by the last
    // download, so a failed allocation leaves it untouched.
    // Fail before touching anything when the job cannot fit: the coefficients, plus
    // a staging copy of an input of another type, plus a CudaDeviceImage input's own copy.
    std::size_t needed = bytes;
    if constexpr (outputIsCuda)
    {
      needed = output->GetDataManager()->GetDeviceBufferBytes() == bytes ? 0 : bytes;
    }
    if constexpr (inputIsCuda)
    {
      needed += input->GetDataManager()->GetDeviceBufferBytes() == inputBytes ? 0 : inputBytes;
    }
    else if constexpr (!sameType)
    {
      needed += inputBytes;
    }
    cif::RequireDeviceMemory(needed, this->DescribeJob(shape));

    cif::DeviceBuffer hostOutputScratch; // device copy of a plain itk::Image output
    T *               coefficients = nullptr;
    if constexpr (outputIsCuda)
    {
      coefficients = static_cast<T *>(output->GetDeviceBufferForWriting(false));
    }
    else
    {
      hostOutputScratch.Allocate(bytes);
      coefficients = hostOutputScratch.As<T>();
    }

    // The input, once on the device, becomes the starting coefficients (converted
    // to T on the device when its scalar type differs). A same-typed input already
    // on the device is read by the prefilter's first pass itself: no copy pass.
    cif::DeviceBuffer staging;
    const TIn *       source = nullptr;
    if constexpr (inputIsCuda)
    {
      source = static_cast<const TIn *>(input->GetDeviceBufferForReading());
    }
    else if constexpr (sameType)
    {
      NoteHostInputUpload(input->GetPixelContainer());
      cif::CopyHostToDevice(coefficients, input->GetBufferPointer(), bytes);
    }
    else
    {
      staging.Allocate(inputBytes);
      NoteHostInputUpload(input->GetPixelContainer());
      staging.Upload(input->GetBufferPointer(), inputBytes);
      source = staging.As<TIn>();
    }
    const T * samples = coefficients;
    if (source != nullptr)
    {
      if constexpr (sameType)
      {
        samples = source;
      }
      else
      {
        cif::ConvertOnDevice<TIn, T>(source, coefficients, shape.ScalarCount());
      }
    }

    progress.CompletedOnDevice();

    cif::PrefilterOnDevice<T>(samples, coefficients, shape, poles, m_BoundaryMode, progress.DeviceCallback());
    cif::Synchronize();

    if constexpr (!outputIsCuda)
    {
      hostOutputScratch.Download(output->GetBufferPointer(), bytes);
    }
    progress.Completed();
  }
  else
  {
    (void)shape, (void)poles, (void)progress;
  }
}

template <typename TInputImage, typename TOutputImage>
void
BSplinePrefilterGPUImageFilter<TInputImage, TOutputImage>::GenerateDataInSlabs(const cif::BufferShape & shape,
                                                                               const cif::SplinePoles & poles,
                                                                               std::size_t              budget,
                                                                               FilterStageProgress &    progress)
{
  if constexpr (TypesSupported)
  {
    using T = OutputComponentType;
    using TIn = InputComponentType;
    // Host image in and out, with the same bits as one piece (cifSlabbedPrefilter.h).
    cif::DeviceSlabExecutor<T>      executor(poles, m_BoundaryMode);
    const cif::SlabbedPrefilterPlan plan =
      cif::PlanAndReserveSlabs(shape, sizeof(T), budget, this->DescribeJob(shape), executor);
    // An input of the output's type is read by the slabs themselves; another type is
    // converted into the output first.
    const T * samples = nullptr;
    if constexpr (std::is_same_v<T, TIn>)
    {
      samples = reinterpret_cast<const T *>(this->GetInput()->GetBufferPointer());
    }
    else
    {
      this->ConvertInputOnHost();
    }
    progress.Completed();
    cif::RunSlabbedPrefilter(reinterpret_cast<T *>(this->GetOutput()->GetBufferPointer()),
                             shape,
                             plan,
                             executor,
                             progress.HostCallback(),
                             MakeParallelFor(this->GetMultiThreader()),
                             samples);
    progress.Completed();
  }
  else
  {
    (void)shape, (void)poles, (void)budget, (void)progress;
  }
}

template <typename TInputImage, typename TOutputImage>
std::string
BSplinePrefilterGPUImageFilter<TInputImage, TOutputImage>::DescribeJob(const cif::BufferShape & shape) const
{
  std::ostringstream what;
  what << "the B-spline prefilter of a " << shape.ScalarCount() / shape.components << "-pixel image ("
       << shape.components << " component(s) of " << sizeof(OutputComponentType) << " bytes)";
  return what.str();
}

template <typename TInputImage, typename TOutputImage>
void
BSplinePrefilterGPUImageFilter<TInputImage, TOutputImage>::GenerateDataOnCPU(const cif::BufferShape & shape,
                                                                             const cif::SplinePoles & poles)
{
  if constexpr (TypesSupported)
  {
    using T = OutputComponentType;
    TOutputImage * output = this->GetOutput();
    T *            coefficients = reinterpret_cast<T *>(output->GetBufferPointer());
    // Stages: the conversion to the coefficients' type, one pass per axis.
    FilterStageProgress progress(this, static_cast<unsigned int>(shape.dimension) + 1);
    // Under a device memory limit the CPU path runs the slabs the device would run
    // (and fails where the device would), so that CI tests the slab logic.
    cif::SlabbedPrefilterPlan plan;
    if (cif::GetDeviceMemoryLimit() != 0)
    {
      CIF_ITK_TRY_CUDA([&] {
        plan = cif::PlanSlabbedPrefilter(shape, sizeof(T), cif::GetDeviceMemoryBudget(false), this->DescribeJob(shape));
      });
    }
    // With NumberOfDevices or Devices asking for several, the CPU path runs the plan
    // the devices would run, the host standing in for each device in turn.
    const unsigned int       hostDevices = this->DevicesAskedFor();
    cif::SpreadPrefilterPlan spread = cif::PlanSpreadPrefilter(
      shape, static_cast<int>(std::min(hostDevices, 1024u)), static_cast<std::int64_t>(m_MinimumVoxelsPerDevice));
    if (spread.Devices() > 1 && cif::GetDeviceMemoryLimit() != 0 &&
        static_cast<std::size_t>(cif::LargestSpreadShareScalars(shape, spread)) * sizeof(T) >
          cif::GetDeviceMemoryBudget(false))
    {
      spread = cif::SpreadPrefilterPlan{}; // the shares do not fit: one device, as on the GPU
    }
    this->ConvertInputOnHost();
    progress.Completed();
    auto                    parallelFor = MakeParallelFor(this->GetMultiThreader());
    const cif::BoundaryMode mode = m_BoundaryMode;
    auto                    filterLeading = [&poles, mode, parallelFor](
                           T * data, const cif::BufferShape & slab, int axisEnd, const cif::StageCallback & afterAxis) {
      cif::PrefilterLeadingAxesOnHost(data, slab, axisEnd, poles, mode, parallelFor, afterAxis);
    };
    if (spread.Devices() > 1)
    {
      using Executor = cif::HostSpreadExecutor<T, decltype(filterLeading)>;
      std::vector<Executor> executors(static_cast<std::size_t>(spread.Devices()), Executor(filterLeading));
      const auto            inTurn = [&spread](const auto & body) {
        for (std::int64_t k = 0; k < spread.Devices(); ++k)
        {
          body(k);
        }
      };
      cif::RunSpreadPrefilter(coefficients, shape, spread, executors, inTurn, progress.HostCallback());
    }
    else if (plan.whole)
    {
      cif::PrefilterOnHost(coefficients, shape, poles, m_BoundaryMode, parallelFor, progress.HostCallback());
    }
    else
    {
      cif::HostSlabExecutor<T, decltype(filterLeading)> executor(filterLeading);
      cif::RunSlabbedPrefilter(coefficients, shape, plan, executor, progress.HostCallback(), parallelFor);
    }
  }
}

template <typename TInputImage, typename TOutputImage>
std::vector<int>
BSplinePrefilterGPUImageFilter<TInputImage, TOutputImage>::DevicesForThisUpdate() const
{
  std::vector<int> devices;
  CIF_ITK_TRY_CUDA([&] { devices = this->DevicesFromSettings(); });
  return devices;
}

template <typename TInputImage, typename TOutputImage>
bool
BSplinePrefilterGPUImageFilter<TInputImage, TOutputImage>::GenerateDataOnSeveralDevices(
  const std::vector<int> & devices,
  const cif::BufferShape & shape,
  const cif::SplinePoles & poles,
  FilterStageProgress &    progress)
{
  if constexpr (TypesSupported)
  {
    using T = OutputComponentType;
    using TIn = InputComponentType;
    constexpr bool                 sameType = std::is_same_v<T, TIn>;
    const cif::SpreadPrefilterPlan plan = cif::PlanSpreadPrefilter(
      shape, static_cast<int>(devices.size()), static_cast<std::int64_t>(m_MinimumVoxelsPerDevice));
    // The shares must fit (this device's budget standing for every device's; each
    // device checks its own before any copy).
    const std::size_t budget = CIF_ITK_TRY_CUDA([] { return cif::GetDeviceMemoryBudget(true); });
    if (plan.Devices() < 2 ||
        static_cast<std::size_t>(cif::LargestSpreadShareScalars(shape, plan)) * sizeof(T) > budget)
    {
      return false;
    }
    const std::string what = "a share of " + this->DescribeJob(shape);
    T *               coefficients = reinterpret_cast<T *>(this->GetOutput()->GetBufferPointer());
    const T *         samples = nullptr; // an input of another type is converted into the output first
    if constexpr (sameType)
    {
      samples = reinterpret_cast<const T *>(this->GetInput()->GetBufferPointer());
      NoteHostInputUpload(this->GetInput()->GetPixelContainer());
    }
    else
    {
      this->ConvertInputOnHost();
    }
    progress.Completed();
    std::vector<cif::DeviceSpreadExecutor<T>> executors;
    executors.reserve(static_cast<std::size_t>(plan.Devices()));
    for (int k = 0; k < plan.Devices(); ++k)
    {
      executors.emplace_back(devices[static_cast<std::size_t>(k)], poles, m_BoundaryMode, what);
    }
    const std::vector<int> used(devices.begin(), devices.begin() + plan.Devices());
    const auto onDeviceThreads = [&used](const auto & body) { cif::RunOnDeviceThreads(used, nullptr, body); };
    bool       spread = true;
    CIF_ITK_TRY_CUDA([&] {
      try
      {
        cif::RunSpreadPrefilter(
          coefficients, shape, plan, executors, onDeviceThreads, progress.HostCallback(), samples);
      }
      catch (const cif::CudaOutOfMemory &)
      {
        // A device's share did not fit (each device allocates its share in the first
        // step): one device instead, which writes every element of the output again.
        spread = false;
      }
    });
    if (spread)
    {
      progress.Completed();
    }
    return spread;
  }
  else
  {
    (void)devices, (void)shape, (void)poles, (void)progress;
    return false;
  }
}

template <typename TInputImage, typename TOutputImage>
void
BSplinePrefilterGPUImageFilter<TInputImage, TOutputImage>::ConvertInputOnHost()
{
  if constexpr (TypesSupported)
  {
    using T = OutputComponentType;
    using TIn = InputComponentType;
    const auto *       source = reinterpret_cast<const TIn *>(this->GetInput()->GetBufferPointer());
    T *                coefficients = reinterpret_cast<T *>(this->GetOutput()->GetBufferPointer());
    const std::int64_t count = static_cast<std::int64_t>(this->GetInput()->GetBufferedRegion().GetNumberOfPixels()) *
                               CudaImageTraits<TInputImage>::ComponentsOf(this->GetInput());
    CudaParallelConvert(this->GetMultiThreader(), source, coefficients, count);
  }
}

template <typename TInputImage, typename TOutputImage>
void
BSplinePrefilterGPUImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "BoundaryMode: " << m_BoundaryMode << std::endl;
  os << indent << "MinimumVoxelsPerDevice: " << m_MinimumVoxelsPerDevice << std::endl;
}

} // namespace itk

#endif
