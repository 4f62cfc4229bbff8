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
// CubicResampleGPUImageFilter's several-device runner: the exact mode spread over the devices set.
#ifndef itkCubicResampleGPUImageFilterSeveralDevices_hxx
#define itkCubicResampleGPUImageFilterSeveralDevices_hxx

#include "cifBSplinePrefilterDevice.h"
#include "cifDeviceBuffer.h"
#include "cifDeviceMemoryLimit.h"
#include "cifDeviceThreads.h"
#include "cifResampleDevice.h"
#include "cifResampleSlabs.h"
#include "cifSpreadPrefilter.h"
#include "cifSpreadResample.h"
#include "cifWorkerRendezvous.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkCubicResampleGPUImageFilterDetail.hxx"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaHostInputRegistration.h"
#include "itkCudaTransformChain.h"
#include "itkFilterStageProgress.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace itk
{
template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  ResampleOnSeveralDevices(const std::vector<int> &                   devices,
                           const ScalarJob &                          job,
                           const CudaTransformChain<ImageDimension> & chain,
                           const std::vector<double> &                mapped,
                           FilterStageProgress &                      progress)
{
  if constexpr (TypesSupported)
  {
    // Each device uploads the chain's coefficients for itself (DeviceChain()'s are on
    // this thread's device only).
    CIF_ITK_TRY_CUDA(
      [&] { this->SpreadOverDevices(devices, job, chain.HostChain(), chain.IsDeviceEvaluable(), mapped); });
    // The devices report no progress of their own (ITK's events belong to this
    // thread): every stage is done now.
    for (unsigned int stage = 0;
         stage < CubicResampleDetail::ResampleStages(ImageDimension, !m_InputIsCoefficients, job.slabs, true);
         ++stage)
    {
      progress.Completed();
    }
    this->SetLastExecutionPath(ExecutionPath::GPU);
  }
}

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  SpreadOverDevices(const std::vector<int> &    devices,
                    const ScalarJob &           job,
                    const cif::TransformChain & hostChain,
                    bool                        chainOnDevice,
                    const std::vector<double> & mapped)
{
  if constexpr (TypesSupported)
  {
    constexpr unsigned int D = ImageDimension;
    using TC = CoefficientType;
    using TIn = InputComponentType;
    using TOut = OutputComponentType;
    const cif::ResampleGeometry & g = job.g;
    const cif::ResampleSlabs &    slabs = job.slabs;
    const cif::BufferShape &      shape = job.shape;
    const cif::SplinePoles &      poles = job.poles;
    const bool                    linearRows = job.linearRows;
    const TOut                    defaultValue = job.defaultValue;
    const std::int64_t            inputCount = shape.ScalarCount();
    const auto *                  input = reinterpret_cast<const TIn *>(this->GetInput()->GetBufferPointer());
    auto *                        output = reinterpret_cast<TOut *>(this->GetOutput()->GetBufferPointer());
    // Device k resamples its share of the slabs (cif::ShareOfSlabs): the bits of one device.
    const std::int64_t     n = std::min<std::int64_t>(static_cast<std::int64_t>(devices.size()), slabs.count);
    const std::vector<int> used(devices.begin(), devices.begin() + n);
    constexpr bool         sameType = std::is_same_v<TIn, TC>;
    const std::size_t      outputBytesPerVoxel = (mapped.empty() ? 0 : D * sizeof(double)) + sizeof(TOut);
    const auto             Describe = [&](std::int64_t k, std::int64_t count) {
      std::ostringstream what;
      what << "cubic resampling of a " << inputCount << "-voxel image into " << count << " voxels on device "
           << devices[static_cast<std::size_t>(k)];
      return what.str();
    };

    // Device k's share of the output, from the input's coefficients on it over
    // \a inputGrid (the whole input, or the planes the share reads).
    const auto ResampleShare = [&](std::int64_t k, const TC * coefficients, const cif::CoefficientGrid & inputGrid) {
      cif::SlabShare share = cif::ShareOfSlabs(g, slabs, k, n);
      share.geometry.input = inputGrid;
      const std::int64_t             first = share.firstVoxel;
      const std::int64_t             count = share.geometry.OutputCount();
      std::vector<cif::DeviceBuffer> chainBuffers;
      const cif::TransformChain      deviceChain =
        chainOnDevice ? CudaTransformChain<D>::UploadToCurrentDevice(hostChain, chainBuffers) : hostChain;
      cif::DeviceBuffer mappedOnDevice;
      if (!mapped.empty())
      {
        mappedOnDevice.Allocate(static_cast<std::size_t>(count) * D * sizeof(double));
        mappedOnDevice.Upload(mapped.data() + D * first, static_cast<std::size_t>(count) * D * sizeof(double));
      }
      // The share's slabs, each downloaded while the next computes (as on one device).
      cif::DeviceBuffer       out(static_cast<std::size_t>(count) * sizeof(TOut));
      cif::OverlappedDownload download(output + first, out.As<TOut>(), static_cast<std::size_t>(count) * sizeof(TOut));
      cif::ResampleOnDevice<static_cast<int>(D), TC, TOut>(
        coefficients,
        share.geometry,
        deviceChain,
        mappedOnDevice.As<const double>(),
        linearRows,
        defaultValue,
        out.As<TOut>(),
        share.slabs,
        cif::DownloadEachSlab(download, share.geometry, share.slabs, sizeof(TOut), {}));
      download.Finish();
    };

    // One upload of the host input (pinned once it has gone up a few times, as on one
    // device; the registration is portable, so every device copies at the bus's rate).
    NoteHostInputUpload(this->GetInput()->GetPixelContainer());

    // Samples of the coefficients' type: the prefilter itself spreads
    // (cifSpreadPrefilter.h: each device filters its planes, then its rows along the
    // slowest axis, then gathers the whole result), where every device holds the
    // whole coefficients, its share of the prefilter and its share of the output.
    if constexpr (sameType)
    {
      const cif::SpreadPrefilterPlan plan = cif::PlanSpreadPrefilter(shape, static_cast<int>(n), 1);
      const std::int64_t             plane = inputCount / shape.size[D - 1];
      // Through a linear transform a device reads only the planes its share's slabs
      // map into (cifSpreadResample.h), gathered before its first slab (feeding each
      // slab its planes while the earlier ones compute was slower with a fresh output:
      // commit 18b0d08). Otherwise every device gathers every plane.
      std::vector<cif::SpreadShareSlabs> shares(static_cast<std::size_t>(n));
      for (std::int64_t k = 0; k < n; ++k)
      {
        auto & s = shares[static_cast<std::size_t>(k)];
        if (linearRows)
        {
          s = cif::PlanSpreadShare<static_cast<int>(D)>(g, slabs, k, n, hostChain);
        }
        else
        {
          s.share = cif::ShareOfSlabs(g, slabs, k, n);
          s.wanted = { 0, shape.size[D - 1] };
        }
      }
      // A device's memory on this path: the coefficients its share reads, its share
      // of the prefilter's work areas, and its share of the output.
      const auto MemoryNeeded = [&](std::int64_t k) {
        const cif::SpreadShareSlabs & s = shares[static_cast<std::size_t>(k)];
        return static_cast<std::size_t>((s.wanted.end - s.wanted.first) * plane +
                                        cif::LargestSpreadShareScalars(shape, plan)) *
                 sizeof(TC) +
               static_cast<std::size_t>(s.share.geometry.OutputCount()) * outputBytesPerVoxel;
      };
      std::size_t largestNeed = 0;
      for (std::int64_t k = 0; k < n; ++k)
      {
        largestNeed = std::max(largestNeed, MemoryNeeded(k));
      }
      if (!m_InputIsCoefficients && plan.Devices() == n && largestNeed <= cif::GetDeviceMemoryBudget(true))
      {
        std::vector<cif::DeviceBuffer> read(static_cast<std::size_t>(n)); // the planes each share reads
        std::vector<TC *>              readPointers(static_cast<std::size_t>(n));
        std::vector<cif::PlaneRange>   wanted;
        for (const cif::SpreadShareSlabs & s : shares)
        {
          wanted.push_back(s.wanted);
        }
        cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
          const auto index = static_cast<std::size_t>(k);
          cif::RequireDeviceMemory(MemoryNeeded(k), Describe(k, shares[index].share.geometry.OutputCount()));
          read[index].Allocate(static_cast<std::size_t>((wanted[index].end - wanted[index].first) * plane) *
                               sizeof(TC));
          readPointers[index] = read[index].As<TC>();
        });
        std::vector<cif::DeviceSpreadExecutor<TC>> executors;
        executors.reserve(static_cast<std::size_t>(n));
        for (std::int64_t k = 0; k < n; ++k)
        {
          executors.emplace_back(devices[static_cast<std::size_t>(k)],
                                 poles,
                                 cif::BoundaryMode::Mirror,
                                 "a share of the prefilter of a " + std::to_string(inputCount) + "-voxel image");
        }
        const auto onDeviceThreads = [&used](const auto & body) { cif::RunOnDeviceThreads(used, nullptr, body); };
        cif::RunSpreadPrefilterOntoEveryDevice(
          reinterpret_cast<const TC *>(input), shape, plan, executors, onDeviceThreads, readPointers, {}, wanted);
        cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
          // The share against the planes gathered (all of them, or the union of its
          // slabs' planes: every support lies in it, its edges are the input's where
          // supports reach them).
          cif::CoefficientGrid grid = g.input;
          grid.start[D - 1] += wanted[static_cast<std::size_t>(k)].first;
          grid.size[D - 1] = wanted[static_cast<std::size_t>(k)].end - wanted[static_cast<std::size_t>(k)].first;
          ResampleShare(k, read[static_cast<std::size_t>(k)].As<const TC>(), grid);
          read[static_cast<std::size_t>(k)].Release(); // on its device's thread
        });
        return;
      }
    }

    // Otherwise every device prefilters the whole input itself.
    const auto                     ShareStart = [&](std::int64_t k) { return inputCount * k / n; };
    std::vector<cif::DeviceBuffer> inputOnDevices(static_cast<std::size_t>(n));
    cif::WorkerRendezvous          rendezvous(static_cast<int>(n));
    cif::RunOnDeviceThreads(used, &rendezvous, [&](std::int64_t k) {
      const std::int64_t count = cif::ShareOfSlabs(g, slabs, k, n).geometry.OutputCount();
      cif::RequireDeviceMemory(static_cast<std::size_t>(inputCount) * (sizeof(TC) + (sameType ? 0 : sizeof(TIn))) +
                                 static_cast<std::size_t>(count) * outputBytesPerVoxel,
                               Describe(k, count));
      // The input as uploaded (for a TIn of the coefficients' type, the coefficients
      // themselves); freed by the calling thread once every device is done, since
      // the other devices read shares of it.
      cif::DeviceBuffer & inputBuffer = inputOnDevices[static_cast<std::size_t>(k)];
      inputBuffer.Allocate(static_cast<std::size_t>(inputCount) * sizeof(TIn));
      cif::DeviceBuffer converted(sameType ? 0 : static_cast<std::size_t>(inputCount) * sizeof(TC));
      TIn *             inputOnThisDevice = inputBuffer.As<TIn>();
      TC *              coefficients = sameType ? inputBuffer.As<TC>() : converted.As<TC>();
      // Each device uploads its share of the input over its own bus; the shares then
      // travel between the devices, so that every device holds the whole input while
      // the host sent it once.
      const std::int64_t mine = ShareStart(k), mineEnd = ShareStart(k + 1);
      cif::CopyHostToDevice(
        inputOnThisDevice + mine, input + mine, static_cast<std::size_t>(mineEnd - mine) * sizeof(TIn));
      if (!rendezvous.ArriveAndWait()) // every share on its device
      {
        return; // another device failed: its error is reported
      }
      for (std::int64_t j = 0; j < n; ++j)
      {
        if (j != k)
        {
          cif::CopyBetweenDevices(inputOnThisDevice + ShareStart(j),
                                  devices[static_cast<std::size_t>(k)],
                                  inputOnDevices[static_cast<std::size_t>(j)].As<const TIn>() + ShareStart(j),
                                  devices[static_cast<std::size_t>(j)],
                                  static_cast<std::size_t>(ShareStart(j + 1) - ShareStart(j)) * sizeof(TIn));
        }
      }
      cif::Synchronize();
      if (!rendezvous.ArriveAndWait()) // every device has read the others' shares: they may change now
      {
        return;
      }
      if constexpr (!sameType)
      {
        cif::ConvertOnDevice<TIn, TC>(inputOnThisDevice, coefficients, inputCount);
      }
      if (!m_InputIsCoefficients)
      {
        cif::PrefilterOnDevice<TC>(coefficients, shape, poles, cif::BoundaryMode::Mirror, {});
      }
      ResampleShare(k, coefficients, g.input);
    });
  }
}
} // namespace itk

#endif
