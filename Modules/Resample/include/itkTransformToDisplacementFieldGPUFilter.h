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
#ifndef itkTransformToDisplacementFieldGPUFilter_h
#define itkTransformToDisplacementFieldGPUFilter_h

#include "cifDeviceBuffer.h"
#include "cifDeviceThreads.h"
#include "cifResampleDevice.h"
#include "cifResampleSlabs.h"
#include "cifSlabReservation.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaParallelFor.h"
#include "itkCudaMultiDeviceFilterBase.h"
#include "itkCudaPixelTraits.h"
#include "itkCudaTransformChain.h"
#include "itkFilterStageProgress.h"
#include "itkTransformToDisplacementFieldFilter.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace itk
{
/** \class TransformToDisplacementFieldGPUFilter
 * \brief Dense displacement field of a transform, on the GPU.
 *
 * The GPU twin and subclass of TransformToDisplacementFieldFilter: for every voxel of
 * the output grid, T(p) - p, with the same output geometry settings (size, spacing,
 * origin, direction, start index, reference image). Its purpose is the B-spline
 * deformation field of elastic registration: a cubic BSplineTransform is evaluated
 * on the device with ITK's grid layout, valid-region rule and closed-form kernel
 * weights, in double. Affine-family transforms, and CompositeTransform chains of
 * these and B-splines, run on the device too; any other transform, or a pixel type
 * other than Vector<float|double, D> in 2-D or 3-D, runs the superclass.
 * Without a GPU (or with UseGPU off) the same arithmetic runs on the CPU.
 *
 * Progress: the field is computed in slabs along the slowest axis (see
 * MinimumVoxelsPerSlab); ProgressEvent follows the slabs and the download, and
 * AbortGenerateData stops the filter between them with ProcessAborted, leaving the
 * output empty (itk::FilterStageProgress).
 *
 * Memory: a host field that does not fit the device memory budget (the free memory
 * less what the driver takes at a launch, under the device memory limit of
 * cifDeviceMemoryLimit.h), with the transform's own device arrays, is computed in
 * slabs of its slowest axis that do, each downloaded before the next; the slabs'
 * buffer is reserved before any work and a reservation that fails is planned again
 * finer, down to one plane (cifSlabReservation.h), whose failure is the clear
 * error. The same bits as one piece. Under a limit the CPU path runs the same slabs.
 *
 * \ingroup CudaImageFilters
 */
template <typename TOutputImage, typename TParametersValueType = double>
class ITK_TEMPLATE_EXPORT TransformToDisplacementFieldGPUFilter
  : public CudaMultiDeviceFilterBase<TransformToDisplacementFieldFilter<TOutputImage, TParametersValueType>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(TransformToDisplacementFieldGPUFilter);
  using Self = TransformToDisplacementFieldGPUFilter;
  using Superclass = CudaMultiDeviceFilterBase<TransformToDisplacementFieldFilter<TOutputImage, TParametersValueType>>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(TransformToDisplacementFieldGPUFilter, TransformToDisplacementFieldFilter);

  static constexpr unsigned int ImageDimension = TOutputImage::ImageDimension;
  using ComponentType = typename CudaImageTraits<TOutputImage>::ComponentType;
  static constexpr bool TypesSupported =
    (ImageDimension == 2 || ImageDimension == 3) && CudaImageTraits<TOutputImage>::Components == ImageDimension &&
    IsCudaRealScalar<ComponentType> && std::is_same_v<TParametersValueType, double>;
  /** Which code produced the last output. */
  using ExecutionPath = CudaExecutionPath;

  /** Slabs of at least this many output voxels (default 4 Mi; at most 16 slabs; a
   * smaller field is one piece): progress and abort come between slabs. The field is
   * the same, bit for bit, whatever the setting; tests lower it to force slabs. */
  itkSetMacro(MinimumVoxelsPerSlab, SizeValueType);
  itkGetConstMacro(MinimumVoxelsPerSlab, SizeValueType);

  /* Several GPUs (NumberOfDevices, Devices: CudaMultiDeviceFilterBase): a field of
   * several slabs in host memory (itk::Image) is spread over the devices, one host
   * thread each, each device computing a contiguous run of the slabs with the
   * transform's coefficients uploaded for itself and downloading each slab while the
   * next computes. */

protected:
  TransformToDisplacementFieldGPUFilter() = default;
  ~TransformToDisplacementFieldGPUFilter() override = default;

  void
  GenerateData() override
  {
    if constexpr (TypesSupported)
    {
      constexpr unsigned int D = ImageDimension;
      const auto *           decorated = this->GetInput();
      const auto *           transform = decorated ? decorated->Get() : nullptr;
      CudaTransformChain<D>  chain(transform);
      if (chain.IsDeviceEvaluable())
      {
        this->PrepareHostOutput(this->GetOutput());
        this->AllocateOutputs();
        TOutputImage *        output = this->GetOutput();
        cif::ResampleGeometry g;
        const auto            region = output->GetBufferedRegion();
        for (unsigned int a = 0; a < D; ++a)
        {
          g.outputSize[a] = static_cast<std::int64_t>(region.GetSize()[a]);
          g.outputStart[a] = region.GetIndex()[a];
          g.outputOrigin[a] = output->GetOrigin()[a];
        }
        IndexToPointMatrix<D>(output, g.outputIndexToPoint);
        auto *                   field = reinterpret_cast<ComponentType *>(output->GetBufferPointer());
        const cif::ResampleSlabs slabs = cif::PlanResampleSlabs(g, static_cast<int>(D), m_MinimumVoxelsPerSlab);
        try
        {
          std::vector<int> devices;
          if (this->RunsOnGPU() && !CudaImageTraits<TOutputImage>::IsCudaDeviceImage && slabs.count > 1 &&
              cif::SlabRunsTakeTheWholeOutputsKernels(g))
          {
            CIF_ITK_TRY_CUDA([&] { devices = this->DevicesFromSettings(); });
          }
          if (devices.size() > 1)
          {
            this->FieldOnSeveralDevices(devices, g, chain.HostChain(), slabs, field);
          }
          else if (this->RunsOnGPU())
          {
            this->FieldOnDevice(g, chain, slabs, field);
          }
          else
          {
            this->FieldOnHost(g, chain.HostChain(), slabs, field);
          }
        }
        catch (...)
        {
          output->Initialize();
          throw;
        }
        return;
      }
    }
    Superclass::GenerateData();
    this->SetLastExecutionPath(ExecutionPath::ITK);
  }

  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "MinimumVoxelsPerSlab: " << m_MinimumVoxelsPerSlab << std::endl;
  }

private:
  /** How the field is cut for memory: one piece (count 1) where the whole field and
   * the transform's device arrays fit \a budget, else the fewest slabs of the
   * slowest axis that fit (cifSlabPlan.h). Throws CudaOutOfMemory, naming the sizes,
   * where one plane does not fit, or where the output is too large for a slab to take
   * the kernel the whole field would (SlabRunsTakeTheWholeOutputsKernels) and the
   * whole does not fit. */
  static cif::SlabPlan
  PlanFieldSlabs(const cif::ResampleGeometry & g, const cif::TransformChain & hostChain, std::size_t budget)
  {
    constexpr unsigned int D = ImageDimension;
    const std::int64_t     planes = g.outputSize[D - 1];
    const std::size_t      perPlane =
      static_cast<std::size_t>(g.OutputCount() / std::max<std::int64_t>(planes, 1)) * D * sizeof(ComponentType);
    std::ostringstream what;
    what << "a displacement field of " << g.OutputCount() << " voxels";
    const std::size_t transformBytes = CudaTransformChain<D>::DeviceBytes(hostChain);
    if (!cif::SlabRunsTakeTheWholeOutputsKernels(g))
    {
      return cif::PlanSlabs(
        1, perPlane * static_cast<std::size_t>(planes), transformBytes, budget, what.str() + " (too many rows to cut)");
    }
    return cif::PlanSlabs(planes, perPlane, transformBytes, budget, what.str());
  }

  /** Slabs of \a plan's planes, as cifResampleSlabs.h describes an output's cut. */
  static cif::ResampleSlabs
  AsResampleSlabs(const cif::ResampleGeometry & g, const cif::SlabPlan & plan)
  {
    cif::ResampleSlabs slabs;
    slabs.axis = static_cast<int>(ImageDimension) - 1;
    slabs.planesPerSlab = plan.unitsPerSlab;
    slabs.count = plan.count;
    slabs.voxelsPerPlane = g.OutputCount() / g.outputSize[slabs.axis];
    return slabs;
  }

  /** The field on the current device: in one piece where it fits (its progress
   * \a slabs downloaded while the next computes), else in slabs that fit the device
   * memory budget, reserved before any work and planned again finer where the
   * reservation fails (cifSlabReservation.h), each computed as an output of its own
   * (the kernel of the whole field: the same bits) and downloaded before the next. */
  void
  FieldOnDevice(const cif::ResampleGeometry &        g,
                CudaTransformChain<ImageDimension> & chain,
                const cif::ResampleSlabs &           slabs,
                ComponentType *                      field)
  {
    constexpr unsigned int D = ImageDimension;
    const std::size_t      bytesPerPlane =
      static_cast<std::size_t>(g.OutputCount() / std::max<std::int64_t>(g.outputSize[D - 1], 1)) * D *
      sizeof(ComponentType);
    cif::DeviceBuffer onDevice;
    cif::SlabPlan     plan;
    CIF_ITK_TRY_CUDA([&] {
      plan = cif::PlanAndReserve(
        cif::GetDeviceMemoryBudget(true),
        [&](std::size_t budget) { return PlanFieldSlabs(g, chain.HostChain(), budget); },
        [&](const cif::SlabPlan & p) {
          return cif::PlannedBytes{ CudaTransformChain<D>::DeviceBytes(chain.HostChain()),
                                    static_cast<std::size_t>(p.unitsPerSlab) * bytesPerPlane };
        },
        [&](const cif::SlabPlan & p) {
          try
          {
            chain.DeviceChain();
            onDevice.Allocate(static_cast<std::size_t>(p.unitsPerSlab) * bytesPerPlane);
          }
          catch (...)
          {
            onDevice.Release();
            throw;
          }
        });
    });
    if (plan.count == 1)
    {
      FilterStageProgress progress(this, static_cast<unsigned int>(slabs.count) + 1); // slabs, download
      CIF_ITK_TRY_CUDA([&] {
        // Downloaded slab by slab while the next computes (pinned output memory).
        cif::OverlappedDownload download(field, onDevice.Data(), onDevice.Bytes());
        cif::DisplacementFieldOnDevice<static_cast<int>(D), ComponentType>(
          g,
          chain.DeviceChain(),
          onDevice.As<ComponentType>(),
          slabs,
          cif::DownloadEachSlab(download, g, slabs, D * sizeof(ComponentType), progress.DeviceCallback()));
        download.Finish();
        progress.Completed();
      });
    }
    else
    {
      const cif::ResampleSlabs memory = AsResampleSlabs(g, plan);
      FilterStageProgress      progress(this, static_cast<unsigned int>(memory.count));
      for (std::int64_t s = 0; s < memory.count; ++s)
      {
        CIF_ITK_TRY_CUDA([&] {
          const cif::ResampleGeometry slab = cif::SlabGeometry(g, memory, s);
          cif::DisplacementFieldOnDevice<static_cast<int>(D), ComponentType>(
            slab, chain.DeviceChain(), onDevice.As<ComponentType>());
          cif::Synchronize();
          onDevice.Download(field + D * cif::SlabFirstVoxel(memory, s),
                            static_cast<std::size_t>(slab.OutputCount()) * D * sizeof(ComponentType));
        });
        progress.Completed();
      }
    }
    this->SetLastExecutionPath(ExecutionPath::GPU);
  }

  /** The CPU path: the same arithmetic, over the progress \a slabs, or under a device
   * memory limit the slabs the device would run (the same plans, tested in CI). */
  void
  FieldOnHost(const cif::ResampleGeometry & g,
              const cif::TransformChain &   host,
              const cif::ResampleSlabs &    slabs,
              ComponentType *               field)
  {
    constexpr unsigned int D = ImageDimension;
    cif::ResampleSlabs     run = slabs;
    if (cif::GetDeviceMemoryLimit() != 0)
    {
      cif::SlabPlan plan;
      CIF_ITK_TRY_CUDA([&] { plan = PlanFieldSlabs(g, host, cif::GetDeviceMemoryBudget(false)); });
      if (plan.count > 1)
      {
        run = AsResampleSlabs(g, plan);
      }
    }
    FilterStageProgress progress(this, static_cast<unsigned int>(run.count));
    for (std::int64_t slab = 0; slab < run.count; ++slab)
    {
      const cif::ResampleGeometry slabGeometry = cif::SlabGeometry(g, run, slab);
      ComponentType *             slabField = field + D * cif::SlabFirstVoxel(run, slab);
      CudaParallelFor(this->GetMultiThreader(), slabGeometry.OutputCount(), [&](std::int64_t i) {
        double p[cif::kMaxDimension], q[cif::kMaxDimension];
        cif::OutputPoint<static_cast<int>(D)>(slabGeometry, i, p);
        cif::ApplyTransformChain<static_cast<int>(D)>(host, p, q);
        for (unsigned int a = 0; a < D; ++a)
        {
          slabField[D * i + a] = static_cast<ComponentType>(q[a] - p[a]);
        }
      });
      progress.Completed();
    }
    this->SetLastExecutionPath(ExecutionPath::CPU);
  }

  /** Device k computes its share of \a slabs (cif::ShareOfSlabs: the bits of one
   * device) into its part of \a field. */
  void
  FieldOnSeveralDevices(const std::vector<int> &      devices,
                        const cif::ResampleGeometry & g,
                        const cif::TransformChain &   hostChain,
                        const cif::ResampleSlabs &    slabs,
                        ComponentType *               field)
  {
    FilterStageProgress progress(this, static_cast<unsigned int>(slabs.count) + 1);
    CIF_ITK_TRY_CUDA([&] { this->SpreadField(devices, g, hostChain, slabs, field); });
    // The device threads report no progress of their own (ITK's events belong to this
    // thread): every stage is done now.
    for (std::int64_t stage = 0; stage <= slabs.count; ++stage)
    {
      progress.Completed();
    }
    this->SetLastExecutionPath(ExecutionPath::GPU);
  }

  void
  SpreadField(const std::vector<int> &      devices,
              const cif::ResampleGeometry & g,
              const cif::TransformChain &   hostChain,
              const cif::ResampleSlabs &    slabs,
              ComponentType *               field)
  {
    constexpr unsigned int D = ImageDimension;
    const std::int64_t     n = std::min<std::int64_t>(static_cast<std::int64_t>(devices.size()), slabs.count);
    const std::vector<int> used(devices.begin(), devices.begin() + n);
    cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
      const cif::SlabShare share = cif::ShareOfSlabs(g, slabs, k, n);
      const std::size_t    bytes = static_cast<std::size_t>(share.geometry.OutputCount()) * D * sizeof(ComponentType);
      std::ostringstream   what;
      what << "a displacement field of " << share.geometry.OutputCount() << " voxels on device "
           << used[static_cast<std::size_t>(k)];
      cif::RequireDeviceMemory(bytes, what.str());
      std::vector<cif::DeviceBuffer> chainBuffers; // device memory of one GPU: each uploads its own
      const cif::TransformChain deviceChain = CudaTransformChain<D>::UploadToCurrentDevice(hostChain, chainBuffers);
      cif::DeviceBuffer         onDevice(bytes);
      cif::OverlappedDownload   download(field + D * share.firstVoxel, onDevice.Data(), bytes);
      cif::DisplacementFieldOnDevice<static_cast<int>(D), ComponentType>(
        share.geometry,
        deviceChain,
        onDevice.As<ComponentType>(),
        share.slabs,
        cif::DownloadEachSlab(download, share.geometry, share.slabs, D * sizeof(ComponentType), {}));
      download.Finish();
    });
  }

  SizeValueType m_MinimumVoxelsPerSlab{ static_cast<SizeValueType>(cif::kDefaultSlabVoxels) };
};
} // namespace itk

#endif
