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
#ifndef itkZoomGPUImageFilter_hxx
#define itkZoomGPUImageFilter_hxx

#include "cifBSplinePoles.h"
#include "cifBSplinePrefilterDevice.h"
#include "cifBSplinePrefilterHost.h"
#include "cifConvolutionPlan.h"
#include "cifDeviceBuffer.h"
#include "itkConvolutionRegions.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaParallelFor.h"
#include "itkFilterStageProgress.h"

#include <cmath>
#include <sstream>
#include <vector>

namespace itk
{
template <typename TInputImage, typename TOutputImage>
ZoomGPUImageFilter<TInputImage, TOutputImage>::ZoomGPUImageFilter()
{
  m_CutOutCenter.Fill(0);
  m_CutOutSize.Fill(0);
}

template <typename TInputImage, typename TOutputImage>
void
ZoomGPUImageFilter<TInputImage, TOutputImage>::SetKernel(const cif::ConvolutionKernel & kernel)
{
  if (kernel.dimension != 2 || kernel.size[0] % 2 == 0 || kernel.size[1] % 2 == 0 ||
      kernel.size[0] > cif::MaxKernelSide || kernel.size[1] > cif::MaxKernelSide || kernel.size[0] < 1 ||
      kernel.size[1] < 1 || static_cast<std::int64_t>(kernel.weights.size()) != kernel.Count())
  {
    itkExceptionMacro("the enhancement kernel must be 2-D with odd sides of at most "
                      << cif::MaxKernelSide << " (got " << kernel.dimension << "-D, " << kernel.size[0] << " x "
                      << kernel.size[1] << ", " << kernel.weights.size() << " weights)");
  }
  m_Kernel = kernel;
  m_HasKernel = true;
  this->Modified();
}

template <typename TInputImage, typename TOutputImage>
void
ZoomGPUImageFilter<TInputImage, TOutputImage>::ClearKernel()
{
  m_Kernel = cif::ConvolutionKernel();
  m_HasKernel = false;
  this->Modified();
}

template <typename TInputImage, typename TOutputImage>
void
ZoomGPUImageFilter<TInputImage, TOutputImage>::GenerateOutputInformation()
{
  Superclass::GenerateOutputInformation();
  const TInputImage * input = this->GetInput();
  TOutputImage *      output = this->GetOutput();
  if (input == nullptr)
  {
    itkExceptionMacro("no input image");
  }
  const double zoom = m_ZoomFactor;
  if (!std::isfinite(zoom) || zoom < 1.0)
  {
    itkExceptionMacro("the zoom factor must be at least 1 (got " << zoom << ")");
  }
  if (m_CutOutSize[0] == 0 || m_CutOutSize[1] == 0)
  {
    itkExceptionMacro("the cut-out needs a width and a height of at least 1 pixel (got " << m_CutOutSize[0] << " x "
                                                                                         << m_CutOutSize[1] << ")");
  }
  const RegionType image = input->GetLargestPossibleRegion();
  IndexType        start;
  for (unsigned int a = 0; a < 2; ++a)
  {
    start[a] = m_CutOutCenter[a] - static_cast<IndexValueType>(m_CutOutSize[a] / 2);
  }
  m_CutOutRegion = RegionType(start, m_CutOutSize);
  if (!image.IsInside(m_CutOutRegion))
  {
    itkExceptionMacro("the cut-out of " << m_CutOutSize[0] << " x " << m_CutOutSize[1] << " pixels centred at ("
                                        << m_CutOutCenter[0] << ", " << m_CutOutCenter[1] << ") spans [" << start[0]
                                        << ", " << start[0] + IndexValueType(m_CutOutSize[0]) - 1 << "] x [" << start[1]
                                        << ", " << start[1] + IndexValueType(m_CutOutSize[1]) - 1
                                        << "], which is not inside the image " << image.GetIndex() << " + "
                                        << image.GetSize());
  }

  SizeType  outSize;
  IndexType canvasStart;
  SizeType  canvasSize;
  IndexType regionStart;
  SizeType  regionSize;
  for (unsigned int a = 0; a < 2; ++a)
  {
    // floor, not round: every output sample then lies strictly inside the cut-out's
    // pixels (round(19 * 1.5) = 29 samples would put the last one on the cut-out's
    // outer edge, outside an image that ends there). The 1e-9 keeps 10 * 2.3 at 23.
    const double scaled = std::floor(static_cast<double>(m_CutOutSize[a]) * zoom + 1e-9);
    if (scaled > 1e9)
    {
      itkExceptionMacro("a zoom of " << zoom << " makes the output " << scaled << " pixels wide; too large");
    }
    outSize[a] = static_cast<SizeValueType>(scaled);
    const std::int64_t radius = m_HasKernel ? m_Kernel.size[a] / 2 : 0;
    // The canvas: the output plus the kernel radius, kept to samples inside the image
    // (ITK's inside test, start - 1/2 <= x < end + 1/2).
    const double cut = static_cast<double>(start[a]);
    const double low = static_cast<double>(image.GetIndex()[a]) - 0.5;
    const double high = static_cast<double>(image.GetIndex()[a] + IndexValueType(image.GetSize()[a])) - 0.5;
    auto         position = [&](std::int64_t i) { return cut + (static_cast<double>(i) + 0.5) / zoom - 0.5; };
    std::int64_t first = -radius;
    while (position(first) < low)
    {
      ++first;
    }
    std::int64_t last = static_cast<std::int64_t>(outSize[a]) - 1 + radius;
    while (position(last) >= high)
    {
      --last;
    }
    canvasStart[a] = first;
    canvasSize[a] = static_cast<SizeValueType>(last - first + 1);
    // The interpolation region: the canvas's support plus, for the spline, 20 more
    // samples (|pole|^20 < 1e-11: beyond that the image no longer changes the fit).
    const std::int64_t margin = static_cast<std::int64_t>(std::ceil((radius + 1) / zoom)) + 2 +
                                (m_Interpolation == Interpolation::Cubic ? 20 : 0);
    const std::int64_t from = std::max<std::int64_t>(start[a] - margin, image.GetIndex()[a]);
    const std::int64_t to = std::min<std::int64_t>(start[a] + IndexValueType(m_CutOutSize[a]) - 1 + margin,
                                                   image.GetIndex()[a] + IndexValueType(image.GetSize()[a]) - 1);
    regionStart[a] = from;
    regionSize[a] = static_cast<SizeValueType>(to - from + 1);
  }
  if (static_cast<double>(outSize[0]) * static_cast<double>(outSize[1]) > 2147483647.0)
  {
    itkExceptionMacro("a zoom of " << zoom << " makes the output " << outSize[0] << " x " << outSize[1]
                                   << " pixels; more than 2^31 pixels is refused");
  }
  m_CanvasRegion = RegionType(canvasStart, canvasSize);
  m_InterpolationRegion = RegionType(regionStart, regionSize);

  IndexType outStart;
  outStart.Fill(0);
  output->SetLargestPossibleRegion(RegionType(outStart, outSize));
  typename TOutputImage::SpacingType spacing = input->GetSpacing();
  ContinuousIndex<double, 2>         first;
  for (unsigned int a = 0; a < 2; ++a)
  {
    spacing[a] /= zoom;
    first[a] = static_cast<double>(start[a]) + 0.5 / zoom - 0.5;
  }
  typename TOutputImage::PointType origin;
  input->TransformContinuousIndexToPhysicalPoint(first, origin);
  output->SetSpacing(spacing);
  output->SetOrigin(origin);
  output->SetDirection(input->GetDirection());
}

template <typename TInputImage, typename TOutputImage>
void
ZoomGPUImageFilter<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  // The whole interpolation region, whatever piece of the output is requested: the
  // spline is fitted on all of it, so every piece of a streamed output refits the
  // same spline and gets the same coefficients (and the bits of a one-piece run).
  if (auto * input = const_cast<TInputImage *>(this->GetInput()))
  {
    input->SetRequestedRegion(m_InterpolationRegion);
  }
}

template <typename TInputImage, typename TOutputImage>
void
ZoomGPUImageFilter<TInputImage, TOutputImage>::GenerateData()
{
  using TIn = InputComponentType;
  using TOut = OutputComponentType;
  const TInputImage * input = this->GetInput();
  this->AllocateOutputs();
  TOutputImage * output = this->GetOutput();
  const int      components = static_cast<int>(CudaImageTraits<TInputImage>::ComponentsOf(input));
  if (static_cast<int>(CudaImageTraits<TOutputImage>::ComponentsOf(output)) != components || components < 1)
  {
    itkExceptionMacro("input pixels have " << components << " components, output pixels "
                                           << CudaImageTraits<TOutputImage>::ComponentsOf(output));
  }
  try
  {
    // The interpolation region as one contiguous block of interleaved scalars.
    const RegionType & region = m_InterpolationRegion;
    const RegionType   buffered = input->GetBufferedRegion();
    if (!buffered.IsInside(region))
    {
      itkExceptionMacro("the input buffer " << buffered << " does not hold the interpolation region " << region);
    }
    const std::int64_t regionPixels = static_cast<std::int64_t>(region.GetNumberOfPixels());
    std::vector<TIn>   regionData(static_cast<std::size_t>(regionPixels * components));
    {
      const auto *       source = reinterpret_cast<const TIn *>(input->GetBufferPointer());
      const std::int64_t rowScalars = static_cast<std::int64_t>(region.GetSize()[0]) * components;
      for (SizeValueType y = 0; y < region.GetSize()[1]; ++y)
      {
        const std::int64_t bx = region.GetIndex()[0] - buffered.GetIndex()[0];
        const std::int64_t by = region.GetIndex()[1] - buffered.GetIndex()[1] + static_cast<std::int64_t>(y);
        const TIn *        row = source + (by * static_cast<std::int64_t>(buffered.GetSize()[0]) + bx) * components;
        std::copy(row, row + rowScalars, regionData.begin() + static_cast<std::ptrdiff_t>(y * rowScalars));
      }
    }

    // This piece of the output: its requested region, which ITK allocated (all of it
    // unless the output is streamed). Its convolution reads the piece plus the kernel
    // radius of the zoom canvas, cropped to the whole canvas: samples are computed
    // from absolute canvas indices and the convolution clamps at the whole canvas's
    // edges only, so a piece has the bits of the same pixels of a one-piece run.
    const RegionType piece = output->GetBufferedRegion();
    RegionType       canvasRegion = piece;
    SizeType         radius;
    for (unsigned int a = 0; a < 2; ++a)
    {
      radius[a] = m_HasKernel ? static_cast<SizeValueType>(m_Kernel.size[a] / 2) : 0;
    }
    // (The crop cannot fail: ITK keeps a requested region inside the output, and the
    // canvas holds the output.)
    ConvolutionReadRegion(canvasRegion, radius, m_CanvasRegion);
    cif::ZoomGeometry zg;
    for (unsigned int a = 0; a < 2; ++a)
    {
      zg.regionSize[a] = static_cast<std::int64_t>(region.GetSize()[a]);
      zg.cutInRegion[a] = static_cast<double>(m_CutOutRegion.GetIndex()[a] - region.GetIndex()[a]);
      zg.zoom[a] = m_ZoomFactor;
      zg.canvasStart[a] = canvasRegion.GetIndex()[a];
      zg.canvasSize[a] = static_cast<std::int64_t>(canvasRegion.GetSize()[a]);
    }
    zg.planes = components;
    zg.interpolation = m_Interpolation;
    const std::int64_t outPixels = static_cast<std::int64_t>(piece.GetNumberOfPixels());
    const std::int64_t canvasScalars = zg.CanvasCount() * components;
    const std::int64_t regionScalars = regionPixels * components;

    cif::ConvolutionPlan plan;
    if (m_HasKernel)
    {
      plan =
        cif::MakeConvolutionPlan(m_Kernel, ConvolutionGeometryOf(canvasRegion, piece, components), m_ForceGeneralPath);
    }
    cif::BufferShape shape;
    shape.dimension = 2;
    shape.size[0] = zg.regionSize[0];
    shape.size[1] = zg.regionSize[1];
    cif::SplinePoles poles;
    cif::MakeSplinePoles(3, poles);
    const bool cubic = m_Interpolation == Interpolation::Cubic;
    // Stages, on either path: the region in planar float, both prefilter axes of every
    // component (cubic), the zoom, the enhancement (with a kernel), the output.
    FilterStageProgress progress(
      this, 1 + (cubic ? 2 * static_cast<unsigned int>(components) : 0) + 1 + (m_HasKernel ? 1 : 0) + 1);

    if (this->RunsOnGPU())
    {
      CIF_ITK_TRY_CUDA([&] {
        const std::size_t needed = regionScalars * (sizeof(TIn) + sizeof(float)) + canvasScalars * sizeof(float) +
                                   outPixels * components * (sizeof(float) + sizeof(TOut)) +
                                   plan.weights.size() * sizeof(float);
        std::ostringstream what;
        what << "zoom of a " << regionPixels << "-pixel region into " << outPixels << " pixels";
        cif::RequireDeviceMemory(needed, what.str());
        cif::DeviceBuffer planarRegion(regionScalars * sizeof(float));
        {
          cif::DeviceBuffer raw(regionScalars * sizeof(TIn));
          raw.Upload(regionData.data(), regionScalars * sizeof(TIn));
          cif::ToPlanarOnDevice<TIn>(raw.As<const TIn>(), regionPixels, components, planarRegion.As<float>());
          progress.CompletedOnDevice();
          if (cubic)
          {
            for (int c = 0; c < components; ++c)
            {
              cif::PrefilterOnDevice<float>(planarRegion.As<float>() + c * regionPixels,
                                            shape,
                                            poles,
                                            cif::BoundaryMode::Mirror,
                                            progress.DeviceCallback());
            }
          }
          cif::Synchronize();
        }
        cif::DeviceBuffer canvas(canvasScalars * sizeof(float));
        cif::ZoomOnDevice(planarRegion.As<const float>(), zg, canvas.As<float>());
        progress.CompletedOnDevice();
        const float *     result = canvas.As<const float>();
        cif::DeviceBuffer enhanced;
        if (m_HasKernel)
        {
          cif::DeviceBuffer weights(plan.weights.size() * sizeof(float));
          weights.Upload(plan.weights.data(), plan.weights.size() * sizeof(float));
          enhanced.Allocate(outPixels * components * sizeof(float));
          cif::RunConvolutionOnDevice(
            plan, canvas.As<const float>(), weights.As<const float>(), enhanced.As<float>(), nullptr);
          cif::Synchronize(); // before the weights are released
          progress.Completed();
          result = enhanced.As<const float>();
        }
        cif::DeviceBuffer raw(outPixels * components * sizeof(TOut));
        cif::FromPlanarOnDevice<TOut>(result, outPixels, components, raw.As<TOut>());
        cif::Synchronize();
        raw.Download(output->GetBufferPointer(), outPixels * components * sizeof(TOut));
        progress.Completed();
      });
      this->SetLastExecutionPath(ExecutionPath::GPU);
    }
    else
    {
      auto               parallelFor = MakeParallelFor(this->GetMultiThreader());
      std::vector<float> planarRegion(static_cast<std::size_t>(regionScalars));
      cif::ToPlanarOnHost(regionData.data(), regionPixels, components, planarRegion.data(), parallelFor);
      progress.Completed();
      if (cubic)
      {
        for (int c = 0; c < components; ++c)
        {
          cif::PrefilterOnHost(planarRegion.data() + c * regionPixels,
                               shape,
                               poles,
                               cif::BoundaryMode::Mirror,
                               parallelFor,
                               progress.HostCallback());
        }
      }
      std::vector<float> canvas(static_cast<std::size_t>(canvasScalars));
      cif::ZoomOnHost(planarRegion.data(), zg, canvas.data(), parallelFor);
      progress.Completed();
      std::vector<float> enhanced;
      const float *      result = canvas.data();
      if (m_HasKernel)
      {
        enhanced.resize(static_cast<std::size_t>(outPixels * components));
        cif::RunConvolutionOnHost(plan, canvas.data(), enhanced.data(), parallelFor);
        progress.Completed();
        result = enhanced.data();
      }
      cif::FromPlanarOnHost(
        result, outPixels, components, reinterpret_cast<TOut *>(output->GetBufferPointer()), parallelFor);
      progress.Completed();
      this->SetLastExecutionPath(ExecutionPath::CPU);
    }
  }
  catch (...)
  {
    output->Initialize(); // no half-zoomed image is left behind
    throw;
  }
}

template <typename TInputImage, typename TOutputImage>
void
ZoomGPUImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "CutOutCenter: " << m_CutOutCenter << std::endl;
  os << indent << "CutOutSize: " << m_CutOutSize << std::endl;
  os << indent << "ZoomFactor: " << m_ZoomFactor << std::endl;
  os << indent << "Interpolation: " << cif::ToString(m_Interpolation) << std::endl;
  os << indent << "Kernel: " << (m_HasKernel ? m_Kernel.name : std::string("none")) << std::endl;
  os << indent << "ForceGeneralPath: " << (m_ForceGeneralPath ? "On" : "Off") << std::endl;
}
} // namespace itk

#endif
