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
// Texture-accelerated mode against exact mode (seed 002's measurement): resamples
// N^3 volumes through a rotation with both, on the GPU from the same coefficients
// already on the device, and prints
// - the time of the exact mode, of the texture mode with its texture built in the
//   call (what every call paid before the texture was kept: the first update of a
//   filter) and from a texture already built (every later update of the same
//   input), for float and half texels;
// - the difference from the exact mode (max and RMS, as a fraction of the data
//   range) for both texel types;
// for smooth and random data, float and 16-bit inputs.
//
//   TextureModeBenchmark [N ...] [--repeat R]      (default: 256 512, R = 10)
#include "cifITKPoolParking.h"
#include "cifBSplinePrefilterDevice.h"
#include "cifBenchmarkSupport.h"
#include "cifResampleDevice.h"
#include "cifTextureResampleDevice.h"
#include "itkAffineTransform.h"
#include "itkCudaTransformChain.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace
{
struct Errors
{
  double max = 0, rms = 0;
};

Errors
Difference(const std::vector<float> & a, const std::vector<float> & b, double range)
{
  double maxAbs = 0, sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
  {
    const double d = static_cast<double>(a[i]) - b[i];
    maxAbs = std::max(maxAbs, std::fabs(d));
    sum += d * d;
  }
  return { maxAbs / range, std::sqrt(sum / a.size()) / range };
}

struct Row
{
  long        n;
  std::string data;
  double      exact, floatBuilt, floatKept, halfBuilt, halfKept;
  Errors      floatError, halfError;
};
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  std::vector<long>              sizes;
  int                            repeat = 10;
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else
      sizes.push_back(std::atol(argv[i]));
  }
  if (sizes.empty())
  {
    sizes = { 256, 512 };
  }
  for (const long n : sizes)
  {
    if (n < 8)
    {
      std::cerr << "usage: TextureModeBenchmark [N >= 8 ...] [--repeat R] (needs a CUDA device)\n";
      return 2;
    }
  }
  if (!cif::IsGPUAvailable())
  {
    std::cerr << "TextureModeBenchmark needs a CUDA device\n";
    return 2;
  }

  std::vector<Row> rows;
  std::mt19937     rng(3);
  for (const long n : sizes)
  {
    const std::int64_t                              count = static_cast<std::int64_t>(n) * n * n;
    auto                                            affine = itk::AffineTransform<double, 3>::New();
    itk::AffineTransform<double, 3>::InputPointType centre;
    centre.Fill(0.5 * (n - 1));
    affine->SetCenter(centre);
    affine->Rotate(0, 1, 0.3);
    affine->Rotate(1, 2, 0.2);
    itk::CudaTransformChain<3> chain(affine.GetPointer());
    cif::ResampleGeometry      g;
    for (int a = 0; a < 3; ++a)
    {
      g.outputSize[a] = g.input.size[a] = n;
    }
    g.lineLength = n;
    cif::BufferShape shape;
    shape.dimension = 3;
    shape.size[0] = shape.size[1] = shape.size[2] = n;
    cif::SplinePoles poles;
    cif::MakeSplinePoles(3, poles);

    for (const bool smooth : { true, false })
    {
      for (const bool sixteenBit : { false, true })
      {
        const double                           range = sixteenBit ? 4095.0 : 1.0; // 12-bit CT-like values in 16 bits
        std::vector<float>                     samples(count);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        for (std::int64_t i = 0; i < count; ++i)
        {
          const double x = i % n, y = (i / n) % n, z = i / (n * n);
          double       v =
            smooth ? 0.5 + 0.25 * std::sin(x * 0.11) * std::cos(y * 0.07) + 0.2 * std::sin(z * 0.05 + 1.0) : u(rng);
          v *= range;
          samples[i] =
            sixteenBit ? static_cast<float>(static_cast<std::uint16_t>(std::lround(v))) : static_cast<float>(v);
        }
        cif::DeviceBuffer coefficients(count * 4), exact(count * 4), textured(count * 4);
        coefficients.Upload(samples.data(), count * 4);
        cif::PrefilterOnDevice<float>(coefficients.As<float>(), shape, poles, cif::BoundaryMode::Mirror);
        Row row{
          n, std::string(smooth ? "smooth" : "random") + ", " + (sixteenBit ? "16-bit (0..4095)" : "float (0..1)")
        };
        row.exact = cif_bench::DeviceMilliseconds(repeat, [&] {
          cif::ResampleOnDevice<3, float, float>(
            coefficients.As<const float>(), g, chain.DeviceChain(), nullptr, true, -1.f, exact.As<float>());
        });
        std::vector<float> reference(count), result(count);
        exact.Download(reference.data(), count * 4);
        for (const cif::TextureTexels texels : { cif::TextureTexels::Float, cif::TextureTexels::Half })
        {
          cif::CoefficientTexture texture;
          const double            built = cif_bench::DeviceMilliseconds(repeat, [&] {
            texture.Build(3, coefficients.As<const float>(), g.input, texels);
            cif::ResampleWithTextureOnDevice<3, float>(
              texture, g, chain.DeviceChain(), nullptr, true, -1.f, textured.As<float>());
          });
          const double            kept = cif_bench::DeviceMilliseconds(repeat, [&] {
            cif::ResampleWithTextureOnDevice<3, float>(
              texture, g, chain.DeviceChain(), nullptr, true, -1.f, textured.As<float>());
          });
          textured.Download(result.data(), count * 4);
          const Errors e = Difference(reference, result, range);
          if (texels == cif::TextureTexels::Float)
          {
            row.floatBuilt = built, row.floatKept = kept, row.floatError = e;
          }
          else
          {
            row.halfBuilt = built, row.halfKept = kept, row.halfError = e;
          }
        }
        rows.push_back(row);
      }
    }
  }

  std::printf("Device: %s, rotation (0.3, 0.2 rad), default value outside, float output, median of %d\n\n",
              cif::GetDeviceInfo().name.c_str(),
              repeat);
  std::printf("Times (ms): the texture built in the call, then already built (kept); 'vs exact' = exact / kept\n\n");
  std::printf("| size | data | exact | float: built in the call | float: kept | vs exact | half: built in the call | "
              "half: kept | vs exact | Gfetch/s (float, half kept) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Row & r : rows)
  {
    const double fetches =
      8.0 * r.n * r.n * r.n; // 2^3 linear fetches per voxel (upper bound: outside voxels fetch none)
    std::printf("| %ld³ | %s | %.3f | %.3f | %.3f | %.2fx | %.3f | %.3f | %.2fx | %.0f, %.0f |\n",
                r.n,
                r.data.c_str(),
                r.exact,
                r.floatBuilt,
                r.floatKept,
                r.exact / r.floatKept,
                r.halfBuilt,
                r.halfKept,
                r.exact / r.halfKept,
                fetches / (r.floatKept * 1e6),
                fetches / (r.halfKept * 1e6));
  }
  std::printf("\nError against the exact mode, as a fraction of the data range\n\n");
  std::printf("| size | data | float: max | float: RMS | half: max | half: RMS |\n|---|---|---|---|---|---|\n");
  for (const Row & r : rows)
  {
    std::printf("| %ld³ | %s | %.2e | %.2e | %.2e | %.2e |\n",
                r.n,
                r.data.c_str(),
                r.floatError.max,
                r.floatError.rms,
                r.halfError.max,
                r.halfError.rms);
  }
  return 0;
}
