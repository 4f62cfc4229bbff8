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
#ifndef itkImageMetricv4Scene_h
#define itkImageMetricv4Scene_h

#include "cifBSplinePrefilterDevice.h" // ConvertOnDevice
#include "cifCudaRuntime.h"
#include "cifDeviceBuffer.h"
#include "cifDeviceMemoryLimit.h"
#include "cifMattesHistogram.h"
#include "cifMetricSumsDevice.h"
#include "cifMetricSumsHost.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkBSplinePrefilterGPUImageFilter.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaGeometry.h"
#include "itkCudaParallelFor.h"
#include "itkImageMaskSpatialObject.h"
#include "itkLinearInterpolateImageFunction.h"
#include "itkMetricMovingTransformSplit.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace itk
{
/** What a GPU metric hands its scene from the ITK metric's protected state (one
 * place that knows the v4 metric's members; filled by the metric itself). */
template <typename TMetric>
struct ImageMetricv4State
{
  using FixedImageType = typename TMetric::FixedImageType;
  using MovingImageType = typename TMetric::MovingImageType;
  using VirtualImageType = typename TMetric::VirtualImageType;
  using MovingGradientImageType = typename TMetric::MovingImageGradientImageType;

  const FixedImageType *                           fixedImage = nullptr;
  const MovingImageType *                          movingImage = nullptr;
  const VirtualImageType *                         virtualImage = nullptr;
  typename VirtualImageType::RegionType            virtualRegion;
  const typename TMetric::VirtualPointSetType *    sampledPoints = nullptr; ///< null: dense
  const typename TMetric::FixedTransformType *     fixedTransform = nullptr;
  const typename TMetric::FixedInterpolatorType *  fixedInterpolator = nullptr;
  const typename TMetric::MovingInterpolatorType * movingInterpolator = nullptr;
  const typename TMetric::FixedImageMaskType *     fixedMask = nullptr;
  const typename TMetric::MovingImageMaskType *    movingMask = nullptr;
  const MovingGradientImageType *                  movingGradientImage = nullptr; ///< the filter's output
  /** The same gradient, kept on the device by the GPU gradient filter (D doubles a
   * pixel, interleaved), whose host output is then not filled: the GPU path takes it
   * from there. Null: the host image holds it. */
  const double * movingGradientOnDevice = nullptr;
  bool           gradientFromDefaultCalculator = false;
  bool           needsFixedGradient = false;
  bool           floatingPointCorrection = false;
};

/** \a image's buffer grid and geometry as the metric math reads it, over \a data (its
 * buffer, or a converted copy of it on the same grid). */
template <typename TImage, typename TData>
cif::MetricImage<TData>
MetricImageOf(const TImage * image, const TData * data)
{
  constexpr unsigned int  D = TImage::ImageDimension;
  cif::MetricImage<TData> m;
  m.data = data;
  const auto region = image->GetBufferedRegion();
  for (unsigned int a = 0; a < D; ++a)
  {
    m.SetBufferGrid(static_cast<int>(a), region.GetIndex()[a], static_cast<std::int64_t>(region.GetSize()[a]));
    m.origin[a] = image->GetOrigin()[a];
  }
  PointToIndexMatrix<D>(image, m.pointToIndex);
  return m;
}

/** \class ImageMetricv4Scene
 * \brief A v4 image metric's constant inputs as the module's plain data
 * (cif::MetricScene), on the host and, for the GPU path, on the device; the point
 * order of the B-spline gather, kept while the grid and points stay; and the
 * evaluation of the module's metrics over them.
 *
 * Prepare() is called from the metric's Initialize(); Supported() is false (and
 * Reason() says why) for inputs the module does not take, where the metric runs
 * ITK's code.
 *
 * \ingroup CudaImageFilters
 */
template <typename TMetric>
class ImageMetricv4Scene
{
public:
  static constexpr unsigned int D = TMetric::VirtualImageDimension;
  using FixedImageType = typename TMetric::FixedImageType;
  using MovingImageType = typename TMetric::MovingImageType;
  using ValueType = typename MovingImageType::PixelType;
  using StateType = ImageMetricv4State<TMetric>;
  using DerivativeType = typename TMetric::DerivativeType;
  using MovingTransformType = typename TMetric::MovingTransformType;
  using SplitType = MetricMovingTransformSplit<D>;
  /** The cubic interpolator the scene serves, and its coefficient image (that
   * interpolator's CoefficientImageType, double as MovingSampling::coefficients;
   * spelled out so that the alias does not instantiate the interpolator for types the
   * scene does not serve). */
  using MovingCubicInterpolator = BSplineInterpolateImageFunction<MovingImageType, double, double>;
  using MovingCoefficientImage = Image<double, D>;

  /** Whether the module handles these image types at all. */
  static constexpr bool kTypesSupported =
    (D == 2 || D == 3) && std::is_same<typename FixedImageType::PixelType, ValueType>::value &&
    (std::is_same<ValueType, float>::value || std::is_same<ValueType, double>::value) &&
    FixedImageType::ImageDimension == D && MovingImageType::ImageDimension == D &&
    std::is_same<typename TMetric::MovingTransformType::ScalarType, double>::value;

  bool
  Supported() const
  {
    return m_Supported;
  }
  const std::string &
  Reason() const
  {
    return m_Reason;
  }

  /** Converts \a state; uploads it when \a onGPU. */
  void
  Prepare(const StateType & state, bool onGPU, MultiThreaderBase * threader)
  {
    m_Supported = false;
    m_OrderSeconds = 0.0;
    m_BindSeconds = 0.0;
    m_Workspace.readbackSeconds = 0.0;
    m_Order.reset();
    m_DeviceOrder = cif::DeviceMetricPointOrder{};
    m_HaveOrder = false;
    m_Boxes = cif::MetricCellBoxes();
    m_DeviceBoxes = cif::DeviceMetricCellBoxes();
    m_HaveBoxesKey = false;
    m_UseBoxes = false;
    if constexpr (!kTypesSupported)
    {
      (void)state;
      (void)onGPU;
      (void)threader;
      m_Reason = "the module takes 2-D and 3-D images of float or double pixels, the same type fixed and moving";
    }
    else
    {
      m_Reason.clear();
      bool converted = this->Convert(state, onGPU, threader);
      if (converted && onGPU && !this->FitsDeviceOffsets())
      {
        // An image of 2^31 voxels or more (or indices beyond 32 bits): the device
        // path's offsets are 32-bit (cifImageMetricMath.h), so the CPU path runs.
        onGPU = false;
        converted = this->Convert(state, onGPU, threader);
      }
      if (converted)
      {
        m_OnGPU = onGPU;
        if (onGPU)
        {
          CIF_ITK_TRY_CUDA([&] { this->Upload(threader); });
        }
        m_Supported = true;
      }
    }
  }

  /** Evaluates from now on at \a points (D coordinates per point, physical points
   * of the virtual domain) instead of the domain Prepare() took: the metric's
   * random points per evaluation. Only the points change (a copy on the host, an
   * upload of them for the GPU path); the grouping by B-spline cell is redone at
   * the next B-spline evaluation. */
  void
  UseSampledPoints(std::vector<double> points)
  {
    if constexpr (kTypesSupported)
    {
      if (!m_Supported)
      {
        return;
      }
      this->SetPointDomain(std::move(points));
      const cif::MetricDomain & domain = m_HostScene.domain;
      m_Order.reset();
      m_HaveOrder = false;
      m_HaveBoxesKey = false;
      m_UseBoxes = false;
      if (m_OnGPU)
      {
        CIF_ITK_TRY_CUDA([&] {
          // Through pinned memory, queued without waiting (cifMetricSumsDevice.h), at
          // every evaluation.
          const std::size_t bytes = m_Points.size() * sizeof(double);
          std::copy(m_Points.begin(), m_Points.end(), static_cast<double *>(m_PointsUpload.Host(bytes)));
          m_DeviceScene.domain = domain;
          m_DeviceScene.domain.points = static_cast<const double *>(m_PointsUpload.Send(bytes));
        });
      }
    }
    else
    {
      (void)points;
    }
  }

  /** \a work runs once on the host while the device computes this evaluation (GPU
   * path: after the kernels are queued, before the readback waits for them); not at
   * all on the CPU path, or where the evaluation ends before its readback. */
  void
  WhileTheDeviceWorks(std::function<void()> work)
  {
    m_Workspace.whileTheDeviceWorks = m_OnGPU ? std::move(work) : nullptr;
  }

  /** The smallest and largest values of the fixed and the moving image, found on the
   * device where the GPU path holds them (both images whole; the caller has no masks
   * to apply); false otherwise (the CPU path, an unsupported scene). The GPU path
   * holds only images of fewer than 2^31 voxels (FitsDeviceOffsets), which CUB's
   * reductions, counting in int, take. */
  bool
  ValueRangesOnDevice(ValueType & fixedMin, ValueType & fixedMax, ValueType & movingMin, ValueType & movingMax)
  {
    if constexpr (kTypesSupported)
    {
      if (!m_Supported || !m_OnGPU)
      {
        return false;
      }
      const auto fixedCount = static_cast<std::int64_t>(CountOf(m_HostScene.fixed));
      const auto movingCount = static_cast<std::int64_t>(CountOf(m_HostScene.moving.image));
      CIF_ITK_TRY_CUDA([&] {
        cif::ValueRangeOnDevice(m_DeviceScene.fixed.data, fixedCount, fixedMin, fixedMax);
        cif::ValueRangeOnDevice(m_DeviceScene.moving.image.data, movingCount, movingMin, movingMax);
      });
      return true;
    }
    else
    {
      (void)fixedMin, (void)fixedMax, (void)movingMin, (void)movingMax;
      return false;
    }
  }

  /** Seconds the host waited for the device's results since Prepare() (GPU path). */
  double
  ReadbackSeconds() const
  {
    return m_Workspace.readbackSeconds;
  }

  /** Seconds spent binding transforms (the B-spline's coefficients uploaded) since Prepare(). */
  double
  BindSeconds() const
  {
    return m_BindSeconds;
  }

  /** Seconds spent grouping the points by B-spline cell since Prepare(). */
  double
  OrderSeconds() const
  {
    return m_OrderSeconds;
  }

  /** Whether the last B-spline evaluation walked the dense domain in cell boxes
   * (separable rows) rather than in points sorted by cell. */
  bool
  UsesCellBoxes() const
  {
    return m_UseBoxes;
  }

  /** Whether the GPU path reads the moving value and gradient from one buffer
   * (InterleaveValueAndGradient). */
  bool
  InterleavesValueAndGradient() const
  {
    return m_OnGPU && m_DeviceScene.moving.valueAndGradient != nullptr;
  }

  /** Whether the scene was uploaded for the GPU path. */
  bool
  OnGPU() const
  {
    return m_OnGPU;
  }

  /** Takes the moving transform of this evaluation (and, for the GPU path, uploads
   * the B-spline's current coefficients). False, with \a reason, for a transform
   * the module does not take. */
  bool
  BindTransform(const MovingTransformType * transform, std::string & reason)
  {
    if constexpr (!kTypesSupported)
    {
      (void)transform;
      reason = m_Reason;
      return false;
    }
    else
    {
      const auto start = std::chrono::steady_clock::now();
      struct Timed
      {
        std::chrono::steady_clock::time_point start;
        double &                              seconds;
        ~Timed() { seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
      } timed{ start, m_BindSeconds };
      m_Split = std::make_unique<SplitType>(transform);
      if (!m_Split->IsSupported())
      {
        reason = m_Split->Reason();
        return false;
      }
      const cif::MetricMovingTransform & host = m_Split->Host();
      m_DeviceTransform = host;
      if (m_OnGPU && host.kind == cif::OptimizedStageKind::BSpline)
      {
        CIF_ITK_TRY_CUDA([&] {
          // Only taken here: sent by the pass that reads them (SentDeviceTransform,
          // ArrivingCoefficients), a cell-box pass while its first kernel runs.
          const std::int64_t * size = host.bspline.gridSize;
          const std::int64_t   planeValues = D > 2 ? size[0] * size[1] : size[0];
          m_CoefficientUpload.Bind(
            host.bspline.coefficients, D, planeValues, size[D - 1], m_DeviceTransform.bspline.coefficients);
        });
      }
      return true;
    }
  }

  /** Mattes' evaluation over the bound transform: the first pass and ITK's
   * ComputeResults (the summary: value, valid points, joint pdf sum, on which the
   * caller raises ITK's errors), then, with \a derivative, the second pass's forces
   * added into it (not where the summary is an error, on the CPU path). On the GPU
   * path the histogram and the ratio table stay on the device, and the summary comes
   * back with the second pass's sums: one readback per evaluation. \a zerosPending:
   * as for EvaluateSums. */
  cif::MattesSummary
  EvaluateMattes(const cif::MattesParzen & windows,
                 MultiThreaderBase *       threader,
                 DerivativeType *          derivative,
                 bool &                    zerosPending)
  {
    cif::MattesSummary summary;
    if constexpr (kTypesSupported)
    {
      cif::MattesParzen parzen = windows;
      parzen.fixedPointScale = cif::ParzenFixedPointScale(m_HostScene.domain.count);
      const cif::MetricMovingTransform & host = m_Split->Host();
      cif::MattesDerivativeTerm          term;
      term.parzen = parzen;
      if (m_OnGPU)
      {
        if (host.kind == cif::OptimizedStageKind::BSpline)
        {
          this->UpdateOrder(host, threader, false);
        }
        CIF_ITK_TRY_CUDA([&] {
          if (m_UseBoxes && host.kind == cif::OptimizedStageKind::BSpline)
          {
            this->WithArrivingCoefficients([&](const cif::MetricMovingTransform & transform) {
              cif::MattesFirstPassInCellBoxesOnDevice<D, ValueType>(
                m_DeviceScene, transform, parzen, m_DeviceBoxes.view, m_Workspace);
            });
          }
          else
          {
            cif::MattesFirstPassOnDevice<D, ValueType>(m_DeviceScene, this->SentDeviceTransform(), parzen, m_Workspace);
          }
        });
        term.ratioTable = cif::MattesRatioTableOnDevice(m_Workspace);
      }
      else
      {
        cif::MattesHistogram histogram;
        cif::MattesHistogramOnHost<D, ValueType>(m_HostScene, host, parzen, MakeParallelFor(threader), histogram);
        summary = cif::MattesSummaryAndRatios(parzen, histogram, m_RatioTable);
        if (!summary.HasResults())
        {
          return summary; // the caller raises ITK's error
        }
        term.ratioTable = m_RatioTable.data();
      }
      if (derivative != nullptr)
      {
        cif::MetricSums sums;
        this->EvaluateSums(term, true, threader, sums, derivative, zerosPending);
      }
      if (m_OnGPU)
      {
        CIF_ITK_TRY_CUDA([&] { summary = cif::ReadBackMattesSummary(m_Workspace, derivative == nullptr); });
      }
    }
    return summary;
  }

  /** A value pass over the points with \a term (a term of one or more values, no
   * force) for the bound transform: [0] the valid points, [1 ...] the term's value
   * sums, in the domain's order (also for a B-spline stage: a value pass needs no
   * grouping by cell). */
  template <typename TTerm>
  void
  EvaluateValueSums(const TTerm & term, MultiThreaderBase * threader, cif::MetricSums & sums)
  {
    if constexpr (kTypesSupported)
    {
      if (m_OnGPU)
      {
        CIF_ITK_TRY_CUDA([&] {
          sums = cif::EvaluateMetricValueSumsOnDevice<D, ValueType>(
            m_DeviceScene, this->SentDeviceTransform(), term, m_Workspace);
        });
      }
      else
      {
        const double reference[3] = { 0, 0, 0 };
        sums = cif::EvaluateMetricSumsInDomainOrderOnHost<D, ValueType>(
          m_HostScene, m_Split->Host(), term, reference, false, MakeParallelFor(threader));
      }
    }
  }

  /** A metric's sums over the points with \a term (its pointers where the bound path
   * reads them) for the bound transform, and the derivative added into
   * \a derivative, zeroed by ITK's InitializeForIteration: the sums, or with
   * cif::DerivativeScale::PerValidPoint each divided by the number of valid points
   * (ITK's (0 + sum) / n, the same bits as 0 + sum / n; on the GPU divided as it is
   * gathered). Where \a zerosPending is set, ITK's zeros have not been written yet:
   * a B-spline derivative is then written as 0 + value, an affine one after the
   * zeros; the flag is cleared. */
  template <typename TTerm>
  void
  EvaluateSums(const TTerm &        term,
               bool                 withDerivative,
               MultiThreaderBase *  threader,
               cif::MetricSums &    sums,
               DerivativeType *     derivative,
               bool &               zerosPending,
               cif::DerivativeScale scale = cif::DerivativeScale::Sum)
  {
    if constexpr (kTypesSupported)
    {
      const cif::MetricMovingTransform & host = m_Split->Host();
      double                             reference[3] = { 0, 0, 0 };
      cif::ApplyAffineMap<D>(host.before, m_VirtualCenter, reference);
      const bool gather = withDerivative && host.kind == cif::OptimizedStageKind::BSpline;
      if (gather)
      {
        this->UpdateOrder(host, threader);
      }
      // The B-spline derivative: in the host readback on the GPU path (no copy), in
      // a vector kept between evaluations on the CPU path.
      const double * bsplineDerivative = nullptr;
      if (gather && m_UseBoxes)
      {
        if (m_OnGPU)
        {
          CIF_ITK_TRY_CUDA([&] {
            this->WithArrivingCoefficients([&](const cif::MetricMovingTransform & transform) {
              sums = cif::EvaluateMetricSumsInCellBoxesOnDevice<D, ValueType>(
                m_DeviceScene, transform, term, m_DeviceBoxes.view, scale, m_Workspace, &bsplineDerivative);
            });
          });
        }
        else
        {
          cif::EvaluateMetricSumsInCellBoxesOnHost<D, ValueType>(m_HostScene,
                                                                 host,
                                                                 term,
                                                                 cif::HostView(m_Boxes),
                                                                 MakeParallelFor(threader),
                                                                 sums.value,
                                                                 &m_BSplineDerivative);
          bsplineDerivative = m_BSplineDerivative.data();
        }
      }
      else if (m_OnGPU)
      {
        CIF_ITK_TRY_CUDA([&] {
          sums = cif::EvaluateMetricSumsOnDevice<D, ValueType>(m_DeviceScene,
                                                               this->SentDeviceTransform(),
                                                               term,
                                                               gather ? &m_DeviceOrder.view : nullptr,
                                                               reference,
                                                               withDerivative,
                                                               scale,
                                                               m_Workspace,
                                                               &bsplineDerivative);
        });
      }
      else
      {
        sums = cif::EvaluateMetricSumsOnHost<D, ValueType>(m_HostScene,
                                                           host,
                                                           term,
                                                           gather ? m_Order.get() : nullptr,
                                                           reference,
                                                           withDerivative,
                                                           MakeParallelFor(threader),
                                                           &m_BSplineDerivative);
        bsplineDerivative = m_BSplineDerivative.data();
      }
      if (withDerivative)
      {
        // Divided here unless the device did it as it gathered.
        bool       divide = scale == cif::DerivativeScale::PerValidPoint;
        const bool zeroed = !zerosPending;
        zerosPending = false;
        if (host.kind == cif::OptimizedStageKind::Affine)
        {
          if (!zeroed)
          {
            derivative->Fill(0.0);
          }
          m_Split->AddAffineDerivative(sums.value + 2, reference, *derivative);
        }
        else
        {
          const std::size_t values = static_cast<std::size_t>(D * host.bspline.gridSize[0] * host.bspline.gridSize[1] *
                                                              host.bspline.gridSize[2]);
          if (zeroed)
          {
            for (std::size_t k = 0; k < values; ++k)
            {
              (*derivative)[k] += bsplineDerivative[k];
            }
          }
          else
          {
            // ITK's zeros and addition in one pass (0 + value: +0 for a -0 value, as
            // ITK's); the B-spline stage's derivative is every parameter's.
            for (std::size_t k = 0; k < values; ++k)
            {
              (*derivative)[k] = 0.0 + bsplineDerivative[k];
            }
          }
          divide = divide && !m_OnGPU;
        }
        if (divide)
        {
          *derivative /= sums.value[0];
        }
      }
    }
  }

private:
  /** An ImageMaskSpatialObject<D, unsigned char> placed at the world's origin, as
   * plain data; false for any other spatial object. */
  template <typename TMask>
  bool
  MaskOf(const TMask * mask, cif::MetricImage<std::uint8_t> & out, const char * which)
  {
    out = cif::MetricImage<std::uint8_t>{};
    if (mask == nullptr)
    {
      return true;
    }
    const auto * imageMask = dynamic_cast<const ImageMaskSpatialObject<D, unsigned char> *>(mask);
    if (imageMask == nullptr || imageMask->GetImage() == nullptr)
    {
      m_Reason = std::string("the ") + which + " mask is not an ImageMaskSpatialObject of unsigned char";
      return false;
    }
    const auto * toWorld = imageMask->GetObjectToWorldTransformInverse();
    if (toWorld != nullptr)
    {
      const auto matrix = toWorld->GetMatrix();
      const auto offset = toWorld->GetOffset();
      for (unsigned int i = 0; i < D; ++i)
      {
        for (unsigned int j = 0; j < D; ++j)
        {
          if (matrix[i][j] != (i == j ? 1.0 : 0.0))
          {
            m_Reason = std::string("the ") + which + " mask is moved by an object-to-world transform";
            return false;
          }
        }
        if (offset[i] != 0.0)
        {
          m_Reason = std::string("the ") + which + " mask is moved by an object-to-world transform";
          return false;
        }
      }
    }
    out = MetricImageOf(imageMask->GetImage(), imageMask->GetImage()->GetBufferPointer());
    return true;
  }

  /** Whether every image of the host scene fits the device path's 32-bit offsets. */
  bool
  FitsDeviceOffsets() const
  {
    const cif::MetricScene<ValueType> & s = m_HostScene;
    bool                                fits = cif::FitsDeviceOffsets(s.fixed) && cif::FitsDeviceOffsets(s.fixedMask) &&
                cif::FitsDeviceOffsets(s.moving.image) && cif::FitsDeviceOffsets(s.movingMask);
    if (m_GradientImage != nullptr)
    {
      fits = fits && cif::FitsDeviceOffsets(MetricImageOf(m_GradientImage, static_cast<const ValueType *>(nullptr)));
    }
    return fits;
  }

  bool
  Convert(const StateType & state, bool onGPU, MultiThreaderBase * threader)
  {
    using FixedLinear = LinearInterpolateImageFunction<FixedImageType, double>;
    using MovingLinear = LinearInterpolateImageFunction<MovingImageType, double>;
    if (state.needsFixedGradient)
    {
      m_Reason = "the metric asks for the fixed image's gradient";
      return false;
    }
    if (state.floatingPointCorrection)
    {
      m_Reason = "floating-point correction is on";
      return false;
    }
    if (dynamic_cast<const FixedLinear *>(state.fixedInterpolator) == nullptr)
    {
      m_Reason = "the fixed interpolator is not ITK's LinearInterpolateImageFunction";
      return false;
    }
    const auto * cubic = dynamic_cast<const MovingCubicInterpolator *>(state.movingInterpolator);
    if (dynamic_cast<const MovingLinear *>(state.movingInterpolator) == nullptr &&
        (cubic == nullptr || cubic->GetSplineOrder() != 3))
    {
      m_Reason = "the moving interpolator is neither linear nor a cubic BSplineInterpolateImageFunction";
      return false;
    }
    if (state.movingGradientImage == nullptr && !state.gradientFromDefaultCalculator)
    {
      m_Reason = "the moving gradient comes from a calculator other than the default central differences";
      return false;
    }
    cif::MetricScene<ValueType> & scene = m_HostScene;
    scene = cif::MetricScene<ValueType>{};
    if (!MetricMovingTransformSplit<D>::AffineMapOf(state.fixedTransform, scene.fixedTransform))
    {
      m_Reason = "the fixed transform is not affine-family";
      return false;
    }
    if (!this->MaskOf(state.fixedMask, scene.fixedMask, "fixed") ||
        !this->MaskOf(state.movingMask, scene.movingMask, "moving"))
    {
      return false;
    }
    scene.fixed = MetricImageOf(state.fixedImage, state.fixedImage->GetBufferPointer());
    scene.moving.image = MetricImageOf(state.movingImage, state.movingImage->GetBufferPointer());
    for (unsigned int a = 0; a < D; ++a)
    {
      scene.moving.spacing[a] = state.movingImage->GetSpacing()[a];
    }
    m_MovingCoefficients = nullptr;
    if (cubic != nullptr)
    {
      auto prefilter = BSplinePrefilterGPUImageFilter<MovingImageType, MovingCoefficientImage>::New();
      prefilter->SetInput(state.movingImage);
      prefilter->SetUseGPU(onGPU);
      prefilter->Update();
      m_MovingCoefficients = prefilter->GetOutput();
      scene.moving.coefficients = m_MovingCoefficients->GetBufferPointer();
    }
    m_Gradient.clear();
    m_GradientImage = state.movingGradientImage;
    m_GradientOnDevice = onGPU ? state.movingGradientOnDevice : nullptr;
    if (m_GradientImage != nullptr && !onGPU)
    {
      // The CPU path reads the gradient in the pixel type; the GPU path converts it
      // piece by piece on its way to the device (Upload), without this host copy.
      const std::int64_t count = static_cast<std::int64_t>(m_GradientImage->GetBufferedRegion().GetNumberOfPixels());
      m_Gradient.resize(static_cast<std::size_t>(count * D));
      ConvertGradient(threader, 0, count, m_Gradient.data());
      scene.moving.gradient = MetricImageOf(m_GradientImage, m_Gradient.data());
      scene.moving.gradientOnImageGrid = cif::SameBufferGrid<D>(scene.moving.image, scene.moving.gradient);
    }
    // The domain: the virtual region's grid, or the sampled points.
    cif::MetricDomain & domain = scene.domain;
    m_Points.clear();
    for (unsigned int a = 0; a < 3; ++a)
    {
      m_VirtualCenter[a] = 0.0;
    }
    if (state.sampledPoints != nullptr)
    {
      const auto *        points = state.sampledPoints->GetPoints();
      std::vector<double> coordinates;
      coordinates.reserve(points->Size() * D);
      for (auto it = points->Begin(); it != points->End(); ++it)
      {
        for (unsigned int a = 0; a < D; ++a)
        {
          coordinates.push_back(it.Value()[a]);
        }
      }
      this->SetPointDomain(std::move(coordinates));
    }
    else
    {
      domain.count = static_cast<std::int64_t>(state.virtualRegion.GetNumberOfPixels());
      double index[3] = { 0, 0, 0 };
      for (unsigned int a = 0; a < D; ++a)
      {
        domain.start[a] = state.virtualRegion.GetIndex()[a];
        domain.size[a] = static_cast<std::int64_t>(state.virtualRegion.GetSize()[a]);
        domain.origin[a] = state.virtualImage->GetOrigin()[a];
        index[a] = static_cast<double>(domain.start[a]) + 0.5 * static_cast<double>(domain.size[a] - 1);
      }
      IndexToPointMatrix<D>(state.virtualImage, domain.indexToPoint);
      for (unsigned int i = 0; i < D; ++i)
      {
        m_VirtualCenter[i] = domain.origin[i];
        for (unsigned int j = 0; j < D; ++j)
        {
          m_VirtualCenter[i] += domain.indexToPoint[i][j] * index[j];
        }
      }
    }
    if (domain.count >= (std::int64_t(1) << 31)) // 32-bit point numbers; CUB's sort counts in int
    {
      m_Reason = "the domain has 2^31 points or more";
      return false;
    }
    return true;
  }

  /** The host scene's domain becomes the listed \a points (D coordinates each);
   * their mean is the virtual centre (the affine derivative's reference point). */
  void
  SetPointDomain(std::vector<double> points)
  {
    m_Points = std::move(points);
    cif::MetricDomain & domain = m_HostScene.domain;
    domain.points = m_Points.data();
    domain.count = static_cast<std::int64_t>(m_Points.size() / D);
    for (unsigned int a = 0; a < 3; ++a)
    {
      m_VirtualCenter[a] = 0.0;
    }
    for (std::int64_t n = 0; n < domain.count; ++n)
    {
      for (unsigned int a = 0; a < D; ++a)
      {
        m_VirtualCenter[a] += m_Points[static_cast<std::size_t>(n * D + a)];
      }
    }
    for (unsigned int a = 0; a < D; ++a)
    {
      m_VirtualCenter[a] /= domain.count > 0 ? static_cast<double>(domain.count) : 1.0;
    }
  }

  template <typename T>
  const T *
  UploadArray(const T * host, std::size_t count)
  {
    if (host == nullptr)
    {
      return nullptr;
    }
    m_DeviceBuffers.emplace_back(count * sizeof(T) > 0 ? count * sizeof(T) : 1);
    m_DeviceBuffers.back().Upload(host, count * sizeof(T));
    return m_DeviceBuffers.back().template As<const T>();
  }

  template <typename T>
  static std::size_t
  CountOf(const cif::MetricImage<T> & image, int components = 1)
  {
    return static_cast<std::size_t>(image.size[0] * image.size[1] * image.size[2] * components);
  }

  void
  Upload(MultiThreaderBase * threader)
  {
    m_DeviceBuffers.clear();
    m_DeviceScene = m_HostScene;
    cif::MetricScene<ValueType> &       d = m_DeviceScene;
    const cif::MetricScene<ValueType> & h = m_HostScene;
    d.domain.points = this->UploadArray(h.domain.points, m_Points.size());
    d.fixed.data = this->UploadArray(h.fixed.data, CountOf(h.fixed));
    d.fixedMask.data = this->UploadArray(h.fixedMask.data, CountOf(h.fixedMask));
    d.movingMask.data = this->UploadArray(h.movingMask.data, CountOf(h.movingMask));
    d.moving.image.data = this->UploadArray(h.moving.image.data, CountOf(h.moving.image));
    d.moving.coefficients = this->UploadArray(h.moving.coefficients, CountOf(h.moving.image));
    if (m_GradientImage != nullptr)
    {
      d.moving.gradient =
        MetricImageOf(m_GradientImage,
                      m_GradientOnDevice != nullptr ? this->ConvertGradientOnDevice() : this->UploadGradient(threader));
      d.moving.gradientOnImageGrid = cif::SameBufferGrid<D>(d.moving.image, d.moving.gradient);
      if (d.moving.gradientOnImageGrid && d.moving.coefficients == nullptr)
      {
        this->InterleaveValueAndGradient();
      }
    }
  }

  /** The moving value and its gradient side by side on the device (MovingSampling::
   * valueAndGradient): one vector load a corner where the kernels sample both, 8
   * instead of 32 loads a 3-D point, the same sums. An accelerator only: where the
   * device's memory budget (cifDeviceMemoryLimit.h) has no room for it, or its
   * allocation fails, the kernels read the two images as before. */
  void
  InterleaveValueAndGradient()
  {
    cif::MetricScene<ValueType> & d = m_DeviceScene;
    const std::size_t             count = CountOf(m_HostScene.moving.image);
    const std::size_t             bytes = std::max<std::size_t>(1, 4 * count * sizeof(ValueType));
    if (bytes > cif::GetDeviceMemoryBudget(true))
    {
      return;
    }
    try
    {
      m_DeviceBuffers.emplace_back(bytes);
    }
    catch (const cif::CudaOutOfMemory &)
    {
      return;
    }
    auto * valueAndGradient = m_DeviceBuffers.back().template As<ValueType>();
    cif::InterleaveValueAndGradientOnDevice<ValueType>(
      d.moving.image.data, d.moving.gradient.data, D, static_cast<std::int64_t>(count), valueAndGradient);
    d.moving.valueAndGradient = valueAndGradient;
  }

  /** The gradient the filter kept on the device, converted there to the pixel type
   * (the same rounding as ConvertGradient's cast). */
  const ValueType *
  ConvertGradientOnDevice()
  {
    const std::int64_t count = static_cast<std::int64_t>(m_GradientImage->GetBufferedRegion().GetNumberOfPixels()) * D;
    m_DeviceBuffers.emplace_back(std::max<std::size_t>(1, static_cast<std::size_t>(count) * sizeof(ValueType)));
    auto * device = m_DeviceBuffers.back().template As<ValueType>();
    cif::ConvertOnDevice<double, ValueType>(m_GradientOnDevice, device, count);
    return device;
  }

  /** The gradient image's vectors n in [begin, end) in the pixel type, interleaved. */
  void
  ConvertGradient(MultiThreaderBase * threader, std::int64_t begin, std::int64_t end, ValueType * target) const
  {
    const auto *           source = m_GradientImage->GetBufferPointer();
    constexpr std::int64_t block = 65536;
    CudaParallelFor(threader, (end - begin + block - 1) / block, [&](std::int64_t b) {
      const std::int64_t last = end < begin + (b + 1) * block ? end : begin + (b + 1) * block;
      for (std::int64_t n = begin + b * block; n < last; ++n)
      {
        for (unsigned int a = 0; a < D; ++a)
        {
          target[(n - begin) * D + a] = static_cast<ValueType>(source[n][a]);
        }
      }
    });
  }

  /** The gradient image on the device in the pixel type, converted in pieces of 2^20
   * vectors through one reused host buffer: no host copy of the whole converted
   * image (200 MB at 256^3, and its first touch) per level. */
  const ValueType *
  UploadGradient(MultiThreaderBase * threader)
  {
    const std::int64_t     count = static_cast<std::int64_t>(m_GradientImage->GetBufferedRegion().GetNumberOfPixels());
    constexpr std::int64_t piece = std::int64_t(1) << 20;
    m_DeviceBuffers.emplace_back(std::max<std::size_t>(1, static_cast<std::size_t>(count * D) * sizeof(ValueType)));
    auto *                 device = m_DeviceBuffers.back().template As<ValueType>();
    std::vector<ValueType> staging(static_cast<std::size_t>(std::min(count, piece) * D));
    for (std::int64_t begin = 0; begin < count; begin += piece)
    {
      const std::int64_t end = std::min(count, begin + piece);
      ConvertGradient(threader, begin, end, staging.data());
      cif::CopyHostToDevice(
        device + begin * D, staging.data(), static_cast<std::size_t>((end - begin) * D) * sizeof(ValueType));
    }
    return device;
  }

  /** The bound transform on the device, its B-spline coefficients sent: for a pass
   * that reads them from its first kernel's start (GPU path; throws CudaError). */
  const cif::MetricMovingTransform &
  SentDeviceTransform()
  {
    m_CoefficientUpload.Send();
    return m_DeviceTransform;
  }

  /** Runs \a pass (a cell-box pass, given the bound transform on the device) with
   * the B-spline's coefficients left to arrive while its first kernel runs
   * (cifControlPlaneArrival.h); whatever it left unsent, having thrown before its
   * launch, is sent before the exception goes on, so that no block waits for ever. */
  template <typename TPass>
  void
  WithArrivingCoefficients(TPass && pass)
  {
    m_Workspace.arrivingCoefficients = &m_CoefficientUpload;
    try
    {
      pass(static_cast<const cif::MetricMovingTransform &>(m_DeviceTransform));
    }
    catch (...)
    {
      m_Workspace.arrivingCoefficients = nullptr;
      try
      {
        m_CoefficientUpload.Send();
      }
      catch (...)
      {
        // the pass's own error is the one to report
      }
      throw;
    }
    m_Workspace.arrivingCoefficients = nullptr;
    m_CoefficientUpload.Send(); // nothing left where the pass sent them
  }

  /** How the points are grouped by B-spline cell, rebuilt when the grid or the
   * stages before the B-spline changed: cell boxes where the dense domain's axes
   * map onto the grid's (cifMetricCellBoxes.h), else, when \a sortOtherwise, the
   * points sorted by cell. */
  void
  UpdateOrder(const cif::MetricMovingTransform & t, MultiThreaderBase * threader, bool sortOtherwise = true)
  {
    OrderKey key;
    std::memcpy(key.before, &t.before, sizeof(cif::AffineMap));
    for (unsigned int a = 0; a < 3; ++a)
    {
      key.gridSize[a] = t.bspline.gridSize[a];
      key.gridOrigin[a] = t.bspline.gridOrigin[a];
      for (unsigned int b = 0; b < 3; ++b)
      {
        key.gridPointToIndex[a][b] = t.bspline.gridPointToIndex[a][b];
      }
    }
    if (m_HaveOrder && std::memcmp(&key, &m_OrderKey, sizeof(OrderKey)) == 0)
    {
      return;
    }
    const auto start = std::chrono::steady_clock::now();
    if (!m_HaveBoxesKey || std::memcmp(&key, &m_BoxesKey, sizeof(OrderKey)) != 0)
    {
      m_UseBoxes = cif::BuildMetricCellBoxes<D>(m_HostScene.domain, t, m_Boxes);
      if (m_UseBoxes && m_OnGPU)
      {
        CIF_ITK_TRY_CUDA([&] { cif::UploadMetricCellBoxes(m_Boxes, m_DeviceBoxes); });
      }
      m_BoxesKey = key;
      m_HaveBoxesKey = true;
    }
    if (m_UseBoxes || sortOtherwise)
    {
      if (!m_UseBoxes && m_OnGPU)
      {
        // Sorted on the device (the points of a 256^3 domain in milliseconds).
        CIF_ITK_TRY_CUDA([&] {
          cif::BuildMetricPointOrderOnDevice<D, ValueType>(m_DeviceScene, this->SentDeviceTransform(), m_DeviceOrder);
        });
      }
      else if (!m_UseBoxes)
      {
        m_Order = std::make_unique<cif::MetricPointOrder>(
          cif::BuildMetricPointOrder<D>(m_HostScene, t, MakeParallelFor(threader)));
      }
      m_OrderKey = key;
      m_HaveOrder = true;
    }
    m_OrderSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  struct OrderKey
  {
    unsigned char before[sizeof(cif::AffineMap)] = {};
    std::int64_t  gridSize[3] = {};
    double        gridOrigin[3] = {};
    double        gridPointToIndex[3][3] = {};
  };
  bool                                                m_Supported = false;
  bool                                                m_OnGPU = false;
  double                                              m_OrderSeconds = 0.0;
  double                                              m_BindSeconds = 0.0;
  std::string                                         m_Reason;
  cif::MetricScene<ValueType>                         m_HostScene;
  cif::MetricScene<ValueType>                         m_DeviceScene;
  typename MovingCoefficientImage::Pointer            m_MovingCoefficients;
  std::vector<ValueType>                              m_Gradient; ///< CPU path only
  const typename StateType::MovingGradientImageType * m_GradientImage = nullptr;
  const double *                         m_GradientOnDevice = nullptr; ///< the filter's device result, when it kept one
  std::vector<double>                    m_Points;
  double                                 m_VirtualCenter[3] = { 0, 0, 0 };
  std::vector<cif::DeviceBuffer>         m_DeviceBuffers;
  cif::ControlPlaneUpload                m_CoefficientUpload; ///< the B-spline's D arrays
  cif::MetricUpload                      m_PointsUpload;      ///< UseSampledPoints' points
  std::vector<double>                    m_RatioTable;        ///< Mattes' second pass, CPU path
  std::vector<double>                    m_BSplineDerivative; ///< CPU path
  cif::MetricDeviceWorkspace             m_Workspace;
  std::unique_ptr<SplitType>             m_Split;
  cif::MetricMovingTransform             m_DeviceTransform;
  std::unique_ptr<cif::MetricPointOrder> m_Order;
  OrderKey                               m_OrderKey;
  cif::DeviceMetricPointOrder            m_DeviceOrder;
  bool                                   m_HaveOrder = false;
  cif::MetricCellBoxes                   m_Boxes;
  cif::DeviceMetricCellBoxes             m_DeviceBoxes;
  OrderKey                               m_BoxesKey;
  bool                                   m_HaveBoxesKey = false;
  bool                                   m_UseBoxes = false;
};
} // namespace itk

#endif
