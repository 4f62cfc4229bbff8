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
// vtkCudaImageReslice against vtkImageReslice + vtkImageBSplineInterpolator (VTK's
// CPU classes, in the same test), both reading B-spline coefficients: oblique and
// perspective reslice axes, linear, B-spline and concatenated transforms (on the
// device) and other transforms (mapped on the host), output spacing, origin, extent
// and scalar type, background, border modes, several components and a component
// range, extents not at 0, 1-D to 3-D inputs, random and smooth data. Criteria:
// float output within 1e-5 of the input's scale (range, or largest magnitude where
// larger), integer output within 1, and the
// same voxels outside (the background). Each test runs on the CPU path and the GPU.
#include "cifVTKTestSupport.h"
#include "vtkCudaDeviceArray.h"
#include "vtkCudaImageBSplineCoefficients.h"
#include "vtkCudaImageReslice.h"

#include "cifDeviceBuffer.h"
#include "cifPinnedHostMemory.h"
#include "vtkBSplineTransform.h"
#include "vtkGeneralTransform.h"
#include "vtkImageBSplineCoefficients.h"
#include "vtkImageBSplineInterpolator.h"
#include "vtkImageInterpolator.h"
#include "vtkImageReslice.h"
#include "vtkMatrix4x4.h"
#include "vtkNew.h"
#include "vtkPoints.h"
#include "vtkThinPlateSplineTransform.h"
#include "vtkTransform.h"

#include <functional>
#include <iostream>

namespace
{
using namespace cif_test;
using Configure = std::function<void(vtkImageReslice *)>;

constexpr double kBackground = -777.25;

struct Expectation
{
  const char * positioning = "index matrix";
  double       tolerance = 1e-5; ///< of the input's scale (float output); integers: 1
};

/** The largest error seen (fraction of the input's scale), printed at the end. */
struct Worst
{
  std::string name;
  double      value = 0;
  ~Worst() { std::cout << name << ": largest |difference| / input scale " << value << std::endl; }
};

/** VTK's coefficients of \a samples with the border Wrap/Mirror of the reslice select. */
vtkSmartPointer<vtkImageData>
VTKCoefficients(vtkImageData * samples, int border, int type)
{
  vtkNew<vtkImageBSplineCoefficients> prefilter;
  prefilter->SetInputData(samples);
  prefilter->SetBorderMode(border);
  prefilter->SetOutputScalarType(type);
  prefilter->Update();
  auto result = vtkSmartPointer<vtkImageData>::New();
  result->DeepCopy(prefilter->GetOutput());
  return result;
}

vtkSmartPointer<vtkImageData>
Reslice(vtkImageReslice * reslice, vtkImageData * coefficients, const Configure & configure)
{
  vtkNew<vtkImageBSplineInterpolator> interpolator;
  reslice->SetInterpolator(interpolator);
  reslice->SetInputData(coefficients);
  reslice->SetBackgroundLevel(kBackground);
  configure(reslice);
  reslice->Update();
  auto result = vtkSmartPointer<vtkImageData>::New();
  result->DeepCopy(reslice->GetOutput());
  return result;
}

/** vtkCudaImageReslice and vtkImageReslice on the same coefficients, compared. */
void
Check(Worst &             worst,
      vtkImageData *      samples,
      const Configure &   configure,
      bool                gpu,
      const std::string & what,
      Expectation         expect = {},
      int                 coefficientType = VTK_FLOAT)
{
  vtkNew<vtkImageReslice> probe; // the border the configured filter asks for
  configure(probe);
  const int border = probe->GetMirror() ? VTK_IMAGE_BORDER_MIRROR
                                        : (probe->GetWrap() ? VTK_IMAGE_BORDER_REPEAT : VTK_IMAGE_BORDER_CLAMP);
  auto      coefficients = VTKCoefficients(samples, border, coefficientType);
  SCOPED_TRACE(testing::Message() << what << ", input extent " << ExtentString(samples) << ", components "
                                  << samples->GetNumberOfScalarComponents());

  vtkNew<vtkImageReslice>     reference;
  auto                        expected = Reslice(reference, coefficients, configure);
  vtkNew<vtkCudaImageReslice> tested;
  tested->SetUseGPU(gpu);
  auto actual = Reslice(tested, coefficients, configure);

  EXPECT_EQ(tested->GetLastExecutionPath(), gpu ? VTK_CUDA_PATH_GPU : VTK_CUDA_PATH_CPU) << tested->GetFallbackReason();
  EXPECT_STREQ(tested->GetLastPositioning(), expect.positioning);
  ASSERT_EQ(ExtentString(actual), ExtentString(expected));
  ASSERT_EQ(actual->GetScalarType(), expected->GetScalarType());
  ASSERT_EQ(actual->GetNumberOfScalarComponents(), expected->GetNumberOfScalarComponents());
  for (int i = 0; i < 3; ++i)
  {
    EXPECT_EQ(actual->GetSpacing()[i], expected->GetSpacing()[i]);
    EXPECT_EQ(actual->GetOrigin()[i], expected->GetOrigin()[i]);
  }
  const ErrorStats stats = CompareImages(actual, expected);
  const double     range = ValueRange(samples);
  const bool       integer = actual->GetScalarType() != VTK_FLOAT && actual->GetScalarType() != VTK_DOUBLE;
  EXPECT_LE(stats.maxAbs, integer ? 1.0 : expect.tolerance * range) << stats << ", input scale " << range;
  const std::size_t outside = CountEqual(expected, static_cast<float>(kBackground));
  EXPECT_LT(outside, stats.count * 9 / 10) << "mostly background";
  if (!integer)
  {
    EXPECT_EQ(BackgroundMismatches(actual, expected, static_cast<float>(kBackground)), 0u);
    worst.value = std::max(worst.value, stats.maxAbs / range);
  }
}

/** A rotation about an oblique axis through the centre of \a image, as reslice axes. */
vtkSmartPointer<vtkMatrix4x4>
ObliqueAxes(vtkImageData * image, std::uint32_t seed)
{
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  vtkNew<vtkTransform>                   t;
  double                                 center[3];
  image->GetCenter(center);
  t->Translate(center);
  t->RotateWXYZ(20 + 30 * unit(rng), 0.3 + unit(rng), 0.5, 0.8 + 0.2 * unit(rng));
  t->Translate(0.7 * unit(rng), 0.9 * unit(rng), 0.4 * unit(rng));
  auto axes = vtkSmartPointer<vtkMatrix4x4>::New();
  axes->DeepCopy(t->GetMatrix());
  return axes;
}

/** A cubic vtkBSplineTransform over \a image's bounds: a coarse grid of random
 * displacements of about a voxel. */
vtkSmartPointer<vtkBSplineTransform>
RandomBSpline(vtkImageData * image, std::uint32_t seed, int gridType, int border, double scale)
{
  double bounds[6];
  image->GetBounds(bounds);
  auto grid = vtkSmartPointer<vtkImageData>::New();
  grid->SetExtent(0, 5, -1, 4, 0, 6);
  grid->SetOrigin(bounds[0] - 2.0, bounds[2] - 1.0, bounds[4] - 3.0);
  grid->SetSpacing(
    (bounds[1] - bounds[0] + 4.0) / 5, (bounds[3] - bounds[2] + 2.0) / 5, (bounds[5] - bounds[4] + 6.0) / 6);
  grid->AllocateScalars(gridType, 3);
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> unit(-1.5, 1.5);
  vtkDataArray *                         values = grid->GetPointData()->GetScalars();
  for (vtkIdType i = 0; i < values->GetNumberOfValues(); ++i)
  {
    values->SetVariantValue(i, unit(rng));
  }
  auto spline = vtkSmartPointer<vtkBSplineTransform>::New();
  spline->SetCoefficientData(grid);
  spline->SetBorderMode(border);
  spline->SetDisplacementScale(scale);
  return spline;
}

const std::array<int, 6> kVolume = { -4, 27, 3, 26, -2, 17 }; // 32 x 24 x 20, not at 0

CIF_VTK_TEST_BOTH_PATHS(VTKReslice, ObliqueAxesInEveryBorderMode)
{
  Worst worst{ "oblique axes" };
  for (Content content : { Content::Random, Content::Smooth })
  {
    const std::uint32_t seed = FreshSeed();
    auto                samples = MakeVTKImage(kVolume, VTK_FLOAT, 1, content, seed);
    auto                axes = ObliqueAxes(samples, seed);
    const std::string   what = std::string(ToString(content)) + ", seed " + std::to_string(seed);
    for (int mode : { 0, 1, 2 })
    {
      Check(
        worst,
        samples,
        [&](vtkImageReslice * r) {
          r->SetResliceAxes(axes);
          r->SetWrap(mode == 1);
          r->SetMirror(mode == 2);
        },
        gpu,
        what + (mode == 0   ? ", clamp"
                : mode == 1 ? ", wrap"
                            : ", mirror"));
    }
    Check(
      worst,
      samples,
      [&](vtkImageReslice * r) {
        r->SetResliceAxes(axes);
        r->SetOutputDimensionality(2); // one oblique slice
        r->BorderOff();
      },
      gpu,
      what + ", one slice, Border off");
    Check(
      worst,
      samples,
      [&](vtkImageReslice * r) {
        r->SetResliceAxes(axes);
        r->SetBorderThickness(1.5);
      },
      gpu,
      what + ", BorderThickness 1.5");
  }
}

CIF_VTK_TEST_BOTH_PATHS(VTKReslice, OutputGeometryTypesAndRescaling)
{
  Worst               worst{ "output geometry" };
  const std::uint32_t seed = FreshSeed();
  auto                samples = MakeVTKImage(kVolume, VTK_FLOAT, 1, Content::Random, seed, 0.0, 200.0);
  auto                axes = ObliqueAxes(samples, seed);
  const std::string   what = "seed " + std::to_string(seed);
  for (int type : { VTK_UNSIGNED_CHAR,
                    VTK_SIGNED_CHAR,
                    VTK_SHORT,
                    VTK_UNSIGNED_SHORT,
                    VTK_INT,
                    VTK_UNSIGNED_INT,
                    VTK_FLOAT,
                    VTK_DOUBLE })
  {
    Check(
      worst,
      samples,
      [&](vtkImageReslice * r) {
        r->SetResliceAxes(axes);
        r->SetOutputSpacing(0.6, 0.9, 1.1);
        r->SetOutputOrigin(-10.5, 0.25, 6.0);
        r->SetOutputExtent(-3, 40, 2, 30, -5, 12);
        r->SetOutputScalarType(type);
        r->SetBackgroundLevel(type == VTK_FLOAT || type == VTK_DOUBLE ? kBackground : 7);
      },
      gpu,
      what + ", output " + vtkImageScalarTypeNameMacro(type));
  }
  Check(
    worst,
    samples,
    [&](vtkImageReslice * r) {
      r->SetResliceAxes(axes);
      r->SetScalarShift(-20.0);
      r->SetScalarScale(1.75);
      r->SetOutputScalarType(VTK_SHORT);
    },
    gpu,
    what + ", ScalarShift/ScalarScale to short");
}

CIF_VTK_TEST_BOTH_PATHS(VTKReslice, SeveralComponentsAndAComponentRange)
{
  Worst               worst{ "components" };
  const std::uint32_t seed = FreshSeed();
  auto                samples = MakeVTKImage({ 0, 20, -6, 10, 2, 14 }, VTK_FLOAT, 5, Content::Random, seed);
  auto                axes = ObliqueAxes(samples, seed);
  const std::string   what = "seed " + std::to_string(seed);
  Check(
    worst,
    samples,
    [&](vtkImageReslice * r) {
      r->SetResliceAxes(axes);
      r->SetBackgroundColor(kBackground, 2.5, -3.0, 4.0); // the fifth component gets 0
    },
    gpu,
    what + ", five components");
  Check(
    worst,
    samples,
    [&](vtkImageReslice * r) {
      r->SetResliceAxes(axes);
      r->GetInterpolator()->SetComponentOffset(1);
      r->GetInterpolator()->SetComponentCount(3);
    },
    gpu,
    what + ", components 1 to 3");
}

CIF_VTK_TEST_BOTH_PATHS(VTKReslice, LinearAndPerspectiveTransforms)
{
  Worst                worst{ "linear transforms" };
  const std::uint32_t  seed = FreshSeed();
  auto                 samples = MakeVTKImage(kVolume, VTK_FLOAT, 1, Content::Smooth, seed);
  auto                 axes = ObliqueAxes(samples, seed);
  const std::string    what = "seed " + std::to_string(seed);
  vtkNew<vtkTransform> linear;
  linear->Translate(1.5, -2.0, 0.75);
  linear->RotateX(12.0);
  linear->RotateZ(-7.5);
  linear->Scale(1.1, 0.95, 1.02);
  Check(
    worst,
    samples,
    [&](vtkImageReslice * r) {
      r->SetResliceAxes(axes);
      r->SetResliceTransform(linear);
    },
    gpu,
    what + ", vtkTransform after oblique axes");
  vtkNew<vtkMatrix4x4> perspective;
  perspective->DeepCopy(axes);
  perspective->SetElement(3, 0, 0.004);
  perspective->SetElement(3, 2, -0.003);
  Check(worst, samples, [&](vtkImageReslice * r) { r->SetResliceAxes(perspective); }, gpu, what + ", perspective axes");
  // axis-aligned: VTK's permute path (precomputed weights)
  vtkNew<vtkMatrix4x4> permutation;
  const double         elements[16] = { 0, 0, 1, 1.5, 1, 0, 0, -0.5, 0, 1, 0, 0.25, 0, 0, 0, 1 };
  permutation->DeepCopy(elements);
  Check(
    worst,
    samples,
    [&](vtkImageReslice * r) {
      r->SetResliceAxes(permutation);
      r->SetOutputSpacing(0.5, 0.7, 1.3);
    },
    gpu,
    what + ", permuted axes (VTK's permute path)");
  Check(worst, samples, [&](vtkImageReslice *) {}, gpu, what + ", identity");
}

CIF_VTK_TEST_BOTH_PATHS(VTKReslice, ThinInputs)
{
  // 2-D (one slice), 1-D, and 3 x 2 voxels thick: single-sample axes take one tap,
  // thin ones fold the support back into the extent.
  Worst worst{ "thin inputs" };
  for (const std::array<int, 6> & extent : { std::array<int, 6>{ 2, 40, -3, 30, 5, 5 },
                                             std::array<int, 6>{ -10, 50, 0, 0, 0, 0 },
                                             std::array<int, 6>{ 0, 30, 4, 6, 1, 2 } })
  {
    const std::uint32_t seed = FreshSeed();
    auto                samples = MakeVTKImage(extent, VTK_FLOAT, 2, Content::Random, seed);
    double              center[3];
    samples->GetCenter(center);
    vtkNew<vtkTransform> transform; // keeps most of the thin input in view
    transform->Translate(center);
    if (extent[2] == extent[3])
    {
      transform->Scale(0.8, 1.0, 1.0);
      transform->Translate(0.3, 0.0, 0.0);
    }
    else
    {
      transform->RotateZ(extent[4] == extent[5] ? 17.0 : 1.5);
    }
    transform->Translate(-center[0], -center[1], -center[2]);
    for (int mode : { 0, 1, 2 })
    {
      Check(
        worst,
        samples,
        [&](vtkImageReslice * r) {
          r->SetResliceTransform(transform);
          r->SetWrap(mode == 1);
          r->SetMirror(mode == 2);
        },
        gpu,
        "seed " + std::to_string(seed) + ", border mode " + std::to_string(mode));
    }
  }
}

CIF_VTK_TEST_BOTH_PATHS(VTKReslice, BSplineTransformOnTheDevice)
{
  Worst               worst{ "B-spline transform" };
  const std::uint32_t seed = FreshSeed();
  auto                samples = MakeVTKImage(kVolume, VTK_FLOAT, 1, Content::Random, seed);
  auto                axes = ObliqueAxes(samples, seed);
  const std::string   what = "seed " + std::to_string(seed);
  Expectation         onDevice;
  onDevice.positioning = "transform stages on the device";
  for (int border : { VTK_BSPLINE_EDGE, VTK_BSPLINE_ZERO, VTK_BSPLINE_ZERO_AT_BORDER })
  {
    for (int gridType : { VTK_FLOAT, VTK_DOUBLE })
    {
      auto spline = RandomBSpline(samples, seed + border, gridType, border, 0.8);
      Check(
        worst,
        samples,
        [&](vtkImageReslice * r) {
          r->SetResliceAxes(axes);
          r->SetResliceTransform(spline);
          r->SetOutputExtent(-8, 36, -6, 30, -6, 22); // reaches past the grid: its border rules
        },
        gpu,
        what + ", grid border " + spline->GetBorderModeAsString() + ", grid " + vtkImageScalarTypeNameMacro(gridType),
        onDevice);
    }
  }
}

CIF_VTK_TEST_BOTH_PATHS(VTKReslice, GeneralTransformOfLinearAndBSplineParts)
{
  Worst                worst{ "general transform" };
  const std::uint32_t  seed = FreshSeed();
  auto                 samples = MakeVTKImage(kVolume, VTK_FLOAT, 1, Content::Smooth, seed);
  const std::string    what = "seed " + std::to_string(seed);
  vtkNew<vtkTransform> first, last;
  first->RotateY(8.0);
  first->Translate(0.5, 1.0, -0.5);
  last->Scale(1.05, 1.0, 0.97);
  auto                        spline = RandomBSpline(samples, seed, VTK_FLOAT, VTK_BSPLINE_EDGE, 1.0);
  vtkNew<vtkGeneralTransform> inner; // nested, and applied inverted
  inner->Concatenate(last);
  inner->Inverse();
  vtkNew<vtkGeneralTransform> general;
  general->PostMultiply();
  general->Concatenate(first);
  general->Concatenate(spline);
  general->Concatenate(inner);
  Expectation onDevice;
  onDevice.positioning = "transform stages on the device";
  Check(
    worst,
    samples,
    [&](vtkImageReslice * r) { r->SetResliceTransform(general); },
    gpu,
    what + ", linear, B-spline, inverted nested linear",
    onDevice);
}

CIF_VTK_TEST_BOTH_PATHS(VTKReslice, OtherTransformsAreMappedOnTheHost)
{
  Worst               worst{ "host-mapped transforms" };
  const std::uint32_t seed = FreshSeed();
  auto                samples = MakeVTKImage(kVolume, VTK_FLOAT, 1, Content::Random, seed);
  const std::string   what = "seed " + std::to_string(seed);
  Expectation         onHost;
  onHost.positioning = "transform mapped on the host";
  vtkNew<vtkPoints> source, target;
  double            center[3];
  samples->GetCenter(center);
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int i = 0; i < 8; ++i)
  {
    const double p[3] = { center[0] + 12 * unit(rng), center[1] + 12 * unit(rng), center[2] + 10 * unit(rng) };
    source->InsertNextPoint(p);
    target->InsertNextPoint(p[0] + unit(rng), p[1] + unit(rng), p[2] + unit(rng));
  }
  vtkNew<vtkThinPlateSplineTransform> thinPlate;
  thinPlate->SetSourceLandmarks(source);
  thinPlate->SetTargetLandmarks(target);
  thinPlate->SetBasisToR();
  Check(
    worst,
    samples,
    [&](vtkImageReslice * r) { r->SetResliceTransform(thinPlate); },
    gpu,
    what + ", thin-plate spline",
    onHost);
  auto spline = RandomBSpline(samples, seed, VTK_DOUBLE, VTK_BSPLINE_EDGE, 0.3);
  Check(
    worst,
    samples,
    [&](vtkImageReslice * r) { r->SetResliceTransform(spline->GetInverse()); },
    gpu,
    what + ", inverted B-spline",
    onHost);
}

CIF_VTK_TEST_BOTH_PATHS(VTKReslice, DoubleCoefficientsAndOutput)
{
  Worst               worst{ "double" };
  const std::uint32_t seed = FreshSeed();
  auto                samples = MakeVTKImage(kVolume, VTK_DOUBLE, 1, Content::Random, seed);
  auto                axes = ObliqueAxes(samples, seed);
  Expectation         exact;
  exact.tolerance = 1e-12;
  Check(
    worst,
    samples,
    [&](vtkImageReslice * r) { r->SetResliceAxes(axes); },
    gpu,
    "seed " + std::to_string(seed) + ", double coefficients",
    exact,
    VTK_DOUBLE);
}

CIF_VTK_TEST_BOTH_PATHS(VTKReslice, PrefilterInputMatchesVTKsTwoFilters)
{
  for (int mode : { 0, 1, 2 })
  {
    const std::uint32_t seed = FreshSeed();
    SCOPED_TRACE(testing::Message() << "seed " << seed << ", border mode " << mode);
    auto samples = MakeVTKImage(kVolume, VTK_UNSIGNED_CHAR, 1, Content::Smooth, seed, 0.0, 255.0);
    auto axes = ObliqueAxes(samples, seed);
    auto configure = [&](vtkImageReslice * r) {
      r->SetResliceAxes(axes);
      r->SetWrap(mode == 1);
      r->SetMirror(mode == 2);
    };
    auto                        coefficients = VTKCoefficients(samples,
                                        mode == 0   ? VTK_IMAGE_BORDER_CLAMP
                                                               : mode == 1 ? VTK_IMAGE_BORDER_REPEAT
                                                                           : VTK_IMAGE_BORDER_MIRROR,
                                        VTK_FLOAT);
    vtkNew<vtkImageReslice>     reference;
    auto                        expected = Reslice(reference, coefficients, configure);
    vtkNew<vtkCudaImageReslice> tested;
    tested->SetUseGPU(gpu);
    tested->PrefilterInputOn();
    auto actual = Reslice(tested, samples, configure);
    EXPECT_EQ(tested->GetLastExecutionPath(), gpu ? VTK_CUDA_PATH_GPU : VTK_CUDA_PATH_CPU);
    ASSERT_EQ(actual->GetScalarType(), VTK_FLOAT);
    ASSERT_EQ(ExtentString(actual), ExtentString(expected));
    EXPECT_LE(CompareImages(actual, expected).maxAbs, 1e-5 * 255.0);
  }
}

CIF_VTK_TEST_BOTH_PATHS(VTKReslice, WhatItDoesNotServeGoesToVTK)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto samples = MakeVTKImage(kVolume, VTK_FLOAT, 1, Content::Random, seed);
  auto axes = ObliqueAxes(samples, seed);
  auto coefficients = VTKCoefficients(samples, VTK_IMAGE_BORDER_CLAMP, VTK_FLOAT);
  const std::vector<std::pair<std::string, Configure>> cases = {
    { "cubic vtkImageInterpolator",
      [&](vtkImageReslice * r) {
        vtkNew<vtkImageInterpolator> cubic;
        cubic->SetInterpolationModeToCubic();
        r->SetInterpolator(cubic);
        r->SetResliceAxes(axes);
      } },
    { "B-spline of degree 5",
      [&](vtkImageReslice * r) {
        vtkImageBSplineInterpolator::SafeDownCast(r->GetInterpolator())->SetSplineDegree(5);
        r->SetResliceAxes(axes);
      } },
    { "slab of 3",
      [&](vtkImageReslice * r) {
        r->SetResliceAxes(axes);
        r->SetSlabNumberOfSlices(3);
      } },
    { "stencil output",
      [&](vtkImageReslice * r) {
        r->SetResliceAxes(axes);
        r->GenerateStencilOutputOn();
      } },
  };
  for (const auto & c : cases)
  {
    vtkNew<vtkImageReslice>     reference;
    auto                        expected = Reslice(reference, coefficients, c.second);
    vtkNew<vtkCudaImageReslice> tested;
    tested->SetUseGPU(gpu);
    auto actual = Reslice(tested, coefficients, c.second);
    EXPECT_EQ(tested->GetLastExecutionPath(), VTK_CUDA_PATH_VTK) << c.first;
    EXPECT_STRNE(tested->GetFallbackReason(), "") << c.first;
    EXPECT_EQ(CompareImages(actual, expected).maxAbs, 0.0) << c.first;
  }
}

CIF_VTK_TEST_BOTH_PATHS(VTKReslice, EmptyInputGetsVTKsError)
{
  for (bool withScalars : { false, true })
  {
    vtkNew<vtkImageData> empty;
    if (withScalars)
    {
      empty->SetExtent(0, -1, 0, -1, 0, -1);
      empty->AllocateScalars(VTK_FLOAT, 1);
    }
    vtkNew<vtkCudaImageReslice>         tested;
    vtkNew<vtkImageBSplineInterpolator> interpolator;
    vtkNew<ErrorCounter>                errors;
    tested->AddObserver(vtkCommand::ErrorEvent, errors);
    interpolator->AddObserver(vtkCommand::ErrorEvent, errors);
    tested->SetInterpolator(interpolator);
    tested->SetUseGPU(gpu);
    tested->SetInputData(empty);
    tested->Update();
    vtkNew<vtkImageReslice>             reference;
    vtkNew<vtkImageBSplineInterpolator> referenceInterpolator;
    vtkNew<ErrorCounter>                referenceErrors;
    reference->AddObserver(vtkCommand::ErrorEvent, referenceErrors);
    referenceInterpolator->AddObserver(vtkCommand::ErrorEvent, referenceErrors);
    reference->SetInterpolator(referenceInterpolator);
    reference->SetInputData(empty);
    reference->Update();
    EXPECT_EQ(tested->GetLastExecutionPath(), VTK_CUDA_PATH_VTK) << "with scalars: " << withScalars;
    EXPECT_EQ(errors->Count, referenceErrors->Count) << errors->LastMessage;
    EXPECT_EQ(tested->GetOutput()->GetNumberOfPoints(), reference->GetOutput()->GetNumberOfPoints());
  }
}

CIF_VTK_TEST_BOTH_PATHS(VTKReslice, CoefficientsKeptOnTheDeviceFeedTheReslice)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto samples = MakeVTKImage(kVolume, VTK_FLOAT, 1, Content::Random, seed);
  auto axes = ObliqueAxes(samples, seed);
  auto configure = [&](vtkImageReslice * r) { r->SetResliceAxes(axes); };
  auto expected = [&] {
    vtkNew<vtkImageReslice> reference;
    return Reslice(reference, VTKCoefficients(samples, VTK_IMAGE_BORDER_CLAMP, VTK_FLOAT), configure);
  }();

  vtkNew<vtkCudaImageBSplineCoefficients> prefilter;
  prefilter->SetInputData(samples);
  prefilter->SetUseGPU(gpu);
  prefilter->KeepOutputOnDeviceOn();
  vtkNew<vtkCudaImageReslice>         reslice;
  vtkNew<vtkImageBSplineInterpolator> interpolator;
  reslice->SetInterpolator(interpolator);
  reslice->SetInputConnection(prefilter->GetOutputPort());
  reslice->SetBackgroundLevel(kBackground);
  reslice->SetUseGPU(gpu);
  configure(reslice);
  cif::TransferCounters::Reset();
  reslice->Update();
  const cif::TransferCounters transfers = cif::TransferCounters::Get();
  EXPECT_EQ(reslice->GetLastExecutionPath(), gpu ? VTK_CUDA_PATH_GPU : VTK_CUDA_PATH_CPU);
  if (gpu)
  {
    // the samples go up once, the resliced volume comes down once: the coefficients
    // never visit the host
    EXPECT_EQ(transfers.uploads, 1u);
    EXPECT_EQ(transfers.downloads, 1u);
  }
  EXPECT_LE(CompareImages(reslice->GetOutput(), expected).maxAbs, 1e-5 * ValueRange(samples));
}
/** Sets the smallest pinned output for a scope (the filters pin outputs of at least
 * this many bytes from their second update on), and restores it. */
struct PinnedOutputMinimum
{
  explicit PinnedOutputMinimum(std::size_t bytes)
    : previous(cif::GetPinnedOutputMinimumBytes())
  {
    cif::SetPinnedOutputMinimumBytes(bytes);
  }
  ~PinnedOutputMinimum() { cif::SetPinnedOutputMinimumBytes(previous); }
  std::size_t previous;
};

CIF_VTK_TEST_BOTH_PATHS(VTKReslice, OutputsArePinnedFromTheSecondUpdateWithTheSameValues)
{
  // On the GPU the host outputs of both filters are pinned from their second update
  // on (cifVTKPinnedScalars.h), the reslice's downloaded in slabs while the next
  // computes; the values stay VTK's, and the pinned memory goes with the filters. On
  // the CPU path nothing is pinned.
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  const PinnedOutputMinimum pinAll(0);
  const std::size_t         pinnedBefore = cif::GetPinnedHostBytes();
  auto                      samples = MakeVTKImage(kVolume, VTK_FLOAT, 1, Content::Random, seed);
  auto                      axes = ObliqueAxes(samples, seed);
  auto                      configure = [&](vtkImageReslice * r) { r->SetResliceAxes(axes); };
  auto                      coefficients = VTKCoefficients(samples, VTK_IMAGE_BORDER_CLAMP, VTK_FLOAT);
  vtkNew<vtkImageReslice>   reference;
  auto                      expected = Reslice(reference, coefficients, configure);
  const double              scale = ValueRange(samples);
  {
    vtkNew<vtkCudaImageBSplineCoefficients> prefilter;
    prefilter->SetInputData(samples);
    prefilter->SetUseGPU(gpu);
    vtkNew<vtkCudaImageReslice>         reslice;
    vtkNew<vtkImageBSplineInterpolator> interpolator;
    reslice->SetInterpolator(interpolator);
    reslice->SetInputConnection(prefilter->GetOutputPort());
    reslice->SetBackgroundLevel(kBackground);
    reslice->SetUseGPU(gpu);
    configure(reslice);
    for (int update = 1; update <= 3; ++update)
    {
      SCOPED_TRACE(testing::Message() << "update " << update);
      prefilter->Modified();
      reslice->Update();
      const bool pinned = gpu && update >= 2;
      EXPECT_EQ(reslice->GetLastExecutionPath(), gpu ? VTK_CUDA_PATH_GPU : VTK_CUDA_PATH_CPU);
      EXPECT_EQ(cif::IsPageLockedHostMemory(prefilter->GetOutput()->GetScalarPointer()), pinned);
      EXPECT_EQ(cif::IsPageLockedHostMemory(reslice->GetOutput()->GetScalarPointer()), pinned);
      EXPECT_LE(CompareImages(prefilter->GetOutput(), coefficients).maxAbs, 1e-6 * scale);
      EXPECT_LE(CompareImages(reslice->GetOutput(), expected).maxAbs, 1e-5 * scale);
    }
    if (gpu)
    {
      EXPECT_GT(cif::GetPinnedHostBytes(), pinnedBefore);
    }
  }
  EXPECT_EQ(cif::GetPinnedHostBytes(), pinnedBefore) << "the pinned outputs are freed with their filters";
}
} // namespace
