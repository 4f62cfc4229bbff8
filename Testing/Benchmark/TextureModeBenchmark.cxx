// Texture-accelerated mode against exact mode (seed 002's measurement): resamples
// N^3 volumes through a rotation with both, on the GPU from the same coefficients,
// and prints the difference (max and RMS, as a fraction of the data range) and the
// time of each, for smooth and random data, float and 16-bit inputs.
//
//   TextureModeBenchmark [N, default 256] [--repeat 10]
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

int
main(int argc, char * argv[])
{
  long n = 256;
  int  repeat = 10;
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else
      n = std::atol(argv[i]);
  }
  if (n < 8 || !cif::IsGPUAvailable())
  {
    std::cerr << "usage: TextureModeBenchmark [N >= 8] [--repeat R] (needs a CUDA device)\n";
    return 2;
  }
  const std::int64_t count = n * n * n;
  auto               affine = itk::AffineTransform<double, 3>::New();
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

  std::printf("Device: %s, %ld^3, rotation (0.3, 0.2 rad), default value outside\n\n", cif::GetDeviceInfo().name.c_str(), n);
  std::printf("| data | input type | max error / range | RMS error / range | exact (ms) | texture (ms) | speed-up |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  std::mt19937 rng(3);
  for (const bool smooth : { true, false })
  {
    for (const bool sixteenBit : { false, true })
    {
      const double        range = sixteenBit ? 4095.0 : 1.0; // 12-bit CT-like values in 16 bits
      std::vector<float>  samples(count);
      std::uniform_real_distribution<double> u(0.0, 1.0);
      for (std::int64_t i = 0; i < count; ++i)
      {
        const double x = i % n, y = (i / n) % n, z = i / (n * n);
        double       v = smooth ? 0.5 + 0.25 * std::sin(x * 0.11) * std::cos(y * 0.07) + 0.2 * std::sin(z * 0.05 + 1.0)
                                : u(rng);
        v *= range;
        samples[i] = sixteenBit ? static_cast<float>(static_cast<std::uint16_t>(std::lround(v))) : static_cast<float>(v);
      }
      cif::DeviceBuffer coefficients(count * 4), exact(count * 4), textured(count * 4);
      coefficients.Upload(samples.data(), count * 4);
      cif::PrefilterOnDevice<float>(coefficients.As<float>(), shape, poles, cif::BoundaryMode::Mirror);
      const double exactMs = cif_bench::DeviceMilliseconds(repeat, [&] {
        cif::ResampleOnDevice<3, float, float>(coefficients.As<const float>(), g, chain.DeviceChain(), nullptr, true,
                                               -1.f, exact.As<float>());
      });
      const double textureMs = cif_bench::DeviceMilliseconds(repeat, [&] {
        cif::CoefficientTexture texture; // built in every call, as the filter did until it kept its texture
        texture.Build(3, coefficients.As<const float>(), g.input, cif::TextureTexels::Float);
        cif::ResampleWithTextureOnDevice<3, float>(texture, g, chain.DeviceChain(), nullptr, true, -1.f,
                                                   textured.As<float>());
      });
      std::vector<float> a(count), b(count);
      exact.Download(a.data(), count * 4);
      textured.Download(b.data(), count * 4);
      double maxAbs = 0, sum = 0;
      for (std::int64_t i = 0; i < count; ++i)
      {
        const double d = a[i] - b[i];
        maxAbs = std::max(maxAbs, std::fabs(d));
        sum += d * d;
      }
      std::printf("| %s | %s | %.2e | %.2e | %.3f | %.3f | %.1fx |\n", smooth ? "smooth" : "random",
                  sixteenBit ? "16-bit (0..4095)" : "float (0..1)", maxAbs / range, std::sqrt(sum / count) / range,
                  exactMs, textureMs, exactMs / textureMs);
    }
  }
  std::printf("\nTexture times include building the padded texture array from the coefficients each call.\n");
  return 0;
}
