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
// The module's evaluator of a v4 image metric: the class; its stages are in the .hxx files it includes.
#ifndef itkImageMetricv4Evaluator_h
#define itkImageMetricv4Evaluator_h

#include "cifDeviceBuffer.h"
#include "cifMattesHistogram.h"
#include "cifMetricSumsDevice.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkImageMetricv4State.h"
#include "itkMetricMovingTransformSplit.h"
#include "itkMultiThreaderBase.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace itk
{
/** \class ImageMetricv4Evaluator
 * \brief A v4 image metric's constant inputs as the module's plain data
 * (cif::MetricScene), on the host and, for the GPU path, on the device; the point
 * order of the B-spline gather, kept while the grid and points stay; and the
 * evaluation of the module's metrics over them.
 *
 * Prepare() is called from the metric's Initialize(); Supported() is false (and
 * Reason() says why) for inputs the module does not take, where the metric runs
 * ITK's code.
 *
 * The stages, each in a file of its own: preparation (Prepare(), UseSampledPoints():
 * itkImageMetricv4EvaluatorPreparation.hxx), upload to the device
 * (itkImageMetricv4EvaluatorUpload.hxx) and evaluation (BindTransform(), the
 * Evaluate... passes: itkImageMetricv4EvaluatorEvaluation.hxx).
 *
 * \ingroup CudaImageFilters
 */
template <typename TMetric>
class ImageMetricv4Evaluator
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
  Prepare(const StateType & state, bool onGPU, MultiThreaderBase * threader);

  /** Evaluates from now on at \a points (D coordinates per point, physical points
   * of the virtual domain) instead of the domain Prepare() took: the metric's
   * random points per evaluation. Only the points change (a copy on the host, an
   * upload of them for the GPU path); the grouping by B-spline cell is redone at
   * the next B-spline evaluation. */
  void
  UseSampledPoints(std::vector<double> points);

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
  ValueRangesOnDevice(ValueType & fixedMin, ValueType & fixedMax, ValueType & movingMin, ValueType & movingMax);

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

  /** The scene of the path that runs: the host's, or the device's (its pointers on
   * the device), for a twin's own passes. */
  const cif::MetricScene<ValueType> &
  Scene() const
  {
    return m_OnGPU ? m_DeviceScene : m_HostScene;
  }
  /** The dense domain's centre (or the sampled points' mean): the reference point
   * of the affine moments. */
  const double *
  VirtualCenter() const
  {
    return m_VirtualCenter;
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
  BindTransform(const MovingTransformType * transform, std::string & reason);

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
                 bool &                    zerosPending);

  /** A value pass over the points with \a term (a term of one or more values, no
   * force) for the bound transform: [0] the valid points, [1 ...] the term's value
   * sums, in the domain's order (also for a B-spline stage: a value pass needs no
   * grouping by cell). */
  template <typename TTerm>
  void
  EvaluateValueSums(const TTerm & term, MultiThreaderBase * threader, cif::MetricSums & sums);

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
               cif::DerivativeScale scale = cif::DerivativeScale::Sum);

private:
  /** An ImageMaskSpatialObject<D, unsigned char> placed at the world's origin, as
   * plain data; false for any other spatial object. */
  template <typename TMask>
  bool
  MaskOf(const TMask * mask, cif::MetricImage<std::uint8_t> & out, const char * which);

  /** Whether every image of the host scene fits the device path's 32-bit offsets. */
  bool
  FitsDeviceOffsets() const;

  bool
  Convert(const StateType & state, bool onGPU, MultiThreaderBase * threader);

  /** The host scene's domain becomes the listed \a points (D coordinates each);
   * their mean is the virtual centre (the affine derivative's reference point). */
  void
  SetPointDomain(std::vector<double> points);

  template <typename T>
  const T *
  UploadArray(const T * host, std::size_t count);

  template <typename T>
  static std::size_t
  CountOf(const cif::MetricImage<T> & image, int components = 1)
  {
    return static_cast<std::size_t>(image.size[0] * image.size[1] * image.size[2] * components);
  }

  void
  Upload(MultiThreaderBase * threader);

  /** The moving value and its gradient side by side on the device (MovingSampling::
   * valueAndGradient): one vector load a corner where the kernels sample both, 8
   * instead of 32 loads a 3-D point, the same sums. An accelerator only: where the
   * device's memory budget (cifDeviceMemoryLimit.h) has no room for it, or its
   * allocation fails, the kernels read the two images as before. */
  void
  InterleaveValueAndGradient();

  /** The gradient the filter kept on the device, converted there to the pixel type
   * (the same rounding as ConvertGradient's cast). */
  const ValueType *
  ConvertGradientOnDevice();

  /** The gradient image's vectors n in [begin, end) in the pixel type, interleaved. */
  void
  ConvertGradient(MultiThreaderBase * threader, std::int64_t begin, std::int64_t end, ValueType * target) const;

  /** The gradient image on the device in the pixel type, converted in pieces of 2^20
   * vectors through one reused host buffer: no host copy of the whole converted
   * image (200 MB at 256^3, and its first touch) per level. */
  const ValueType *
  UploadGradient(MultiThreaderBase * threader);

  /** The bound transform on the device, its B-spline coefficients sent: for a pass
   * that reads them from its first kernel's start (GPU path; throws CudaError). */
  const cif::MetricMovingTransform &
  SentDeviceTransform();

  /** Runs \a pass (a cell-box pass, given the bound transform on the device) with
   * the B-spline's coefficients left to arrive while its first kernel runs
   * (cifControlPlaneArrival.h); whatever it left unsent, having thrown before its
   * launch, is sent before the exception goes on, so that no block waits for ever. */
  template <typename TPass>
  void
  WithArrivingCoefficients(TPass && pass);

  /** How the points are grouped by B-spline cell, rebuilt when the grid or the
   * stages before the B-spline changed: cell boxes where the dense domain's axes
   * map onto the grid's (cifMetricCellBoxes.h), else, when \a sortOtherwise, the
   * points sorted by cell. */
  void
  UpdateOrder(const cif::MetricMovingTransform & t, MultiThreaderBase * threader, bool sortOtherwise = true);

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

#include "itkImageMetricv4EvaluatorPreparation.hxx"
#include "itkImageMetricv4EvaluatorUpload.hxx"
#include "itkImageMetricv4EvaluatorEvaluation.hxx"

#endif
