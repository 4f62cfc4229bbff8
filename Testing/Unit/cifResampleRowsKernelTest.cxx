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
// The GPU's linear-path kernel (cifResampleRowsKernel.cuh) computes the voxels whose cubic
// support lies inside the coefficients in its loop and sets the others, at the grid's
// faces, aside for each warp to compute together at the end. Every voxel must still be
// written, with ITK's value: checked here against ResampleVoxelOnRow (the CPU's
// arithmetic, which never splits; the GPU fuses multiply-adds, so within float
// rounding) in outputs poisoned beforehand, for maps that cross every face at odd
// angles, rows that run along a face, flips, turns that lay the kernel's lanes along
// output axis 1 or 2, downsampling, grids of 1 to 3 samples along an axis, buffers
// that do not start at 0 and integer outputs. A chain with a
// grid transform is refused on that path, with an error and no output. From
// mirror-padded coefficients (cifMirrorPadding.h: every voxel takes the interior sum)
// the kernel gives the bits it gives from dense ones (there it takes turns onto a
// slightly coarser grid in row buckets, cifRowBuckets.h), and the device's halo is the
// host's. The one-thread-per-voxel kernel, under the same maps, writes every voxel
// with the CPU's value.
#include "cifCudaRuntime.h"
#include "cifBSplinePrefilterDevice.h"
#include "cifMirrorPadding.h"
#include "cifDeviceBuffer.h"
#include "cifResampleDevice.h"
#include "cifRowBuckets.h"
#include "cifTestHelpers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace
{
struct Case
{
  std::string           name;
  cif::ResampleGeometry g;
  cif::TransformChain   chain;
};

cif::TransformChain
AffineChain(const double m[3][3], const double offset[3])
{
  cif::TransformChain chain;
  chain.count = 1;
  chain.stage[0].kind = cif::TransformKind::Affine;
  for (int i = 0; i < 3; ++i)
  {
    for (int j = 0; j < 3; ++j)
    {
      chain.stage[0].matrix[i][j] = m[i][j];
    }
    chain.stage[0].offset[i] = offset[i];
  }
  return chain;
}

Case
MakeCase(std::string        name,
         const std::int64_t in[3],
         const std::int64_t inStart[3],
         const std::int64_t out[3],
         const double       m[3][3],
         const double       offset[3])
{
  Case c;
  c.name = std::move(name);
  for (int a = 0; a < 3; ++a)
  {
    c.g.input.size[a] = in[a];
    c.g.input.start[a] = inStart[a];
    c.g.outputSize[a] = out[a];
  }
  c.g.lineLength = out[0];
  c.chain = AffineChain(m, offset);
  return c;
}

/** The CPU's linear path, voxel by voxel (host chain). */
template <typename TOut>
std::vector<TOut>
ResampleOnHost(const Case &                c,
               const cif::TransformChain & hostChain,
               const std::vector<float> &  coefficients,
               TOut                        defaultValue)
{
  std::vector<TOut> out(static_cast<std::size_t>(c.g.OutputCount()));
  for (std::int64_t row = 0; row < c.g.OutputRows(); ++row)
  {
    double start[cif::kMaxDimension], end[cif::kMaxDimension];
    cif::RowEndpoints<3>(c.g, hostChain, row, start, end);
    for (std::int64_t x = 0; x < c.g.outputSize[0]; ++x)
    {
      out[static_cast<std::size_t>(row * c.g.outputSize[0] + x)] =
        cif::ResampleVoxelOnRow<3, float, TOut>(coefficients.data(), c.g, start, end, x, defaultValue);
    }
  }
  return out;
}

/** The one-thread-per-voxel path on the CPU, voxel by voxel (host chain). */
template <typename TOut>
std::vector<TOut>
ResampleVoxelsOnHost(const Case & c, const std::vector<float> & coefficients, TOut defaultValue)
{
  std::vector<TOut> out(static_cast<std::size_t>(c.g.OutputCount()));
  for (std::int64_t i = 0; i < c.g.OutputCount(); ++i)
  {
    out[static_cast<std::size_t>(i)] =
      cif::ResampleVoxel<3, float, TOut>(coefficients.data(), c.g, c.chain, nullptr, i, defaultValue);
  }
  return out;
}

/** Resamples \a c on the device, into an output whose every byte was 0xFF (NaN for
 * float, 255 for uchar, which these inputs never reach), and on the host: the linear
 * path, or with \a linearRows false the one-thread-per-voxel path. Returns the voxels
 * further than \a tolerance from the host's. */
template <typename TOut>
std::int64_t
DifferingVoxels(const Case &   c,
                TOut           defaultValue,
                double         tolerance,
                std::int64_t & insideVoxels,
                bool           linearRows = true)
{
  const std::int64_t                    inCount = c.g.input.size[0] * c.g.input.size[1] * c.g.input.size[2];
  std::vector<float>                    coefficients(static_cast<std::size_t>(inCount));
  std::mt19937                          rng(static_cast<unsigned>(inCount * 7 + c.g.OutputCount()));
  std::uniform_real_distribution<float> value(-40.f, 240.f);
  for (float & v : coefficients)
  {
    v = value(rng);
  }
  const std::vector<TOut> expected = linearRows ? ResampleOnHost<TOut>(c, c.chain, coefficients, defaultValue)
                                                : ResampleVoxelsOnHost<TOut>(c, coefficients, defaultValue);
  std::vector<TOut>       actual(expected.size());
  std::memset(actual.data(), 0xFF, actual.size() * sizeof(TOut));
  cif::DeviceBuffer input(coefficients.size() * sizeof(float)), output(expected.size() * sizeof(TOut));
  input.Upload(coefficients.data(), coefficients.size() * sizeof(float));
  output.Upload(actual.data(), actual.size() * sizeof(TOut));
  cif::ResampleOnDevice<3, float, TOut>(
    input.As<const float>(), c.g, c.chain, nullptr, linearRows, defaultValue, output.As<TOut>());
  output.Download(actual.data(), actual.size() * sizeof(TOut));
  std::int64_t differ = 0;
  insideVoxels = 0;
  for (std::size_t i = 0; i < actual.size(); ++i)
  {
    const double difference = std::fabs(static_cast<double>(actual[i]) - static_cast<double>(expected[i]));
    differ += !(difference <= tolerance); // NaN, an unwritten float voxel, counts
    insideVoxels += expected[i] != defaultValue;
  }
  return differ;
}

/** Maps that cross every face at odd angles, rows along faces, a flip, downsampling
 * from a buffer that starts elsewhere, a 3x2x1 grid, turns past 45 degrees, and 12
 * random maps. */
std::vector<Case>
FaceCrossingCases()
{
  const std::int64_t origin[3] = { 0, 0, 0 }, offsetStart[3] = { 4, -3, 7 };
  const std::int64_t n[3] = { 37, 29, 23 };
  const double       identity[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
  const double       none[3] = { 0, 0, 0 }, half[3] = { 0.5, -0.5, 1.5 };
  const double       quarterTurnFlip[3][3] = { { 0, -1, 0 }, { 1, 0, 0 }, { 0, 0, -1 } };
  const double       toQuarter[3] = { 28, 0, 22 };
  std::vector<Case>  cases;
  cases.push_back(MakeCase("identity", n, origin, n, identity, none));
  cases.push_back(MakeCase("half-sample shift, buffer from (4,-3,7)", n, offsetStart, n, identity, half));
  cases.push_back(MakeCase("quarter turn and flip", n, origin, n, quarterTurnFlip, toQuarter));
  const double       down[3][3] = { { 3.1, 0.2, 0 }, { -0.1, 3.1, 0.05 }, { 0, 0.03, 3.1 } };
  const std::int64_t big[3] = { 61, 64, 59 }, few[3] = { 21, 22, 20 };
  const double       toDown[3] = { -0.5, -0.7, 0.4 };
  cases.push_back(MakeCase("downsample by 3.1", big, origin, few, down, toDown));
  const std::int64_t thin[3] = { 3, 2, 1 }, zoomed[3] = { 70, 19, 4 };
  const double       zoom[3][3] = { { 0.04, 0.001, 0 }, { 0, 0.1, 0 }, { 0, 0, 0.1 } };
  const double       toZoom[3] = { -0.45, -0.45, -0.2 };
  cases.push_back(MakeCase("3x2x1 input, zoom", thin, origin, zoomed, zoom, toZoom));
  // Turns that put the input's rows along output axis 1 or 2 (the kernel's lanes
  // then lie along that axis, cifRowShear.h), or that need the walk along axis 2;
  // outputs wider than a block of lanes.
  const std::int64_t wide[3] = { 70, 66, 40 }, wideOut[3] = { 90, 75, 45 };
  const double       s60 = std::sin(1.0472), c60 = std::cos(1.0472), s30 = std::sin(0.5236), c30 = std::cos(0.5236);
  const double       turnXY60[3][3] = { { c60, -s60, 0 }, { s60, c60, 0.1 }, { 0, -0.1, 1 } };
  const double       turnXZ30[3][3] = { { c30, 0, -s30 }, { 0, 1, 0 }, { s30, 0, c30 } };
  const double       quarterXZ[3][3] = { { 0, 0, -1 }, { 0, 1, 0 }, { 1, 0, 0 } };
  const double       toWide[3] = { 35, -3, 10 }, toWideXZ[3] = { 20, -4, -8 }, toQuarterXZ[3] = { 50, -4, -30 };
  cases.push_back(MakeCase("60 degrees in x-y (lanes along y)", wide, origin, wideOut, turnXY60, toWide));
  cases.push_back(MakeCase("30 degrees in x-z (walk along z)", wide, origin, wideOut, turnXZ30, toWideXZ));
  cases.push_back(MakeCase("quarter turn in x-z (lanes along z)", wide, origin, wideOut, quarterXZ, toQuarterXZ));
  // Turns onto a slightly coarser grid, which the kernel takes in row buckets from
  // mirror-padded coefficients (cifRowBuckets.h): x-y (and a flip of y), x-z (walk
  // along z), a second small turn in y-z, outputs wider than a block of lanes.
  const auto centredTurn =
    [&](const std::string & name, int p, int q, double angle, double angleYZ, double scale, double flipY) {
      double turn[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }, m[3][3], offset[3];
      turn[p][p] = turn[q][q] = std::cos(angle);
      turn[p][q] = -std::sin(angle);
      turn[q][p] = std::sin(angle);
      const double yz[3][3] = { { 1, 0, 0 },
                                { 0, std::cos(angleYZ), -std::sin(angleYZ) },
                                { 0, std::sin(angleYZ), std::cos(angleYZ) } };
      for (int i = 0; i < 3; ++i)
      {
        offset[i] = 0.5 * static_cast<double>(wide[i] - 1) + 0.37;
        for (int j = 0; j < 3; ++j)
        {
          m[i][j] = 0;
          for (int k = 0; k < 3; ++k)
          {
            m[i][j] += yz[i][k] * turn[k][j];
          }
          m[i][j] *= scale * (i == 1 ? flipY : 1.0);
          offset[i] -= m[i][j] * 0.5 * static_cast<double>(wideOut[j] - 1);
        }
      }
      cases.push_back(MakeCase(name, wide, origin, wideOut, m, offset));
    };
  centredTurn("6 degrees in x-y, 1.01 coarser (buckets)", 0, 1, 0.1047, 0.0, 1.01, 1.0);
  centredTurn("-15 degrees in x-y and 1 in y-z, 1.04 coarser (buckets)", 0, 1, -0.2618, 0.0175, 1.04, 1.0);
  centredTurn("8 degrees in x-y, 1.02 coarser, y flipped (buckets)", 0, 1, 0.1396, 0.0, 1.02, -1.0);
  centredTurn("6 degrees in x-z, 1.05 coarser (buckets, walk along z)", 0, 2, 0.1047, 0.0, 1.05, 1.0);
  std::mt19937                           rng(20261125);
  std::uniform_real_distribution<double> entry(-1.3, 1.3), shift(-9.0, 9.0);
  std::uniform_int_distribution<int>     size(4, 40), start(-6, 6);
  for (int trial = 0; trial < 12; ++trial)
  {
    std::int64_t in[3], inStart[3], out[3];
    double       m[3][3], offset[3];
    for (int a = 0; a < 3; ++a)
    {
      in[a] = size(rng);
      inStart[a] = start(rng);
      out[a] = size(rng) + 20;
      offset[a] = shift(rng) + static_cast<double>(inStart[a]);
      for (int b = 0; b < 3; ++b)
      {
        m[a][b] = entry(rng);
      }
    }
    cases.push_back(MakeCase("random map " + std::to_string(trial), in, inStart, out, m, offset));
  }
  return cases;
}
} // namespace

TEST(ResampleRowsKernelGPU, EveryVoxelWrittenWithTheCPUValueAtEveryFace)
{
  CIF_REQUIRE_GPU();
  const std::vector<Case> cases = FaceCrossingCases();
  std::int64_t            insideTotal = 0;
  for (const Case & c : cases)
  {
    std::int64_t inside = 0;
    // float: values up to 240 summed over 64 terms in float; uchar: a rounding apart
    EXPECT_EQ(DifferingVoxels<float>(c, -1000.f, 1e-3, inside), 0) << c.name << " (float)";
    EXPECT_EQ(DifferingVoxels<std::uint8_t>(c, std::uint8_t{ 7 }, 1.0, inside), 0) << c.name << " (uchar)";
    insideTotal += inside;
  }
  EXPECT_GT(insideTotal, 10000) << "the maps should put most voxels inside the input";
}

TEST(ResampleVoxelKernelGPU, EveryVoxelWrittenWithTheCPUValueAtEveryTurn)
{
  CIF_REQUIRE_GPU();
  // The same maps through the one-thread-per-voxel kernel (what grid transforms
  // take), whose threads run across the output's rows where the input's rows lie
  // along output axis 1 or 2 (VoxelLaneAxis): every voxel written, with the CPU's value.
  std::int64_t insideTotal = 0;
  for (const Case & c : FaceCrossingCases())
  {
    std::int64_t inside = 0;
    EXPECT_EQ(DifferingVoxels<float>(c, -1000.f, 1e-3, inside, false), 0) << c.name << " (float)";
    insideTotal += inside;
  }
  EXPECT_GT(insideTotal, 10000) << "the maps should put most voxels inside the input";
}

TEST(ResampleRowsKernelGPU, ChainWithAGridTransformIsRefusedOnTheLinearPath)
{
  CIF_REQUIRE_GPU();
  // An affine stage, then a B-spline stage: not a chain ITK calls linear, so not one
  // the filter sends down the scanline path. Called that way anyway, it is an error
  // raised before anything runs, and the output is left as it was.
  const std::int64_t n[3] = { 12, 10, 9 }, origin[3] = { 0, 0, 0 };
  const double       m[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
  const double       offset[3] = { 0.25, 0, 0 };
  Case               c = MakeCase("affine then B-spline", n, origin, n, m, offset);
  c.chain.count = 2;
  c.chain.stage[1].kind = cif::TransformKind::BSpline;
  ASSERT_FALSE(cif::AllStagesAffine(c.chain));
  const std::size_t  count = static_cast<std::size_t>(c.g.OutputCount());
  std::vector<float> coefficients(count, 1.f), result(count, 5.f);
  cif::DeviceBuffer  input(count * sizeof(float)), output(count * sizeof(float));
  input.Upload(coefficients.data(), count * sizeof(float));
  output.Upload(result.data(), count * sizeof(float));
  EXPECT_THROW((cif::ResampleOnDevice<3, float, float>(
                 input.As<const float>(), c.g, c.chain, nullptr, true, 0.f, output.As<float>())),
               cif::CudaError);
  output.Download(result.data(), count * sizeof(float));
  EXPECT_EQ(std::count(result.begin(), result.end(), 5.f), static_cast<std::ptrdiff_t>(count));
}

namespace
{
/** Resamples \a c on the device from \a coefficients (device, dense) and from
 * \a padded (device, mirror-padded) into outputs poisoned with 0xFF; returns the
 * voxels whose bits differ. */
template <typename TOut>
std::int64_t
VoxelsDifferingFromPadded(const Case &              c,
                          const cif::DeviceBuffer & coefficients,
                          const cif::DeviceBuffer & padded,
                          TOut                      defaultValue)
{
  const auto        count = static_cast<std::size_t>(c.g.OutputCount());
  cif::DeviceBuffer fromDense(count * sizeof(TOut)), fromPadded(count * sizeof(TOut));
  std::vector<TOut> a(count), b(count);
  std::memset(a.data(), 0xFF, count * sizeof(TOut));
  fromDense.Upload(a.data(), count * sizeof(TOut));
  fromPadded.Upload(a.data(), count * sizeof(TOut));
  cif::ResampleGeometry paddedGeometry = c.g;
  paddedGeometry.inputMirrorPadded = true;
  cif::ResampleOnDevice<3, float, TOut>(
    coefficients.As<const float>(), c.g, c.chain, nullptr, true, defaultValue, fromDense.As<TOut>());
  cif::ResampleOnDevice<3, float, TOut>(
    padded.As<const float>(), paddedGeometry, c.chain, nullptr, true, defaultValue, fromPadded.As<TOut>());
  fromDense.Download(a.data(), count * sizeof(TOut));
  fromPadded.Download(b.data(), count * sizeof(TOut));
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < count; ++i)
  {
    differ += std::memcmp(&a[i], &b[i], sizeof(TOut)) != 0;
  }
  return differ;
}
} // namespace

TEST(ResampleRowsKernelGPU, MirrorPaddedCoefficientsGiveTheSameBits)
{
  CIF_REQUIRE_GPU();
  // From padded coefficients the kernel takes some of these maps in row buckets
  // (cifRowBuckets.h), from dense ones never: the same bits, every voxel written.
  int bucketed = 0;
  for (const Case & c : FaceCrossingCases())
  {
    bucketed += cif::MakeRowBuckets<3>(c.g, c.chain, cif::MakeRowShear<3>(c.g, c.chain)).on;
    const cif::CoefficientGrid &          grid = c.g.input;
    const std::int64_t                    inCount = grid.size[0] * grid.size[1] * grid.size[2];
    std::vector<float>                    coefficients(static_cast<std::size_t>(inCount));
    std::mt19937                          rng(static_cast<unsigned>(inCount * 3 + 1));
    std::uniform_real_distribution<float> value(-40.f, 240.f);
    for (float & v : coefficients)
    {
      v = value(rng);
    }
    // The device's padded buffer: the samples copied into the layout (a prefilter with
    // no poles filters nothing), then the halo. It must be the host's, bit for bit.
    const auto        paddedCount = static_cast<std::size_t>(cif::MirrorPaddedCount<3>(grid));
    cif::DeviceBuffer dense(coefficients.size() * sizeof(float)), padded(paddedCount * sizeof(float));
    dense.Upload(coefficients.data(), coefficients.size() * sizeof(float));
    std::vector<float> onDevice(paddedCount, 0.f), onHost(paddedCount, 0.f); // the unused samples stay 0
    padded.Upload(onDevice.data(), paddedCount * sizeof(float));
    cif::BufferShape shape;
    shape.dimension = 3;
    std::copy(grid.size, grid.size + 3, shape.size);
    cif::SplinePoles none;
    none.count = 0;
    cif::PrefilterIntoLayoutOnDevice<float>(dense.As<const float>(),
                                            padded.As<float>(),
                                            cif::MirrorPaddedLayout<3>(grid),
                                            shape,
                                            none,
                                            cif::BoundaryMode::Mirror);
    cif::FillMirrorHaloOnDevice<3, float>(padded.As<float>(), grid);
    padded.Download(onDevice.data(), paddedCount * sizeof(float));
    cif::MirrorPadOnHost<3>(coefficients.data(), grid, onHost.data());
    ASSERT_EQ(onDevice, onHost) << c.name;

    EXPECT_EQ(VoxelsDifferingFromPadded<float>(c, dense, padded, -1000.f), 0) << c.name << " (float)";
    EXPECT_EQ(VoxelsDifferingFromPadded<std::uint8_t>(c, dense, padded, std::uint8_t{ 7 }), 0) << c.name << " (uchar)";
  }
  EXPECT_GE(bucketed, 4) << "the maps should include turns the kernel takes in buckets";
}

TEST(ResampleRowsKernelGPU, TwoDimensionalTurnInBucketsGivesTheShearsBits)
{
  CIF_REQUIRE_GPU();
  // A 2-D turn by 6 degrees onto a grid 1.01 coarser, wider than a block of lanes:
  // from mirror-padded coefficients the kernel takes it in row buckets, from dense
  // ones sheared; the same bits, every voxel written (outputs poisoned with NaN).
  cif::ResampleGeometry g;
  g.input.size[0] = 203;
  g.input.size[1] = 151;
  g.outputSize[0] = 211;
  g.outputSize[1] = 160;
  g.lineLength = g.outputSize[0];
  const double        angle = 0.1047, scale = 1.01;
  cif::TransformChain chain;
  chain.count = 1;
  chain.stage[0].kind = cif::TransformKind::Affine;
  const double m[2][2] = { { scale * std::cos(angle), -scale * std::sin(angle) },
                           { scale * std::sin(angle), scale * std::cos(angle) } };
  for (int i = 0; i < 2; ++i)
  {
    chain.stage[0].offset[i] = 0.5 * static_cast<double>(g.input.size[i] - 1) + 0.29;
    for (int j = 0; j < 2; ++j)
    {
      chain.stage[0].matrix[i][j] = m[i][j];
      chain.stage[0].offset[i] -= m[i][j] * 0.5 * static_cast<double>(g.outputSize[j] - 1);
    }
  }
  cif::ResampleGeometry paddedGeometry = g;
  paddedGeometry.inputMirrorPadded = true;
  ASSERT_TRUE(cif::MakeRowBuckets<2>(paddedGeometry, chain, cif::MakeRowShear<2>(paddedGeometry, chain)).on);

  const std::size_t                     inCount = static_cast<std::size_t>(g.input.size[0] * g.input.size[1]);
  std::vector<float>                    coefficients(inCount);
  std::mt19937                          rng(611);
  std::uniform_real_distribution<float> value(-40.f, 240.f);
  for (float & v : coefficients)
  {
    v = value(rng);
  }
  std::vector<float> padded(static_cast<std::size_t>(cif::MirrorPaddedCount<2>(g.input)), 0.f);
  cif::MirrorPadOnHost<2>(coefficients.data(), g.input, padded.data());
  const auto         count = static_cast<std::size_t>(g.OutputCount());
  std::vector<float> fromDense(count), fromPadded(count);
  std::memset(fromDense.data(), 0xFF, count * sizeof(float));
  cif::DeviceBuffer denseIn(inCount * sizeof(float)), paddedIn(padded.size() * sizeof(float));
  cif::DeviceBuffer denseOut(count * sizeof(float)), paddedOut(count * sizeof(float));
  denseIn.Upload(coefficients.data(), inCount * sizeof(float));
  paddedIn.Upload(padded.data(), padded.size() * sizeof(float));
  denseOut.Upload(fromDense.data(), count * sizeof(float));
  paddedOut.Upload(fromDense.data(), count * sizeof(float));
  cif::ResampleOnDevice<2, float, float>(
    denseIn.As<const float>(), g, chain, nullptr, true, -1000.f, denseOut.As<float>());
  cif::ResampleOnDevice<2, float, float>(
    paddedIn.As<const float>(), paddedGeometry, chain, nullptr, true, -1000.f, paddedOut.As<float>());
  denseOut.Download(fromDense.data(), count * sizeof(float));
  paddedOut.Download(fromPadded.data(), count * sizeof(float));
  std::int64_t differ = 0, unwritten = 0, inside = 0;
  for (std::size_t i = 0; i < count; ++i)
  {
    differ += std::memcmp(&fromDense[i], &fromPadded[i], sizeof(float)) != 0;
    unwritten += std::isnan(fromPadded[i]);
    inside += fromPadded[i] != -1000.f;
  }
  EXPECT_EQ(differ, 0);
  EXPECT_EQ(unwritten, 0);
  EXPECT_GT(inside, static_cast<std::int64_t>(count / 2)) << "most voxels should map inside the input";
}
