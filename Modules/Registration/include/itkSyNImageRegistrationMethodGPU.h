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
#ifndef itkSyNImageRegistrationMethodGPU_h
#define itkSyNImageRegistrationMethodGPU_h

#include "cifDeviceBuffer.h"
#include "cifDisplacementFieldMath.h"
#include "cifNeighborhoodCorrelation.h"
#include "itkANTSNeighborhoodCorrelationImageToImageMetricv4.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaGeometry.h"
#include "itkCudaImageFilterBase.h"
#include "itkCudaParallelFor.h"
#include "itkCudaTransformChain.h"
#include "itkGaussianOperator.h"
#include "itkImageMetricv4State.h"
#include "itkIterationReporter.h"
#include "itkLinearInterpolateImageFunction.h"
#include "itkSyNImageRegistrationMethod.h"
#include "itkWindowConvergenceMonitoringFunction.h"

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace itk
{
/** \class SyNImageRegistrationMethodGPU
 * \brief itk::SyNImageRegistrationMethod (ANTs' symmetric normalization) whose every
 * iteration runs on the GPU, or on the module's CPU path (the same arithmetic) where
 * there is none.
 *
 * A drop-in subclass: ITK's parameters (levels, shrink factors, smoothing sigmas,
 * learning rate, update- and total-field variances, iterations, convergence window
 * and threshold) and ITK's iterates. Per level the two smoothed images and the four
 * fields (fixed and moving to the middle, and their inverses) go to the device once;
 * each iteration warps both images (ResampleImageFilter's linear warp through the
 * initial transforms and the inverse fields), forms ANTs' neighbourhood correlation
 * and its field-shaped derivative on both sides, smooths and scales the update fields
 * (GaussianOperator passes, SyN's boundary rule, the largest voxel norm), composes
 * them into the total fields, smooths those and inverts them twice as
 * InvertDisplacementFieldImageFilter does, all on the device; the fields come back
 * into ITK's transforms at the end of the level, where ITK's own code (the next
 * level's field adaptors, the output transform and its inverse) takes over.
 *
 * What it serves: one ANTSNeighborhoodCorrelationImageToImageMetricv4 (or its GPU
 * twin) with linear interpolators and the moving gradient from central differences
 * (SetUseMovingImageGradientFilter(false), as antsRegistration sets it); 2-D and 3-D
 * images of float or double pixels; initial transforms the module maps
 * (CudaTransformChain: affine family, B-spline, displacement fields, composites of
 * them, up to three stages); no masks, point sets or optimizer weights; the images
 * downsampled for the metric (ITK's default) and no midpoint averaging. Anything
 * else runs ITK's own StartOptimization; GetLastExecutionPath() says which ran and
 * GetLastExecutionReason() why ITK did.
 *
 * IterationEvent observers see the metric value (GetCurrentMetricValue) at every
 * iteration; the transforms' fields are updated at the end of each level.
 *
 * \ingroup CudaImageFilters
 */
template <typename TFixedImage,
          typename TMovingImage,
          typename TOutputTransform = DisplacementFieldTransform<double, TFixedImage::ImageDimension>,
          typename TVirtualImage = TFixedImage,
          typename TPointSet = PointSet<unsigned int, TFixedImage::ImageDimension>>
class ITK_TEMPLATE_EXPORT SyNImageRegistrationMethodGPU
  : public CudaImageFilterBase<
      SyNImageRegistrationMethod<TFixedImage, TMovingImage, TOutputTransform, TVirtualImage, TPointSet>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(SyNImageRegistrationMethodGPU);

  using Self = SyNImageRegistrationMethodGPU;
  using SyNType = SyNImageRegistrationMethod<TFixedImage, TMovingImage, TOutputTransform, TVirtualImage, TPointSet>;
  using Superclass = CudaImageFilterBase<SyNType>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  static constexpr unsigned int D = TFixedImage::ImageDimension;
  using ValueType = typename TFixedImage::PixelType;
  using DisplacementFieldType = typename SyNType::DisplacementFieldType;
  using NeighborhoodMetricType =
    ANTSNeighborhoodCorrelationImageToImageMetricv4<TFixedImage, TMovingImage, TVirtualImage>;
  using RealType = typename SyNType::RealType;
  using MeasureType = typename SyNType::MeasureType;

  itkNewMacro(Self);
  itkTypeMacro(SyNImageRegistrationMethodGPU, SyNImageRegistrationMethod);

  /** Why ITK's own loop ran at the last level ("" where the module's did). */
  const std::string &
  GetLastExecutionReason() const
  {
    return m_LastExecutionReason;
  }

  /** Whether the module serves these types at all. */
  static constexpr bool kTypesSupported =
    (D == 2 || D == 3) && std::is_same<typename TMovingImage::PixelType, ValueType>::value &&
    (std::is_same<ValueType, float>::value || std::is_same<ValueType, double>::value) &&
    std::is_same<RealType, double>::value;

protected:
  SyNImageRegistrationMethodGPU() = default;
  ~SyNImageRegistrationMethodGPU() override = default;

  void
  StartOptimization() override
  {
    std::string reason;
    if constexpr (kTypesSupported)
    {
      if (this->Serves(reason))
      {
        m_LastExecutionReason.clear();
        this->SetLastExecutionPath(this->RunsOnGPU() ? CudaExecutionPath::GPU : CudaExecutionPath::CPU);
        CIF_ITK_TRY_CUDA([&] { this->OptimizeLevel(); });
        return;
      }
    }
    else
    {
      reason = "the module takes 2-D and 3-D images of float or double pixels, the same type fixed and moving";
    }
    m_LastExecutionReason = reason;
    this->SetLastExecutionPath(CudaExecutionPath::ITK);
    SyNType::StartOptimization();
  }

  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "LastExecutionReason: " << (m_LastExecutionReason.empty() ? "(none)" : m_LastExecutionReason)
       << std::endl;
  }

private:
  /** Plain storage on the path that runs: the device's, or the host's. */
  template <typename T>
  struct Store
  {
    std::vector<T>    host;
    cif::DeviceBuffer device;
    T *               data = nullptr;

    void
    Allocate(std::size_t count, bool onGPU)
    {
      if (onGPU)
      {
        device.Allocate(count * sizeof(T));
        data = device.template As<T>();
      }
      else
      {
        host.resize(count);
        data = host.data();
      }
    }
    void
    Upload(const T * source, std::size_t count, bool onGPU)
    {
      this->Allocate(count, onGPU);
      if (onGPU)
      {
        device.Upload(source, count * sizeof(T));
      }
      else
      {
        std::copy(source, source + count, host.begin());
      }
    }
    void
    Download(T * target, std::size_t count, bool onGPU) const
    {
      if (onGPU)
      {
        device.Download(target, count * sizeof(T));
      }
      else
      {
        std::copy(host.begin(), host.begin() + static_cast<std::ptrdiff_t>(count), target);
      }
    }
  };
  using FieldStore = Store<double>;

  /** Whether this level's configuration is the one served (\a reason otherwise). */
  bool
  Serves(std::string & reason)
  {
    const auto * metric = dynamic_cast<const NeighborhoodMetricType *>(this->m_Metric.GetPointer());
    if (metric == nullptr)
    {
      reason = "the metric is not one ANTSNeighborhoodCorrelationImageToImageMetricv4";
      return false;
    }
    if (metric->GetUseMovingImageGradientFilter() || metric->GetGradientSourceIncludesFixed())
    {
      reason = "the metric's moving gradient comes from a gradient filter (the module serves ANTs' central "
               "differences: SetUseMovingImageGradientFilter(false))";
      return false;
    }
    using FixedLinear = LinearInterpolateImageFunction<TFixedImage, double>;
    using MovingLinear = LinearInterpolateImageFunction<TMovingImage, double>;
    if (dynamic_cast<const FixedLinear *>(metric->GetFixedInterpolator()) == nullptr ||
        dynamic_cast<const MovingLinear *>(metric->GetMovingInterpolator()) == nullptr)
    {
      reason = "the metric's interpolators are not ITK's linear ones";
      return false;
    }
    if (this->m_FixedSmoothImages.size() != 1 || this->m_MovingSmoothImages.size() != 1)
    {
      reason = "more than one image pair";
      return false;
    }
    if ((!this->m_FixedImageMasks.empty() && this->m_FixedImageMasks[0]) ||
        (!this->m_MovingImageMasks.empty() && this->m_MovingImageMasks[0]))
    {
      reason = "masks";
      return false;
    }
    if (!this->m_DownsampleImagesForMetricDerivatives || this->m_AverageMidPointGradients ||
        !this->m_OptimizerWeightsAreIdentity)
    {
      reason = "full-resolution metric images, midpoint averaging or optimizer weights";
      return false;
    }
    const auto * fixedInitial = this->GetFixedInitialTransform();
    if (fixedInitial != nullptr)
    {
      const CudaTransformChain<D> fixed(fixedInitial);
      if (!fixed.IsDeviceEvaluable() || fixed.HostChain().count >= cif::kMaxTransformStages)
      {
        reason = std::string("the fixed initial transform (") + fixedInitial->GetNameOfClass() +
                 ") is not one the module maps (affine family, B-spline, displacement field; up to three stages)";
        return false;
      }
    }
    const CudaTransformChain<D> moving(this->m_CompositeTransform.GetPointer());
    if (!moving.IsDeviceEvaluable() || moving.HostChain().count >= cif::kMaxTransformStages)
    {
      reason = "the moving initial transforms are not ones the module maps (affine family, B-spline, displacement "
               "field; up to three stages)";
      return false;
    }
    const auto * virtualDomain = this->GetCurrentLevelVirtualDomainImage().GetPointer();
    for (const auto * field : { this->m_FixedToMiddleTransform->GetDisplacementField(),
                                this->m_FixedToMiddleTransform->GetInverseDisplacementField(),
                                this->m_MovingToMiddleTransform->GetDisplacementField(),
                                this->m_MovingToMiddleTransform->GetInverseDisplacementField() })
    {
      if (field == nullptr || field->GetBufferedRegion() != virtualDomain->GetBufferedRegion() ||
          field->GetOrigin() != virtualDomain->GetOrigin() || field->GetSpacing() != virtualDomain->GetSpacing() ||
          field->GetDirection() != virtualDomain->GetDirection())
      {
        reason = "a field is not on the level's virtual domain";
        return false;
      }
    }
    return true;
  }

  /** The level's virtual grid as the functors read it. */
  cif::FieldGrid
  LevelGrid()
  {
    const auto *   image = this->GetCurrentLevelVirtualDomainImage().GetPointer();
    cif::FieldGrid grid;
    const auto     region = image->GetBufferedRegion();
    grid.domain.count = static_cast<std::int64_t>(region.GetNumberOfPixels());
    for (unsigned int a = 0; a < D; ++a)
    {
      grid.domain.start[a] = region.GetIndex()[a];
      grid.domain.size[a] = static_cast<std::int64_t>(region.GetSize()[a]);
      grid.domain.origin[a] = image->GetOrigin()[a];
      grid.spacing[a] = image->GetSpacing()[a];
    }
    IndexToPointMatrix<D>(image, grid.domain.indexToPoint);
    return grid;
  }

  /** A field on the level's grid as a displacement-field stage over \a data. */
  cif::TransformStage
  FieldStage(const double * data)
  {
    const auto *        image = this->GetCurrentLevelVirtualDomainImage().GetPointer();
    const auto          region = image->GetBufferedRegion();
    cif::TransformStage stage;
    stage.kind = cif::TransformKind::DisplacementField;
    for (unsigned int a = 0; a < D; ++a)
    {
      stage.gridSize[a] = static_cast<std::int64_t>(region.GetSize()[a]);
      stage.gridStart[a] = region.GetIndex()[a];
      stage.gridOrigin[a] = image->GetOrigin()[a];
    }
    PointToIndexMatrix<D>(image, stage.gridPointToIndex);
    stage.field = data;
    return stage;
  }

  template <typename TFunctor>
  void
  Run(const TFunctor & f) const
  {
    if (m_OnGPU)
    {
      cif::ForEachVoxelOnDevice(f, m_Grid.domain.count);
    }
    else
    {
      cif::ForEachVoxelOnHost(f, m_Grid.domain.count, MakeParallelFor(m_Threader));
    }
  }

  template <typename TFunctor>
  void
  Reduce(const TFunctor & f, double & sum, double & largest) const
  {
    if (m_OnGPU)
    {
      cif::ReduceVoxelsOnDevice(f, m_Grid.domain.count, sum, largest);
    }
    else
    {
      cif::ReduceVoxelsOnHost(f, m_Grid.domain.count, MakeParallelFor(m_Threader), sum, largest);
    }
  }

  /** GaussianSmoothDisplacementField of SyN: \a field's directional Gaussian passes
   * (ITK's GaussianOperator, maximum error 0.001, at most the field's width) and the
   * boundary blend, into \a out (which may not be \a field). */
  void
  SmoothField(const double * field, double * out, RealType variance)
  {
    if (variance <= 0.0)
    {
      this->CopyField(field, out);
      return;
    }
    const double * in = field;
    double *       targets[2] = { m_Scratch.data, out };
    // The passes alternate between the scratch field and out, ending in out.
    int                      target = D % 2 == 0 ? 0 : 1;
    const SmoothingKernels & kernels = this->KernelsFor(variance);
    for (unsigned int axis = 0; axis < D; ++axis)
    {
      cif::SmoothFieldAxis<D> pass;
      pass.grid = m_Grid;
      pass.axis = static_cast<int>(axis);
      pass.radius = kernels.radius[axis];
      pass.coefficients = kernels.coefficients[axis].data;
      pass.in = in;
      pass.out = targets[target];
      this->Run(pass);
      in = targets[target];
      target = 1 - target;
    }
    RealType weight1 = 1.0;
    if (variance < 0.5)
    {
      weight1 = 1.0 - 1.0 * (variance / 0.5);
    }
    cif::BlendSmoothedField<D> blend;
    blend.grid = m_Grid;
    blend.weight1 = weight1;
    blend.weight2 = 1.0 - weight1;
    blend.field = field;
    blend.smoothed = out;
    this->Run(blend);
  }

  /** ITK's directional GaussianOperator per axis for \a variance on the level's grid
   * (maximum error 0.001, at most the field's width), computed and uploaded once per
   * level and variance: SyN smooths with two variances, four times an iteration. */
  struct SmoothingKernels
  {
    FieldStore coefficients[3];
    int        radius[3] = { 0, 0, 0 };
  };
  const SmoothingKernels &
  KernelsFor(RealType variance)
  {
    auto found = m_Kernels.find(variance);
    if (found != m_Kernels.end())
    {
      return found->second;
    }
    SmoothingKernels & kernels = m_Kernels[variance];
    for (unsigned int axis = 0; axis < D; ++axis)
    {
      GaussianOperator<RealType, D> gaussian;
      gaussian.SetDirection(axis);
      gaussian.SetVariance(variance);
      gaussian.SetMaximumError(0.001);
      gaussian.SetMaximumKernelWidth(static_cast<unsigned int>(m_Grid.domain.size[axis]));
      gaussian.CreateDirectional();
      std::vector<double> coefficients(gaussian.Size());
      for (unsigned int k = 0; k < gaussian.Size(); ++k)
      {
        coefficients[k] = gaussian[k];
      }
      kernels.coefficients[axis].Upload(coefficients.data(), coefficients.size(), m_OnGPU);
      kernels.radius[axis] = static_cast<int>(gaussian.GetRadius()[axis]);
    }
    return kernels;
  }

  void
  CopyField(const double * from, double * to)
  {
    if (from != to)
    {
      const std::size_t bytes = static_cast<std::size_t>(m_Grid.domain.count) * D * sizeof(double);
      if (m_OnGPU)
      {
        cif::CopyDeviceToDevice(to, from, bytes);
      }
      else
      {
        std::copy(from, from + bytes / sizeof(double), to);
      }
    }
  }

  /** ComposeDisplacementFieldsImageFilter: \a update after \a warping, into \a out. */
  void
  Compose(const double * update, const double * warping, double * out)
  {
    cif::ComposeFields<D> compose;
    compose.grid = m_Grid;
    compose.update = this->FieldStage(update);
    compose.warping = warping;
    compose.out = out;
    this->Run(compose);
  }

  /** SyN's InvertDisplacementField: InvertDisplacementFieldImageFilter with at most 20
   * iterations and tolerances 0.001 (mean) and 0.1 (largest), from \a estimate, into
   * \a inverse (which may not be \a field). */
  void
  Invert(const double * field, const double * estimate, double * inverse)
  {
    this->CopyField(estimate, inverse);
    const double count = static_cast<double>(m_Grid.domain.count);
    double       largestError = std::numeric_limits<double>::max();
    double       meanError = std::numeric_limits<double>::max();
    unsigned int iteration = 0;
    while (iteration++ < 20 && largestError > 0.1 && meanError > 0.001)
    {
      this->Compose(field, inverse, m_Composed.data);
      cif::InverseError<D> error;
      error.grid = m_Grid;
      error.composed = m_Composed.data;
      error.scaledNorm = m_ScaledNorm.data;
      double sum = 0.0;
      this->Reduce(error, sum, largestError);
      meanError = sum / count;
      cif::InverseUpdate<D> update;
      update.grid = m_Grid;
      update.epsilon = iteration == 1 ? 0.75 : 0.5;
      update.largestError = largestError;
      update.update = m_Composed.data;
      update.scaledNorm = m_ScaledNorm.data;
      update.inverse = inverse;
      this->Run(update);
    }
  }

  /** An image warped onto the level's grid through \a chain (ResampleImageFilter,
   * linear, default 0). */
  template <typename TImageData>
  void
  Warp(const cif::MetricImage<TImageData> & image, const cif::TransformChain & chain, ValueType * out)
  {
    cif::WarpImage<D, ValueType> warp;
    warp.grid = m_Grid;
    warp.chain = chain;
    warp.image = image;
    warp.out = out;
    this->Run(warp);
  }

  /** ComputeUpdateField with warped images: the metric's derivative field (fixed
   * \a fixedWarped, moving \a movingWarped, identity fields), smoothed with the update
   * variance and scaled by ScaleUpdateField, into \a update; the metric value. */
  MeasureType
  UpdateField(const ValueType * fixedWarped, const ValueType * movingWarped, double * update)
  {
    const auto * metric = dynamic_cast<const NeighborhoodMetricType *>(this->m_Metric.GetPointer());
    cif::NeighborhoodCorrelationLaunch<ValueType> launch;
    const auto * virtualDomain = this->GetCurrentLevelVirtualDomainImage().GetPointer();
    launch.scene.domain = m_Grid.domain;
    launch.scene.fixed = MetricImageOf(virtualDomain, fixedWarped);
    launch.scene.moving.image = MetricImageOf(virtualDomain, movingWarped);
    for (unsigned int a = 0; a < D; ++a)
    {
      launch.scene.moving.spacing[a] = m_Grid.spacing[a];
      launch.window.radius[a] = static_cast<int>(metric->GetRadius()[a]);
      launch.window.size[a] = m_Grid.domain.size[a];
    }
    cif::MarkIdentityStages(launch.scene, launch.transform);
    launch.withDerivative = true;
    launch.samples.valid = m_Valid.data;
    launch.samples.fixed = m_SampleFixed.data;
    launch.samples.moving = m_SampleMoving.data;
    launch.samples.gradient = m_Gradient.data;
    launch.columns = m_Columns.data;
    launch.forces = m_Forces.data;
    launch.blockSums = m_BlockSums.data;
    launch.blocks = cif::NeighborhoodCorrelationBlocks(m_Grid.domain.count);
    double sums[cif::kNeighborhoodSums] = {};
    if (m_OnGPU)
    {
      cif::NeighborhoodCorrelationOnDevice<D>(launch, sums);
    }
    else
    {
      cif::NeighborhoodCorrelationOnHost<D>(launch, MakeParallelFor(m_Threader), sums);
    }
    MeasureType value = NumericTraits<MeasureType>::max(); // ITK's value without valid points
    if (sums[0] > 0.0)
    {
      value = -sums[1] / sums[0];
    }
    else
    {
      itkWarningMacro("No valid points were found during metric evaluation.");
      cif::ScaleField<D> zero;
      zero.scale = 0.0;
      zero.field = m_Forces.data;
      this->Run(zero);
    }
    this->SmoothField(m_Forces.data, update, this->GetGaussianSmoothingVarianceForTheUpdateField());
    cif::LargestVoxelNorm<D> norm;
    norm.grid = m_Grid;
    norm.field = update;
    double unused = 0.0, largest = 0.0;
    this->Reduce(norm, unused, largest);
    cif::ScaleField<D> scale;
    scale.scale = this->m_LearningRate;
    if (largest > 0.0)
    {
      scale.scale /= largest;
    }
    scale.field = update;
    this->Run(scale);
    return value;
  }

  /** One level of ITK's StartOptimization on the module's path. */
  void
  OptimizeLevel()
  {
    m_OnGPU = this->RunsOnGPU();
    if (m_Threader.IsNull())
    {
      m_Threader = MultiThreaderBase::New();
    }
    m_Grid = this->LevelGrid();
    const std::size_t voxels = static_cast<std::size_t>(m_Grid.domain.count);
    const std::size_t components = voxels * D;
    // The images and the fields, once per level.
    const auto * fixedImage = this->m_FixedSmoothImages[0].GetPointer();
    const auto * movingImage = this->m_MovingSmoothImages[0].GetPointer();
    m_Kernels.clear(); // the grid changed
    // The CPU path reads the images where ITK keeps them; the GPU path's copies go up.
    const ValueType * fixedData = fixedImage->GetBufferPointer();
    const ValueType * movingData = movingImage->GetBufferPointer();
    if (m_OnGPU)
    {
      m_FixedImage.Upload(fixedData, fixedImage->GetBufferedRegion().GetNumberOfPixels(), true);
      m_MovingImage.Upload(movingData, movingImage->GetBufferedRegion().GetNumberOfPixels(), true);
      fixedData = m_FixedImage.data;
      movingData = m_MovingImage.data;
    }
    const auto upload = [&](FieldStore & store, const DisplacementFieldType * field) {
      store.Upload(reinterpret_cast<const double *>(field->GetBufferPointer()), components, m_OnGPU);
    };
    upload(m_FixedToMiddle, this->m_FixedToMiddleTransform->GetDisplacementField());
    upload(m_FixedToMiddleInverse, this->m_FixedToMiddleTransform->GetInverseDisplacementField());
    upload(m_MovingToMiddle, this->m_MovingToMiddleTransform->GetDisplacementField());
    upload(m_MovingToMiddleInverse, this->m_MovingToMiddleTransform->GetInverseDisplacementField());
    for (FieldStore * store : { &m_FixedUpdate,
                                &m_MovingUpdate,
                                &m_Total,
                                &m_NewField,
                                &m_NewInverse,
                                &m_Scratch,
                                &m_Composed,
                                &m_Forces,
                                &m_Gradient })
    {
      store->Allocate(components, m_OnGPU);
    }
    m_ScaledNorm.Allocate(voxels, m_OnGPU);
    m_Columns.Allocate(voxels * cif::kNeighborhoodColumnSums, m_OnGPU);
    m_Valid.Allocate(voxels, m_OnGPU);
    m_SampleFixed.Allocate(voxels, m_OnGPU);
    m_SampleMoving.Allocate(voxels, m_OnGPU);
    m_FixedWarped.Allocate(voxels, m_OnGPU);
    m_MovingWarped.Allocate(voxels, m_OnGPU);
    m_BlockSums.Allocate(static_cast<std::size_t>(cif::NeighborhoodCorrelationBlocks(m_Grid.domain.count)) *
                           cif::kNeighborhoodSums,
                         m_OnGPU);
    const cif::MetricImage<ValueType> fixedSampling = MetricImageOf(fixedImage, fixedData);
    const cif::MetricImage<ValueType> movingSampling = MetricImageOf(movingImage, movingData);
    // The initial transforms, mapped after the inverse fields (ITK's composites apply
    // their last stage first).
    std::unique_ptr<CudaTransformChain<D>> fixedInitial;
    if (this->GetFixedInitialTransform() != nullptr)
    {
      fixedInitial = std::make_unique<CudaTransformChain<D>>(this->GetFixedInitialTransform());
    }
    CudaTransformChain<D> movingInitial(this->m_CompositeTransform.GetPointer());
    const auto            chainAfter = [&](const double * field, CudaTransformChain<D> * initial) {
      cif::TransformChain chain;
      chain.stage[0] = this->FieldStage(field);
      chain.count = 1;
      if (initial != nullptr)
      {
        const cif::TransformChain & rest = m_OnGPU ? initial->DeviceChain() : initial->HostChain();
        for (int s = 0; s < rest.count; ++s)
        {
          chain.stage[chain.count++] = rest.stage[s];
        }
      }
      return chain;
    };

    using ConvergenceMonitoringType = Function::WindowConvergenceMonitoringFunction<RealType>;
    auto convergenceMonitoring = ConvergenceMonitoringType::New();
    convergenceMonitoring->SetWindowSize(this->m_ConvergenceWindowSize);
    IterationReporter reporter(this, 0, 1);
    while (this->m_CurrentIteration++ < this->m_NumberOfIterationsPerLevel[this->m_CurrentLevel] &&
           !this->m_IsConverged)
    {
      this->Warp(fixedSampling, chainAfter(m_FixedToMiddleInverse.data, fixedInitial.get()), m_FixedWarped.data);
      this->Warp(movingSampling, chainAfter(m_MovingToMiddleInverse.data, &movingInitial), m_MovingWarped.data);
      const MeasureType movingMetricValue =
        this->UpdateField(m_FixedWarped.data, m_MovingWarped.data, m_FixedUpdate.data);
      const MeasureType fixedMetricValue =
        this->UpdateField(m_MovingWarped.data, m_FixedWarped.data, m_MovingUpdate.data);
      const RealType totalVariance = this->GetGaussianSmoothingVarianceForTheTotalField();
      for (int side = 0; side < 2; ++side)
      {
        FieldStore &       field = side == 0 ? m_FixedToMiddle : m_MovingToMiddle;
        FieldStore &       inverse = side == 0 ? m_FixedToMiddleInverse : m_MovingToMiddleInverse;
        const FieldStore & updateField = side == 0 ? m_FixedUpdate : m_MovingUpdate;
        this->Compose(updateField.data, field.data, m_Composed.data);
        this->SmoothField(m_Composed.data, m_Total.data, totalVariance);
        this->Invert(m_Total.data, inverse.data, m_NewInverse.data);
        this->Invert(m_NewInverse.data, m_Total.data, m_NewField.data);
        std::swap(field, m_NewField);
        std::swap(inverse, m_NewInverse);
      }
      this->m_CurrentMetricValue = 0.5 * (movingMetricValue + fixedMetricValue);
      convergenceMonitoring->AddEnergyValue(this->m_CurrentMetricValue);
      this->m_CurrentConvergenceValue = convergenceMonitoring->GetConvergenceValue();
      if (this->m_CurrentConvergenceValue < this->m_ConvergenceThreshold)
      {
        this->m_IsConverged = true;
      }
      reporter.CompletedStep();
    }
    // The fields back into ITK's transforms, for the next level's adaptors and the output.
    const auto download = [&](const FieldStore & store) {
      auto field = DisplacementFieldType::New();
      field->CopyInformation(this->GetCurrentLevelVirtualDomainImage());
      field->SetRegions(this->GetCurrentLevelVirtualDomainImage()->GetBufferedRegion());
      field->Allocate();
      store.Download(reinterpret_cast<double *>(field->GetBufferPointer()), components, m_OnGPU);
      return field;
    };
    this->m_FixedToMiddleTransform->SetDisplacementField(download(m_FixedToMiddle));
    this->m_FixedToMiddleTransform->SetInverseDisplacementField(download(m_FixedToMiddleInverse));
    this->m_MovingToMiddleTransform->SetDisplacementField(download(m_MovingToMiddle));
    this->m_MovingToMiddleTransform->SetInverseDisplacementField(download(m_MovingToMiddleInverse));
  }

  std::string                m_LastExecutionReason;
  bool                       m_OnGPU = false;
  MultiThreaderBase::Pointer m_Threader;
  cif::FieldGrid             m_Grid;
  Store<ValueType>           m_FixedImage, m_MovingImage, m_FixedWarped, m_MovingWarped, m_SampleFixed, m_SampleMoving;
  Store<std::uint8_t>        m_Valid;
  FieldStore m_FixedToMiddle, m_FixedToMiddleInverse, m_MovingToMiddle, m_MovingToMiddleInverse, m_FixedUpdate,
    m_MovingUpdate, m_Total, m_NewField, m_NewInverse, m_Scratch, m_Composed, m_Forces, m_Gradient, m_ScaledNorm,
    m_Columns, m_BlockSums;
  std::map<RealType, SmoothingKernels> m_Kernels; ///< per variance, for the level's grid
};
} // namespace itk

#endif
