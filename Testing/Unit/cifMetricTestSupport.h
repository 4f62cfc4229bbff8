#ifndef cifMetricTestSupport_h
#define cifMetricTestSupport_h

// Set-up shared by the GPU metric tests: a fresh random image pair (smooth content
// and its random affine or B-spline warp), the transforms, masks and sampled points,
// and the comparison of a module metric with ITK's own on the same configuration.
#include "cifTestHelpers.h"
#include "itkAffineTransform.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkBSplineTransform.h"
#include "itkBSplineTransformInitializer.h"
#include "itkCompositeTransform.h"
#include "itkEuler3DTransform.h"
#include "itkImageMaskSpatialObject.h"
#include "itkImageRegionIteratorWithIndex.h"
#include "itkTranslationTransform.h"

#include <random>

namespace cif_test
{
/** Transform kinds the metric tests draw. */
enum class MetricTransformKind
{
  Affine,
  Translation,
  Rigid,      ///< Euler2D / Euler3D: a nonlinear parametrization of the affine family
  BSpline,
  Composite   ///< an affine fixed stage after an optimized B-spline (ITK's and elastix's layout)
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
    auto t = itk::TranslationTransform<double, D>::New();
    typename itk::TranslationTransform<double, D>::OutputVectorType offset;
    for (unsigned int a = 0; a < D; ++a)
    {
      offset[a] = 1.5 * u(rng) * image->GetSpacing()[a];
    }
    t->SetOffset(offset);
    return t;
  }
  if (kind == MetricTransformKind::Rigid && D == 3)
  {
    auto t = itk::Euler3DTransform<double>::New();
    t->SetCenter(reinterpret_cast<const itk::Point<double, 3> &>(center));
    t->SetRotation(0.05 * u(rng), 0.05 * u(rng), 0.05 * u(rng));
    itk::Vector<double, 3> translation;
    for (unsigned int a = 0; a < 3; ++a)
    {
      translation[a] = u(rng);
    }
    t->SetTranslation(translation);
    return reinterpret_cast<itk::Transform<double, D, D> *>(t.GetPointer());
  }
  auto t = itk::AffineTransform<double, D>::New();
  t->SetCenter(center);
  typename itk::AffineTransform<double, D>::MatrixType matrix;
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
} // namespace cif_test

#endif
