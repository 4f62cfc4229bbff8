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
#ifndef cifVTKTestSupport_h
#define cifVTKTestSupport_h

// Shared pieces of the VTK adapters' tests: fresh random or smooth vtkImageData of
// any type, extent and component count; comparisons of two images; an observer that
// counts VTK errors; and the CPU/GPU twin tests.
#include "cifTestHelpers.h"

#include "vtkCommand.h"
#include "vtkDataArray.h"
#include "vtkImageData.h"
#include "vtkPointData.h"
#include "vtkSmartPointer.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <string>

namespace cif_test
{
/** A test body run twice: on the CPU path (TEST(SuiteCPU, Name)) and on the GPU
 * (TEST(SuiteGPU, Name), skipped with the reason where no device is usable). */
#define CIF_VTK_TEST_BOTH_PATHS(Suite, Name)               \
  static void Suite##_##Name##_Body(bool gpu);             \
  TEST(Suite##CPU, Name) { Suite##_##Name##_Body(false); } \
  TEST(Suite##GPU, Name)                                   \
  {                                                        \
    CIF_REQUIRE_GPU();                                     \
    Suite##_##Name##_Body(true);                           \
  }                                                        \
  static void Suite##_##Name##_Body(bool gpu)

/** An image of \a extent, \a components per voxel, filled with \a content in
 * [low, high) (cast to the scalar type), spacing and origin away from 1 and 0. */
inline vtkSmartPointer<vtkImageData>
MakeVTKImage(const std::array<int, 6> & extent,
             int                        scalarType,
             int                        components,
             Content                    content,
             std::uint32_t              seed,
             double                     low = -50.0,
             double                     high = 150.0)
{
  auto image = vtkSmartPointer<vtkImageData>::New();
  image->SetExtent(extent[0], extent[1], extent[2], extent[3], extent[4], extent[5]);
  image->SetSpacing(0.75, 1.25, 1.5);
  image->SetOrigin(-3.5, 2.25, 10.0);
  image->AllocateScalars(scalarType, components);
  vtkDataArray *                         scalars = image->GetPointData()->GetScalars();
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  double                                 frequency[3][8], phase[3][8];
  for (int a = 0; a < 3; ++a)
  {
    for (int c = 0; c < 8; ++c)
    {
      frequency[a][c] = 0.05 + 0.25 * unit(rng);
      phase[a][c] = 6.28 * unit(rng);
    }
  }
  vtkIdType tuple = 0;
  for (int k = extent[4]; k <= extent[5]; ++k)
  {
    for (int j = extent[2]; j <= extent[3]; ++j)
    {
      for (int i = extent[0]; i <= extent[1]; ++i, ++tuple)
      {
        const int index[3] = { i, j, k };
        for (int c = 0; c < components; ++c)
        {
          double value = unit(rng);
          if (content == Content::Smooth)
          {
            value = 0.5;
            for (int a = 0; a < 3; ++a)
            {
              value += 0.15 * std::cos(frequency[a][c % 8] * index[a] + phase[a][c % 8]);
            }
            value = std::min(std::max(value, 0.0), 1.0);
          }
          scalars->SetComponent(tuple, c, low + (high - low) * value);
        }
      }
    }
  }
  return image;
}

/** Largest |a - b| over every scalar, the values as doubles (a is tested, b the
 * reference); also the reference's largest magnitude. */
inline ErrorStats
CompareImages(vtkImageData * a, vtkImageData * b)
{
  ErrorStats      s;
  vtkDataArray *  x = a->GetPointData()->GetScalars();
  vtkDataArray *  y = b->GetPointData()->GetScalars();
  double          sum = 0;
  const vtkIdType n = std::min(x->GetNumberOfValues(), y->GetNumberOfValues());
  for (vtkIdType i = 0; i < n; ++i)
  {
    const double u = x->GetVariantValue(i).ToDouble(), v = y->GetVariantValue(i).ToDouble();
    const double d = std::isnan(u) && std::isnan(v) ? 0.0 : u - v;
    s.maxAbs = std::max(s.maxAbs, std::isnan(d) ? HUGE_VAL : std::fabs(d));
    s.maxRef = std::max(s.maxRef, std::fabs(v));
    sum += d * d;
  }
  s.count = static_cast<std::size_t>(n);
  s.rms = n ? std::sqrt(sum / n) : 0;
  return s;
}

/** The scale the tolerances refer to: the data's range (largest minus smallest
 * scalar), or its largest magnitude where that is larger (two samples of 49.3 and
 * 51.5 have a range of 2.2, but their float coefficients are rounded at 62). */
inline double
ValueRange(vtkImageData * image)
{
  double range[2];
  image->GetPointData()->GetScalars()->GetRange(range, -1);
  return std::max(range[1] - range[0], std::max(std::fabs(range[0]), std::fabs(range[1])));
}

/** Number of scalars equal to \a value in one image but not the other (the voxels
 * outside the input: VTK's background). */
inline std::size_t
BackgroundMismatches(vtkImageData * a, vtkImageData * b, double value)
{
  vtkDataArray * x = a->GetPointData()->GetScalars();
  vtkDataArray * y = b->GetPointData()->GetScalars();
  std::size_t    mismatches = 0;
  for (vtkIdType i = 0; i < std::min(x->GetNumberOfValues(), y->GetNumberOfValues()); ++i)
  {
    mismatches += (x->GetVariantValue(i).ToDouble() == value) != (y->GetVariantValue(i).ToDouble() == value);
  }
  return mismatches;
}

inline std::size_t
CountEqual(vtkImageData * a, double value)
{
  vtkDataArray * x = a->GetPointData()->GetScalars();
  std::size_t    count = 0;
  for (vtkIdType i = 0; i < x->GetNumberOfValues(); ++i)
  {
    count += x->GetVariantValue(i).ToDouble() == value;
  }
  return count;
}

/** Counts the ErrorEvents of the objects it observes (VTK's vtkErrorMacro). */
class ErrorCounter : public vtkCommand
{
public:
  static ErrorCounter *
  New()
  {
    return new ErrorCounter;
  }
  void
  Execute(vtkObject *, unsigned long, void * text) override
  {
    ++this->Count;
    this->LastMessage = text ? static_cast<const char *>(text) : "";
  }
  int         Count = 0;
  std::string LastMessage;
};

inline std::string
ExtentString(vtkImageData * image)
{
  const int * e = image->GetExtent();
  return std::to_string(e[0]) + ".." + std::to_string(e[1]) + " x " + std::to_string(e[2]) + ".." +
         std::to_string(e[3]) + " x " + std::to_string(e[4]) + ".." + std::to_string(e[5]);
}
} // namespace cif_test

#endif
