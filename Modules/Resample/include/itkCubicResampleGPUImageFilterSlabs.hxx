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
// CubicResampleGPUImageFilter's slab runner: outputs larger than the device, in slabs that fit it.
#ifndef itkCubicResampleGPUImageFilterSlabs_hxx
#define itkCubicResampleGPUImageFilterSlabs_hxx

#include "cifDeviceBuffer.h"
#include "cifDeviceMemoryLimit.h"
#include "cifHostWorkArea.h"
#include "cifResampleDevice.h"
#include "cifResampleSlabs.h"
#include "cifSlabPlan.h"
#include "cifSlabReservation.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkCubicResampleGPUImageFilterDetail.hxx"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaParallelFor.h"
#include "itkFilterStageProgress.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace itk
{
namespace CubicResampleDetail
{
/** What ResampleInSlabs plans with, in bytes: per output plane (its output values,
 * and its mapped points where ITK maps them), the whole input's coefficients (what a
 * transform that is not linear reads), one coefficient, and the transform's own
 * device arrays (B-spline coefficients, fields: the filter's scratch, set aside
 * before any slab). */
struct SlabbedSizes
{
  std::size_t perPlane = 0;
  std::size_t wholeInput = 0;
  std::size_t coefficient = 0;
  std::size_t transform = 0;
};

/** The largest input box, in voxels, that a slab of \a slabs reads through the linear
 * \a chain. */
template <unsigned int D>
std::int64_t
LargestInputBox(const cif::ResampleGeometry & g, const cif::ResampleSlabs & slabs, const cif::TransformChain & chain)
{
  std::int64_t largest = 0;
  for (std::int64_t s = 0; s < slabs.count; ++s)
  {
    largest = std::max(
      largest, cif::GridCount(cif::InputBoxOfRegion<static_cast<int>(D)>(cif::SlabGeometry(g, slabs, s), chain), D));
  }
  return largest;
}

/** The device bytes of \a slabs: fixed (the transform's arrays, and unless \a linear
 * the whole input's coefficients) and those of the largest slab (its output and
 * mapped points, and for \a linear the largest input box). */
template <unsigned int D>
cif::PlannedBytes
SlabbedBytes(const cif::ResampleGeometry & g,
             const cif::ResampleSlabs &    slabs,
             const cif::TransformChain &   chain,
             bool                          linear,
             const SlabbedSizes &          sizes)
{
  cif::PlannedBytes bytes;
  bytes.fixedBytes = sizes.transform + (linear ? 0 : sizes.wholeInput);
  bytes.slabBytes = sizes.perPlane * static_cast<std::size_t>(slabs.planesPerSlab) +
                    (linear ? static_cast<std::size_t>(LargestInputBox<D>(g, slabs, chain)) * sizes.coefficient : 0);
  return bytes;
}

/** The output of \a g in slabs of its slowest axis that fit \a budget, each with its
 * output (and mapped points) and the input it reads: for a \a linear chain the box
 * its slab maps into (the slabs halved until every slab's output and box fit), else
 * the whole coefficients. Throws CudaOutOfMemory, naming \a what and the sizes,
 * where one output plane does not fit with what it reads. */
template <unsigned int D>
cif::ResampleSlabs
PlanOutputSlabs(const cif::ResampleGeometry & g,
                const cif::TransformChain &   chain,
                bool                          linear,
                const SlabbedSizes &          sizes,
                std::size_t                   budget,
                const std::string &           what)
{
  const int          axis = static_cast<int>(D) - 1;
  const std::int64_t planes = g.outputSize[axis];
  cif::ResampleSlabs slabs;
  slabs.axis = axis;
  slabs.voxelsPerPlane = g.OutputCount() / planes;
  if (!linear)
  {
    const cif::SlabPlan plan = cif::PlanSlabs(planes,
                                              sizes.perPlane,
                                              sizes.wholeInput + sizes.transform,
                                              budget,
                                              what + " (the whole input's coefficients: the transform is not linear)");
    slabs.planesPerSlab = plan.unitsPerSlab;
    slabs.count = plan.count;
    return slabs;
  }
  std::int64_t per = cif::PlanSlabs(planes, sizes.perPlane, 0, budget / 2 > 0 ? budget / 2 : 1, what).unitsPerSlab;
  for (;;)
  {
    slabs.planesPerSlab = per;
    slabs.count = (planes + per - 1) / per;
    const std::size_t box = static_cast<std::size_t>(LargestInputBox<D>(g, slabs, chain)) * sizes.coefficient;
    if (sizes.perPlane * static_cast<std::size_t>(per) + box + sizes.transform <= budget)
    {
      return slabs;
    }
    if (per == 1)
    {
      cif::PlanSlabs(
        1, sizes.perPlane, box + sizes.transform, budget, what + " (one output plane and the input box it reads)");
    }
    per = (per + 1) / 2;
  }
}

/** Calls \a stageDone as many times as the stages of the \a planned slabs that are
 * done once \a doneUnits of \a units are (a plan cut finer after a failed
 * reservation reports the first plan's stages, in proportion), from \a reported. */
template <typename TStageDone>
void
ReportInProportion(std::int64_t   doneUnits,
                   std::int64_t   units,
                   std::int64_t   plannedUnits,
                   std::int64_t & reported,
                   TStageDone &&  stageDone)
{
  for (const std::int64_t due = doneUnits * plannedUnits / units; reported < due; ++reported)
  {
    stageDone();
  }
}
} // namespace CubicResampleDetail

template <typename TInputImage,
          typename TOutputImage,
          typename TInterpolatorPrecisionType,
          typename TTransformPrecisionType>
void
CubicResampleGPUImageFilter<TInputImage, TOutputImage, TInterpolatorPrecisionType, TTransformPrecisionType>::
  ResampleInSlabs(const ScalarJob &                    job,
                  CudaTransformChain<ImageDimension> & chain,
                  const TransformForModule *           transform)
{
  if constexpr (TypesSupported)
  {
    constexpr unsigned int D = ImageDimension;
    using TC = CoefficientType;
    using TOut = OutputComponentType;
    const cif::ResampleGeometry & g = job.g;
    const bool                    linearRows = job.linearRows;
    const bool                    onGPU = job.onGPU;
    const bool                    mapsOnHost = job.mapsOnHost;
    TOutputImage *                output = this->GetOutput();
    const std::int64_t            inputCount = cif::GridCount(g.input, D);

    // The output's slabs: planes of its slowest axis, each with its output (and
    // mapped points) and the input it reads (a box for a linear transform, else the
    // whole coefficients), within the budget, which leaves room for what the driver
    // takes at a launch (GetDeviceMemoryBudget) and for the transform's own arrays.
    // Planned before the prefilter, so that a job that cannot fit fails before any work.
    CubicResampleDetail::SlabbedSizes sizes;
    sizes.perPlane = static_cast<std::size_t>(g.OutputCount() / g.outputSize[D - 1]) *
                     (sizeof(TOut) + (mapsOnHost ? D * sizeof(double) : 0));
    sizes.wholeInput = static_cast<std::size_t>(inputCount) * sizeof(TC);
    sizes.coefficient = sizeof(TC);
    sizes.transform = mapsOnHost ? 0 : CudaTransformChain<D>::DeviceBytes(chain.HostChain());
    const std::size_t  budget = cif::GetDeviceMemoryBudget(onGPU);
    std::ostringstream what;
    what << "cubic resampling of a " << inputCount << "-voxel image into " << g.OutputCount() << " voxels";
    const auto plan = [&](std::size_t within) {
      return CubicResampleDetail::PlanOutputSlabs<D>(g, chain.HostChain(), linearRows, sizes, within, what.str());
    };
    cif::ResampleSlabs planned;
    CIF_ITK_TRY_CUDA([&] { planned = plan(budget); });

    const unsigned int  stagesPerSlab = mapsOnHost ? 2 : 1;
    FilterStageProgress progress(
      this, (m_InputIsCoefficients ? 1 : 1 + D) + stagesPerSlab * static_cast<unsigned int>(planned.count));
    const TC * coefficients = this->template HostCoefficients<TC>(job.shape, job.poles, progress, onGPU);
    TOut *     out = reinterpret_cast<TOut *>(output->GetBufferPointer());

    // On the device, the buffers of the largest slab are reserved before any slab
    // runs; one that fails although the plan fits the budget is planned again finer,
    // down to one plane (cifSlabReservation.h).
    cif::ResampleSlabs slabs = planned;
    cif::DeviceBuffer  deviceCoefficients, deviceMapped, deviceOut;
    if (onGPU)
    {
      CIF_ITK_TRY_CUDA([&] {
        slabs = cif::PlanAndReserve(
          budget,
          plan,
          [&](const cif::ResampleSlabs & s) {
            return CubicResampleDetail::SlabbedBytes<D>(g, s, chain.HostChain(), linearRows, sizes);
          },
          [&](const cif::ResampleSlabs & s) {
            try
            {
              if (!mapsOnHost)
              {
                chain.DeviceChain();
              }
              const std::size_t slabVoxels = static_cast<std::size_t>(s.planesPerSlab * s.voxelsPerPlane);
              deviceCoefficients.Allocate(linearRows ? static_cast<std::size_t>(CubicResampleDetail::LargestInputBox<D>(
                                                         g, s, chain.HostChain())) *
                                                         sizeof(TC)
                                                     : sizes.wholeInput);
              deviceMapped.Allocate(mapsOnHost ? slabVoxels * D * sizeof(double) : 0);
              deviceOut.Allocate(slabVoxels * sizeof(TOut));
            }
            catch (...)
            {
              deviceCoefficients.Release();
              deviceMapped.Release();
              deviceOut.Release();
              throw;
            }
          });
        if (!linearRows)
        {
          deviceCoefficients.Upload(coefficients, sizes.wholeInput);
        }
      });
    }

    // One host buffer for every slab's input box, the largest (the boxes of a rotation
    // span most of the input: gigabytes; cifHostWorkArea.h), filled row by row on the
    // filter's threads.
    auto                  parallelFor = MakeParallelFor(this->GetMultiThreader());
    cif::HostWorkArea<TC> box;
    if (linearRows)
    {
      box = cif::AllocateHostWorkArea<TC>(
        static_cast<std::size_t>(CubicResampleDetail::LargestInputBox<D>(g, slabs, chain.HostChain())));
    }
    std::int64_t reported = 0;
    const auto   stageDone = [&progress] { progress.Completed(); };
    for (std::int64_t s = 0; s < slabs.count; ++s)
    {
      cif::ResampleGeometry gs = cif::SlabGeometry(g, slabs, s);
      const std::int64_t    first = cif::SlabFirstVoxel(slabs, s);
      const std::int64_t    count = gs.OutputCount();
      const TC *            slabCoefficients = coefficients;
      if (linearRows)
      {
        gs.input = cif::InputBoxOfRegion<static_cast<int>(D)>(gs, chain.HostChain());
        cif::CopyInputBox<static_cast<int>(D)>(coefficients, g.input, gs.input, box.get(), parallelFor);
        slabCoefficients = box.get();
      }
      std::vector<double> mapped;
      if (mapsOnHost)
      {
        mapped = CubicResampleDetail::MapPointsOnHost<D>(this, gs, output, transform);
        CubicResampleDetail::ReportInProportion(
          stagesPerSlab * s + 1, stagesPerSlab * slabs.count, stagesPerSlab * planned.count, reported, stageDone);
      }
      if (onGPU)
      {
        CIF_ITK_TRY_CUDA([&] {
          if (linearRows)
          {
            deviceCoefficients.Upload(box.get(), static_cast<std::size_t>(cif::GridCount(gs.input, D)) * sizeof(TC));
          }
          if (mapsOnHost)
          {
            deviceMapped.Upload(mapped.data(), mapped.size() * sizeof(double));
          }
          const cif::TransformChain & deviceChain = chain.IsDeviceEvaluable() ? chain.DeviceChain() : chain.HostChain();
          cif::ResampleOnDevice<static_cast<int>(D), TC, TOut>(deviceCoefficients.As<const TC>(),
                                                               gs,
                                                               deviceChain,
                                                               mapsOnHost ? deviceMapped.As<const double>() : nullptr,
                                                               linearRows,
                                                               job.defaultValue,
                                                               deviceOut.As<TOut>());
          cif::Synchronize();
          deviceOut.Download(out + first, static_cast<std::size_t>(count) * sizeof(TOut));
        });
      }
      else
      {
        CubicResampleDetail::ResampleOnHost<D>(this,
                                               slabCoefficients,
                                               gs,
                                               cif::ResampleSlabs{},
                                               chain.HostChain(),
                                               mapsOnHost ? mapped.data() : nullptr,
                                               linearRows,
                                               job.defaultValue,
                                               out + first,
                                               cif::StageCallback{});
      }
      CubicResampleDetail::ReportInProportion(
        stagesPerSlab * (s + 1), stagesPerSlab * slabs.count, stagesPerSlab * planned.count, reported, stageDone);
    }
    this->SetLastExecutionPath(onGPU ? ExecutionPath::GPU : ExecutionPath::CPU);
  }
}
} // namespace itk

#endif
