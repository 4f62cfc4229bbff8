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
// What the cubic resampling tests share: the inputs (anisotropic, rotated grids with
// non-zero start indices), random transforms (and the composite and host-mapped cases
// built from them), the output geometry, ITK's resampling and the module's, and the
// comparison with ITK's inside test.
#ifndef cifResampleTestSupport_h
#define cifResampleTestSupport_h

#include "cifTestHelpers.h"
#include "itkAffineTransform.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkBSplineTransform.h"
#include "itkCompositeTransform.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkDisplacementFieldTransform.h"
#include "itkImageRegionIterator.h"
#include "itkResampleImageFilter.h"
#include "itkTransformToDisplacementFieldGPUFilter.h"
#include "itkVectorNearestNeighborInterpolateImageFunction.h"

#include <random>

namespace cif_resample_test
{
using namespace cif_test;

enum class Path
{
  CPU,
  GPU
};

/** An input with anisotropic spacing, a rotated direction, a non-zero start index. */
template <typename TImage>
typename TImage::Pointer
MakeInput(const typename TImage::SizeType & size, Content content, std::uint32_t seed)
{
  constexpr unsigned int     D = TImage::ImageDimension;
  typename TImage::IndexType start;
  for (unsigned int a = 0; a < D; ++a)
  {
    start[a] = static_cast<itk::IndexValueType>(a) * 3 - 2;
  }
  auto                       image = MakeImage<TImage>(size, start, content, seed, 0.0, 200.0);
  typename TImage::PointType origin;
  for (unsigned int a = 0; a < D; ++a)
  {
    origin[a] = 1.5 - 2.0 * a;
  }
  image->SetOrigin(origin);
  image->SetDirection(RotationDirection<D>(0.2));
  return image;
}

/** The physical point at the middle of \a image's largest region. */
template <typename TImage>
typename TImage::PointType
CentreOf(const TImage * image)
{
  const auto &                                         region = image->GetLargestPossibleRegion();
  itk::ContinuousIndex<double, TImage::ImageDimension> middle;
  for (unsigned int a = 0; a < TImage::ImageDimension; ++a)
  {
    middle[a] = region.GetIndex()[a] + 0.5 * (region.GetSize()[a] - 1.0);
  }
  typename TImage::PointType centre;
  image->TransformContinuousIndexToPhysicalPoint(middle, centre);
  return centre;
}

/** Moves the origin of \a geometry (an identity direction, as OutputGeometry's) so that
 * the middle of its largest region lies at \a centre. */
template <typename TImage>
void
CentreOn(TImage * geometry, const typename TImage::PointType & centre)
{
  const auto &               region = geometry->GetLargestPossibleRegion();
  typename TImage::PointType origin;
  for (unsigned int a = 0; a < TImage::ImageDimension; ++a)
  {
    origin[a] = centre[a] - geometry->GetSpacing()[a] * (region.GetIndex()[a] + 0.5 * (region.GetSize()[a] - 1.0));
  }
  geometry->SetOrigin(origin);
}

template <unsigned int D>
typename itk::AffineTransform<double, D>::Pointer
RandomAffine(std::mt19937 & rng, double scale = 1.0, const itk::Point<double, D> * centre = nullptr)
{
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto                                   affine = itk::AffineTransform<double, D>::New();
  if (centre)
  {
    affine->SetCenter(*centre);
  }
  typename itk::AffineTransform<double, D>::OutputVectorType translation;
  for (unsigned int a = 0; a < D; ++a)
  {
    translation[a] = 2.0 * u(rng);
  }
  affine->Rotate(0, 1, 0.3 * u(rng));
  affine->Scale(1.0 + 0.1 * scale * u(rng));
  affine->Shear(0, 1, 0.05 * u(rng));
  affine->Translate(translation);
  return affine;
}

/** A cubic B-spline transform over the input's physical extent with random
 * control-point displacements of up to \a amplitude. */
template <unsigned int D>
typename itk::BSplineTransform<double, D, 3>::Pointer
RandomBSpline(const itk::ImageBase<D> * domain, unsigned int meshSize, double amplitude, std::mt19937 & rng)
{
  using BSpline = itk::BSplineTransform<double, D, 3>;
  auto                                     bspline = BSpline::New();
  typename BSpline::PhysicalDimensionsType extent;
  typename BSpline::MeshSizeType           mesh;
  for (unsigned int a = 0; a < D; ++a)
  {
    extent[a] = domain->GetSpacing()[a] * (domain->GetLargestPossibleRegion().GetSize()[a] - 1);
    mesh[a] = meshSize;
  }
  // origin at the domain's first index, along the domain's direction
  typename itk::ImageBase<D>::PointType origin;
  domain->TransformIndexToPhysicalPoint(domain->GetLargestPossibleRegion().GetIndex(), origin);
  bspline->SetTransformDomainOrigin(origin);
  bspline->SetTransformDomainDirection(domain->GetDirection());
  bspline->SetTransformDomainPhysicalDimensions(extent);
  bspline->SetTransformDomainMeshSize(mesh);
  typename BSpline::ParametersType       parameters(bspline->GetNumberOfParameters());
  std::uniform_real_distribution<double> u(-amplitude, amplitude);
  for (auto & p : parameters)
  {
    p = u(rng);
  }
  bspline->SetParameters(parameters);
  bspline->SetParametersByValue(parameters); // own the parameters
  return bspline;
}

/** A displacement field on \a domain's grid (its geometry and largest region) with
 * random vectors of components in [-amplitude, amplitude], for a
 * DisplacementFieldTransform. */
template <unsigned int D>
typename itk::DisplacementFieldTransform<double, D>::DisplacementFieldType::Pointer
RandomDisplacementField(const itk::ImageBase<D> * domain, double amplitude, std::mt19937 & rng)
{
  using Field = typename itk::DisplacementFieldTransform<double, D>::DisplacementFieldType;
  auto field = Field::New();
  field->CopyInformation(domain);
  field->SetRegions(domain->GetLargestPossibleRegion());
  field->Allocate();
  std::uniform_real_distribution<double> u(-amplitude, amplitude);
  for (itk::ImageRegionIterator<Field> it(field, field->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    typename Field::PixelType v;
    for (unsigned int a = 0; a < D; ++a)
    {
      v[a] = u(rng);
    }
    it.Set(v);
  }
  return field;
}

/** A random affine (scale 0.5, turning about \a centre) followed by \a transform, as
 * one CompositeTransform: the composite case of the resampling tests. */
template <unsigned int D>
typename itk::CompositeTransform<double, D>::Pointer
AffineThen(itk::Transform<double, D, D> * transform, std::mt19937 & rng, const itk::Point<double, D> * centre)
{
  auto composite = itk::CompositeTransform<double, D>::New();
  composite->AddTransform(RandomAffine<D>(rng, 0.5, centre));
  composite->AddTransform(transform);
  return composite;
}

/** A DisplacementFieldTransform of \a field with a nearest-neighbour field
 * interpolator: a transform the device does not evaluate, so ITK maps the points on
 * the host and only the interpolation runs on the device (the host-mapped case). */
template <unsigned int D>
typename itk::DisplacementFieldTransform<double, D>::Pointer
HostMappedField(typename itk::DisplacementFieldTransform<double, D>::DisplacementFieldType * field)
{
  using FieldTransform = itk::DisplacementFieldTransform<double, D>;
  auto nearest = FieldTransform::New();
  nearest->SetDisplacementField(field);
  nearest->SetInterpolator(
    itk::VectorNearestNeighborInterpolateImageFunction<typename FieldTransform::DisplacementFieldType, double>::New());
  return nearest;
}

/** Sets up any ResampleImageFilter (ITK's or the module's) as the tests compare them:
 * a cubic BSplineInterpolateImageFunction, \a transform, \a geometry's grid and the
 * default value. */
template <typename TFilter, typename TTransform, typename TGeometry>
void
ConfigureCubicResample(TFilter *          resample,
                       const TTransform * transform,
                       const TGeometry *  geometry,
                       double             defaultValue)
{
  using TIn = typename TFilter::InputImageType;
  auto interpolator = itk::BSplineInterpolateImageFunction<TIn, double, double>::New();
  interpolator->SetSplineOrder(3);
  resample->SetInterpolator(interpolator);
  resample->SetTransform(transform);
  resample->SetOutputParametersFromImage(geometry);
  resample->SetDefaultPixelValue(static_cast<typename TFilter::PixelType>(defaultValue));
}

template <typename TIn, typename TOut>
typename TOut::Pointer
ResampleWithITK(const TIn *                                                              input,
                const itk::Transform<double, TIn::ImageDimension, TIn::ImageDimension> * transform,
                const TOut *                                                             geometry,
                double                                                                   defaultValue)
{
  auto resample = itk::ResampleImageFilter<TIn, TOut>::New();
  ConfigureCubicResample(resample.GetPointer(), transform, geometry, defaultValue);
  resample->SetInput(input);
  resample->Update();
  typename TOut::Pointer out = resample->GetOutput();
  out->DisconnectPipeline();
  return out;
}

template <typename TIn, typename TOut>
typename TOut::Pointer
ResampleWithModule(const TIn *                                                              input,
                   const itk::Transform<double, TIn::ImageDimension, TIn::ImageDimension> * transform,
                   const TOut *                                                             geometry,
                   double                                                                   defaultValue,
                   Path                                                                     path)
{
  using Filter = itk::CubicResampleGPUImageFilter<TIn, TOut>;
  auto resample = Filter::New();
  ConfigureCubicResample(resample.GetPointer(), transform, geometry, defaultValue);
  resample->SetInput(input);
  resample->SetUseGPU(path == Path::GPU);
  resample->Update();
  EXPECT_EQ(resample->GetLastExecutionPath(),
            path == Path::GPU ? Filter::ExecutionPath::GPU : Filter::ExecutionPath::CPU);
  typename TOut::Pointer out = resample->GetOutput();
  out->DisconnectPipeline();
  return out;
}

/** Output grid: other spacing, origin, size and start index than the input. */
template <typename TOut>
typename TOut::Pointer
OutputGeometry(const typename TOut::SizeType & size)
{
  constexpr unsigned int     D = TOut::ImageDimension;
  auto                       out = TOut::New();
  typename TOut::IndexType   start;
  typename TOut::SpacingType spacing;
  typename TOut::PointType   origin;
  for (unsigned int a = 0; a < D; ++a)
  {
    start[a] = 1 + static_cast<itk::IndexValueType>(a);
    spacing[a] = 0.6 + 0.15 * a;
    origin[a] = -3.0 + a;
  }
  out->SetRegions(typename TOut::RegionType(start, size));
  out->SetSpacing(spacing);
  out->SetOrigin(origin);
  return out;
}

/** Turns \a image's grid along the axes (identity direction): with the control grid
 * and the output along the same axes, the device shares each output row's B-spline
 * support instead of computing every voxel's on its own. */
template <typename TImage>
void
AlignWithAxes(TImage * image)
{
  typename TImage::DirectionType identity;
  identity.SetIdentity();
  image->SetDirection(identity);
}

/** The module's displacement field filter: \a transform evaluated on \a grid's grid,
 * on \a path. */
template <typename TField, typename TTransform, typename TGrid>
typename itk::TransformToDisplacementFieldGPUFilter<TField, double>::Pointer
MakeDisplacementFieldFilter(const TTransform * transform, const TGrid * grid, Path path)
{
  auto filter = itk::TransformToDisplacementFieldGPUFilter<TField, double>::New();
  filter->SetTransform(transform);
  filter->SetReferenceImage(grid);
  filter->SetUseReferenceImage(true);
  filter->SetUseGPU(path == Path::GPU);
  return filter;
}

/** What a resampling test starts from: an input (MakeInput: anisotropic, rotated,
 * non-zero start), the output geometry (OutputGeometry) and the input's centre, about
 * which the random affines turn so that the output stays mostly inside the input. */
template <typename TImage>
struct ResampleSetUp
{
  typename TImage::Pointer   input;
  typename TImage::Pointer   geometry;
  typename TImage::PointType inputCentre;
};

template <typename TImage>
ResampleSetUp<TImage>
MakeResampleSetUp(const typename TImage::SizeType & inSize,
                  const typename TImage::SizeType & outSize,
                  Content                           content,
                  std::uint32_t                     seed)
{
  ResampleSetUp<TImage> setUp;
  setUp.input = MakeInput<TImage>(inSize, content, seed);
  setUp.geometry = OutputGeometry<TImage>(outSize);
  setUp.inputCentre = CentreOf(setUp.input.GetPointer());
  return setUp;
}

/** Compares with ITK: the same voxels take the default value (ITK's inside test),
 * and the others agree within \a tolerance. */
template <typename TOut, typename TRef>
void
ExpectSameResample(const TOut * got, const TRef * want, double defaultValue, double tolerance)
{
  const std::size_t count = want->GetBufferedRegion().GetNumberOfPixels();
  ASSERT_EQ(got->GetBufferedRegion(), want->GetBufferedRegion());
  std::size_t insideMismatch = 0, inside = 0;
  double      maxAbs = 0;
  for (std::size_t i = 0; i < count; ++i)
  {
    const double a = got->GetBufferPointer()[i], b = want->GetBufferPointer()[i];
    const bool   aOut = a == defaultValue, bOut = b == defaultValue;
    if (aOut != bOut)
    {
      ++insideMismatch;
      continue;
    }
    inside += !bOut;
    maxAbs = std::max(maxAbs, std::fabs(a - b));
  }
  EXPECT_EQ(insideMismatch, 0u) << "voxels where only one side gave the default value";
  EXPECT_GT(inside, count / 4) << "too few output voxels inside the input to test anything";
  EXPECT_LE(maxAbs, tolerance) << "over " << inside << " voxels inside";
}
} // namespace cif_resample_test

#endif
