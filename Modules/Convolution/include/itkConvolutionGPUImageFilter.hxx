#ifndef itkConvolutionGPUImageFilter_hxx
#define itkConvolutionGPUImageFilter_hxx

#include "cifConvolutionPlan.h"
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

      // Stages, on either path: the input in planar float, the convolution, the output.
      FilterStageProgress progress(this, 3);
      if (this->RunsOnGPU())
      {
        CIF_ITK_TRY_CUDA([&] {
          constexpr bool     inputIsCuda = CudaImageTraits<TInputImage>::IsCudaImage;
          constexpr bool     outputIsCuda = CudaImageTraits<TOutputImage>::IsCudaImage;
          const std::size_t  needed = inScalars * ((inputIsCuda ? 0 : sizeof(TIn)) + sizeof(float)) +
                                     outScalars * (sizeof(float) + (outputIsCuda ? 0 : sizeof(TOut))) +
                                     (plan.ScratchFloats() + plan.weights.size()) * sizeof(float);
          std::ostringstream what;
          what << "convolution of a " << g.InVolume() << "-pixel image (" << components << " components)";
          cif::RequireDeviceMemory(needed, what.str());

          cif::DeviceBuffer planarIn(inScalars * sizeof(float)), planarOut(outScalars * sizeof(float));
          {
            cif::DeviceBuffer staging;
            const TIn *       raw = nullptr;
            if constexpr (inputIsCuda)
            {
              raw = static_cast<const TIn *>(input->GetDeviceBufferForReading());
            }
            else
            {
              staging.Allocate(inScalars * sizeof(TIn));
              NoteHostInputUpload(input->GetPixelContainer());
              staging.Upload(input->GetBufferPointer(), inScalars * sizeof(TIn));
              raw = staging.As<TIn>();
            }
            cif::ToPlanarOnDevice<TIn>(raw, g.InVolume(), components, planarIn.As<float>());
            cif::Synchronize();
          }
          progress.Completed();
          cif::DeviceBuffer weights(plan.weights.size() * sizeof(float));
          weights.Upload(plan.weights.data(), plan.weights.size() * sizeof(float));
          cif::DeviceBuffer scratch(plan.ScratchFloats() * sizeof(float));
          cif::RunConvolutionOnDevice(plan, planarIn.As<const float>(), weights.As<const float>(),
                                      planarOut.As<float>(), scratch.As<float>());
          progress.CompletedOnDevice();
          planarIn.Release();
          if constexpr (outputIsCuda)
          {
            cif::FromPlanarOnDevice<TOut>(planarOut.As<const float>(), g.OutVolume(), components,
                                          static_cast<TOut *>(output->GetDeviceBufferForWriting(false)));
            cif::Synchronize();
          }
          else
          {
            cif::DeviceBuffer raw(outScalars * sizeof(TOut));
            cif::FromPlanarOnDevice<TOut>(planarOut.As<const float>(), g.OutVolume(), components, raw.As<TOut>());
            cif::Synchronize();
            raw.Download(output->GetBufferPointer(), outScalars * sizeof(TOut));
          }
          progress.Completed();
        });
        this->SetLastExecutionPath(ExecutionPath::GPU);
      }
      else
      {
        auto               parallelFor = MakeParallelFor(this->GetMultiThreader());
        std::vector<float> planarIn(static_cast<std::size_t>(inScalars)), planarOut(static_cast<std::size_t>(outScalars));
        // (Asked for here only: on a CudaImage whose pixels are on the device the host
        // pointer costs a download, which the GPU path does not need.)
        const auto * source = reinterpret_cast<const TIn *>(input->GetBufferPointer());
        cif::ToPlanarOnHost(source, g.InVolume(), components, planarIn.data(), parallelFor);
        progress.Completed();
        cif::RunConvolutionOnHost(plan, planarIn.data(), planarOut.data(), parallelFor);
        progress.Completed();
        cif::FromPlanarOnHost(planarOut.data(), g.OutVolume(), components,
                              reinterpret_cast<TOut *>(output->GetBufferPointer()), parallelFor);
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
ConvolutionGPUImageFilter<TInputImage, TKernelImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "ForceGeneralPath: " << (m_ForceGeneralPath ? "On" : "Off") << std::endl;
  os << indent << "LastRunWasSeparable: " << (m_LastRunWasSeparable ? "yes" : "no") << std::endl;
}
} // namespace itk

#endif
