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
#ifndef itkConvolutionGPUImageFilter_hxx
#define itkConvolutionGPUImageFilter_hxx

#include "cifConvolutionPlan.h"
#include "cifConvolutionSlabs.h"
#include "cifSlabReservation.h"
#include "cifDeviceBuffer.h"
#include "itkConvolutionKernelImage.h"
#include "itkConvolutionRegions.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaHostInputRegistration.h"
#include "itkCudaParallelFor.h"
#include "itkFilterStageProgress.h"
#include "itkZeroFluxNeumannBoundaryCondition.h"

#include <sstream>
#include <vector>

namespace itk
{
template <typename TInputImage, typename TKernelImage, typename TOutputImage>
std::string
ConvolutionGPUImageFilter<TInputImage, TKernelImage, TOutputImage>::ModulePathRefusal() const
{
  if constexpr (!TypesSupported)
  {
    return "the module's path takes 2-D and 3-D images of integer or floating components and a scalar kernel";
  }
  else
  {
    if (dynamic_cast<const ZeroFluxNeumannBoundaryCondition<TInputImage> *>(this->GetBoundaryCondition()) == nullptr)
    {
      return "the module's path implements ITK's default ZeroFluxNeumann boundary condition only";
    }
    const TKernelImage * kernel = this->GetKernelImage();
    if (kernel == nullptr)
    {
      return "no kernel image";
    }
    const auto size = kernel->GetLargestPossibleRegion().GetSize();
    for (unsigned int a = 0; a < ImageDimension; ++a)
    {
      if (size[a] % 2 == 0 || size[a] > static_cast<SizeValueType>(cif::MaxKernelSide))
      {
        std::ostringstream why;
        why << "kernel size " << size << ": the module's path takes odd sides up to " << cif::MaxKernelSide;
        return why.str();
      }
    }
    const TInputImage * input = this->GetInput();
    if (input != nullptr && CudaImageTraits<TInputImage>::ComponentsOf(input) == 0)
    {
      return "pixels without components";
    }
    return "";
  }
}

template <typename TInputImage, typename TKernelImage, typename TOutputImage>
void
ConvolutionGPUImageFilter<TInputImage, TKernelImage, TOutputImage>::GenerateInputRequestedRegion()
{
  auto * input = const_cast<TInputImage *>(this->GetInput());
  if (input != nullptr && this->GetKernelImage() != nullptr)
  {
    typename TInputImage::RegionType region = this->GetOutput()->GetRequestedRegion();
    typename TInputImage::SizeType   radius;
    for (unsigned int a = 0; a < ImageDimension; ++a)
    {
      radius[a] = this->GetKernelImage()->GetLargestPossibleRegion().GetSize()[a] / 2;
    }
    if (!ConvolutionReadRegion(region, radius, input->GetLargestPossibleRegion()))
    {
      InvalidRequestedRegionError e(__FILE__, __LINE__);
      e.SetLocation(ITK_LOCATION);
      e.SetDescription("Requested region is (at least partially) outside the largest possible region.");
      e.SetDataObject(input);
      throw e;
    }
    input->SetRequestedRegion(region);
  }
  if (this->GetKernelImage() != nullptr)
  {
    const_cast<TKernelImage *>(this->GetKernelImage())->SetRequestedRegionToLargestPossibleRegion();
  }
}

template <typename TInputImage, typename TKernelImage, typename TOutputImage>
void
ConvolutionGPUImageFilter<TInputImage, TKernelImage, TOutputImage>::GenerateData()
{
  const std::string refusal = this->ModulePathRefusal();
  if (!refusal.empty())
  {
    if constexpr (ITKFallbackAvailable)
    {
      Superclass::GenerateData();
      this->SetLastExecutionPath(ExecutionPath::ITK);
      return;
    }
    else
    {
      itkExceptionMacro("cannot convolve: " << refusal
                                            << " (and itk::ConvolutionImageFilter cannot convolve this pixel type)");
    }
  }
  if constexpr (TypesSupported)
  {
    using TIn = InputComponentType;
    using TOut = OutputComponentType;
    const TInputImage * input = this->GetInput();
    if (input == nullptr || input->GetBufferedRegion().GetNumberOfPixels() == 0)
    {
      itkExceptionMacro("the input image is empty");
    }
    if (this->GetNormalize() && KernelFromImage(this->GetKernelImage(), false).Sum() == 0)
    {
      // ITK would divide by zero and fill the output with NaN or infinities.
      itkExceptionMacro("Normalize is on but the kernel's weights sum to zero");
    }
    const cif::ConvolutionKernel kernel = KernelFromImage(this->GetKernelImage(), this->GetNormalize());
    this->PrepareHostOutput(this->GetOutput());
    this->AllocateOutputs();
    TOutputImage * output = this->GetOutput();
    const int      components = static_cast<int>(CudaImageTraits<TInputImage>::ComponentsOf(input));
    if (static_cast<int>(CudaImageTraits<TOutputImage>::ComponentsOf(output)) != components)
    {
      itkExceptionMacro("input pixels have " << components << " components, output pixels "
                                             << CudaImageTraits<TOutputImage>::ComponentsOf(output));
    }
    try
    {
      const cif::ConvolutionGeometry g =
        ConvolutionGeometryOf(input->GetBufferedRegion(), output->GetBufferedRegion(), components);
      const cif::ConvolutionPlan plan = cif::MakeConvolutionPlan(kernel, g, m_ForceGeneralPath);
      const std::int64_t         inScalars = g.InVolume() * components;
      const std::int64_t         outScalars = g.OutVolume() * components;

      if (this->RunsOnGPU())
      {
        CIF_ITK_TRY_CUDA([&] { this->ConvolveOnDevice(input, output, plan, components); });
        this->SetLastExecutionPath(ExecutionPath::GPU);
      }
      else
      {
        // Stages: the input in planar float, the convolution, the output.
        FilterStageProgress progress(this, 3);
        auto                parallelFor = MakeParallelFor(this->GetMultiThreader());
        std::vector<float>  planarIn(static_cast<std::size_t>(inScalars)),
          planarOut(static_cast<std::size_t>(outScalars));
        // (Asked for here only: on a CudaDeviceImage whose pixels are on the device the host
        // pointer costs a download, which the GPU path does not need.)
        const auto * source = reinterpret_cast<const TIn *>(input->GetBufferPointer());
        cif::ToPlanarOnHost(source, g.InVolume(), components, planarIn.data(), parallelFor);
        progress.Completed();
        cif::RunConvolutionOnHost(plan, planarIn.data(), planarOut.data(), parallelFor);
        progress.Completed();
        cif::FromPlanarOnHost(planarOut.data(),
                              g.OutVolume(),
                              components,
                              reinterpret_cast<TOut *>(output->GetBufferPointer()),
                              parallelFor);
        progress.Completed();
        this->SetLastExecutionPath(ExecutionPath::CPU);
      }
      m_LastRunWasSeparable = plan.separable;
    }
    catch (...)
    {
      output->Initialize(); // no half-convolved image is left behind
      throw;
    }
  }
}

template <typename TInputImage, typename TKernelImage, typename TOutputImage>
void
ConvolutionGPUImageFilter<TInputImage, TKernelImage, TOutputImage>::ConvolveOnDevice(const TInputImage * input,
                                                                                     TOutputImage *      output,
                                                                                     const cif::ConvolutionPlan & plan,
                                                                                     int components)
{
  if constexpr (TypesSupported)
  {
    using TIn = InputComponentType;
    using TOut = OutputComponentType;
    constexpr bool                   inputIsCuda = CudaImageTraits<TInputImage>::IsCudaDeviceImage;
    constexpr bool                   outputIsCuda = CudaImageTraits<TOutputImage>::IsCudaDeviceImage;
    const cif::ConvolutionGeometry & g = plan.geometry;
    const int                        axis = cif::ConvolutionSlabAxis(g);
    // Scalars of one plane of the slab axis (every component), in the input and the output.
    const std::int64_t inPlane = g.InVolume() / g.inSize[axis] * components;
    const std::int64_t outPlane = g.OutVolume() / g.outSize[axis] * components;
    // A plane's device bytes: the input's staging copy (none where it is already on the
    // device) and planar floats, the separable path's scratch (one float per output
    // pixel of the plane's extent along the other axes, per input plane), the output's
    // planar floats and its staging copy.
    const std::size_t scratchPerPlane =
      static_cast<std::size_t>(plan.ScratchFloats() > 0 ? plan.ScratchFloats() / g.inSize[axis] : 0) * sizeof(float);
    const std::size_t inputPlaneBytes =
      static_cast<std::size_t>(inPlane) * ((inputIsCuda ? 0 : sizeof(TIn)) + sizeof(float)) + scratchPerPlane;
    const std::size_t outputPlaneBytes =
      static_cast<std::size_t>(outPlane) * (sizeof(float) + (outputIsCuda ? 0 : sizeof(TOut)));
    const std::size_t  weightBytes = plan.weights.size() * sizeof(float);
    std::ostringstream what;
    what << "convolution of a " << g.InVolume() << "-pixel image (" << components << " components)";

    // The buffers of the largest slab, reserved before any data moves and reused by
    // every slab.
    struct SlabBuffers
    {
      cif::DeviceBuffer staging, planarIn, planarOut, scratch, raw, weights;
    } buffers;
    const auto slabOf = [&](const cif::SlabPlan & slabs, std::int64_t s) {
      return cif::SlabOfConvolution(g, axis, slabs.First(s), slabs.Size(s, g.outSize[axis]));
    };
    const auto largestInputPlanes = [&](const cif::SlabPlan & slabs) {
      std::int64_t most = 0;
      for (std::int64_t s = 0; s < slabs.count; ++s)
      {
        most = std::max(most, slabOf(slabs, s).geometry.inSize[axis]);
      }
      return most;
    };
    const cif::SlabPlan slabs = cif::PlanAndReserve(
      cif::GetDeviceMemoryBudget(true),
      [&](std::size_t budget) {
        return cif::PlanConvolutionSlabs(g, inputPlaneBytes, outputPlaneBytes, weightBytes, budget, what.str());
      },
      [&](const cif::SlabPlan & slabPlan) {
        return cif::PlannedBytes{ weightBytes,
                                  static_cast<std::size_t>(largestInputPlanes(slabPlan)) * inputPlaneBytes +
                                    static_cast<std::size_t>(slabPlan.unitsPerSlab) * outputPlaneBytes };
      },
      [&](const cif::SlabPlan & slabPlan) {
        const std::int64_t inScalars = largestInputPlanes(slabPlan) * inPlane;
        const std::int64_t outScalars = slabPlan.unitsPerSlab * outPlane;
        SlabBuffers        reserved;
        if (!inputIsCuda)
        {
          reserved.staging.Allocate(inScalars * sizeof(TIn));
        }
        reserved.planarIn.Allocate(inScalars * sizeof(float));
        reserved.planarOut.Allocate(outScalars * sizeof(float));
        reserved.scratch.Allocate(scratchPerPlane * static_cast<std::size_t>(largestInputPlanes(slabPlan)));
        if (!outputIsCuda)
        {
          reserved.raw.Allocate(outScalars * sizeof(TOut));
        }
        reserved.weights.Allocate(weightBytes);
        buffers = std::move(reserved);
      });
    buffers.weights.Upload(plan.weights.data(), weightBytes);
    if constexpr (!inputIsCuda)
    {
      NoteHostInputUpload(input->GetPixelContainer());
    }
    TOut * deviceOutput = nullptr; // every output pixel is written: the host's need not go up
    if constexpr (outputIsCuda)
    {
      deviceOutput = static_cast<TOut *>(output->GetDeviceBufferForWriting(false));
    }
    // Stages of each slab: its input in planar float, the convolution, its output.
    FilterStageProgress progress(this, static_cast<unsigned int>(3 * slabs.count));
    for (std::int64_t s = 0; s < slabs.count; ++s)
    {
      const cif::ConvolutionSlab slab = slabOf(slabs, s);
      cif::ConvolutionPlan       slabPlan = plan;
      slabPlan.geometry = slab.geometry;
      const std::int64_t inScalars = slab.geometry.InVolume() * components;
      const std::int64_t outScalars = slab.geometry.OutVolume() * components;
      const TIn *        raw = nullptr;
      if constexpr (inputIsCuda)
      {
        raw = static_cast<const TIn *>(input->GetDeviceBufferForReading()) + slab.firstInputPlane * inPlane;
      }
      else
      {
        buffers.staging.Upload(reinterpret_cast<const TIn *>(input->GetBufferPointer()) +
                                 slab.firstInputPlane * inPlane,
                               inScalars * sizeof(TIn));
        raw = buffers.staging.template As<TIn>();
      }
      cif::ToPlanarOnDevice<TIn>(raw, slab.geometry.InVolume(), components, buffers.planarIn.template As<float>());
      cif::Synchronize();
      progress.Completed();
      cif::RunConvolutionOnDevice(slabPlan,
                                  buffers.planarIn.template As<const float>(),
                                  buffers.weights.template As<const float>(),
                                  buffers.planarOut.template As<float>(),
                                  buffers.scratch.template As<float>());
      progress.CompletedOnDevice();
      const std::int64_t firstOut = slab.firstOutputPlane * outPlane;
      if constexpr (outputIsCuda)
      {
        cif::FromPlanarOnDevice<TOut>(
          buffers.planarOut.template As<const float>(), slab.geometry.OutVolume(), components, deviceOutput + firstOut);
        cif::Synchronize();
      }
      else
      {
        cif::FromPlanarOnDevice<TOut>(buffers.planarOut.template As<const float>(),
                                      slab.geometry.OutVolume(),
                                      components,
                                      buffers.raw.template As<TOut>());
        cif::Synchronize();
        buffers.raw.Download(reinterpret_cast<TOut *>(output->GetBufferPointer()) + firstOut,
                             outScalars * sizeof(TOut));
      }
      progress.Completed();
    }
    m_LastNumberOfSlabs = static_cast<unsigned int>(slabs.count);
  }
}

template <typename TInputImage, typename TKernelImage, typename TOutputImage>
void
ConvolutionGPUImageFilter<TInputImage, TKernelImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "ForceGeneralPath: " << (m_ForceGeneralPath ? "On" : "Off") << std::endl;
  os << indent << "LastRunWasSeparable: " << (m_LastRunWasSeparable ? "yes" : "no") << std::endl;
  os << indent << "LastNumberOfSlabs: " << m_LastNumberOfSlabs << std::endl;
}
} // namespace itk

#endif
