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
// Test data and checks for the CLI module tests (not part of the modules).
//
//   CLITestVolumes make DIR
//       writes fresh random volumes (a new seed each run, printed) with geometry that
//       is not the default (origin, spacing, an oblique direction):
//       scalar3d.nrrd (short, 3-D), rgb2d.nrrd (8-bit RGB, 2-D), vector3d.nii.gz
//       (float, 3 components, 3-D), plane.mha (float, 64 x 64, 2-D), slice.nrrd
//       (float, 64 x 64 x 1), bspline3d.tfm (a cubic BSplineTransform over
//       scalar3d's extent with random coefficients), and two elastix transform
//       parameter files with output grids of their own (larger than the volumes', so
//       that some output voxels take the default value): elastix3d.txt (that B-spline
//       after an affine transform: elastix3d.0.txt, which elastix3d.txt names;
//       DefaultPixelValue 7) and elastix2d.txt (a rotation; DefaultPixelValue 9)
//   CLITestVolumes same-grid A B [--components N] [--component-type same|float]
//       B has A's size, origin, spacing and direction (to 1e-6: NIfTI stores them in single precision), and A's number
//       of components (or N) and component type (or float)
//   CLITestVolumes close A B TOLERANCE
//       same grid and type, and every value of B within TOLERANCE of A's
//   CLITestVolumes constant-field FIELD X,Y,Z TOLERANCE
//       every vector of the displacement field FIELD equals (X, Y, Z)
//       and registration pairs for ElasticRegistrationCLI: reg-moving3d.nrrd (float,
//       smooth noise on scalar3d's kind of oblique grid, 28 x 24 x 20) and
//       reg-fixed3d.nrrd (the moving volume seen through a known smooth B-spline warp
//       of about a voxel plus a shift, on the same grid), reg-moving2d.nrrd and
//       reg-fixed2d.nrrd (the same in 2-D, 48 x 40), masks on the 3-D grid:
//       reg-mask3d.nrrd (the inner part), reg-empty-mask3d.nrrd (all 0) and
//       reg-tiny-mask3d.nrrd (2 x 2 x 2 voxels)
//   CLITestVolumes closer FIXED MOVING RESULT RATIO
//       the mean squared difference between FIXED and RESULT over the inner 80 % of
//       the grid (all three on one grid) is below RATIO times FIXED's and MOVING's
//   CLITestVolumes ncc A B
//       the global normalized cross correlation of A and B (one grid, first components)
//   CLITestVolumes elastix-grid ELASTIX VOLUME [--default V]
//       VOLUME has the output grid the elastix transform parameter file ELASTIX names
//       (Size, Index, Spacing, Origin, Direction: the volume's origin is the physical
//       point of Index), and with --default, some of its values are V
// Prints what it found; returns 0 when the check holds, 1 otherwise. The elastix files
// and elastix-grid need the Elastix sub-module (CIF_CLI_TEST_ELASTIX where it is built).
#include "cifITKPoolParking.h"
#include "cifCommandLineSupport.h"
#include "itkAffineTransform.h"
#include "itkBSplineTransform.h"
#include "itkBSplineTransformInitializer.h"
#include "itkCompositeTransform.h"
#if CIF_CLI_TEST_ELASTIX
#  include "itkElastixTransformFileWriter.h"
#endif
#include "itkEuler2DTransform.h"
#include "itkImageFileReader.h"
#include "itkImageRegionConstIteratorWithIndex.h"
#include "itkImageRegionIteratorWithIndex.h"
#include "itkImageFileWriter.h"
#include "itkNearestNeighborExtrapolateImageFunction.h"
#include "itkRGBPixel.h"
#include "itkResampleImageFilter.h"
#include "itkSmoothingRecursiveGaussianImageFilter.h"
#include "itkTransformFileWriter.h"
#include "itkVectorImage.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <random>
#include <string>

namespace
{
std::mt19937 rng;

template <unsigned int D>
void
SetGeometry(itk::ImageBase<D> * image)
{
  typename itk::ImageBase<D>::PointType     origin;
  typename itk::ImageBase<D>::SpacingType   spacing;
  typename itk::ImageBase<D>::DirectionType direction;
  direction.SetIdentity();
  const double angle = 0.3; // an oblique grid: rotated about the last axis
  direction(0, 0) = std::cos(angle);
  direction(0, 1) = -std::sin(angle);
  direction(1, 0) = std::sin(angle);
  direction(1, 1) = std::cos(angle);
  for (unsigned int a = 0; a < D; ++a)
  {
    origin[a] = -12.5 + 7.25 * a;
    spacing[a] = 0.75 + 0.5 * a;
  }
  image->SetOrigin(origin);
  image->SetSpacing(spacing);
  image->SetDirection(direction);
}

template <typename TImage>
void
WriteRandom(const std::string & path, typename TImage::SizeType size, unsigned int components, double low, double high)
{
  auto image = TImage::New();
  image->SetRegions(size);
  if constexpr (std::is_same_v<TImage, itk::VectorImage<float, TImage::ImageDimension>>)
  {
    image->SetNumberOfComponentsPerPixel(components);
  }
  SetGeometry<TImage::ImageDimension>(image);
  image->Allocate();
  using Component = typename itk::NumericTraits<typename TImage::PixelType>::ValueType;
  std::uniform_real_distribution<double> value(low, high);
  auto *                                 data = reinterpret_cast<Component *>(image->GetBufferPointer());
  const std::size_t                      count = image->GetBufferedRegion().GetNumberOfPixels() * components;
  for (std::size_t i = 0; i < count; ++i)
  {
    data[i] = static_cast<Component>(value(rng));
  }
  cif::WriteAtomically(image.GetPointer(), path);
}

/** A registration pair on the oblique grid of \a size: smooth noise (3 mm blur,
 * values 0 to 100) as the moving volume, and as the fixed one the moving volume seen
 * through a cubic B-spline of mesh 3 whose coefficients are random (sigma 0.8 mm) plus
 * a shift of about a voxel (the part an affine stage finds). Points the warp takes
 * past the edge get the edge's value. */
template <unsigned int D>
void
WriteRegistrationPair(const std::string & dir, typename itk::Image<float, D>::SizeType size, const std::string & suffix)
{
  using Image = itk::Image<float, D>;
  auto noise = Image::New();
  noise->SetRegions(size);
  SetGeometry<D>(noise);
  noise->Allocate();
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (float *p = noise->GetBufferPointer(), *end = p + noise->GetBufferedRegion().GetNumberOfPixels(); p < end; ++p)
  {
    *p = u(rng);
  }
  auto blur = itk::SmoothingRecursiveGaussianImageFilter<Image, Image>::New();
  blur->SetInput(noise);
  blur->SetSigma(3.0);
  blur->Update();
  typename Image::Pointer moving = blur->GetOutput();
  const auto [low, high] = std::minmax_element(
    moving->GetBufferPointer(), moving->GetBufferPointer() + moving->GetBufferedRegion().GetNumberOfPixels());
  const float lowest = *low, range = *high - *low;
  for (float *p = moving->GetBufferPointer(), *end = p + moving->GetBufferedRegion().GetNumberOfPixels(); p < end; ++p)
  {
    *p = 100.0f * (*p - lowest) / range;
  }

  using Warp = itk::BSplineTransform<double, D, 3>;
  auto warp = Warp::New();
  auto initializer = itk::BSplineTransformInitializer<Warp, Image>::New();
  initializer->SetTransform(warp);
  initializer->SetImage(moving);
  typename Warp::MeshSizeType mesh;
  mesh.Fill(3);
  initializer->SetTransformDomainMeshSize(mesh);
  initializer->InitializeTransform();
  std::normal_distribution<double> coefficient(0.0, 0.8);
  typename Warp::ParametersType    parameters(warp->GetNumberOfParameters());
  const unsigned int               perAxis = parameters.size() / D;
  for (unsigned int i = 0; i < parameters.size(); ++i)
  {
    const double shift[] = { 1.0, -0.8, 0.6 }; // the B-spline's weights sum to 1: a shift inside
    parameters[i] = coefficient(rng) + shift[i / perAxis];
  }
  warp->SetParameters(parameters);
  auto resample = itk::ResampleImageFilter<Image, Image>::New();
  resample->SetInput(moving);
  resample->SetTransform(warp);
  resample->SetReferenceImage(moving);
  resample->UseReferenceImageOn();
  resample->SetExtrapolator(itk::NearestNeighborExtrapolateImageFunction<Image, double>::New());
  resample->Update();
  cif::WriteAtomically(moving.GetPointer(), dir + "/reg-moving" + suffix + ".nrrd");
  cif::WriteAtomically(resample->GetOutput(), dir + "/reg-fixed" + suffix + ".nrrd");
}

/** A mask on \a size's oblique grid: 1 inside [from, to) on every axis, else 0. */
void
WriteMask(const std::string & path, itk::Size<3> size, const itk::Index<3> & from, const itk::Index<3> & to)
{
  using Mask = itk::Image<unsigned char, 3>;
  auto mask = Mask::New();
  mask->SetRegions(size);
  SetGeometry<3>(mask);
  mask->Allocate();
  mask->FillBuffer(0);
  for (itk::ImageRegionIteratorWithIndex<Mask> it(mask, mask->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    bool inside = true;
    for (unsigned int a = 0; a < 3; ++a)
    {
      inside = inside && it.GetIndex()[a] >= from[a] && it.GetIndex()[a] < to[a];
    }
    it.Set(inside ? 1 : 0);
  }
  cif::WriteAtomically(mask.GetPointer(), path);
}

int
Make(const std::string & dir)
{
  const unsigned int seed = std::random_device{}();
  rng.seed(seed);
  std::cout << "seed " << seed << "\n";
  WriteRandom<itk::Image<short, 3>>(dir + "/scalar3d.nrrd", { { 24, 20, 12 } }, 1, -1000, 1000);
  WriteRandom<itk::Image<itk::RGBPixel<unsigned char>, 2>>(dir + "/rgb2d.nrrd", { { 40, 32 } }, 3, 0, 255);
  WriteRandom<itk::VectorImage<float, 3>>(dir + "/vector3d.nii.gz", { { 16, 14, 10 } }, 3, -5, 5);
  WriteRandom<itk::Image<float, 2>>(dir + "/plane.mha", { { 64, 64 } }, 1, 0, 100);
  WriteRandom<itk::Image<float, 3>>(dir + "/slice.nrrd", { { 64, 64, 1 } }, 1, 0, 100);

  // a cubic B-spline deformation over scalar3d's physical extent
  using Transform = itk::BSplineTransform<double, 3, 3>;
  auto transform = Transform::New();
  auto grid = itk::Image<short, 3>::New();
  grid->SetRegions(itk::Size<3>{ { 24, 20, 12 } });
  SetGeometry<3>(grid);
  Transform::PhysicalDimensionsType extent;
  Transform::MeshSizeType           mesh;
  for (unsigned int a = 0; a < 3; ++a)
  {
    extent[a] = grid->GetSpacing()[a] * (grid->GetLargestPossibleRegion().GetSize()[a] - 1);
    mesh[a] = 4;
  }
  transform->SetTransformDomainOrigin(grid->GetOrigin());
  transform->SetTransformDomainDirection(grid->GetDirection());
  transform->SetTransformDomainPhysicalDimensions(extent);
  transform->SetTransformDomainMeshSize(mesh);
  Transform::ParametersType              parameters(transform->GetNumberOfParameters());
  std::uniform_real_distribution<double> displacement(-2.0, 2.0);
  for (unsigned int i = 0; i < parameters.size(); ++i)
  {
    parameters[i] = displacement(rng);
  }
  transform->SetParameters(parameters);
  auto writer = itk::TransformFileWriterTemplate<double>::New();
  writer->SetInput(transform);
  writer->SetFileName(dir + "/bspline3d.tfm");
  writer->Update();

#if CIF_CLI_TEST_ELASTIX
  // elastix's layout: the affine transform applied first, then the B-spline (ITK's
  // composite applies the last one added first), on a grid larger than scalar3d's
  auto                                   affine = itk::AffineTransform<double, 3>::New();
  auto                                   matrix = affine->GetMatrix();
  std::uniform_real_distribution<double> small(-0.05, 0.05);
  itk::Vector<double, 3>                 shift;
  for (unsigned int i = 0; i < 3; ++i)
  {
    for (unsigned int j = 0; j < 3; ++j)
    {
      matrix[i][j] += small(rng);
    }
    shift[i] = 20.0 * small(rng);
  }
  affine->SetMatrix(matrix);
  affine->SetTranslation(shift);
  affine->SetCenter(grid->GetOrigin());
  auto chain = itk::CompositeTransform<double, 3>::New();
  chain->AddTransform(transform);
  chain->AddTransform(affine);
  itk::ElastixOutputGrid<3> grid3 = itk::ElastixOutputGrid<3>::FromImage(grid);
  for (unsigned int a = 0; a < 3; ++a)
  {
    grid3.Size[a] += 4;
    grid3.Index[a] = static_cast<itk::IndexValueType>(a) - 1;
    grid3.Spacing[a] *= 1.1;
  }
  grid3.DefaultPixelValue = 7;
  itk::WriteElastixTransform<3>(chain, grid3, dir + "/elastix3d.txt");

  auto rotation = itk::Euler2DTransform<double>::New();
  rotation->SetAngle(0.2);
  itk::ElastixOutputGrid<2> grid2;
  auto                      rgb = itk::Image<char, 2>::New();
  rgb->SetRegions(itk::Size<2>{ { 40, 32 } });
  SetGeometry<2>(rgb);
  grid2 = itk::ElastixOutputGrid<2>::FromImage(rgb);
  grid2.Size[0] = 48;
  grid2.Size[1] = 30;
  grid2.Origin[0] -= 4.0;
  grid2.Direction = rotation->GetMatrix() * grid2.Direction;
  grid2.DefaultPixelValue = 9;
  itk::Point<double, 2> center;
  center[0] = grid2.Origin[0] + 10.0;
  center[1] = grid2.Origin[1] + 8.0;
  rotation->SetCenter(center);
  itk::WriteElastixTransform<2>(rotation, grid2, dir + "/elastix2d.txt");
#endif

  const itk::Size<3> registration3d{ { 28, 24, 20 } };
  WriteRegistrationPair<3>(dir, registration3d, "3d");
  WriteRegistrationPair<2>(dir, { { 48, 40 } }, "2d");
  WriteMask(dir + "/reg-mask3d.nrrd", registration3d, { { 3, 3, 2 } }, { { 25, 21, 18 } });
  WriteMask(dir + "/reg-empty-mask3d.nrrd", registration3d, { { 0, 0, 0 } }, { { 0, 0, 0 } });
  WriteMask(dir + "/reg-tiny-mask3d.nrrd", registration3d, { { 13, 11, 9 } }, { { 15, 13, 11 } });
  std::cout << "wrote the test volumes to " << dir << "\n";
  return 0;
}

/** A volume of any type read as float components, with its information. */
struct Volume
{
  itk::ImageIOBase::Pointer           io;
  itk::VectorImage<float, 3>::Pointer image; // 2-D volumes are read with a third axis of 1
};

Volume
Read(const std::string & path)
{
  Volume v;
  v.io = cif::ReadVolumeInformation(path);
  auto reader = itk::ImageFileReader<itk::VectorImage<float, 3>>::New();
  reader->SetFileName(path);
  reader->Update();
  v.image = reader->GetOutput();
  return v;
}

bool
SameGrid(const Volume & a, const Volume & b)
{
  bool same = a.io->GetNumberOfDimensions() == b.io->GetNumberOfDimensions();
  for (unsigned int d = 0; same && d < a.io->GetNumberOfDimensions(); ++d)
  {
    same = a.io->GetDimensions(d) == b.io->GetDimensions(d) &&
           std::abs(a.io->GetOrigin(d) - b.io->GetOrigin(d)) < 1e-6 &&
           std::abs(a.io->GetSpacing(d) - b.io->GetSpacing(d)) < 1e-6;
    for (unsigned int e = 0; same && e < a.io->GetNumberOfDimensions(); ++e)
    {
      same = std::abs(a.io->GetDirection(d)[e] - b.io->GetDirection(d)[e]) < 1e-6;
    }
  }
  if (!same)
  {
    std::cout << "grids differ: " << a.image->GetLargestPossibleRegion().GetSize() << " " << a.image->GetOrigin() << " "
              << a.image->GetSpacing() << " vs " << b.image->GetLargestPossibleRegion().GetSize() << " "
              << b.image->GetOrigin() << " " << b.image->GetSpacing() << "\n";
  }
  return same;
}

int
SameGridCommand(int argc, char * argv[])
{
  const Volume a = Read(argv[2]), b = Read(argv[3]);
  unsigned int components = a.io->GetNumberOfComponents();
  auto         type = a.io->GetComponentType();
  for (int i = 4; i + 1 < argc; i += 2)
  {
    const std::string option = argv[i], value = argv[i + 1];
    if (option == "--components")
      components = static_cast<unsigned int>(std::stoul(value));
    else if (option == "--component-type" && value == "float")
      type = itk::IOComponentEnum::FLOAT;
  }
  bool ok = SameGrid(a, b);
  if (b.io->GetNumberOfComponents() != components || b.io->GetComponentType() != type)
  {
    std::cout << "pixel type differs: " << b.io->GetNumberOfComponents() << " x "
              << itk::ImageIOBase::GetComponentTypeAsString(b.io->GetComponentType()) << ", expected " << components
              << " x " << itk::ImageIOBase::GetComponentTypeAsString(type) << "\n";
    ok = false;
  }
  std::cout << (ok ? "same grid and pixel type\n" : "check failed\n");
  return ok ? 0 : 1;
}

int
CloseCommand(const std::string & pathA, const std::string & pathB, double tolerance)
{
  const Volume a = Read(pathA), b = Read(pathB);
  if (!SameGrid(a, b) || a.image->GetNumberOfComponentsPerPixel() != b.image->GetNumberOfComponentsPerPixel())
  {
    std::cout << "check failed: not the same grid or components\n";
    return 1;
  }
  const std::size_t count = a.image->GetBufferedRegion().GetNumberOfPixels() * a.image->GetNumberOfComponentsPerPixel();
  double            worst = 0, range = 0;
  for (std::size_t i = 0; i < count; ++i)
  {
    const double x = a.image->GetBufferPointer()[i], y = b.image->GetBufferPointer()[i];
    worst = std::isnan(y) ? INFINITY : std::max(worst, std::abs(x - y));
    range = std::max(range, std::abs(x));
  }
  // "max |difference|" only when within the tolerance: the tests' pass expressions read it
  // (a test passes on its expression, whatever the exit status).
  if (worst <= tolerance)
  {
    std::cout << "max |difference| " << worst << " (values up to " << range << ", tolerance " << tolerance << ")\n";
    return 0;
  }
  std::cout << "check failed: the largest difference " << worst << " exceeds the tolerance " << tolerance
            << " (values up to " << range << ")\n";
  return 1;
}

/** The mean squared difference of \a a and \a b over the inner 80 % of their grid. */
double
InnerMeanSquares(const Volume & a, const Volume & b)
{
  const auto  size = a.image->GetLargestPossibleRegion().GetSize();
  double      sum = 0.0;
  std::size_t count = 0;
  for (itk::ImageRegionConstIteratorWithIndex<itk::VectorImage<float, 3>> it(a.image, a.image->GetBufferedRegion());
       !it.IsAtEnd();
       ++it)
  {
    bool inner = true;
    for (unsigned int d = 0; d < 3; ++d)
    {
      const double x = size[d] > 1 ? static_cast<double>(it.GetIndex()[d]) / (size[d] - 1.0) : 0.5;
      inner = inner && x >= 0.1 && x <= 0.9;
    }
    if (inner)
    {
      const double difference = it.Get()[0] - b.image->GetPixel(it.GetIndex())[0];
      sum += difference * difference;
      ++count;
    }
  }
  return count ? sum / static_cast<double>(count) : 0.0;
}

int
CloserCommand(const std::string & fixedPath,
              const std::string & movingPath,
              const std::string & resultPath,
              double              ratio)
{
  const Volume fixed = Read(fixedPath), moving = Read(movingPath), result = Read(resultPath);
  if (!SameGrid(fixed, moving) || !SameGrid(fixed, result))
  {
    std::cout << "check failed: not the same grid\n";
    return 1;
  }
  const double before = InnerMeanSquares(fixed, moving), after = InnerMeanSquares(fixed, result);
  const bool   closer = after < ratio * before;
  std::cout << "mean squared difference to the fixed volume (inner 80 %): before " << before << ", after " << after
            << " (" << after / before << " of it, bound " << ratio << ")\n"
            << (closer ? "closer\n" : "check failed: not closer\n");
  return closer ? 0 : 1;
}

/** The global normalized cross correlation of two volumes on one grid (the first
 * component): what registration benchmarks report between the fixed volume and a result. */
int
NccCommand(const std::string & pathA, const std::string & pathB)
{
  const Volume a = Read(pathA), b = Read(pathB);
  if (!SameGrid(a, b))
  {
    std::cout << "check failed: not the same grid\n";
    return 1;
  }
  const std::size_t count = a.image->GetBufferedRegion().GetNumberOfPixels();
  const std::size_t ca = a.image->GetNumberOfComponentsPerPixel(), cb = b.image->GetNumberOfComponentsPerPixel();
  double            sa = 0, sb = 0;
  for (std::size_t i = 0; i < count; ++i)
  {
    sa += a.image->GetBufferPointer()[i * ca];
    sb += b.image->GetBufferPointer()[i * cb];
  }
  const double ma = sa / count, mb = sb / count;
  double       ab = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < count; ++i)
  {
    const double x = a.image->GetBufferPointer()[i * ca] - ma, y = b.image->GetBufferPointer()[i * cb] - mb;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  std::cout << "ncc " << std::setprecision(6) << ab / std::sqrt(aa * bb) << "\n";
  return 0;
}

int
ConstantFieldCommand(const std::string & path, const std::string & vector, double tolerance)
{
  const Volume      field = Read(path);
  const auto        expected = cif::ParseIntegerList(vector, field.image->GetNumberOfComponentsPerPixel());
  const std::size_t n = field.image->GetNumberOfComponentsPerPixel();
  double            worst = 0;
  for (std::size_t i = 0; i < field.image->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    for (std::size_t c = 0; c < n; ++c)
    {
      const double v = field.image->GetBufferPointer()[i * n + c];
      worst = std::isnan(v) ? INFINITY : std::max(worst, std::abs(v - expected[c]));
    }
  }
  std::cout << "max |field - (" << vector << ")| " << worst << "\n";
  return worst <= tolerance ? 0 : 1;
}
#if CIF_CLI_TEST_ELASTIX
template <unsigned int D>
int
ElastixGrid(const std::string & elastix, const Volume & volume, int argc, char * argv[])
{
  const auto grid = itk::ElastixOutputGrid<D>::FromParameterFile(itk::ElastixParameterFile::Read(elastix));
  auto       named = itk::Image<char, D>::New();
  grid.ApplyTo(named);
  itk::Point<double, D> first; // where a file's origin goes: the physical point of Index
  named->TransformIndexToPhysicalPoint(grid.Index, first);
  const auto & io = *volume.io;
  bool         same = io.GetNumberOfDimensions() == D;
  for (unsigned int d = 0; same && d < D; ++d)
  {
    same = io.GetDimensions(d) == grid.Size[d] && std::abs(io.GetOrigin(d) - first[d]) < 1e-5 &&
           std::abs(io.GetSpacing(d) - grid.Spacing[d]) < 1e-6;
    for (unsigned int e = 0; same && e < D; ++e)
    {
      same = std::abs(io.GetDirection(d)[e] - grid.Direction[e][d]) < 1e-6; // axis d: column d
    }
  }
  if (!same)
  {
    std::cout << "grids differ: the volume's " << volume.image->GetLargestPossibleRegion().GetSize() << " "
              << volume.image->GetOrigin() << " " << volume.image->GetSpacing() << ", the elastix file's " << grid
              << "\n";
    return 1;
  }
  std::cout << "grid of the elastix file\n";
  for (int i = 4; i + 1 < argc; i += 2)
  {
    if (std::string(argv[i]) == "--default")
    {
      const double      value = std::stod(argv[i + 1]);
      const std::size_t count =
        volume.image->GetBufferedRegion().GetNumberOfPixels() * volume.image->GetNumberOfComponentsPerPixel();
      const auto found = std::count(
        volume.image->GetBufferPointer(), volume.image->GetBufferPointer() + count, static_cast<float>(value));
      std::cout << found << " values are the default " << value << "\n";
      if (found == 0)
      {
        return 1;
      }
    }
  }
  return 0;
}

int
ElastixGridCommand(int argc, char * argv[])
{
  const Volume volume = Read(argv[3]);
  return volume.io->GetNumberOfDimensions() == 2 ? ElastixGrid<2>(argv[2], volume, argc, argv)
                                                 : ElastixGrid<3>(argv[2], volume, argc, argv);
}
#endif
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  try
  {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "make" && argc == 3)
      return Make(argv[2]);
    if (command == "same-grid" && argc >= 4)
      return SameGridCommand(argc, argv);
    if (command == "close" && argc == 5)
      return CloseCommand(argv[2], argv[3], std::stod(argv[4]));
    if (command == "closer" && argc == 6)
      return CloserCommand(argv[2], argv[3], argv[4], std::stod(argv[5]));
    if (command == "ncc" && argc == 4)
      return NccCommand(argv[2], argv[3]);
    if (command == "constant-field" && argc == 5)
      return ConstantFieldCommand(argv[2], argv[3], std::stod(argv[4]));
#if CIF_CLI_TEST_ELASTIX
    if (command == "elastix-grid" && argc >= 4)
      return ElastixGridCommand(argc, argv);
#endif
    std::cerr
      << "usage: CLITestVolumes make DIR | same-grid A B [--components N] [--component-type float] | "
         "close A B TOL | closer FIXED MOVING RESULT RATIO | ncc A B | constant-field FIELD X,Y,Z TOL | elastix-grid "
         "ELASTIX VOLUME [--default V]\n";
    return 2;
  }
  catch (const std::exception & e)
  {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
