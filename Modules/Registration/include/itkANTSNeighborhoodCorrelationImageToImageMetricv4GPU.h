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
#ifndef itkANTSNeighborhoodCorrelationImageToImageMetricv4GPU_h
#define itkANTSNeighborhoodCorrelationImageToImageMetricv4GPU_h

#include "cifNeighborhoodCorrelation.h"
#include "itkANTSNeighborhoodCorrelationImageToImageMetricv4.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaParallelFor.h"
#include "itkCudaTransformChain.h"
#include "itkDisplacementFieldTransform.h"
#include "itkIdentityTransform.h"
#include "itkImageMetricv4GPUBase.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace itk
{
/** \class ANTSNeighborhoodCorrelationImageToImageMetricv4GPU
 * \brief itk::ANTSNeighborhoodCorrelationImageToImageMetricv4 (ANTs' local
 * cross-correlation, the metric of its SyN) whose value and derivative are computed
 * on the GPU, or by the module's CPU path (the same arithmetic) where there is none.
 *
 * A drop-in subclass: ITK's radius, window, border (neighbours outside the virtual
 * image left out), masks, number of valid points, sign and scaling. Each voxel's
 * window sums, centred sums, local correlation and force are ITK's expressions in
 * ITK's order (cifNeighborhoodCorrelation.h); the sums over voxels are formed in a
 * fixed order: the same bits on every run.
 *
 * It takes the dense virtual domain; 2-D and 3-D images of float or double pixels
 * through ITK's linear interpolator (the moving one also through the cubic
 * BSplineInterpolateImageFunction); the moving gradient from the gradient filter or
 * the default calculator; a fixed transform of the affine family or a
 * DisplacementFieldTransform; a moving transform of the affine family (the
 * derivative summed over the voxels as ITK's global transforms are) or a
 * DisplacementFieldTransform and its subclasses such as
 * GaussianSmoothingOnUpdateDisplacementFieldTransform (local support: one force per
 * voxel, ITK's field-shaped derivative), the fields through ITK's default
 * VectorLinearInterpolateImageFunction. For anything else (a sampled point set:
 * ITK's sparse threader; composite or B-spline moving transforms) ITK's own
 * threaded code runs; GetLastExecutionPath() says which ran and
 * GetLastExecutionReason() why ITK did.
 *
 * \ingroup CudaImageFilters
 */
template <typename TFixedImage,
          typename TMovingImage,
          typename TVirtualImage = TFixedImage,
          typename TInternalComputationValueType = double,
          typename TMetricTraits =
            DefaultImageToImageMetricTraitsv4<TFixedImage, TMovingImage, TVirtualImage, TInternalComputationValueType>>
class ITK_TEMPLATE_EXPORT ANTSNeighborhoodCorrelationImageToImageMetricv4GPU
  : public ImageMetricv4GPUBase<ANTSNeighborhoodCorrelationImageToImageMetricv4<TFixedImage,
                                                                                TMovingImage,
                                                                                TVirtualImage,
                                                                                TInternalComputationValueType,
                                                                                TMetricTraits>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ANTSNeighborhoodCorrelationImageToImageMetricv4GPU);

  using Self = ANTSNeighborhoodCorrelationImageToImageMetricv4GPU;
  using MetricType = ANTSNeighborhoodCorrelationImageToImageMetricv4<TFixedImage,
                                                                     TMovingImage,
                                                                     TVirtualImage,
                                                                     TInternalComputationValueType,
                                                                     TMetricTraits>;
  using Superclass = ImageMetricv4GPUBase<MetricType>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using EvaluatorType = typename Superclass::EvaluatorType;
  using ValueType = typename EvaluatorType::ValueType;
  static constexpr unsigned int D = MetricType::VirtualImageDimension;
  using FixedTransformType = typename MetricType::FixedTransformType;
  using MovingTransformType = typename MetricType::MovingTransformType;
  using DisplacementFieldTransformType = DisplacementFieldTransform<double, D>;
  using DerivativeType = typename MetricType::DerivativeType;

  itkNewMacro(Self);
  itkTypeMacro(ANTSNeighborhoodCorrelationImageToImageMetricv4GPU, ANTSNeighborhoodCorrelationImageToImageMetricv4);

protected:
  ANTSNeighborhoodCorrelationImageToImageMetricv4GPU() { m_IdentityFixed = IdentityTransform<double, D>::New(); }
  ~ANTSNeighborhoodCorrelationImageToImageMetricv4GPU() override = default;

  /** A displacement field transform the module applies itself, or null (the
   * transform is not one, or it has no field or another interpolator than ITK's
   * default: CudaTransformChain's rule). */
  template <typename TTransform>
  static const DisplacementFieldTransformType *
  ServedField(const TTransform * transform)
  {
    const auto *        field = dynamic_cast<const DisplacementFieldTransformType *>(transform);
    cif::TransformStage stage;
    return field != nullptr && CudaTransformChain<D>::DisplacementFieldStageOf(field, stage) ? field : nullptr;
  }

  /** A fixed displacement field is applied by this class: the scene sees the identity. */
  const FixedTransformType *
  FixedTransformOfScene() const override
  {
    if (ServedField(this->m_FixedTransform.GetPointer()) != nullptr)
    {
      return m_IdentityFixed.GetPointer();
    }
    return this->m_FixedTransform.GetPointer();
  }

  bool
  BindMovingTransform(EvaluatorType & scene, std::string & reason) const override
  {
    m_FixedField = nullptr;
    m_MovingField = nullptr;
    m_Split.reset();
    if (this->m_UseSampledPointSet)
    {
      reason = "a sampled point set (ITK's sparse threader runs)";
      return false;
    }
    if (scene.Scene().domain.points != nullptr)
    {
      reason = "the scene holds sampled points, not the dense domain";
      return false;
    }
    m_FixedField = ServedField(this->m_FixedTransform.GetPointer());
    if (m_FixedField == nullptr &&
        dynamic_cast<const DisplacementFieldTransformType *>(this->m_FixedTransform.GetPointer()))
    {
      reason = "the fixed displacement field has no field or another interpolator than ITK's default";
      return false;
    }
    const MovingTransformType * moving = this->m_MovingTransform.GetPointer();
    if (moving->GetTransformCategory() == MovingTransformType::TransformCategoryEnum::DisplacementField)
    {
      m_MovingField = ServedField(moving);
      if (m_MovingField == nullptr)
      {
        reason = std::string("the moving transform (") + moving->GetNameOfClass() +
                 ") is not a DisplacementFieldTransform with a field and ITK's default interpolator";
        return false;
      }
      return true;
    }
    if (dynamic_cast<const CompositeTransform<double, D> *>(moving) != nullptr)
    {
      reason = "a composite moving transform (ITK's Jacobian of the composite at the virtual point)";
      return false;
    }
    m_Split = std::make_unique<MetricMovingTransformSplit<D>>(moving);
    if (!m_Split->IsSupported() || m_Split->Host().kind != cif::OptimizedStageKind::Affine)
    {
      reason = m_Split->IsSupported() ? std::string("the moving transform (") + moving->GetNameOfClass() +
                                          ") is neither affine-family nor a displacement field"
                                      : m_Split->Reason();
      m_Split.reset();
      return false;
    }
    return true;
  }

  /** A displacement field as the device (or host) reads it: D doubles per voxel at
   * \a data. */
  static cif::DisplacementFieldStage
  StageOf(const DisplacementFieldTransformType * transform, const double * data)
  {
    cif::DisplacementFieldStage stage;
    CudaTransformChain<D>::DisplacementFieldStageOf(transform, stage.stage);
    stage.stage.field = data;
    return stage;
  }

  void
  EvaluateWithModule(EvaluatorType & scene) const override
  {
    const bool                                    withDerivative = this->GetComputeDerivative();
    const auto &                                  sceneData = scene.Scene();
    const std::int64_t                            count = sceneData.domain.count;
    const bool                                    local = m_MovingField != nullptr;
    cif::NeighborhoodCorrelationLaunch<ValueType> launch; // what both paths share
    launch.scene = sceneData;
    const auto radius = this->GetRadius();
    for (unsigned int a = 0; a < D; ++a)
    {
      launch.window.radius[a] = static_cast<int>(radius[a]);
      launch.window.size[a] = sceneData.domain.size[a];
    }
    if (m_Split)
    {
      launch.transform = m_Split->Host();
    }
    cif::MarkIdentityStages(launch.scene, launch.transform);
    launch.withDerivative = withDerivative;
    launch.moments = withDerivative && !local;
    for (unsigned int a = 0; a < 3; ++a)
    {
      launch.virtualCentre[a] = scene.VirtualCenter()[a];
    }
    const bool       moments = launch.moments;
    double           sums[cif::kNeighborhoodSums] = {};
    DerivativeType & derivative = *this->m_DerivativeResult;
    if (withDerivative && local && derivative.GetSize() != static_cast<SizeValueType>(count * D))
    {
      itkExceptionMacro("the moving displacement field has " << derivative.GetSize() / D
                                                             << " voxels, the virtual domain " << count);
    }
    if (scene.OnGPU())
    {
      CIF_ITK_TRY_CUDA([&] { this->EvaluateOnDevice(launch, sums); });
      if (withDerivative && local)
      {
        CIF_ITK_TRY_CUDA(
          [&] { m_Forces.Download(derivative.data_block(), static_cast<std::size_t>(count) * D * sizeof(double)); });
        this->DerivativeZerosPending() = false;
      }
    }
    else
    {
      this->EvaluateOnHost(launch, withDerivative && local ? derivative.data_block() : nullptr, sums);
      if (withDerivative && local)
      {
        this->DerivativeZerosPending() = false;
      }
    }
    this->m_NumberOfValidPoints = static_cast<SizeValueType>(sums[0]);
    if (moments)
    {
      this->ZeroDerivativeIfPending();
      m_Split->AddAffineDerivative(sums + 2, scene.VirtualCenter(), derivative);
    }
    if (this->VerifyNumberOfValidPoints(this->m_Value, derivative))
    {
      const double n = static_cast<double>(this->m_NumberOfValidPoints);
      this->m_Value = -sums[1] / n;
      if (moments)
      {
        derivative /= n;
      }
    }
  }

private:
  /** The samples, the correlation and the block sums on the CPU: the device pass's
   * arithmetic per voxel, the blocks of the same size summed in order. */
  void
  EvaluateOnHost(cif::NeighborhoodCorrelationLaunch<ValueType> launch, double * forces, double * sums) const
  {
    const auto voxels = static_cast<std::size_t>(launch.scene.domain.count);
    if (m_FixedField != nullptr)
    {
      launch.fixedField = StageOf(
        m_FixedField, reinterpret_cast<const double *>(m_FixedField->GetDisplacementField()->GetBufferPointer()));
    }
    if (m_MovingField != nullptr)
    {
      launch.movingField = StageOf(
        m_MovingField, reinterpret_cast<const double *>(m_MovingField->GetDisplacementField()->GetBufferPointer()));
    }
    m_HostValid.resize(voxels);
    m_HostFixed.resize(voxels);
    m_HostMoving.resize(voxels);
    m_HostGradient.resize(launch.withDerivative ? voxels * D : 0);
    launch.samples.valid = m_HostValid.data();
    launch.samples.fixed = m_HostFixed.data();
    launch.samples.moving = m_HostMoving.data();
    launch.samples.gradient = launch.withDerivative ? m_HostGradient.data() : nullptr;
    m_HostColumns.resize(voxels * cif::kNeighborhoodColumnSums);
    launch.columns = m_HostColumns.data();
    launch.forces = forces;
    cif::NeighborhoodCorrelationOnHost<D>(launch, MakeParallelFor(this->GetThreader()), sums);
  }

  /** The fields uploaded (every evaluation: they change between iterations), the
   * device pass run. Throws cif::CudaError. */
  void
  EvaluateOnDevice(cif::NeighborhoodCorrelationLaunch<ValueType> launch, double * sums) const
  {
    const std::size_t voxels = static_cast<std::size_t>(launch.scene.domain.count);
    const auto        upload = [](const DisplacementFieldTransformType * t, cif::DeviceBuffer & buffer) {
      const auto *      field = t->GetDisplacementField();
      const std::size_t bytes = field->GetBufferedRegion().GetNumberOfPixels() * D * sizeof(double);
      buffer.Allocate(bytes);
      buffer.Upload(field->GetBufferPointer(), bytes);
      return StageOf(t, buffer.As<const double>());
    };
    if (m_FixedField != nullptr)
    {
      launch.fixedField = upload(m_FixedField, m_FixedFieldDevice);
    }
    if (m_MovingField != nullptr)
    {
      launch.movingField = upload(m_MovingField, m_MovingFieldDevice);
    }
    m_Valid.Allocate(voxels);
    m_Fixed.Allocate(voxels * sizeof(ValueType));
    m_Moving.Allocate(voxels * sizeof(ValueType));
    launch.samples.valid = m_Valid.As<std::uint8_t>();
    launch.samples.fixed = m_Fixed.As<ValueType>();
    launch.samples.moving = m_Moving.As<ValueType>();
    m_Columns.Allocate(voxels * cif::kNeighborhoodColumnSums * sizeof(double));
    launch.columns = m_Columns.As<double>();
    if (launch.withDerivative)
    {
      m_Gradient.Allocate(voxels * D * sizeof(double));
      launch.samples.gradient = m_Gradient.As<double>();
    }
    if (launch.withDerivative && m_MovingField != nullptr)
    {
      m_Forces.Allocate(voxels * D * sizeof(double));
      launch.forces = m_Forces.As<double>();
    }
    launch.blocks = cif::NeighborhoodCorrelationBlocks(launch.scene.domain.count);
    m_BlockSums.Allocate(static_cast<std::size_t>(launch.blocks) * cif::kNeighborhoodSums * sizeof(double));
    launch.blockSums = m_BlockSums.As<double>();
    cif::NeighborhoodCorrelationOnDevice<D>(launch, sums);
  }

  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "Device buffers kept: "
       << (m_Valid.Bytes() + m_Fixed.Bytes() + m_Moving.Bytes() + m_Gradient.Bytes() + m_Forces.Bytes() +
           m_Columns.Bytes())
       << " bytes" << std::endl;
  }

  typename IdentityTransform<double, D>::Pointer         m_IdentityFixed;
  mutable const DisplacementFieldTransformType *         m_FixedField = nullptr;
  mutable const DisplacementFieldTransformType *         m_MovingField = nullptr;
  mutable std::unique_ptr<MetricMovingTransformSplit<D>> m_Split;
  mutable std::vector<std::uint8_t>                      m_HostValid;
  mutable std::vector<ValueType>                         m_HostFixed, m_HostMoving;
  mutable std::vector<double>                            m_HostGradient, m_HostColumns;
  mutable cif::DeviceBuffer m_Valid, m_Fixed, m_Moving, m_Gradient, m_Forces, m_Columns, m_BlockSums,
    m_FixedFieldDevice, m_MovingFieldDevice;
};
} // namespace itk

#endif
