#ifndef itkTransformToDisplacementFieldGPUFilter_h
#define itkTransformToDisplacementFieldGPUFilter_h

#include "cifDeviceBuffer.h"
#include "cifResampleDevice.h"
#include "cifResampleSlabs.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaParallelFor.h"
#include "itkCudaImageFilterBase.h"
#include "itkCudaPixelTraits.h"
#include "itkCudaTransformChain.h"
#include "itkFilterStageProgress.h"
#include "itkTransformToDisplacementFieldFilter.h"

#include <sstream>

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
 * \ingroup CudaImageFilters
 */
template <typename TOutputImage, typename TParametersValueType = double>
class ITK_TEMPLATE_EXPORT TransformToDisplacementFieldGPUFilter
  : public CudaImageFilterBase<TransformToDisplacementFieldFilter<TOutputImage, TParametersValueType>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(TransformToDisplacementFieldGPUFilter);
  using Self = TransformToDisplacementFieldGPUFilter;
  using Superclass = CudaImageFilterBase<TransformToDisplacementFieldFilter<TOutputImage, TParametersValueType>>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(TransformToDisplacementFieldGPUFilter, TransformToDisplacementFieldFilter);

  static constexpr unsigned int ImageDimension = TOutputImage::ImageDimension;
  using ComponentType = typename CudaImageTraits<TOutputImage>::ComponentType;
  static constexpr bool TypesSupported = (ImageDimension == 2 || ImageDimension == 3) &&
                                         CudaImageTraits<TOutputImage>::Components == ImageDimension &&
                                         IsCudaRealScalar<ComponentType> &&
                                         std::is_same_v<TParametersValueType, double>;
  /** Which code produced the last output. */
  using ExecutionPath = CudaExecutionPath;

  /** Slabs of at least this many output voxels (default 4 Mi; at most 16 slabs; a
   * smaller field is one piece): progress and abort come between slabs. The field is
   * the same, bit for bit, whatever the setting; tests lower it to force slabs. */
  itkSetMacro(MinimumVoxelsPerSlab, SizeValueType);
  itkGetConstMacro(MinimumVoxelsPerSlab, SizeValueType);

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
        const std::int64_t       count = g.OutputCount();
        auto *                   field = reinterpret_cast<ComponentType *>(output->GetBufferPointer());
        const cif::ResampleSlabs slabs = cif::PlanResampleSlabs(g, static_cast<int>(D), m_MinimumVoxelsPerSlab);
        try
        {
          if (this->RunsOnGPU())
          {
            FilterStageProgress progress(this, static_cast<unsigned int>(slabs.count) + 1); // slabs, download
            CIF_ITK_TRY_CUDA([&] {
              const std::size_t bytes = static_cast<std::size_t>(count) * D * sizeof(ComponentType);
              std::ostringstream what;
              what << "a displacement field of " << count << " voxels";
              cif::RequireDeviceMemory(bytes, what.str());
              cif::DeviceBuffer onDevice(bytes);
              // Downloaded slab by slab while the next computes (pinned output memory).
              cif::OverlappedDownload download(field, onDevice.Data(), bytes);
              cif::DisplacementFieldOnDevice<static_cast<int>(D), ComponentType>(
                g, chain.DeviceChain(), onDevice.As<ComponentType>(), slabs,
                cif::DownloadEachSlab(download, g, slabs, D * sizeof(ComponentType), progress.DeviceCallback()));
              download.Finish();
              progress.Completed();
            });
            this->SetLastExecutionPath(ExecutionPath::GPU);
          }
          else
          {
            FilterStageProgress         progress(this, static_cast<unsigned int>(slabs.count));
            const cif::TransformChain & host = chain.HostChain();
            for (std::int64_t slab = 0; slab < slabs.count; ++slab)
            {
              const cif::ResampleGeometry slabGeometry = cif::SlabGeometry(g, slabs, slab);
              ComponentType *             slabField = field + D * cif::SlabFirstVoxel(slabs, slab);
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
  SizeValueType m_MinimumVoxelsPerSlab{ static_cast<SizeValueType>(cif::kDefaultSlabVoxels) };
};
} // namespace itk

#endif
