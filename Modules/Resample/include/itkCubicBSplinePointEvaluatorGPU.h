#ifndef itkCubicBSplinePointEvaluatorGPU_h
#define itkCubicBSplinePointEvaluatorGPU_h

#include "cifBSplinePrefilterDevice.h"
#include "cifBSplinePrefilterHost.h"
#include "cifDeviceBuffer.h"
#include "cifResampleDevice.h"
#include "itkCovariantVector.h"
#include "itkCudaExceptionTranslation.h"
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
 * points outside the image are mirrored back as ITK does. TCoefficient float
 * (default) or double.
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
  static_assert(ImageDimension == 2 || ImageDimension == 3, "2-D and 3-D images");
  static_assert(IsCudaRealScalar<TCoefficient>, "coefficients are float or double");

  itkSetMacro(UseGPU, bool);
  itkGetConstMacro(UseGPU, bool);
  itkBooleanMacro(UseGPU);

  /** Computes and keeps the coefficients of \a image (on the device when a GPU is used). */
  void
  SetInputImage(const TImage * image)
  {
    if (image == nullptr || image->GetBufferedRegion().GetNumberOfPixels() == 0)
    {
      itkExceptionMacro("the input image is empty");
    }
    m_Image = image;
    const auto region = image->GetBufferedRegion();
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
        cif::ConvertOnDevice<InputComponentType, TCoefficient>(staging.As<InputComponentType>(),
                                                               m_DeviceCoefficients.As<TCoefficient>(), count);
        cif::PrefilterOnDevice<TCoefficient>(m_DeviceCoefficients.As<TCoefficient>(), shape, poles,
                                             cif::BoundaryMode::Mirror);
        cif::Synchronize();
      });
      m_HostCoefficients.clear();
    }
    else
    {
      m_HostCoefficients.assign(samples, samples + count);
      const MultiThreaderBase::Pointer threader = MultiThreaderBase::New();
      cif::PrefilterOnHost(m_HostCoefficients.data(), shape, poles, cif::BoundaryMode::Mirror,
                           MakeParallelFor(threader.GetPointer()));
      m_DeviceCoefficients.Release();
    }
    this->Modified();
  }

  /** Values at \a points and, when \a gradients is given, physical gradients. */
  void
  Evaluate(const std::vector<PointType> & points, std::vector<double> & values,
           std::vector<GradientType> * gradients = nullptr) const
  {
    if (m_Image.IsNull())
    {
      itkExceptionMacro("SetInputImage() first");
    }
    const std::size_t   n = points.size();
    std::vector<double> indices(3 * n, 0.0);
    const MultiThreaderBase::Pointer threader = MultiThreaderBase::New();
    CudaParallelFor(threader.GetPointer(), static_cast<std::int64_t>(n), [&](std::int64_t i) {
      const auto c = m_Image->template TransformPhysicalPointToContinuousIndex<double, double>(points[i]);
      for (unsigned int a = 0; a < ImageDimension; ++a)
      {
        indices[3 * i + a] = c[a];
      }
    });
    values.assign(n, 0.0);
    std::vector<double> indexGradients(gradients ? 3 * n : 0);
    if (m_OnDevice)
    {
      CIF_ITK_TRY_CUDA([&] {
        cif::DeviceBuffer x(indices.size() * sizeof(double)), v(n * sizeof(double)), g(indexGradients.size() * sizeof(double));
        x.Upload(indices.data(), indices.size() * sizeof(double));
        cif::EvaluatePointsOnDevice<ImageDimension, TCoefficient>(m_DeviceCoefficients.As<const TCoefficient>(), m_Grid,
                                                                  x.As<const double>(), static_cast<std::int64_t>(n),
                                                                  v.As<double>(), gradients ? g.As<double>() : nullptr);
        cif::Synchronize();
        v.Download(values.data(), n * sizeof(double));
        if (gradients)
        {
          g.Download(indexGradients.data(), indexGradients.size() * sizeof(double));
        }
      });
    }
    else
    {
      CudaParallelFor(threader.GetPointer(), static_cast<std::int64_t>(n), [&](std::int64_t i) {
        values[i] = cif::EvaluateCubic<ImageDimension>(m_HostCoefficients.data(), m_Grid, &indices[3 * i],
                                                       gradients ? &indexGradients[3 * i] : nullptr);
      });
    }
    if (gradients)
    {
      // ITK: divide by the spacing, then rotate by the direction.
      gradients->resize(n);
      const auto & spacing = m_Image->GetSpacing();
      const auto & direction = m_Image->GetDirection();
      for (std::size_t i = 0; i < n; ++i)
      {
        GradientType local;
        for (unsigned int a = 0; a < ImageDimension; ++a)
        {
          local[a] = indexGradients[3 * i + a] / spacing[a];
        }
        for (unsigned int r = 0; r < ImageDimension; ++r)
        {
          double sum = 0.0;
          for (unsigned int c = 0; c < ImageDimension; ++c)
          {
            sum += direction[r][c] * local[c];
          }
          (*gradients)[i][r] = sum;
        }
      }
    }
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
    os << indent << "CoefficientsOnDevice: " << (m_OnDevice ? "yes" : "no") << std::endl;
  }

private:
  typename TImage::ConstPointer m_Image;
  cif::CoefficientGrid          m_Grid;
  cif::DeviceBuffer             m_DeviceCoefficients;
  std::vector<TCoefficient>     m_HostCoefficients;
  bool                          m_UseGPU{ true };
  bool                          m_OnDevice{ false };
};
} // namespace itk

#endif
