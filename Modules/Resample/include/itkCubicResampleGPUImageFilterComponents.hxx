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
// CubicResampleGPUImageFilter's multi-component path: each component through the scalar machinery.
#ifndef itkCubicResampleGPUImageFilterComponents_hxx
#define itkCubicResampleGPUImageFilterComponents_hxx

#include "cifBSplinePrefilterDevice.h"
#include "cifBSplinePrefilterHost.h"
#include "cifDeviceBuffer.h"
#include "cifDeviceMemoryLimit.h"
#include "cifResampleDevice.h"
#include "cifResampleSlabs.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkCubicResampleGPUImageFilterDetail.hxx"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaParallelFor.h"
#include "itkFilterStageProgress.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace itk
{
template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  ResampleEachComponent()
{
  if constexpr (ComponentsSupported)
  {
    constexpr unsigned int D = ImageDimension;
    using TC = CoefficientType;
    using TIn = InputComponentType;
    using TOut = OutputComponentType;
    const TInputImage * input = this->GetInput();
    const auto *        transform = this->CheckInputAndTransform();
    this->PrepareHostOutput(this->GetOutput());
    this->AllocateOutputs();
    TOutputImage *     output = this->GetOutput();
    const unsigned int components = CudaImageTraits<TInputImage>::ComponentsOf(input);
    if (CudaImageTraits<TOutputImage>::ComponentsOf(output) != components)
    {
      itkExceptionMacro("the output has " << CudaImageTraits<TOutputImage>::ComponentsOf(output)
                                          << " components per pixel, the input " << components);
    }
    try
    {
      const cif::ResampleGeometry g = CubicResampleDetail::MakeGeometry<D>(input, output);
      CudaTransformChain<D>       chain(transform);
      const bool                  linearRows = chain.IsDeviceEvaluable() && transform->GetTransformCategory() ==
                                                             Transform<double, D, D>::TransformCategoryEnum::Linear;
      const std::int64_t     inputCount = static_cast<std::int64_t>(input->GetBufferedRegion().GetNumberOfPixels());
      const std::int64_t     outputCount = g.OutputCount();
      const cif::BufferShape shape = CubicResampleDetail::InputShape<D>(g);
      cif::SplinePoles       poles;
      cif::MakeSplinePoles(3, poles);
      const bool                onGPU = this->RunsOnGPU();
      const cif::ResampleSlabs  slabs = cif::PlanResampleSlabs(g, static_cast<int>(D), m_MinimumVoxelsPerSlab);
      const bool                mapsOnHost = !chain.IsDeviceEvaluable();
      FilterStageProgress       progress(this,
                                   (mapsOnHost ? 1 : 0) + components * CubicResampleDetail::ResampleStages(
                                                                         D, !m_InputIsCoefficients, slabs, true));
      const std::vector<double> mapped =
        mapsOnHost ? CubicResampleDetail::MapPointsOnHost<D>(this, g, output, transform) : std::vector<double>{};
      if (mapsOnHost)
      {
        progress.Completed();
      }
      const auto defaultPixel = this->GetDefaultPixelValue();
      auto       defaultOf = [&](unsigned int c) -> TOut {
        // a VectorImage's default may be empty: zero then, as ITK fills it
        if constexpr (CudaImageTraits<TOutputImage>::Components == 0)
        {
          return c < defaultPixel.GetSize() ? static_cast<TOut>(defaultPixel[c]) : TOut{};
        }
        else
        {
          return static_cast<TOut>(defaultPixel[c]);
        }
      };
      const auto *      interleavedIn = reinterpret_cast<const TIn *>(input->GetBufferPointer());
      auto *            interleavedOut = reinterpret_cast<TOut *>(output->GetBufferPointer());
      std::vector<TIn>  plane(static_cast<std::size_t>(inputCount));
      std::vector<TOut> outPlane(static_cast<std::size_t>(outputCount));
      auto              takeComponent = [&](unsigned int c) {
        for (std::int64_t i = 0; i < inputCount; ++i)
        {
          plane[i] = interleavedIn[i * components + c];
        }
      };
      auto putComponent = [&](unsigned int c) {
        for (std::int64_t i = 0; i < outputCount; ++i)
        {
          interleavedOut[i * components + c] = outPlane[i];
        }
      };

      if (onGPU)
      {
        CIF_ITK_TRY_CUDA([&] {
          std::ostringstream what;
          what << "cubic resampling of a " << inputCount << "-voxel, " << components << "-component image into "
               << outputCount << " voxels";
          cif::RequireDeviceMemory(inputCount * (sizeof(TC) + sizeof(TIn)) + mapped.size() * sizeof(double) +
                                     outputCount * sizeof(TOut),
                                   what.str());
          cif::DeviceBuffer staging(inputCount * sizeof(TIn)), coefficients(inputCount * sizeof(TC));
          cif::DeviceBuffer outputPlane(outputCount * sizeof(TOut)), mappedOnDevice;
          if (!mapped.empty())
          {
            mappedOnDevice.Allocate(mapped.size() * sizeof(double));
            mappedOnDevice.Upload(mapped.data(), mapped.size() * sizeof(double));
          }
          const cif::TransformChain & deviceChain = chain.IsDeviceEvaluable() ? chain.DeviceChain() : chain.HostChain();
          for (unsigned int c = 0; c < components; ++c)
          {
            takeComponent(c);
            staging.Upload(plane.data(), inputCount * sizeof(TIn));
            cif::ConvertOnDevice<TIn, TC>(staging.As<TIn>(), coefficients.As<TC>(), inputCount);
            progress.CompletedOnDevice();
            if (!m_InputIsCoefficients)
            {
              cif::PrefilterOnDevice<TC>(
                coefficients.As<TC>(), shape, poles, cif::BoundaryMode::Mirror, progress.DeviceCallback());
            }
            cif::ResampleOnDevice<static_cast<int>(D), TC, TOut>(coefficients.As<const TC>(),
                                                                 g,
                                                                 deviceChain,
                                                                 mappedOnDevice.As<const double>(),
                                                                 linearRows,
                                                                 defaultOf(c),
                                                                 outputPlane.As<TOut>(),
                                                                 slabs,
                                                                 progress.DeviceCallback());
            outputPlane.Download(outPlane.data(), outputCount * sizeof(TOut));
            putComponent(c);
            progress.Completed();
          }
        });
        this->SetLastExecutionPath(ExecutionPath::GPU);
      }
      else
      {
        std::vector<TC> coefficients(static_cast<std::size_t>(inputCount));
        for (unsigned int c = 0; c < components; ++c)
        {
          takeComponent(c);
          std::transform(plane.begin(), plane.end(), coefficients.begin(), [](TIn v) { return static_cast<TC>(v); });
          progress.Completed();
          if (!m_InputIsCoefficients)
          {
            cif::PrefilterOnHost(coefficients.data(),
                                 shape,
                                 poles,
                                 cif::BoundaryMode::Mirror,
                                 MakeParallelFor(this->GetMultiThreader()),
                                 progress.HostCallback());
          }
          CubicResampleDetail::ResampleOnHost<D>(this,
                                                 coefficients.data(),
                                                 g,
                                                 slabs,
                                                 chain.HostChain(),
                                                 mapped.empty() ? nullptr : mapped.data(),
                                                 linearRows,
                                                 defaultOf(c),
                                                 outPlane.data(),
                                                 progress.HostCallback());
          putComponent(c);
          progress.Completed();
        }
        this->SetLastExecutionPath(ExecutionPath::CPU);
      }
    }
    catch (...)
    {
      output->Initialize(); // no half-resampled image is left behind
      throw;
    }
  }
}
} // namespace itk

#endif
