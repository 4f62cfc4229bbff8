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
#ifndef itkImageMetricv4GPUBase_h
#define itkImageMetricv4GPUBase_h

#include "itkCommand.h"
#include "itkCudaImageFilterBase.h"
#include "itkGradientRecursiveGaussianGPUImageFilter.h"
#include "itkImageMetricv4Evaluator.h"
#include "cifSplitMix64.h"
#include "itkMetricRandomCoordinates.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <sstream>
#include <vector>
#include <string>
#include <utility>

namespace itk
{
/** \class ImageMetricv4GPUBase
 * \brief What the GPU twins of ITK's v4 image metrics share: the scene prepared in
 * Initialize() from the metric's state, the choice among the GPU path, the module's
 * CPU path and ITK's own code, and its report (GetLastExecutionPath(),
 * GetLastExecutionReason()).
 *
 * \a TMetric is the ITK metric the twin derives from (MeanSquares..., Mattes...).
 *
 * New random points at every evaluation (SetNumberOfRandomPointsPerEvaluation),
 * elastix's NewSamplesEveryIteration with its RandomCoordinate sampler, which ITK's
 * metrics lack (ImageRegistrationMethodv4's RANDOM strategy draws once per level):
 * Initialize() prepares the dense domain (Mattes' ranges over the whole fixed image
 * or mask, as elastix computes them), then each evaluation draws its points
 * (DrawRandomVirtualCoordinates) and evaluates exactly ITK's metric over them as a
 * virtual sampled point set: the module's path or, where it does not serve, ITK's
 * own code on the same points. GetLastRandomPoints() gives them.
 *
 * On the GPU path the moving-image gradient (ITK's default gradient filter, replaced
 * by its GPU twin) stays on the device from the filter to the module's scene; the
 * host gradient image ITK's Initialize() sets is filled only where ITK's code or the
 * CPU path runs (GradientImageToHost): read through GetMovingImageGradientImage()
 * otherwise, it holds no gradient. The filter keeps its result (D doubles a voxel) on
 * the device until its next update, for ITK's code to fall back on.
 *
 * \ingroup CudaImageFilters
 */
template <typename TMetric>
class ITK_TEMPLATE_EXPORT ImageMetricv4GPUBase : public CudaImageFilterBase<TMetric>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ImageMetricv4GPUBase);

  using Self = ImageMetricv4GPUBase;
  using Superclass = CudaImageFilterBase<TMetric>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using MetricType = TMetric;
  using EvaluatorType = ImageMetricv4Evaluator<TMetric>;

  itkTypeMacro(ImageMetricv4GPUBase, TMetric);

  /** ITK's Initialize, then the module's scene (per level of a registration). */
  void
  Initialize() override
  {
    const auto start = std::chrono::steady_clock::now();
    m_MovingGradientFilterGPU->SetUseGPU(this->GetUseGPU());
    // On the GPU path the gradient stays on the device for the scene (no download of
    // D doubles a pixel and no upload back); ITK's code gets it on the host on demand.
    m_MovingGradientFilterGPU->SetKeepResultOnDevice(this->RunsOnGPU());
    if (m_RandomPointsInUse)
    {
      // The last level's random points are not the user's sampled point set.
      this->m_UseSampledPointSet = false;
      m_RandomPointsInUse = false;
    }
    if (m_NumberOfRandomPointsPerEvaluation > 0)
    {
      if (this->m_UseSampledPointSet)
      {
        itkExceptionMacro("NumberOfRandomPointsPerEvaluation and UseSampledPointSet both set: choose one");
      }
      // ITK's Initialize over the dense domain; each evaluation then sets its points.
      m_RandomEngine.seed(m_RandomPointSeed);
    }
    m_NextRandomPointsReady = false;
    m_NextRandomPointsError = nullptr;
    const double gradientBefore = m_GradientSeconds;
    if (m_Threader.IsNull())
    {
      m_Threader = MultiThreaderBase::New();
    }
    this->InitializeAsITK();
    const auto                  itkDone = std::chrono::steady_clock::now();
    ImageMetricv4State<TMetric> state;
    state.fixedImage = this->m_FixedImage.GetPointer();
    state.movingImage = this->m_MovingImage.GetPointer();
    state.virtualImage = this->m_VirtualImage.GetPointer();
    state.virtualRegion = this->GetVirtualRegion();
    state.sampledPoints = this->m_UseSampledPointSet ? this->m_VirtualSampledPointSet.GetPointer() : nullptr;
    state.fixedTransform = this->FixedTransformOfScene();
    state.fixedInterpolator = this->m_FixedInterpolator.GetPointer();
    state.movingInterpolator = this->m_MovingInterpolator.GetPointer();
    state.fixedMask = this->m_FixedImageMask.GetPointer();
    state.movingMask = this->m_MovingImageMask.GetPointer();
    state.movingGradientImage =
      this->m_UseMovingImageGradientFilter ? this->m_MovingImageGradientImage.GetPointer() : nullptr;
    const bool ourGradientFilter =
      this->m_UseMovingImageGradientFilter &&
      this->m_MovingImageGradientFilter.GetPointer() == m_MovingGradientFilterGPU.GetPointer() &&
      this->m_MovingImageGradientImage.GetPointer() == m_MovingGradientFilterGPU->GetOutput();
    state.movingGradientOnDevice = ourGradientFilter ? m_MovingGradientFilterGPU->GetDeviceResult() : nullptr;
    state.gradientFromDefaultCalculator =
      !this->m_UseMovingImageGradientFilter &&
      this->m_MovingImageGradientCalculator.GetPointer() == this->m_DefaultMovingImageGradientCalculator.GetPointer();
    state.needsFixedGradient = this->GetGradientSourceIncludesFixed();
    state.floatingPointCorrection = this->GetUseFloatingPointCorrection();
    m_Scene = std::make_unique<EvaluatorType>();
    m_Scene->Prepare(state, this->RunsOnGPU(), m_Threader);
    if (!m_Scene->Supported() || !m_Scene->OnGPU())
    {
      this->GradientImageToHost(); // ITK's code or the CPU path reads it
    }
    this->CompleteInitializeAsITK(*m_Scene);
    m_Timing = Timing{};
    m_Timing.itkInitialize = std::chrono::duration<double>(itkDone - start).count();
    m_Timing.movingGradient = m_GradientSeconds - gradientBefore;
    m_Timing.scenePrepare = std::chrono::duration<double>(std::chrono::steady_clock::now() - itkDone).count();
  }

  /** New random points at every evaluation: \a n > 0 draws n points of the virtual
   * domain per GetValue / GetValueAndDerivative (see the class comment); 0 (the
   * default) evaluates the points ITK's settings name (dense, or the sampled point
   * set). Takes effect at the next Initialize(); cannot be combined with
   * UseSampledPointSet. */
  itkSetMacro(NumberOfRandomPointsPerEvaluation, SizeValueType);
  itkGetConstMacro(NumberOfRandomPointsPerEvaluation, SizeValueType);

  /** With random points: each evaluation's points drawn inside a box of this physical
   * size per axis, placed anew at random in the virtual domain (elastix's
   * UseRandomSampleRegion and SampleRegionSize); empty (the default): the whole domain. */
  void
  SetRandomSampleRegionSize(const std::vector<double> & size)
  {
    if (!size.empty() && (size.size() != TMetric::VirtualImageDimension ||
                          std::any_of(size.begin(), size.end(), [](double x) { return !(x > 0.0); })))
    {
      itkExceptionMacro("RandomSampleRegionSize needs one positive size per axis");
    }
    m_RandomSampleRegionSize = size;
    this->Modified();
  }
  const std::vector<double> &
  GetRandomSampleRegionSize() const
  {
    return m_RandomSampleRegionSize;
  }

  /** The seed of the random points, applied at each Initialize() (the same points
   * for the same settings: a registration that is run again gives the same bits). */
  itkSetMacro(RandomPointSeed, unsigned int);
  itkGetConstMacro(RandomPointSeed, unsigned int);

  /** The points of the last evaluation with random points (null before the first
   * evaluation after Initialize()). */
  const typename TMetric::VirtualPointSetType *
  GetLastRandomPoints() const
  {
    return m_RandomPointsInUse ? this->m_VirtualSampledPointSet.GetPointer() : nullptr;
  }

  /** Where the time went since the last Initialize(): ITK's Initialize (of which the
   * moving-image gradient filter; the rest: Mattes' ranges...), the module's
   * preparation (conversions, uploads), the evaluations (their number and total time,
   * the first one's apart (it loads the kernels' module), of which drawing random
   * points (and drawing the next ones while the device works), grouping the points by
   * B-spline cell, binding the transform (its upload) and waiting for the device's
   * results, each with the first evaluation's share, which holds one-time set-up), and
   * the time between evaluations (the optimizer's steps). */
  std::string
  GetTimingReport() const
  {
    std::ostringstream s;
    s.precision(3);
    s << "ITK initialize " << m_Timing.itkInitialize << " s";
    if (m_Timing.movingGradient > 0.0)
    {
      s << " (moving gradient " << m_Timing.movingGradient << " s)";
    }
    s << ", module prepare " << m_Timing.scenePrepare << " s, " << m_Timing.evaluations << " evaluations "
      << m_Timing.evaluationSeconds << " s";
    if (m_Timing.evaluations > 0)
    {
      s << " (the first " << m_Timing.firstEvaluation << " s)";
    }
    if (m_Timing.randomDraw > 0.0 || m_Timing.randomDrawWhileDeviceWorks > 0.0)
    {
      s << " (random points " << m_Timing.randomDraw << " s, and " << m_Timing.randomDrawWhileDeviceWorks
        << " s while the device worked)";
    }
    if (m_Scene && m_Scene->OrderSeconds() > 0.0)
    {
      s << " (point grouping " << m_Scene->OrderSeconds() << " s" << (m_Scene->UsesCellBoxes() ? ": cell boxes" : "")
        << ")";
    }
    if (m_Scene && m_Scene->OnGPU())
    {
      s << " (transforms bound " << m_Scene->BindSeconds() << " s, waiting for the device "
        << m_Scene->ReadbackSeconds() << " s; of which the first evaluation's " << m_Timing.firstBind << " s and "
        << m_Timing.firstWait << " s)";
    }
    if (m_Timing.evaluations > 1)
    {
      s << ", between evaluations (the optimizer's steps) " << m_Timing.betweenEvaluations << " s";
    }
    return s.str();
  }

  /** Whether the GPU path reads the moving value and its gradient from one
   * interleaved device buffer: an accelerator built where the device's memory budget
   * has room for it (the same sums either way). */
  bool
  GetInterleavesMovingValueAndGradient() const
  {
    return m_Scene && m_Scene->InterleavesValueAndGradient();
  }

  /** Why the last evaluation ran ITK's code (empty when the module's path ran). */
  const std::string &
  GetLastExecutionReason() const
  {
    return m_LastExecutionReason;
  }

protected:
  /** ITK's default moving-image gradient filter (GradientRecursiveGaussianImageFilter,
   * which ITK's Initialize() runs on the full-resolution moving image at every level)
   * replaced by its GPU twin: the same output (Modules/Smoothing), on the GPU. */
  ImageMetricv4GPUBase()
  {
    using MovingGradientImage = typename TMetric::MovingImageGradientImageType;
    m_MovingGradientFilterGPU =
      GradientRecursiveGaussianGPUImageFilter<typename TMetric::MovingImageType, MovingGradientImage>::New();
    this->m_DefaultMovingImageGradientFilter = m_MovingGradientFilterGPU.GetPointer();
    this->m_MovingImageGradientFilter = this->m_DefaultMovingImageGradientFilter;
    // ITK's Initialize() updates it: timed from its start to its end for the report.
    auto started = CStyleCommand::New();
    started->SetClientData(this);
    started->SetCallback([](Object *, const EventObject &, void * self) {
      static_cast<Self *>(self)->m_GradientStart = std::chrono::steady_clock::now();
    });
    auto ended = CStyleCommand::New();
    ended->SetClientData(this);
    ended->SetCallback([](Object *, const EventObject &, void * self) {
      auto * metric = static_cast<Self *>(self);
      metric->m_GradientSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - metric->m_GradientStart).count();
    });
    m_GradientStartTag = m_MovingGradientFilterGPU->AddObserver(StartEvent(), started);
    m_GradientEndTag = m_MovingGradientFilterGPU->AddObserver(EndEvent(), ended);
  }
  ~ImageMetricv4GPUBase() override
  {
    // The filter may outlive the metric (GetMovingImageGradientFilter()): its
    // observers must not call back into a metric that is gone.
    m_MovingGradientFilterGPU->RemoveObserver(m_GradientStartTag);
    m_MovingGradientFilterGPU->RemoveObserver(m_GradientEndTag);
  }

  /** ImageToImageMetricv4::InitializeForIteration, whose whole work is the
   * derivative's size and zeros, with the zeros deferred: the module's B-spline
   * derivative then writes every value as 0 + value (ITK's zeros and additions in one
   * pass, the same bits), every other path writes the zeros first
   * (ZeroDerivativeIfPending), and an evaluation that ends without writing it (ITK's
   * "derivative left at its zeros", an exception) leaves the zeros. */
  void
  InitializeForIteration() const override
  {
    this->InitializeDerivativeForIteration();
  }

  /** The derivative's size, its zeros deferred (InitializeForIteration). */
  void
  InitializeDerivativeForIteration() const
  {
    m_DerivativeZerosPending = false;
    if (this->GetComputeDerivative())
    {
      const typename TMetric::NumberOfParametersType parameters = this->GetNumberOfParameters();
      if (this->m_DerivativeResult->GetSize() != parameters)
      {
        this->m_DerivativeResult->SetSize(parameters);
      }
      m_DerivativeZerosPending = true;
    }
  }

  /** The deferred zeros of the derivative (InitializeForIteration) written. */
  void
  ZeroDerivativeIfPending() const
  {
    if (m_DerivativeZerosPending)
    {
      this->m_DerivativeResult->Fill(NumericTraits<typename TMetric::DerivativeValueType>::ZeroValue());
      m_DerivativeZerosPending = false;
    }
  }

  /** Whether the derivative's zeros are still to be written (the scene clears it). */
  bool &
  DerivativeZerosPending() const
  {
    return m_DerivativeZerosPending;
  }

  /** The module's path or ITK's, timed. */
  void
  GetValueAndDerivativeExecute() const override
  {
    // Whatever path runs and however it ends, the derivative holds ITK's zeros where
    // nothing wrote it.
    struct ZerosWhereUnwritten
    {
      const Self & metric;
      ~ZerosWhereUnwritten() { metric.ZeroDerivativeIfPending(); }
    } zerosWhereUnwritten{ *this };
    const auto start = std::chrono::steady_clock::now();
    if (m_NumberOfRandomPointsPerEvaluation > 0)
    {
      const_cast<Self *>(this)->DrawRandomPoints();
      m_Timing.randomDraw += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    std::string reason;
    if (auto * scene = this->BoundScene(reason))
    {
      this->ReportModulePath(); // before: an exception ITK would raise (no valid point) comes from this path
      // The next evaluation's points are drawn while the device computes this one: the
      // same draws in the same order as one evaluation after the other.
      struct DeviceTimeWork
      {
        EvaluatorType & scene;
        ~DeviceTimeWork() { scene.WhileTheDeviceWorks(nullptr); }
      } clearedAfterwards{ *scene };
      if (m_NumberOfRandomPointsPerEvaluation > 0)
      {
        scene->WhileTheDeviceWorks([self = const_cast<Self *>(this)] { self->DrawNextRandomPoints(); });
      }
      this->EvaluateWithModule(*scene);
    }
    else
    {
      this->RunITK(reason);
    }
    const auto   end = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(end - start).count();
    if (m_Timing.evaluations == 0)
    {
      m_Timing.firstEvaluation = seconds;
      if (m_Scene && m_Scene->OnGPU())
      {
        m_Timing.firstBind = m_Scene->BindSeconds();
        m_Timing.firstWait = m_Scene->ReadbackSeconds();
      }
    }
    else
    {
      m_Timing.betweenEvaluations += std::chrono::duration<double>(start - m_Timing.lastEvaluationEnd).count();
    }
    ++m_Timing.evaluations;
    m_Timing.evaluationSeconds += seconds;
    m_Timing.lastEvaluationEnd = end;
  }

  /** This evaluation's random points: ITK's virtual sampled point set (for ITK's
   * own code) and the scene's domain (for the module's paths). */
  void
  DrawRandomPoints()
  {
    if (!m_Scene)
    {
      itkExceptionMacro("Initialize() has not run");
    }
    constexpr unsigned int D = TMetric::VirtualImageDimension;
    std::vector<double>    coordinates;
    if (m_NextRandomPointsReady)
    {
      m_NextRandomPointsReady = false;
      if (m_NextRandomPointsError)
      {
        std::exception_ptr error = nullptr;
        std::swap(error, m_NextRandomPointsError);
        std::rethrow_exception(error);
      }
      coordinates = std::move(m_NextRandomCoordinates);
    }
    else
    {
      this->DrawRandomCoordinates(coordinates);
    }
    // ITK's point set filled in one piece, through the STL vector (SetPoint and
    // ElementAt mark the container modified at each point: a global atomic counter).
    auto   points = TMetric::VirtualPointSetType::New();
    auto   container = TMetric::VirtualPointSetType::PointsContainer::New();
    auto & vector = container->CastToSTLContainer();
    vector.resize(m_NumberOfRandomPointsPerEvaluation);
    for (SizeValueType n = 0; n < m_NumberOfRandomPointsPerEvaluation; ++n)
    {
      typename TMetric::VirtualPointSetType::PointType & p = vector[n]; // holds the rounded coordinates exactly
      for (unsigned int a = 0; a < D; ++a)
      {
        p[a] = coordinates[n * D + a];
      }
    }
    points->SetPoints(container);
    this->m_VirtualSampledPointSet = points;
    this->m_UseSampledPointSet = true;
    m_RandomPointsInUse = true;
    m_Scene->UseSampledPoints(std::move(coordinates));
  }

  /** The next \a m_NumberOfRandomPointsPerEvaluation points of the random sequence
   * (DrawRandomVirtualCoordinates), appended to \a coordinates. */
  void
  DrawRandomCoordinates(std::vector<double> & coordinates)
  {
    constexpr unsigned int D = TMetric::VirtualImageDimension;
    using VirtualPoint = typename TMetric::VirtualPointType;
    using Coordinate = typename TMetric::VirtualPointSetType::PointType::CoordRepType;
    const auto * fixedTransform = this->m_FixedTransform.GetPointer();
    const auto * fixedMask = this->m_FixedImageMask.GetPointer();
    const auto   mapToFixed = [&](const VirtualPoint & p) { return fixedTransform->TransformPoint(p); };
    if (fixedMask == nullptr)
    {
      DrawRandomVirtualCoordinates<D, Coordinate>(this->m_VirtualImage.GetPointer(),
                                                  this->GetVirtualRegion(),
                                                  m_NumberOfRandomPointsPerEvaluation,
                                                  m_RandomEngine,
                                                  mapToFixed,
                                                  NoFixedMask{},
                                                  coordinates,
                                                  m_RandomSampleRegionSize);
    }
    else
    {
      DrawRandomVirtualCoordinates<D, Coordinate>(
        this->m_VirtualImage.GetPointer(),
        this->GetVirtualRegion(),
        m_NumberOfRandomPointsPerEvaluation,
        m_RandomEngine,
        mapToFixed,
        [&](const auto & p) { return fixedMask->IsInsideInWorldSpace(p); },
        coordinates,
        m_RandomSampleRegionSize);
    }
  }

  /** The next evaluation's random points, drawn ahead (while the device computes the
   * current one); an error of the draw is kept for that evaluation to raise. */
  void
  DrawNextRandomPoints()
  {
    const auto start = std::chrono::steady_clock::now();
    m_NextRandomCoordinates.clear();
    try
    {
      this->DrawRandomCoordinates(m_NextRandomCoordinates);
    }
    catch (...)
    {
      m_NextRandomPointsError = std::current_exception();
    }
    m_NextRandomPointsReady = true;
    m_Timing.randomDrawWhileDeviceWorks +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  /** ITK's Initialize() of TMetric: its state, exactly (a twin may reach the same
   * state faster, as Mattes' does with its ranges). */
  virtual void
  InitializeAsITK()
  {
    TMetric::Initialize();
  }

  /** The rest of ITK's Initialize() state, for a twin whose InitializeAsITK() left
   * some of it to be found with the scene's help (Mattes' ranges on the device). */
  virtual void
  CompleteInitializeAsITK(EvaluatorType &)
  {}

  /** The metric's evaluation on the module's scene (its transform bound). */
  virtual void
  EvaluateWithModule(EvaluatorType & scene) const = 0;

  /** The scene with this evaluation's transform bound, or null (\a reason set)
   * where ITK's code must run. */
  EvaluatorType *
  BoundScene(std::string & reason) const
  {
    if (!m_Scene)
    {
      reason = "Initialize() has not run";
      return nullptr;
    }
    if (!m_Scene->Supported())
    {
      reason = m_Scene->Reason();
      return nullptr;
    }
    return this->BindMovingTransform(*m_Scene, reason) ? m_Scene.get() : nullptr;
  }

  /** The fixed transform the scene maps the fixed side with: the metric's own (a
   * twin that maps it itself, as the neighbourhood correlation does a displacement
   * field, gives the identity). */
  virtual const typename TMetric::FixedTransformType *
  FixedTransformOfScene() const
  {
    return this->m_FixedTransform.GetPointer();
  }

  /** Takes this evaluation's moving transform: the scene's BindTransform (a twin
   * that maps the moving side itself binds its own); false, with \a reason, where
   * ITK's code must run. */
  virtual bool
  BindMovingTransform(EvaluatorType & scene, std::string & reason) const
  {
    return scene.BindTransform(this->m_MovingTransform.GetPointer(), reason);
  }

  /** Records that the module's path ran. */
  void
  ReportModulePath() const
  {
    const_cast<Self *>(this)->SetLastExecutionPath(m_Scene->OnGPU() ? CudaExecutionPath::GPU : CudaExecutionPath::CPU);
    m_LastExecutionReason.clear();
  }

  /** ITK's own evaluation, recorded with \a reason. */
  void
  RunITK(const std::string & reason) const
  {
    this->ZeroDerivativeIfPending();
    m_LastExecutionReason = reason;
    const_cast<Self *>(this)->SetLastExecutionPath(CudaExecutionPath::ITK);
    const_cast<Self *>(this)->GradientImageToHost();
    this->PrepareITKEvaluation();
    TMetric::GetValueAndDerivativeExecute();
  }

  /** The moving gradient image filled on the host, where the GPU gradient filter kept
   * it on the device (ITK's code reads the host image). */
  void
  GradientImageToHost()
  {
    m_MovingGradientFilterGPU->DownloadResultToHost();
  }

  /** What ITK's evaluation needs beyond what the twin's InitializeForIteration left
   * (a twin that skips ITK's per-iteration pass, such as Correlation's means, runs
   * it here, where ITK's code evaluates). */
  virtual void
  PrepareITKEvaluation() const
  {}

  MultiThreaderBase *
  GetThreader() const
  {
    return m_Threader;
  }

  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "NumberOfRandomPointsPerEvaluation: " << m_NumberOfRandomPointsPerEvaluation << std::endl;
    os << indent << "RandomPointSeed: " << m_RandomPointSeed << std::endl;
    os << indent << "RandomSampleRegionSize:";
    for (double x : m_RandomSampleRegionSize)
    {
      os << ' ' << x;
    }
    os << (m_RandomSampleRegionSize.empty() ? " (the whole domain)" : "") << std::endl;
    os << indent << "LastExecutionReason: " << (m_LastExecutionReason.empty() ? "(none)" : m_LastExecutionReason)
       << std::endl;
  }

private:
  struct Timing
  {
    double itkInitialize = 0.0;
    double scenePrepare = 0.0;
    long   evaluations = 0;
    double evaluationSeconds = 0.0;
    double movingGradient = 0.0;             ///< of itkInitialize
    double randomDraw = 0.0;                 ///< of evaluationSeconds
    double randomDrawWhileDeviceWorks = 0.0; ///< of evaluationSeconds, hidden behind the device's work
    double firstEvaluation = 0.0;            ///< of evaluationSeconds
    double firstBind = 0.0;                  ///< the scene's BindSeconds() after the first evaluation
    double firstWait = 0.0;                  ///< the scene's ReadbackSeconds() after the first evaluation
    double betweenEvaluations = 0.0;         ///< from the end of one to the start of the next
    std::chrono::steady_clock::time_point lastEvaluationEnd;
  };

  SizeValueType              m_NumberOfRandomPointsPerEvaluation = 0;
  unsigned int               m_RandomPointSeed = 0;
  std::vector<double>        m_RandomSampleRegionSize;
  bool                       m_RandomPointsInUse = false;
  cif::SplitMix64            m_RandomEngine;
  std::vector<double>        m_NextRandomCoordinates; ///< drawn ahead
  bool                       m_NextRandomPointsReady = false;
  std::exception_ptr         m_NextRandomPointsError;
  MultiThreaderBase::Pointer m_Threader;
  mutable Timing             m_Timing;
  mutable bool               m_DerivativeZerosPending = false; ///< InitializeForIteration's zeros not yet written
  std::chrono::steady_clock::time_point m_GradientStart;
  double                                m_GradientSeconds = 0.0; ///< the gradient filter's updates, all of them
  unsigned long                         m_GradientStartTag = 0;
  unsigned long                         m_GradientEndTag = 0;
  typename GradientRecursiveGaussianGPUImageFilter<typename TMetric::MovingImageType,
                                                   typename TMetric::MovingImageGradientImageType>::Pointer
                                         m_MovingGradientFilterGPU;
  mutable std::unique_ptr<EvaluatorType> m_Scene;
  mutable std::string                    m_LastExecutionReason;
};
} // namespace itk

#endif
