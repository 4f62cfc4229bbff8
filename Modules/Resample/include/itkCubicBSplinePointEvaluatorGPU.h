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
#ifndef itkCubicBSplinePointEvaluatorGPU_h
#define itkCubicBSplinePointEvaluatorGPU_h

#include "cifBSplinePrefilterDevice.h"
#include "cifBSplinePrefilterHost.h"
#include "cifDeviceBuffer.h"
#include "cifPointEvaluationDevice.h"
#include "itkCovariantVector.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaGeometry.h"
#include "itkCudaPixelTraits.h"
#include "itkImage.h"
#include "itkCudaParallelFor.h"
#include "itkObject.h"
#include "itkObjectFactory.h"

#include <algorithm>
#include <vector>

namespace itk
{
/** \class CubicBSplinePointEvaluatorGPU
 * \brief Batched cubic B-spline evaluation at many points: values and gradients.
 *
 * What a registration metric needs at every sample point: the value of the cubic
 * spline through an image and its gradient, for a whole batch of points in one call.
 * SetInputImage() computes the coefficients once (GPU prefilter, or the CPU path) and
 * keeps them on the device. Evaluate() matches BSplineInterpolateImageFunction
 * (order 3): Evaluate(point) for values and EvaluateDerivative(point) for gradients
 * (index-space derivative divided by the spacing, then rotated by the direction);
 * points outside the image are mirrored back as ITK does; a point with a NaN or
 * infinite coordinate gets a NaN value and gradient (ITK's own indices overflow
 * there). TCoefficient float (default) or double; 1-D to 6-D (a 5-D or 6-D
 * point sums 1024 or 4096 coefficients, so expect those batches to take 4 or 16
 * times as long as 4-D ones).
 *
 * Evaluate() takes and returns host vectors. EvaluateOnDevice() takes points already
 * in device memory and leaves values and gradients there: a registration metric that
 * maps its sample points on the GPU never crosses the bus.
 *
 * \ingroup CudaImageFilters
 */
template <typename TImage, typename TCoefficient = float>
class ITK_TEMPLATE_EXPORT CubicBSplinePointEvaluatorGPU : public Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CubicBSplinePointEvaluatorGPU);
  using Self = CubicBSplinePointEvaluatorGPU;
  using Superclass = Object;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(CubicBSplinePointEvaluatorGPU, Object);

  static constexpr unsigned int ImageDimension = TImage::ImageDimension;
  using PointType = typename TImage::PointType;
  using GradientType = CovariantVector<double, ImageDimension>;
  using InputComponentType = CudaScalar<typename CudaImageTraits<TImage>::ComponentType>;
  static_assert(ImageDimension >= 1 && ImageDimension <= cif::kMaxGridDimension, "1-D to 6-D images");
  static_assert(IsCudaRealScalar<TCoefficient>, "coefficients are float or double");

  itkSetMacro(UseGPU, bool);
  itkGetConstMacro(UseGPU, bool);
  itkBooleanMacro(UseGPU);

  /** Whether the device visits the points in image order (sorted by the image cell
   * they fall in, on the device) rather than as given: for scattered points, such
   * as a metric's random samples, about twice as fast; for points that already
   * follow the image (a metric sampling the fixed image's grid) it only adds the
   * sort. Takes about 16 bytes of device memory per point while it runs
   * (without them, the points are visited as given). Values and gradients are the
   * same, bit for bit, and in the caller's order either way (cif::PointOrder). GPU
   * path only; off by default. */
  itkSetMacro(SortPoints, bool);
  itkGetConstMacro(SortPoints, bool);
  itkBooleanMacro(SortPoints);

  /** Computes and keeps the coefficients of \a image (on the device when a GPU is used). */
  void
  SetInputImage(const TImage * image)
  {
    if (image == nullptr || image->GetBufferedRegion().GetNumberOfPixels() == 0)
    {
      itkExceptionMacro("the input image is empty");
    }
    m_Image = image;
    const auto       region = image->GetBufferedRegion();
    cif::BufferShape shape;
    shape.dimension = ImageDimension;
    for (unsigned int a = 0; a < ImageDimension; ++a)
    {
      m_Grid.size[a] = static_cast<std::int64_t>(region.GetSize()[a]);
      m_Grid.start[a] = region.GetIndex()[a];
      shape.size[a] = m_Grid.size[a];
    }
    const std::int64_t count = shape.ScalarCount();
    cif::SplinePoles   poles;
    cif::MakeSplinePoles(3, poles);
    m_OnDevice = m_UseGPU && cif::IsGPUAvailable();
    const auto * samples = reinterpret_cast<const InputComponentType *>(image->GetBufferPointer());
    if (m_OnDevice)
    {
      CIF_ITK_TRY_CUDA([&] {
        m_DeviceCoefficients.Allocate(count * sizeof(TCoefficient));
        cif::DeviceBuffer staging(count * sizeof(InputComponentType));
        staging.Upload(samples, count * sizeof(InputComponentType));
        cif::ConvertOnDevice<InputComponentType, TCoefficient>(
          staging.As<InputComponentType>(), m_DeviceCoefficients.As<TCoefficient>(), count);
        cif::PrefilterOnDevice<TCoefficient>(
          m_DeviceCoefficients.As<TCoefficient>(), shape, poles, cif::BoundaryMode::Mirror);
        cif::Synchronize();
      });
      m_HostCoefficients.clear();
    }
    else
    {
      m_HostCoefficients.assign(samples, samples + count);
      const MultiThreaderBase::Pointer threader = MultiThreaderBase::New();
      cif::PrefilterOnHost(
        m_HostCoefficients.data(), shape, poles, cif::BoundaryMode::Mirror, MakeParallelFor(threader.GetPointer()));
      m_DeviceCoefficients.Release();
    }
    this->Modified();
  }

  /** Values at \a points and, when \a gradients is given, physical gradients. */
  void
  Evaluate(const std::vector<PointType> & points,
           std::vector<double> &          values,
           std::vector<GradientType> *    gradients = nullptr) const
  {
    this->RequireInputImage();
    // Point<double, D> and CovariantVector<double, D> are D packed doubles: the
    // vectors' storage is what the kernels read and write.
    static_assert(sizeof(PointType) == ImageDimension * sizeof(double) &&
                    sizeof(GradientType) == ImageDimension * sizeof(double),
                  "points and gradients are D packed doubles");
    const std::int64_t n = static_cast<std::int64_t>(points.size());
    values.assign(points.size(), 0.0);
    if (gradients)
    {
      gradients->assign(points.size(), GradientType{});
    }
    const auto * pointData = reinterpret_cast<const double *>(points.data());
    double *     gradientData = gradients ? reinterpret_cast<double *>(gradients->data()) : nullptr;
    if (m_OnDevice)
    {
      CIF_ITK_TRY_CUDA([&] {
        const std::size_t pointBytes = static_cast<std::size_t>(n) * ImageDimension * sizeof(double);
        cif::DeviceBuffer p(pointBytes), v(static_cast<std::size_t>(n) * sizeof(double)), g(gradients ? pointBytes : 0);
        p.Upload(pointData, pointBytes);
        this->EvaluateOnDevice(p.As<const double>(), n, v.As<double>(), gradients ? g.As<double>() : nullptr);
        cif::Synchronize();
        v.Download(values.data(), static_cast<std::size_t>(n) * sizeof(double));
        if (gradients)
        {
          g.Download(gradientData, pointBytes);
        }
      });
      return;
    }
    // the image's geometry as it is now, as ITK's interpolator reads it per call
    const cif::ImageFrame            frame = MakeImageFrame<ImageDimension>(m_Image.GetPointer());
    const MultiThreaderBase::Pointer threader = MultiThreaderBase::New();
    CudaParallelFor(threader.GetPointer(), n, [&](std::int64_t i) {
      values[i] =
        cif::EvaluateCubicAtPhysicalPoint<ImageDimension>(m_HostCoefficients.data(),
                                                          m_Grid,
                                                          frame,
                                                          pointData + ImageDimension * i,
                                                          gradientData ? gradientData + ImageDimension * i : nullptr);
    });
  }

  /** Values at \a count physical points held in device memory (\a devicePoints: D
   * doubles per point) into \a deviceValues, and with \a deviceGradients (D doubles
   * per point) the physical gradients, all without leaving the device. Asynchronous
   * on the default stream: synchronize (or copy on that stream) before reading. Needs
   * the coefficients on the device (GetCoefficientsOnDevice()). */
  void
  EvaluateOnDevice(const double * devicePoints,
                   std::int64_t   count,
                   double *       deviceValues,
                   double *       deviceGradients = nullptr) const
  {
    this->RequireInputImage();
    if (!m_OnDevice)
    {
      itkExceptionMacro("EvaluateOnDevice needs the coefficients on the device: UseGPU on and a CUDA device ("
                        << (cif::IsGPUAvailable() ? std::string("UseGPU is off") : cif::GetNoDeviceReason()) << ")");
    }
    if (count < 0 || (count > 0 && (devicePoints == nullptr || deviceValues == nullptr)))
    {
      itkExceptionMacro("EvaluateOnDevice: " << count << " points need device buffers of points and values");
    }
    const cif::ImageFrame frame = MakeImageFrame<ImageDimension>(m_Image.GetPointer());
    CIF_ITK_TRY_CUDA([&] {
      cif::EvaluatePhysicalPointsOnDevice<ImageDimension, TCoefficient>(m_DeviceCoefficients.As<const TCoefficient>(),
                                                                        m_Grid,
                                                                        frame,
                                                                        devicePoints,
                                                                        count,
                                                                        deviceValues,
                                                                        deviceGradients,
                                                                        m_SortPoints ? cif::PointOrder::ImageOrder
                                                                                     : cif::PointOrder::AsGiven);
    });
  }

  /** Whether the coefficients live on the device. */
  bool
  GetCoefficientsOnDevice() const
  {
    return m_OnDevice;
  }

protected:
  CubicBSplinePointEvaluatorGPU() = default;
  ~CubicBSplinePointEvaluatorGPU() override = default;
  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "UseGPU: " << (m_UseGPU ? "On" : "Off") << std::endl;
    os << indent << "SortPoints: " << (m_SortPoints ? "On" : "Off") << std::endl;
    os << indent << "CoefficientsOnDevice: " << (m_OnDevice ? "yes" : "no") << std::endl;
  }

private:
  void
  RequireInputImage() const
  {
    if (m_Image.IsNull())
    {
      itkExceptionMacro("SetInputImage() first");
    }
  }

  typename TImage::ConstPointer m_Image;
  cif::CoefficientGrid          m_Grid;
  cif::DeviceBuffer             m_DeviceCoefficients;
  std::vector<TCoefficient>     m_HostCoefficients;
  bool                          m_UseGPU{ true };
  bool                          m_SortPoints{ false };
  bool                          m_OnDevice{ false };
};
} // namespace itk

#endif
