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
// The interpolation property, per boundary mode: a cubic spline with the computed
// coefficients passes through every sample. At grid points the cubic B-spline has
// weights 1/6, 4/6, 1/6, so (c[k-1] + 4 c[k] + c[k+1]) / 6 must equal x[k] along each
// axis, with the coefficient just past each end continued as the mode implies:
//   Mirror:      c[-1] = c[1]
//   Periodic:    c[-1] = c[n-1]
//   HalfSampleMirror: c[-1] = c[0] (the coefficients share the samples' half-sample
//                symmetry)
//   ClampToEdge: the input is constant x[0] before the start, so the coefficients
//                relax to it as powers of the pole: c[-1] = x[0] + z (c[0] - x[0]).
// Evaluated in double on the host, with none of the filter's code.
#include "cifPrefilterTestSupport.h"

#include <vector>

namespace
{
using namespace cif_test;

/** The coefficient just outside a clamped end, from the two nearest inside ones.
 * Before the start the input is constant x0, so c[-1] = x0 + z (c[0] - x0); with
 * x0 = (c[-1] + 4 c[0] + c[1]) / 6 (the spline through x0) this solves to the value
 * below. It holds only if the coefficients have the clamp structure, so the grid
 * point check at k = 0 still tests the filter. */
double
ClampedExteriorCoefficient(double inner, double next)
{
  const double z = std::sqrt(3.0) - 2.0;
  const double a = (1.0 - z) / 6.0;
  return (a * (4.0 * inner + next) + z * inner) / (1.0 - a);
}

/** Evaluates the cubic spline at the grid points of every line of \a axis (in place). */
void
EvaluateAtGridPointsAlongAxis(std::vector<double> &    values,
                              const cif::BufferShape & shape,
                              int                      axis,
                              cif::BoundaryMode        mode)
{
  const cif::AxisLines lines = cif::MakeAxisLines(shape, axis);
  const std::int64_t   n = lines.length;
  if (n < 2)
  {
    return; // a one-sample line is its own coefficient
  }
  std::vector<double> c(n);
  for (std::int64_t line = 0; line < lines.count; ++line)
  {
    const std::int64_t start = lines.Start(line);
    for (std::int64_t k = 0; k < n; ++k)
    {
      c[k] = values[start + k * lines.stride];
    }
    double before = c[1], after = c[n - 2]; // Mirror
    if (mode == cif::BoundaryMode::Periodic)
    {
      before = c[n - 1];
      after = c[0];
    }
    else if (mode == cif::BoundaryMode::HalfSampleMirror)
    {
      before = c[0];
      after = c[n - 1];
    }
    else if (mode == cif::BoundaryMode::ClampToEdge)
    {
      before = ClampedExteriorCoefficient(c[0], c[1]);
      after = ClampedExteriorCoefficient(c[n - 1], c[n - 2]);
    }
    for (std::int64_t k = 0; k < n; ++k)
    {
      const double left = k > 0 ? c[k - 1] : before;
      const double right = k + 1 < n ? c[k + 1] : after;
      values[start + k * lines.stride] = (left + 4.0 * c[k] + right) / 6.0;
    }
  }
}

template <unsigned int D, typename TPixel>
void
CheckInterpolation(const itk::Size<D> & size, cif::BoundaryMode mode, Path path)
{
  using Image = itk::Image<TPixel, D>;
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << D << "-D " << size << ", " << cif::ToString(mode) << ", " << ToString(path) << ", "
                                  << typeid(TPixel).name() << ", seed " << seed);
  auto input = MakeImage<Image>(size, {}, Content::Random, seed, 0.0, 100.0);
  auto coefficients = RunPrefilter<Image>(input.GetPointer(), path, 3, mode);

  cif::BufferShape shape;
  shape.dimension = D;
  for (unsigned int d = 0; d < D; ++d)
  {
    shape.size[d] = size[d];
  }
  const std::size_t   count = shape.ScalarCount();
  std::vector<double> values(coefficients->GetBufferPointer(), coefficients->GetBufferPointer() + count);
  // The per-axis filters act on different axes and so commute: undo them in any order.
  for (int axis = 0; axis < static_cast<int>(D); ++axis)
  {
    EvaluateAtGridPointsAlongAxis(values, shape, axis, mode);
  }
  const ErrorStats stats = Compare(values.data(), input->GetBufferPointer(), count);
  // float: 1e-5 of the data range (100), growing past 4-D with the passes that
  // amplify each pass's rounding (FloatPassGrowth). double: ITK truncates the causal
  // start where the pole's powers fall below 1e-10, so the spline meets the samples
  // to about 1e-10 of the coefficients' scale, not to double rounding.
  const double tolerance = std::is_same_v<TPixel, float> ? 1e-5 * 100.0 * FloatPassGrowth(D) : 1e-10 * 100.0 * 10.0;
  EXPECT_LE(stats.maxAbs, tolerance) << stats;
}

void
CheckAllModes(Path path)
{
  for (auto mode : { cif::BoundaryMode::Mirror,
                     cif::BoundaryMode::ClampToEdge,
                     cif::BoundaryMode::Periodic,
                     cif::BoundaryMode::HalfSampleMirror })
  {
    for (itk::SizeValueType n : { 2, 3, 5, 17, 18, 19, 40, 300 })
    {
      CheckInterpolation<1, double>({ { n } }, mode, path);
      CheckInterpolation<1, float>({ { n } }, mode, path);
    }
    CheckInterpolation<2, float>({ { 33, 18 } }, mode, path);
    CheckInterpolation<2, double>({ { 7, 64 } }, mode, path);
    CheckInterpolation<3, float>({ { 20, 17, 9 } }, mode, path);
    CheckInterpolation<3, double>({ { 5, 1, 30 } }, mode, path);
    CheckInterpolation<5, double>({ { 6, 5, 3, 4, 19 } }, mode, path);
    CheckInterpolation<6, float>({ { 18, 2, 3, 2, 1, 5 } }, mode, path);
    CheckInterpolation<6, float>({ { 3, 4, 2, 5, 2, 19 } }, mode, path);
  }
}

TEST(BSplinePrefilterCPU, InterpolatesSamplesInEveryBoundaryMode) { CheckAllModes(Path::CPU); }
TEST(BSplinePrefilterGPU, InterpolatesSamplesInEveryBoundaryMode)
{
  CIF_REQUIRE_GPU();
  CheckAllModes(Path::GPU);
}
} // namespace
