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
// Elastic registration laid out as ITK's and elastix's pipelines lay it out: an
// optional rigid or affine stage from the images' centres, then an optional cubic
// B-spline stage on top of it, each through ITK's ImageRegistrationMethodv4 with the
// module's GPU twin of the v4 metric (cifRegistrationMetrics.h), over a
// multi-resolution schedule. What ElasticRegistrationExample and the
// ElasticRegistrationCLI module share.
#ifndef itkElasticRegistration_h
#define itkElasticRegistration_h

#include "itkElasticRegistrationSettings.h"
#include "itkAffineTransform.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkBSplineTransform.h"
#include "itkBSplineTransformInitializer.h"
#include "itkBSplineTransformParametersAdaptor.h"
#include "itkCenteredTransformInitializer.h"
#include "itkCommand.h"
#include "itkCompositeTransform.h"
#include "itkDecayingGainGradientDescentOptimizerv4.h"
#include "itkEuler2DTransform.h"
#include "itkEuler3DTransform.h"
#include "itkImageMaskSpatialObject.h"
#include "itkSharedDomainImageRegistrationMethodv4.h"
#include "itkLBFGSOptimizerv4.h"
#include "itkRegularStepGradientDescentOptimizerv4.h"
#include "itkSimilarity2DTransform.h"
#include "itkSimilarity3DTransform.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

namespace itk
{
/** \class ElasticRegistration
 * \brief The stages of ElasticRegistrationSettings run on a fixed and a moving image of
 * \a TImage (float or double, 2-D or 3-D), with optional masks.
 *
 * The linear stage starts from CenteredTransformInitializer (the images' geometric
 * centres) and runs ITK's RegularStepGradientDescentOptimizerv4 (learning rate 1,
 * matrix or angle parameters scaled by the squared extent); the B-spline stage runs
 * unbounded L-BFGS (LBFGSOptimizerv4: its bounded twin's bounds do not follow the
 * grid's refinement) with the linear result as its moving initial transform. With
 * RegistrationSampling::RandomEveryIteration both stages run a stochastic gradient
 * descent instead (noisy gradients: no line search): the decaying gain, or with
 * stochasticOptimizer elastix's adaptive one, whose parameters at each level come from
 * the transform's Jacobian and from exact gradients over elastix's grid of 100000
 * points (a dense twin of the metric made for the estimate), its scales (linear stage)
 * as elastix's AutomaticScalesEstimation, each step moving no point by more than the
 * images' mean spacing (elastix's MaximumStepLength).
 * GetTransform() is the whole result as one CompositeTransform in ITK's order (the
 * B-spline applied first, then the linear stage): what a resampler applies to map
 * fixed points into the moving image.
 *
 * An observer (SetObserver) sees every iteration; it may throw to stop the run (a host's
 * abort), which Update() passes on. Update() throws ExceptionObject when a stage
 * cannot run, when fewer than minimumValidPoints points are valid at an iteration, or
 * as ITK's metrics do (Mattes: too many points outside the moving image). */
template <typename TImage>
class ElasticRegistration
{
public:
  static constexpr unsigned int D = TImage::ImageDimension;
  using ImageType = TImage;
  using MaskImageType = Image<unsigned char, D>;
  using TransformType = Transform<double, D, D>;
  using LinearTransformType = MatrixOffsetTransformBase<double, D, D>;
  using RigidTransformType = std::conditional_t<D == 2, Euler2DTransform<double>, Euler3DTransform<double>>;
  using SimilarityTransformType =
    std::conditional_t<D == 2, Similarity2DTransform<double>, Similarity3DTransform<double>>;
  using AffineTransformType = AffineTransform<double, D>;
  using BSplineTransformType = BSplineTransform<double, D, 3>;
  using CompositeTransformType = CompositeTransform<double, D>;
  using MetricType = ImageToImageMetricv4<TImage, TImage>;
  using Observer = std::function<void(const RegistrationIterationReport &)>;

  /** What one stage did. */
  struct StageReport
  {
    std::string               stage;
    std::vector<unsigned int> iterationsPerLevel;
    std::string               executionPath; // the metric's, at the last level
    double                    finalMetricValue = 0.0;
    double                    seconds = 0.0;
    /** The adaptive stochastic gradient descent's estimate at each level (elastix logs
     * them); empty for the other optimizers. */
    std::vector<AdaptiveStochasticGradientDescentEstimate> estimatesPerLevel;
  };

  ElasticRegistration(const TImage * fixed, const TImage * moving, ElasticRegistrationSettings settings)
    : m_Fixed(fixed)
    , m_Moving(moving)
    , m_Settings(std::move(settings))
  {}

  void
  SetFixedMask(const MaskImageType * mask)
  {
    m_FixedMask = mask;
  }
  void
  SetMovingMask(const MaskImageType * mask)
  {
    m_MovingMask = mask;
  }
  /** A transform applied before the first stage (an earlier registration, elastix's
   * -t0): the stages are optimized on top of it; GetTransform() leaves it out. */
  void
  SetInitialTransform(const TransformType * transform)
  {
    m_InitialTransform = transform;
  }
  void
  SetObserver(Observer observer)
  {
    m_Observer = std::move(observer);
  }

  /** Runs the stages. */
  void
  Update()
  {
    const auto & s = m_Settings;
    if (s.linearStage == LinearRegistrationStage::None && !s.bsplineStage)
    {
      Fail("no registration stage: choose a rigid, similarity, affine or B-spline stage");
    }
    if (s.levels < 1 || s.iterations.empty() || !(s.gridSpacing > 0.0) ||
        ((s.sampling == RegistrationSampling::Random || s.sampling == RegistrationSampling::Regular) &&
         !(s.samplingPercentage > 0.0 && s.samplingPercentage <= 1.0)) ||
        (s.sampling == RegistrationSampling::RandomEveryIteration && s.pointsPerIteration < 1))
    {
      Fail("bad settings: levels >= 1, iterations, a positive grid spacing, a sampling percentage in (0, 1] and at "
           "least one point per iteration are needed");
    }
    const auto axesOk = [](const std::vector<unsigned int> & f) {
      return f.size() == D && std::all_of(f.begin(), f.end(), [](unsigned int x) { return x >= 1; });
    };
    if ((!s.shrinkFactors.empty() && (s.shrinkFactors.size() != s.levels ||
                                      !std::all_of(s.shrinkFactors.begin(), s.shrinkFactors.end(), axesOk))) ||
        (!s.smoothingSigmas.empty() &&
         (s.smoothingSigmas.size() != s.levels ||
          !std::all_of(s.smoothingSigmas.begin(), s.smoothingSigmas.end(), [](double x) { return x >= 0.0; }))))
    {
      Fail("bad schedule: one shrink factor of at least 1 per axis and one sigma of at least 0 per level");
    }
    if ((!s.gridSpacingSchedule.empty() &&
         (s.gridSpacingSchedule.size() != s.levels || !(s.gridSpacingSchedule.back() > 0.0) ||
          !std::is_sorted(s.gridSpacingSchedule.rbegin(), s.gridSpacingSchedule.rend()))) ||
        (!s.randomSampleRegionSize.empty() && (s.randomSampleRegionSize.size() != s.levels ||
                                               !std::all_of(s.randomSampleRegionSize.begin(),
                                                            s.randomSampleRegionSize.end(),
                                                            [](const std::vector<double> & box) {
                                                              return box.size() == D &&
                                                                     std::all_of(box.begin(), box.end(), [](double x) {
                                                                       return x > 0.0;
                                                                     });
                                                            }))) ||
        !(s.minimumValidFraction >= 0.0 && s.minimumValidFraction <= 1.0))
    {
      Fail("bad settings: a positive, non-increasing grid spacing factor per level, a positive sample region size "
           "per level and axis and a valid fraction in [0, 1] are needed");
    }
    if (s.movingInterpolationOrder != 1 && s.movingInterpolationOrder != 3)
    {
      Fail("the moving image's interpolation order must be 1 (linear) or 3 (cubic B-spline)");
    }
    if (s.sampling == RegistrationSampling::RandomEveryIteration && s.itkMetric)
    {
      Fail("new random points at every iteration need the module's metrics: ITK's own draw their points once per "
           "level");
    }
    m_Stages.clear();
    m_NumberOfStages = (s.linearStage != LinearRegistrationStage::None ? 1u : 0u) + (s.bsplineStage ? 1u : 0u);
    m_Transform = CompositeTransformType::New();
    m_LinearTransform = nullptr;
    m_BSplineTransform = nullptr;
    if (s.linearStage == LinearRegistrationStage::Rigid)
    {
      m_LinearTransform = this->RunLinearStage<RigidTransformType>("rigid").GetPointer();
    }
    else if (s.linearStage == LinearRegistrationStage::Similarity)
    {
      m_LinearTransform = this->RunLinearStage<SimilarityTransformType>("similarity").GetPointer();
    }
    else if (s.linearStage == LinearRegistrationStage::Affine)
    {
      m_LinearTransform = this->RunLinearStage<AffineTransformType>("affine").GetPointer();
    }
    if (m_LinearTransform)
    {
      m_Transform->AddTransform(m_LinearTransform);
    }
    if (s.bsplineStage)
    {
      m_BSplineTransform = this->RunBSplineStage();
      m_Transform->AddTransform(m_BSplineTransform);
    }
  }

  /** Every stage's result: ITK's composite (the B-spline applied first). */
  CompositeTransformType *
  GetTransform() const
  {
    return m_Transform.GetPointer();
  }
  /** The linear stage's result (nullptr without one). */
  LinearTransformType *
  GetLinearTransform() const
  {
    return m_LinearTransform.GetPointer();
  }
  /** The B-spline stage's result, on its final mesh (nullptr without one). */
  BSplineTransformType *
  GetBSplineTransform() const
  {
    return m_BSplineTransform.GetPointer();
  }
  const std::vector<StageReport> &
  GetStageReports() const
  {
    return m_Stages;
  }
  /** The last stage's metric value at its last iteration (at full resolution). */
  double
  GetFinalMetricValue() const
  {
    return m_Stages.empty() ? 0.0 : m_Stages.back().finalMetricValue;
  }

  /** The B-spline mesh at \a level (0: the coarsest) for \a settings on \a image's
   * extent (see ElasticRegistrationSettings). */
  static typename BSplineTransformType::MeshSizeType
  BSplineMesh(const TImage * image, const ElasticRegistrationSettings & settings, unsigned int level)
  {
    typename BSplineTransformType::MeshSizeType mesh;
    const unsigned int                          coarsening = settings.levels - 1;
    for (unsigned int a = 0; a < D; ++a)
    {
      const double extent = image->GetLargestPossibleRegion().GetSize()[a] * image->GetSpacing()[a];
      if (!settings.gridSpacingSchedule.empty())
      {
        const double spacing = settings.gridSpacing * settings.gridSpacingSchedule[level];
        mesh[a] = std::max(1u, static_cast<unsigned int>(std::floor(extent / spacing + 1e-9)));
        continue;
      }
      const auto finest = std::max<unsigned int>(
        1u << coarsening, static_cast<unsigned int>(std::floor(extent / settings.gridSpacing + 1e-9)));
      mesh[a] = std::max(1u, (finest >> coarsening) << level);
    }
    return mesh;
  }

  /** The B-spline grid at \a level (0: the coarsest) for \a settings on \a image, as the
   * transform's fixed parameters (mesh from BSplineMesh, or elastix's grid: see
   * BSplineGridPlacement). */
  static typename BSplineTransformType::FixedParametersType
  BSplineGrid(const TImage * image, const ElasticRegistrationSettings & settings, unsigned int level)
  {
    auto transform = BSplineTransformType::New();
    if (settings.gridPlacement == BSplineGridPlacement::ImageDomain)
    {
      auto initializer = BSplineTransformInitializer<BSplineTransformType, TImage>::New();
      initializer->SetTransform(transform);
      initializer->SetImage(image);
      initializer->SetTransformDomainMeshSize(BSplineMesh(image, settings, level));
      initializer->InitializeTransform();
      return transform->GetFixedParameters();
    }
    const double                                          factor = settings.gridSpacingSchedule.empty()
                                                                     ? static_cast<double>(1u << (settings.levels - 1 - level))
                                                                     : settings.gridSpacingSchedule[level];
    const double                                          gridSpacing = settings.gridSpacing * factor;
    typename BSplineTransformType::MeshSizeType           mesh;
    typename BSplineTransformType::PhysicalDimensionsType dimensions;
    typename TImage::PointType::VectorType shift; // from the first voxel's centre, along the image's axes
    for (unsigned int a = 0; a < D; ++a)
    {
      const auto   size = image->GetLargestPossibleRegion().GetSize()[a];
      const double spacing = image->GetSpacing()[a];
      mesh[a] = std::max(1u, static_cast<unsigned int>(std::ceil(size * spacing / gridSpacing - 1e-9)));
      dimensions[a] = mesh[a] * gridSpacing;
      shift[a] = -(dimensions[a] - (size - 1.0) * spacing) / 2.0;
    }
    typename TImage::PointType first;
    image->TransformIndexToPhysicalPoint(image->GetLargestPossibleRegion().GetIndex(), first);
    transform->SetTransformDomainOrigin(first + image->GetDirection() * shift);
    transform->SetTransformDomainDirection(image->GetDirection());
    transform->SetTransformDomainPhysicalDimensions(dimensions);
    transform->SetTransformDomainMeshSize(mesh);
    return transform->GetFixedParameters();
  }

private:
  /** Throws \a reason as an ExceptionObject whose description is the reason alone. */
  [[noreturn]] static void
  Fail(const std::string & reason)
  {
    throw ExceptionObject(__FILE__, __LINE__, reason, "ElasticRegistration");
  }

  /** Reports iterations to the observer, counts them per level, sets each level's
   * iteration limit before its optimization starts, and checks the valid points. */
  template <typename TRegistration>
  class StageObserver : public Command
  {
  public:
    using Self = StageObserver;
    using Pointer = SmartPointer<Self>;
    itkNewMacro(Self);

    void
    Execute(Object * caller, const EventObject & event) override
    {
      this->Execute(static_cast<const Object *>(caller), event);
    }
    void
    Execute(const Object *, const EventObject & event) override
    {
      if (MultiResolutionIterationEvent().CheckEvent(&event))
      {
        this->EndLevel();
        m_Report.level = static_cast<unsigned int>(m_Registration->GetCurrentLevel());
        m_Report.iteration = 0;
        m_Report.maximumIterations = m_Owner->m_Settings.IterationsAtLevel(m_Report.level);
        m_LevelStart = std::chrono::steady_clock::now();
        m_LevelRunning = true;
        m_SetLevel(m_Report.level, m_Report.maximumIterations);
        if (!m_Owner->m_Settings.randomSampleRegionSize.empty()) // the level's points are not drawn yet
        {
          cif::SetRandomSampleRegionSize<TImage>(m_Metric, m_Owner->m_Settings.randomSampleRegionSize[m_Report.level]);
        }
      }
      else if (typeid(event) == typeid(IterationEvent))
      {
        // an optimizer's iteration; not its subclasses (L-BFGS's cost-function adaptor
        // reports each function and gradient evaluation as one)
        const auto * metric = m_Registration->GetMetric();
        const auto * imageMetric = dynamic_cast<const MetricType *>(metric);
        if (imageMetric && imageMetric->GetNumberOfValidPoints() < m_Owner->m_Settings.minimumValidPoints)
        {
          std::ostringstream message;
          message << m_Report.stage << " level " << m_Report.level + 1 << " of " << m_Report.numberOfLevels << ": "
                  << imageMetric->GetNumberOfValidPoints() << " valid points, fewer than the "
                  << m_Owner->m_Settings.minimumValidPoints
                  << " needed; the fixed and moving volumes, inside their masks, hardly overlap";
          Fail(message.str());
        }
        ++m_Report.iteration;
        m_Report.metricValue = m_Registration->GetOptimizer()->GetCurrentMetricValue();
        m_Report.levelSeconds = this->LevelSeconds();
        m_Report.levelEnded = false;
        m_Report.metric = metric;
        if (m_Owner->m_Observer)
        {
          m_Owner->m_Observer(m_Report);
        }
      }
    }
    /** The current level has ended (the next one begins, or the stage is done). */
    void
    EndLevel()
    {
      if (!m_LevelRunning)
      {
        return;
      }
      m_LevelRunning = false;
      m_Iterations.push_back(m_Report.iteration);
      m_Report.levelEnded = true;
      m_Report.levelSeconds = this->LevelSeconds();
      m_Report.metric = m_Registration->GetMetric();
      if (m_Owner->m_Observer)
      {
        m_Owner->m_Observer(m_Report);
      }
    }

    ElasticRegistration *                           m_Owner = nullptr;
    const TRegistration *                           m_Registration = nullptr;
    Object *                                        m_Metric = nullptr; // the registration's
    std::function<void(unsigned int, unsigned int)> m_SetLevel;         // (level, iterations)
    RegistrationIterationReport                     m_Report;
    std::vector<unsigned int>                       m_Iterations;

  private:
    double
    LevelSeconds() const
    {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_LevelStart).count();
    }
    std::chrono::steady_clock::time_point m_LevelStart = std::chrono::steady_clock::now();
    bool                                  m_LevelRunning = false;
  };

  typename MetricType::Pointer
  MakeMetric() const
  {
    const auto & s = m_Settings;
    auto         metric = cif::MakeRegistrationMetric<TImage>(s.metric, s.histogramBins, s.useGPU, s.itkMetric);
    if (s.movingInterpolationOrder == 3)
    {
      metric->SetMovingInterpolator(BSplineInterpolateImageFunction<TImage, double, double>::New());
    }
    if (m_FixedMask)
    {
      auto mask = ImageMaskSpatialObject<D, unsigned char>::New();
      mask->SetImage(m_FixedMask);
      mask->Update();
      metric->SetFixedImageMask(mask);
    }
    if (m_MovingMask)
    {
      auto mask = ImageMaskSpatialObject<D, unsigned char>::New();
      mask->SetImage(m_MovingMask);
      mask->Update();
      metric->SetMovingImageMask(mask);
    }
    return metric;
  }

  /** The schedule, the points and the metric of one stage's registration. */
  template <typename TRegistration>
  void
  Configure(TRegistration * registration) const
  {
    const auto &                                     s = m_Settings;
    typename TRegistration::SmoothingSigmasArrayType sigmas(s.levels);
    registration->SetFixedImage(m_Fixed);
    registration->SetMovingImage(m_Moving);
    registration->SetMetric(this->MakeMetric());
    registration->SetNumberOfLevels(s.levels);
    for (unsigned int level = 0; level < s.levels; ++level)
    {
      typename TRegistration::ShrinkFactorsPerDimensionContainerType factors;
      factors.Fill(1u << (s.levels - 1 - level));
      if (!s.shrinkFactors.empty())
      {
        std::copy_n(s.shrinkFactors[level].begin(), D, factors.begin());
      }
      registration->SetShrinkFactorsPerDimension(level, factors);
      sigmas[level] = s.smoothingSigmas.empty() ? s.levels - 1 - level : s.smoothingSigmas[level];
    }
    registration->SetSmoothingSigmasPerLevel(sigmas);
    registration->SetSmoothingSigmasAreSpecifiedInPhysicalUnits(false);
    registration->InPlaceOn();
    if (s.sampling == RegistrationSampling::RandomEveryIteration)
    {
      cif::SetRandomPointsPerEvaluation<TImage>(
        registration->GetModifiableMetric(), s.pointsPerIteration, s.samplingSeed);
    }
    else if (s.sampling != RegistrationSampling::Dense)
    {
      registration->SetMetricSamplingStrategy(s.sampling == RegistrationSampling::Random
                                                ? TRegistration::MetricSamplingStrategyEnum::RANDOM
                                                : TRegistration::MetricSamplingStrategyEnum::REGULAR);
      registration->SetMetricSamplingPercentage(s.samplingPercentage);
      registration->MetricSamplingReinitializeSeed(static_cast<int>(s.samplingSeed));
    }
  }

  /** Runs \a registration watched; records the stage's report. */
  template <typename TRegistration>
  void
  RunStage(TRegistration * registration, const char * stage, std::function<void(unsigned int, unsigned int)> setLevel)
  {
    auto observer = StageObserver<TRegistration>::New();
    observer->m_Owner = this;
    observer->m_Registration = registration;
    observer->m_Metric = registration->GetModifiableMetric();
    observer->m_SetLevel = std::move(setLevel);
    observer->m_Report.stage = stage;
    observer->m_Report.stageIndex = static_cast<unsigned int>(m_Stages.size());
    observer->m_Report.numberOfStages = m_NumberOfStages;
    observer->m_Report.numberOfLevels = m_Settings.levels;
    registration->AddObserver(MultiResolutionIterationEvent(), observer);
    registration->GetModifiableOptimizer()->AddObserver(IterationEvent(), observer);
    const auto start = std::chrono::steady_clock::now();
    registration->Update();
    observer->EndLevel();
    StageReport report;
    report.stage = stage;
    report.iterationsPerLevel = observer->m_Iterations;
    report.executionPath = cif::MetricExecutionPath<TImage>(registration->GetMetric());
    report.finalMetricValue = registration->GetOptimizer()->GetCurrentMetricValue();
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    m_Stages.push_back(report);
  }

  template <typename TLinear>
  typename TLinear::Pointer
  RunLinearStage(const char * stage)
  {
    using Registration = SharedDomainImageRegistrationMethodv4<TImage, TImage, TLinear>;
    auto transform = TLinear::New();
    auto initializer = CenteredTransformInitializer<TLinear, TImage, TImage>::New();
    initializer->SetTransform(transform);
    initializer->SetFixedImage(m_Fixed);
    initializer->SetMovingImage(m_Moving);
    if (m_Settings.linearInitialization == LinearStageInitialization::CentersOfMass)
    {
      initializer->MomentsOn();
    }
    else
    {
      initializer->GeometryOn();
    }
    initializer->InitializeTransform();
    if (m_Settings.linearInitialization == LinearStageInitialization::Identity)
    {
      transform->SetTranslation(typename TLinear::OutputVectorType(0.0)); // the centre stays
    }

    auto registration = Registration::New();
    this->Configure(registration.GetPointer());
    if (m_InitialTransform)
    {
      registration->SetMovingInitialTransform(m_InitialTransform);
    }
    registration->SetInitialTransform(transform);
    if (m_Settings.sampling == RegistrationSampling::RandomEveryIteration)
    {
      this->RunStochasticStage(registration.GetPointer(), stage, false);
      return registration->GetModifiableTransform();
    }
    auto optimizer = RegularStepGradientDescentOptimizerv4<double>::New();
    optimizer->SetLearningRate(1.0);
    optimizer->SetMinimumStepLength(1e-4);
    optimizer->SetRelaxationFactor(0.5);
    // matrix entries, angles and scales move points by |x| ~ the extent: their steps
    // scaled down; a translation's Jacobian column is the same at every point
    double extent = 0.0;
    for (unsigned int a = 0; a < D; ++a)
    {
      extent = std::max(extent, m_Fixed->GetLargestPossibleRegion().GetSize()[a] * m_Fixed->GetSpacing()[a]);
    }
    typename TLinear::JacobianType atCentre, atCorner;
    auto                           corner = transform->GetCenter();
    for (unsigned int a = 0; a < D; ++a)
    {
      corner[a] += extent;
    }
    transform->ComputeJacobianWithRespectToParameters(transform->GetCenter(), atCentre);
    transform->ComputeJacobianWithRespectToParameters(corner, atCorner);
    OptimizerParameters<double> scales(transform->GetNumberOfParameters());
    for (unsigned int k = 0; k < scales.size(); ++k)
    {
      bool translation = true;
      for (unsigned int i = 0; i < D; ++i)
      {
        translation = translation && std::abs(atCorner(i, k) - atCentre(i, k)) <= 1e-12 * extent;
      }
      scales[k] = translation ? 1.0 : extent * extent;
    }
    optimizer->SetScales(scales);
    registration->SetOptimizer(optimizer);
    // A plain pointer: the optimizer keeps the observer that keeps this function, so a
    // SmartPointer here would be a cycle that never frees the optimizer, its metric
    // and the metric's device buffers (memcheck's leak check found 2.3 MB a run).
    this->RunStage(
      registration.GetPointer(), stage, [optimizer = optimizer.GetPointer()](unsigned int, unsigned int iterations) {
        optimizer->SetNumberOfIterations(iterations);
      });
    return registration->GetModifiableTransform();
  }

  typename BSplineTransformType::Pointer
  RunBSplineStage()
  {
    using Registration = SharedDomainImageRegistrationMethodv4<TImage, TImage, BSplineTransformType>;
    auto transform = BSplineTransformType::New();
    transform->SetFixedParameters(BSplineGrid(m_Fixed, m_Settings, 0));
    transform->SetIdentity();
    typename Registration::TransformParametersAdaptorsContainerType adaptors;
    for (unsigned int level = 0; level < m_Settings.levels; ++level)
    {
      auto adaptor = BSplineTransformParametersAdaptor<BSplineTransformType>::New();
      adaptor->SetRequiredFixedParameters(BSplineGrid(m_Fixed, m_Settings, level));
      adaptors.push_back(adaptor);
    }
    auto registration = Registration::New();
    this->Configure(registration.GetPointer());
    if (m_InitialTransform && m_LinearTransform)
    {
      auto before = CompositeTransformType::New(); // the initial transform applied last
      before->AddTransform(const_cast<TransformType *>(m_InitialTransform.GetPointer()));
      before->AddTransform(m_LinearTransform);
      registration->SetMovingInitialTransform(before);
    }
    else if (m_InitialTransform || m_LinearTransform)
    {
      registration->SetMovingInitialTransform(m_LinearTransform ? m_LinearTransform.GetPointer()
                                                                : m_InitialTransform.GetPointer());
    }
    registration->SetInitialTransform(transform);
    registration->SetTransformParametersAdaptorsPerLevel(adaptors);
    if (m_Settings.sampling == RegistrationSampling::RandomEveryIteration)
    {
      this->RunStochasticStage(registration.GetPointer(), "B-spline", true);
      return registration->GetModifiableTransform();
    }
    // Its line search stops a level early when the derivative is not exactly the
    // value's gradient (ITK's metrics take the moving gradient from a
    // Gaussian-derivative image): with ITK's own metric too.
    auto optimizer = LBFGSOptimizerv4::New();
    optimizer->SetGradientConvergenceTolerance(1e-6);
    registration->SetOptimizer(optimizer);
    // A plain pointer, as in RunLinearStage: no cycle through the optimizer's observer.
    this->RunStage(registration.GetPointer(),
                   "B-spline",
                   [optimizer = optimizer.GetPointer()](unsigned int, unsigned int iterations) {
                     optimizer->SetNumberOfIterations(iterations);
                     optimizer->SetMaximumNumberOfFunctionEvaluations(2 * iterations);
                   });
    return registration->GetModifiableTransform();
  }

  /** A stage with new random points at every iteration (see the class comment).
   * \a localSupport: the B-spline stage (scales 1, as elastix's default for it). */
  template <typename TRegistration>
  void
  RunStochasticStage(TRegistration * registration, const char * stage, bool localSupport)
  {
    auto * metric = dynamic_cast<MetricType *>(registration->GetModifiableMetric());
    if (m_Settings.stochasticOptimizer == StochasticOptimizer::DecayingGain)
    {
      this->RunDecayingGainStage(registration, stage, localSupport, metric);
      return;
    }
    using EstimatorType = AdaptiveStochasticGradientDescentParameterEstimator<MetricType>;
    auto estimator = EstimatorType::New();
    estimator->SetMetric(metric);
    estimator->SetRandomSeed(m_Settings.samplingSeed);
    estimator->SetExactMetricMaker(
      [this](MetricType * sampled, const typename MetricType::VirtualPointSetType * points) {
        return this->MakeExactTwin(sampled, points);
      });
    auto optimizer = AdaptiveStochasticGradientDescentOptimizerv4::New();
    optimizer->SetParameterEstimator(estimator);
    optimizer->SetDoEstimateScales(!localSupport);
    if (m_Settings.adaptiveDescentSetup)
    {
      m_Settings.adaptiveDescentSetup(*optimizer);
    }
    if (m_Settings.minimumValidFraction > 0.0)
    {
      optimizer->SetValidSampleRequirement(
        static_cast<SizeValueType>(std::ceil(m_Settings.minimumValidFraction * m_Settings.pointsPerIteration)),
        m_Settings.samplingAttempts,
        [metric] { return metric->GetNumberOfValidPoints(); });
    }
    registration->SetOptimizer(optimizer);
    std::vector<AdaptiveStochasticGradientDescentEstimate> estimates;
    // each level's estimate, as its iterations start
    const auto collect =
      optimizer->AddObserver(StartEvent(), [optimizer = optimizer.GetPointer(), &estimates](const EventObject &) {
        estimates.push_back(optimizer->GetLastEstimate());
      });
    if (!localSupport)
    {
      optimizer->SetScalesEstimator(estimator->MakeScalesEstimator());
    }
    // A plain pointer, as in RunLinearStage: no cycle through the optimizer's observer.
    this->RunStage(registration, stage, [optimizer = optimizer.GetPointer()](unsigned int, unsigned int iterations) {
      optimizer->SetNumberOfIterations(iterations);
    });
    optimizer->RemoveObserver(collect);
    m_Stages.back().estimatesPerLevel = estimates;
  }

  /** A twin of the level's \a sampled metric over \a points: the same kind, images,
   * masks, virtual domain, interpolators and gradient sources, the transforms shared,
   * for the exact gradients of the adaptive descent's estimate. */
  typename MetricType::Pointer
  MakeExactTwin(MetricType * sampled, const typename MetricType::VirtualPointSetType * points) const
  {
    auto exact = this->MakeMetric();
    exact->SetFixedImage(sampled->GetFixedImage());
    exact->SetMovingImage(sampled->GetMovingImage());
    exact->SetVirtualDomain(sampled->GetVirtualSpacing(),
                            sampled->GetVirtualOrigin(),
                            sampled->GetVirtualDirection(),
                            sampled->GetVirtualRegion());
    exact->SetFixedTransform(sampled->GetModifiableFixedTransform());
    exact->SetMovingTransform(sampled->GetModifiableMovingTransform());
    exact->SetFixedInterpolator(sampled->GetModifiableFixedInterpolator());
    exact->SetMovingInterpolator(sampled->GetModifiableMovingInterpolator());
    exact->SetUseFixedImageGradientFilter(sampled->GetUseFixedImageGradientFilter());
    exact->SetUseMovingImageGradientFilter(sampled->GetUseMovingImageGradientFilter());
    exact->SetFixedSampledPointSet(points);
    exact->SetUseSampledPointSet(true);
    exact->Initialize();
    return exact;
  }

  /** The stochastic stage with DecayingGainGradientDescentOptimizerv4: each step moving
   * no point by more than the fixed image's mean voxel spacing. */
  template <typename TRegistration>
  void
  RunDecayingGainStage(TRegistration * registration, const char * stage, bool localSupport, MetricType * metric)
  {
    const auto points =
      GridPointsOver<typename MetricType::VirtualPointSetType>(m_Fixed.GetPointer(), D == 3 ? 16u : 64u);
    auto         optimizer = MakeDecayingGainGradientDescent<MetricType>(metric, points.GetPointer(), localSupport);
    const auto & s = m_Fixed->GetSpacing();
    const double spacing = std::accumulate(s.begin(), s.end(), 0.0) / D;
    registration->SetOptimizer(optimizer);
    // A plain pointer, as in RunLinearStage: no cycle through the optimizer's observer.
    this->RunStage(
      registration, stage, [optimizer = optimizer.GetPointer(), spacing](unsigned int, unsigned int iterations) {
        optimizer->SetNumberOfIterations(iterations);
        optimizer->SetMaximumStepSizeInPhysicalUnits(spacing);
      });
  }

  typename TImage::ConstPointer            m_Fixed;
  typename TImage::ConstPointer            m_Moving;
  typename MaskImageType::ConstPointer     m_FixedMask;
  typename MaskImageType::ConstPointer     m_MovingMask;
  typename TransformType::ConstPointer     m_InitialTransform;
  const ElasticRegistrationSettings        m_Settings;
  Observer                                 m_Observer;
  std::vector<StageReport>                 m_Stages;
  unsigned int                             m_NumberOfStages = 0;
  typename CompositeTransformType::Pointer m_Transform;
  typename LinearTransformType::Pointer    m_LinearTransform;
  typename BSplineTransformType::Pointer   m_BSplineTransform;
};
} // namespace itk

#endif
