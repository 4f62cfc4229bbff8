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
#ifndef cifMetricTestSupport_h
#define cifMetricTestSupport_h

// Set-up shared by the GPU metric tests: a fresh random image pair (smooth content
// and its random affine or B-spline warp), the transforms, masks and sampled points,
// and the comparison of a module metric with ITK's own on the same configuration.
#include "cifMetricSumsDevice.h"
#include "cifTestHelpers.h"
#include "itkAffineTransform.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkBSplineTransform.h"
#include "itkBSplineTransformInitializer.h"
#include "itkCompositeTransform.h"
#include "itkEuler3DTransform.h"
#include "itkImageMaskSpatialObject.h"
#include "itkImageRegionIteratorWithIndex.h"
#include "itkCudaExecutionPath.h"
#include "itkImageToImageMetricv4.h"
#include "itkLinearInterpolateImageFunction.h"
#include "itkObjectFactoryBase.h"
#include "itkPointSet.h"
#include "itkTranslationTransform.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

namespace cif_test
{
/** Transform kinds the metric tests draw. */
enum class MetricTransformKind
{
  Affine,
  Translation,
  Rigid, ///< Euler2D / Euler3D: a nonlinear parametrization of the affine family
  BSpline,
  Composite ///< an affine fixed stage after an optimized B-spline (ITK's and elastix's layout)
};

inline const char *
ToString(MetricTransformKind k)
{
  switch (k)
  {
    case MetricTransformKind::Affine:
      return "affine";
    case MetricTransformKind::Translation:
      return "translation";
    case MetricTransformKind::Rigid:
      return "rigid";
    case MetricTransformKind::BSpline:
      return "bspline";
    default:
      return "composite";
  }
}

/** A random B-spline transform over \a image with \a meshSize cells per axis and
 * coefficients of about \a amplitude physical units. */
template <unsigned int D>
typename itk::BSplineTransform<double, D, 3>::Pointer
MakeRandomBSpline(const itk::ImageBase<D> * image, unsigned int meshSize, double amplitude, std::mt19937 & rng)
{
  using T = itk::BSplineTransform<double, D, 3>;
  auto transform = T::New();
  using Initializer = itk::BSplineTransformInitializer<T, itk::ImageBase<D>>;
  auto initializer = Initializer::New();
  initializer->SetTransform(transform);
  initializer->SetImage(image);
  typename T::MeshSizeType mesh;
  mesh.Fill(meshSize);
  initializer->SetTransformDomainMeshSize(mesh);
  initializer->InitializeTransform();
  std::normal_distribution<double> normal(0.0, amplitude);
  typename T::ParametersType       parameters(transform->GetNumberOfParameters());
  for (unsigned int k = 0; k < parameters.size(); ++k)
  {
    parameters[k] = normal(rng);
  }
  transform->SetParameters(parameters);
  return transform;
}

/** A random affine-family transform near identity about the image's centre. */
template <unsigned int D>
typename itk::Transform<double, D, D>::Pointer
MakeRandomAffineFamily(MetricTransformKind kind, const itk::ImageBase<D> * image, std::mt19937 & rng)
{
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  typename itk::ImageBase<D>::PointType  center;
  typename itk::ImageBase<D>::IndexType  centerIndex;
  for (unsigned int a = 0; a < D; ++a)
  {
    centerIndex[a] = image->GetLargestPossibleRegion().GetIndex()[a] +
                     static_cast<long>(image->GetLargestPossibleRegion().GetSize()[a] / 2);
  }
  image->TransformIndexToPhysicalPoint(centerIndex, center);
  if (kind == MetricTransformKind::Translation)
  {
    auto                                                            t = itk::TranslationTransform<double, D>::New();
    typename itk::TranslationTransform<double, D>::OutputVectorType offset;
    for (unsigned int a = 0; a < D; ++a)
    {
      offset[a] = 1.5 * u(rng) * image->GetSpacing()[a];
    }
    t->SetOffset(offset);
    return t;
  }
  if constexpr (D == 3)
  {
    if (kind == MetricTransformKind::Rigid)
    {
      auto t = itk::Euler3DTransform<double>::New();
      t->SetCenter(center);
      t->SetRotation(0.05 * u(rng), 0.05 * u(rng), 0.05 * u(rng));
      itk::Vector<double, 3> translation;
      for (unsigned int a = 0; a < 3; ++a)
      {
        translation[a] = u(rng);
      }
      t->SetTranslation(translation);
      return t.GetPointer();
    }
  }
  auto t = itk::AffineTransform<double, D>::New();
  t->SetCenter(center);
  typename itk::AffineTransform<double, D>::MatrixType       matrix;
  typename itk::AffineTransform<double, D>::OutputVectorType translation;
  for (unsigned int i = 0; i < D; ++i)
  {
    for (unsigned int j = 0; j < D; ++j)
    {
      matrix[i][j] = (i == j ? 1.0 : 0.0) + 0.04 * u(rng);
    }
    translation[i] = u(rng);
  }
  t->SetMatrix(matrix);
  t->SetTranslation(translation);
  return t;
}

/** A mask over \a image's grid: an ellipsoid of random centre covering about half. */
template <unsigned int D>
typename itk::ImageMaskSpatialObject<D, unsigned char>::Pointer
MakeRandomMask(const itk::ImageBase<D> * image, std::mt19937 & rng)
{
  using MaskImage = itk::Image<unsigned char, D>;
  auto mask = MaskImage::New();
  mask->CopyInformation(image);
  mask->SetRegions(image->GetLargestPossibleRegion());
  mask->Allocate();
  std::uniform_real_distribution<double> u(0.35, 0.65);
  double                                 center[D], radius[D];
  for (unsigned int a = 0; a < D; ++a)
  {
    const double size = static_cast<double>(image->GetLargestPossibleRegion().GetSize()[a]);
    center[a] = image->GetLargestPossibleRegion().GetIndex()[a] + u(rng) * size;
    radius[a] = 0.4 * size;
  }
  for (itk::ImageRegionIteratorWithIndex<MaskImage> it(mask, mask->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    double r = 0.0;
    for (unsigned int a = 0; a < D; ++a)
    {
      const double x = (it.GetIndex()[a] - center[a]) / radius[a];
      r += x * x;
    }
    it.Set(r < 1.0 ? 1 : 0);
  }
  auto spatial = itk::ImageMaskSpatialObject<D, unsigned char>::New();
  spatial->SetImage(mask);
  spatial->Update();
  return spatial;
}
enum class Sampling
{
  Dense,
  Regular,
  Random
};

/** Where the B-spline's control grid lies against the fixed image (the virtual
 * domain): over it, axis-aligned (ITK's BSplineTransformInitializer; the dense
 * domain then walks in cell boxes); over its inner part (points outside the valid
 * region); or turned against it by 0.3 rad (the points sorted by cell). */
enum class GridPlacement
{
  OverImage,
  OverInnerPart,
  Turned
};

struct MetricCase
{
  MetricTransformKind transform = MetricTransformKind::Affine;
  Sampling            sampling = Sampling::Dense;
  bool                gradientFilter = true;
  bool                masks = false;
  bool                cubicMoving = false;
  bool                oblique = false; ///< fixed and moving images with rotated directions
  GridPlacement       grid = GridPlacement::OverImage;
  /** The moving image blended with the fixed one, (1 - w) moving + w fixed at each
   * moving voxel's physical point: related images, as a registration's are
   * (Correlation's value, -r^2, is ill-conditioned for unrelated images, whose
   * correlation r can come out near 0). */
  double movingFromFixed = 0.0;
  /** Cells per axis of the B-spline stage (alone; a composite's stage has 4). */
  unsigned int bsplineMesh = 5;
};

inline std::string
Describe(const MetricCase & c)
{
  std::ostringstream s;
  s << ToString(c.transform) << ", "
    << (c.sampling == Sampling::Dense     ? "dense"
        : c.sampling == Sampling::Regular ? "regular"
                                          : "random")
    << ", " << (c.gradientFilter ? "gradient filter" : "calculator") << ", " << (c.masks ? "masks" : "no mask") << ", "
    << (c.cubicMoving ? "cubic" : "linear") << " moving" << (c.oblique ? ", oblique images" : "")
    << (c.grid == GridPlacement::OverInnerPart ? ", grid over the inner part"
        : c.grid == GridPlacement::Turned      ? ", grid turned"
                                               : "");
  if (c.movingFromFixed != 0.0)
  {
    s << ", moving " << c.movingFromFixed << " fixed";
  }
  if (c.transform == MetricTransformKind::BSpline && c.bsplineMesh != MetricCase{}.bsplineMesh)
  {
    s << ", mesh " << c.bsplineMesh;
  }
  return s.str();
}

template <typename TPixel, unsigned int D>
struct MetricFixture
{
  using ImageType = itk::Image<TPixel, D>;
  using TransformType = itk::Transform<double, D, D>;
  using PointSetType = typename itk::ImageToImageMetricv4<ImageType, ImageType>::FixedSampledPointSetType;

  typename ImageType::Pointer                                     fixed;
  typename ImageType::Pointer                                     moving;
  typename TransformType::Pointer                                 transform;
  typename PointSetType::Pointer                                  points;
  typename itk::ImageMaskSpatialObject<D, unsigned char>::Pointer fixedMask, movingMask;

  MetricFixture(const MetricCase & c, std::uint32_t seed)
  {
    std::mt19937                  rng(seed);
    typename ImageType::SizeType  size;
    typename ImageType::IndexType start;
    for (unsigned int a = 0; a < D; ++a)
    {
      size[a] = (D == 3 ? 28 : 64) + 3 * a;
      start[a] = static_cast<long>(a);
    }
    fixed = MakeImage<ImageType>(size, start, Content::Smooth, rng());
    moving = MakeImage<ImageType>(size, start, Content::Smooth, rng());
    typename ImageType::PointType origin;
    for (unsigned int a = 0; a < D; ++a)
    {
      origin[a] = 3.0 * a - 2.0;
    }
    fixed->SetOrigin(origin);
    moving->SetOrigin(origin);
    if (c.oblique)
    {
      fixed->SetDirection(RotationDirection<D>(0.4));
      moving->SetDirection(RotationDirection<D>(-0.25));
    }
    if (c.movingFromFixed != 0.0)
    {
      // At the same physical points (the images may be turned against each other).
      auto fixedAt = itk::LinearInterpolateImageFunction<ImageType, double>::New();
      fixedAt->SetInputImage(fixed);
      for (itk::ImageRegionIteratorWithIndex<ImageType> it(moving, moving->GetBufferedRegion()); !it.IsAtEnd(); ++it)
      {
        typename ImageType::PointType p;
        moving->TransformIndexToPhysicalPoint(it.GetIndex(), p);
        if (fixedAt->IsInsideBuffer(p))
        {
          it.Set(static_cast<TPixel>((1.0 - c.movingFromFixed) * it.Get() + c.movingFromFixed * fixedAt->Evaluate(p)));
        }
      }
    }
    const auto gridImage = GridImage(c.grid);
    switch (c.transform)
    {
      case MetricTransformKind::BSpline:
        transform = MakeRandomBSpline<D>(gridImage, c.bsplineMesh, 0.6, rng).GetPointer();
        break;
      case MetricTransformKind::Composite:
      {
        auto composite = itk::CompositeTransform<double, D>::New();
        composite->AddTransform(MakeRandomAffineFamily<D>(MetricTransformKind::Affine, fixed, rng));
        composite->AddTransform(MakeRandomBSpline<D>(gridImage, 4, 0.6, rng));
        composite->SetOnlyMostRecentTransformToOptimizeOn();
        transform = composite.GetPointer();
        break;
      }
      default:
        transform = MakeRandomAffineFamily<D>(c.transform, fixed, rng);
    }
    if (c.sampling != Sampling::Dense)
    {
      points = PointSetType::New();
      std::uniform_real_distribution<double> u(0.0, 1.0);
      const auto                             region = fixed->GetLargestPossibleRegion();
      unsigned long                          n = 0, visited = 0;
      for (itk::ImageRegionConstIteratorWithIndex<ImageType> it(fixed, region); !it.IsAtEnd(); ++it)
      {
        const bool take = c.sampling == Sampling::Random ? u(rng) < 0.1 : (visited++ % 7) == 0;
        if (!take)
        {
          continue;
        }
        itk::ContinuousIndex<double, D> index;
        for (unsigned int a = 0; a < D; ++a)
        {
          index[a] = it.GetIndex()[a] + (c.sampling == Sampling::Random ? u(rng) - 0.5 : 0.3 * (u(rng) - 0.5));
        }
        typename PointSetType::PointType p;
        fixed->TransformContinuousIndexToPhysicalPoint(index, p);
        points->SetPoint(n++, p);
      }
    }
    if (c.masks)
    {
      fixedMask = MakeRandomMask<D>(fixed, rng);
      movingMask = MakeRandomMask<D>(moving, rng);
    }
  }

  /** The image whose extent the B-spline grid covers (see GridPlacement). */
  typename itk::ImageBase<D>::ConstPointer
  GridImage(GridPlacement placement) const
  {
    if (placement == GridPlacement::OverImage)
    {
      return fixed.GetPointer();
    }
    auto image = ImageType::New();
    image->CopyInformation(fixed);
    auto region = fixed->GetLargestPossibleRegion();
    if (placement == GridPlacement::OverInnerPart)
    {
      for (unsigned int a = 0; a < D; ++a)
      {
        region.SetIndex(a, region.GetIndex()[a] + 4);
        region.SetSize(a, region.GetSize()[a] - 10);
      }
    }
    else
    {
      image->SetDirection(fixed->GetDirection() * RotationDirection<D>(0.3));
    }
    image->SetRegions(region);
    return image.GetPointer();
  }

  template <typename TMetric>
  void
  Configure(TMetric * metric, const MetricCase & c) const
  {
    metric->SetFixedImage(fixed);
    metric->SetMovingImage(moving);
    metric->SetMovingTransform(transform);
    if (c.cubicMoving)
    {
      auto cubic = itk::BSplineInterpolateImageFunction<ImageType, double, double>::New();
      cubic->SetSplineOrder(3);
      metric->SetMovingInterpolator(cubic);
    }
    metric->SetUseMovingImageGradientFilter(c.gradientFilter);
    if (points)
    {
      metric->SetFixedSampledPointSet(points);
      metric->SetUseSampledPointSet(true);
    }
    if (c.masks)
    {
      metric->SetFixedImageMask(fixedMask);
      metric->SetMovingImageMask(movingMask);
    }
    metric->Initialize();
  }
};

struct Evaluation
{
  double             value = 0.0;
  itk::Array<double> derivative;
  itk::SizeValueType validPoints = 0;
};

template <typename TMetric>
Evaluation
Evaluate(TMetric * metric)
{
  Evaluation e;
  // The array as an optimizer hands it over: of the derivative's size already, and
  // holding an earlier evaluation's values (NaN here), which must not show through
  // the metric's zeros.
  typename TMetric::DerivativeType derivative(metric->GetNumberOfParameters());
  derivative.Fill(std::numeric_limits<double>::quiet_NaN());
  typename TMetric::MeasureType value;
  metric->GetValueAndDerivative(value, derivative);
  e.value = value;
  e.derivative = derivative;
  e.validPoints = metric->GetNumberOfValidPoints();
  return e;
}

inline double
Norm(const itk::Array<double> & a)
{
  double s = 0.0;
  for (unsigned int k = 0; k < a.size(); ++k)
  {
    s += a[k] * a[k];
  }
  return std::sqrt(s);
}

/** ITK's metric \a TITK (or a twin, which derives from it) opened up for the tests:
 * its per-point sampling (TransformAndEvaluateFixedPoint / MovingPoint), evaluation
 * over given virtual points after a dense Initialize() (as the twins do with random
 * points per evaluation), and, for Mattes, the histogram state its Initialize()
 * leaves (MattesBins, compiled only where called). */
template <typename TITK>
class OpenedITKMetric : public TITK
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(OpenedITKMetric);
  using Self = OpenedITKMetric;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  using TITK::TransformAndEvaluateFixedPoint;
  using TITK::TransformAndEvaluateMovingPoint;

  void
  EvaluateOver(const typename TITK::VirtualPointSetType * points)
  {
    this->m_VirtualSampledPointSet = const_cast<typename TITK::VirtualPointSetType *>(points);
    this->m_UseSampledPointSet = true;
  }

  /** Mattes: true min/max fixed, moving; bin size and normalized minimum fixed, moving. */
  std::vector<double>
  MattesBins() const
  {
    return { this->m_FixedImageTrueMin,  this->m_FixedImageTrueMax,       this->m_MovingImageTrueMin,
             this->m_MovingImageTrueMax, this->m_FixedImageBinSize,       this->m_FixedImageNormalizedMin,
             this->m_MovingImageBinSize, this->m_MovingImageNormalizedMin };
  }

protected:
  OpenedITKMetric() = default;
  ~OpenedITKMetric() override = default;
};

/** ITK's own metric \a TITK, also where a factory that overrides it with \a TTwin is
 * registered: RegistrationGPUFactory::RegisterOneFactory() (the FactoryGivesTheTwin
 * tests) registers it for the rest of the process, and TITK::New() then gives the
 * twin: run as one process (the whole test binary), a later comparison with "ITK"
 * compared the twin with itself. The override is switched off for this New() only. */
template <typename TITK, typename TTwin>
typename TITK::Pointer
NewITKOwn()
{
  const char *                                           className = typeid(TITK).name();
  const char *                                           twinName = typeid(TTwin).name();
  std::vector<std::pair<itk::ObjectFactoryBase *, bool>> saved;
  for (itk::ObjectFactoryBase * factory : itk::ObjectFactoryBase::GetRegisteredFactories())
  {
    saved.emplace_back(factory, factory->GetEnableFlag(className, twinName));
    factory->SetEnableFlag(false, className, twinName);
  }
  typename TITK::Pointer metric = TITK::New();
  for (const auto & s : saved)
  {
    s.first->SetEnableFlag(s.second, className, twinName);
  }
  EXPECT_EQ(dynamic_cast<TTwin *>(metric.GetPointer()), nullptr) << "ITK's New() gave the twin";
  return metric;
}

/** The largest differences ExpectMatchesITK measured (for the tests' reports). */
struct MetricDifferences
{
  double value = 0.0;      ///< |module - ITK| / |ITK|
  double derivative = 0.0; ///< |module - ITK| / |ITK| (Euclidean norms)

  void
  Add(double valueDifference, double derivativeDifference)
  {
    value = std::max(value, valueDifference);
    derivative = std::max(derivative, derivativeDifference);
  }
};

/** The module's metric \a TModule against ITK's \a TITK on case \a c: value within
 * 1e-5, derivative within 1e-4 of its norm, the same number of valid points.
 * \a report (optional) gets the module's timing report (it names the point grouping);
 * \a measured (optional) the relative differences, as the largest so far. */
template <typename TITK, typename TModule>
void
ExpectMatchesITK(const MetricCase &  c,
                 bool                useGPU,
                 std::string *       report = nullptr,
                 MetricDifferences * measured = nullptr)
{
  using ImageType = typename TITK::FixedImageType;
  constexpr unsigned int D = ImageType::ImageDimension;
  const std::uint32_t    seed = FreshSeed();
  SCOPED_TRACE(Describe(c) + ", seed " + std::to_string(seed));
  MetricFixture<typename ImageType::PixelType, D> fixture(c, seed);
  auto                                            reference = NewITKOwn<TITK, TModule>();
  fixture.Configure(reference.GetPointer(), c);
  auto module = TModule::New();
  module->SetUseGPU(useGPU);
  fixture.Configure(module.GetPointer(), c);

  const Evaluation expected = Evaluate(reference.GetPointer());
  const Evaluation actual = Evaluate(module.GetPointer());
  ASSERT_EQ(module->GetLastExecutionPath(), useGPU ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU)
    << module->GetLastExecutionReason();
  ASSERT_GT(expected.validPoints, 0u);
  EXPECT_EQ(actual.validPoints, expected.validPoints);
  EXPECT_LE(std::abs(actual.value - expected.value), 1e-5 * std::abs(expected.value))
    << "value " << actual.value << " vs ITK " << expected.value;
  ASSERT_EQ(actual.derivative.size(), expected.derivative.size());
  const itk::Array<double> difference(actual.derivative - expected.derivative);
  const double             norm = Norm(expected.derivative);
  ASSERT_GT(norm, 0.0);
  EXPECT_LE(Norm(difference), 1e-4 * norm) << "derivative error " << Norm(difference) / norm << " of its norm";
  if (measured != nullptr)
  {
    measured->Add(std::abs(actual.value - expected.value) / std::abs(expected.value), Norm(difference) / norm);
  }

  // GetValue alone: the same value.
  EXPECT_LE(std::abs(module->GetValue() - expected.value), 1e-5 * std::abs(expected.value));
  if (report != nullptr)
  {
    *report = module->GetTimingReport();
  }
}

/** Dense B-spline evaluations (alone and as the last stage of a composite), in
 * cell boxes where the grid's axes are the fixed image's (also oblique, also with
 * points outside the grid's valid region) and in sorted points where the grid is
 * turned against it: each matches ITK, and the report names the grouping. Each
 * case starts from \a base; \a measured (optional) gets the largest differences. */
template <typename TITK, typename TModule>
void
ExpectCellBoxCasesMatchITK(bool useGPU, MetricDifferences * measured = nullptr, const MetricCase & base = {})
{
  int n = 0;
  for (auto grid : { GridPlacement::OverImage, GridPlacement::OverInnerPart, GridPlacement::Turned })
  {
    for (bool oblique : { false, true })
    {
      for (auto transform : { MetricTransformKind::BSpline, MetricTransformKind::Composite })
      {
        MetricCase c = base;
        c.transform = transform;
        c.grid = grid;
        c.oblique = oblique;
        // Masks on straight images only: two random half-volume ellipsoids in
        // images turned against each other may not overlap at all.
        c.masks = !oblique && transform == MetricTransformKind::Composite;
        c.gradientFilter = n % 2 == 0;
        c.cubicMoving = n % 4 == 3;
        ++n;
        std::string report;
        ExpectMatchesITK<TITK, TModule>(c, useGPU, &report, measured);
        const bool boxes = report.find("cell boxes") != std::string::npos;
        EXPECT_EQ(boxes, grid != GridPlacement::Turned) << Describe(c) << ": " << report;
      }
    }
  }
}

/** Two evaluations of the module's metric \a TModule (B-spline, dense: the gather,
 * and for Mattes the histogram) give the same bits. */
template <typename TModule>
void
ExpectSameBitsTwice(bool useGPU, const MetricCase & base = {})
{
  MetricCase c = base;
  c.transform = MetricTransformKind::BSpline;
  // 28 control planes along z, as the benchmark's 25^3 mesh: four chunks, ending at
  // planes 5, 10, 20 and 28 (PlanControlPlaneChunks), so that blocks wait for each.
  c.bsplineMesh = 25;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  MetricFixture<float, 3> fixture(c, seed);
  auto                    module = TModule::New();
  module->SetUseGPU(useGPU);
  fixture.Configure(module.GetPointer(), c);
  const Evaluation first = Evaluate(module.GetPointer());
  const Evaluation second = Evaluate(module.GetPointer());
  EXPECT_EQ(std::memcmp(&first.value, &second.value, sizeof(double)), 0);
  ASSERT_EQ(first.derivative.size(), second.derivative.size());
  EXPECT_EQ(std::memcmp(
              first.derivative.data_block(), second.derivative.data_block(), first.derivative.size() * sizeof(double)),
            0);
}

/** A dense B-spline evaluation on the GPU whose first kernel reads the coefficients
 * as their chunks of planes arrive (cifControlPlaneArrival.h) gives the bits of one
 * whose coefficients were all sent before it: with a pause after each chunk, so that
 * the kernel's blocks really wait, and without. The parameters alternate between two
 * random sets, so that a block that did not wait would read the other set's
 * coefficients, still on the device from the evaluation before. */
template <typename TModule>
void
ExpectArrivingCoefficientsGiveTheBitsSentBefore(const MetricCase & base = {})
{
  struct RestoreBehaviour
  {
    ~RestoreBehaviour() { cif::ControlPlaneUpload::SetBehaviourForTesting(true, 0); }
  } restore;
  MetricCase c = base;
  c.transform = MetricTransformKind::BSpline;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  MetricFixture<float, 3>          fixture(c, seed);
  std::mt19937                     rng(seed + 1);
  std::normal_distribution<double> step(0.0, 0.4);
  const auto                       first = fixture.transform->GetParameters();
  auto                             second = first;
  for (unsigned int k = 0; k < second.Size(); ++k)
  {
    second[k] += step(rng);
  }
  auto module = TModule::New();
  module->SetUseGPU(true);
  fixture.Configure(module.GetPointer(), c);
  const auto evaluateWith = [&](const itk::OptimizerParameters<double> & parameters) {
    fixture.transform->SetParametersByValue(parameters);
    const Evaluation e = Evaluate(module.GetPointer());
    EXPECT_EQ(module->GetLastExecutionPath(), itk::CudaExecutionPath::GPU) << module->GetLastExecutionReason();
    return e;
  };
  cif::ControlPlaneUpload::SetBehaviourForTesting(false, 0);
  const Evaluation sentFirst = evaluateWith(first);
  const Evaluation sentSecond = evaluateWith(second);
  EXPECT_NE(sentFirst.value, sentSecond.value) << "the two parameter sets must give different results";
  EXPECT_NE(module->GetTimingReport().find("cell boxes"), std::string::npos) << module->GetTimingReport();
  for (int pause : { 2000, 0 })
  {
    SCOPED_TRACE("pause after each chunk " + std::to_string(pause) + " us");
    cif::ControlPlaneUpload::SetBehaviourForTesting(true, pause);
    for (int round = 0; round < 2; ++round)
    {
      for (const Evaluation * sent : { &sentFirst, &sentSecond })
      {
        const Evaluation arriving = evaluateWith(sent == &sentFirst ? first : second);
        EXPECT_TRUE(SameBits(&arriving.value, &sent->value, 1));
        ASSERT_EQ(arriving.derivative.size(), sent->derivative.size());
        EXPECT_TRUE(SameBits(arriving.derivative.data_block(), sent->derivative.data_block(), sent->derivative.size()));
      }
    }
  }
}

/** The 60 configurations of the metric tests (5 transform kinds x dense / regular /
 * random points x gradient filter / calculator x masks or none, linear or cubic
 * moving interpolation alternating), each from \a base. */
inline std::vector<MetricCase>
EveryMetricCase(const MetricCase & base = {})
{
  std::vector<MetricCase> cases;
  for (auto transform : { MetricTransformKind::Affine,
                          MetricTransformKind::Translation,
                          MetricTransformKind::Rigid,
                          MetricTransformKind::BSpline,
                          MetricTransformKind::Composite })
  {
    for (auto sampling : { Sampling::Dense, Sampling::Regular, Sampling::Random })
    {
      for (bool gradientFilter : { true, false })
      {
        for (bool masks : { false, true })
        {
          MetricCase c = base;
          c.transform = transform;
          c.sampling = sampling;
          c.gradientFilter = gradientFilter;
          c.masks = masks;
          c.cubicMoving = (static_cast<int>(transform) + static_cast<int>(sampling) + masks) % 2 == 1;
          cases.push_back(c);
        }
      }
    }
  }
  return cases;
}

} // namespace cif_test

#endif
