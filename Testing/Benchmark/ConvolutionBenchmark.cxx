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
// Convolution and zoom benchmark: prints a markdown table of
//   - a 4096^2 RGB float image convolved with a 15x15 Gaussian (sigma 5) on the
//     device, by the separable path and by the general path forced on the same
//     kernel (planar float buffers on the device; CUDA events, median of --repeat);
//   - the same through ConvolutionGPUImageFilter end to end (upload, conversion,
//     convolution, download; wall clock, median);
//   - the upscaling seed's case: a 640x426 RGB 8-bit picture, cut-out of the whole
//     picture zoomed x2 (cubic B-spline) and enhanced with the 15x15 Gaussian, end to
//     end and on the device only;
// against the floor (one read and one write of every float at the measured copy
// bandwidth), ITK on all host cores (ConvolutionImageFilter per channel; for the zoom
// extract -> resample with BSplineInterpolateImageFunction -> convolve per channel)
// and CuPy's ndimage in the same run (convolve / convolve1d on the same RGB data in
// both layouts, the faster counted; zoom(order=3) + convolve for the seed's case).
//
//   ConvolutionBenchmark [--repeat 10] [--cupy Testing/Benchmark/cupy_peer.py] [--itk-max 4096]
// With --cupy the peer script also runs, for its gray 4096^2 15x15 reference.
#include "cifITKPoolParking.h"
#include "cifBSplinePoles.h"
#include "cifBSplinePrefilterDevice.h"
#include "cifBenchmarkSupport.h"
#include "cifConvolutionPlan.h"
#include "cifDeviceBuffer.h"
#include "cifKernelPresets.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkConvolutionGPUImageFilter.h"
#include "itkConvolutionImageFilter.h"
#include "itkConvolutionKernelImage.h"
#include "itkExtractImageFilter.h"
#include "itkMultiThreaderBase.h"
#include "itkRGBPixel.h"
#include "itkResampleImageFilter.h"
#include "itkZoomGPUImageFilter.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

namespace
{
using cif_bench::Cell;
using cif_bench::DeviceMilliseconds;
using cif_bench::WallMilliseconds;
using Gray = itk::Image<float, 2>;

const char * const kCuPySnippet = R"(
import sys
import cupy as cp, numpy as np
from cupyx.scipy import ndimage as nd
repeat = int(sys.argv[1])
def bench(f):
    f(); cp.cuda.Device().synchronize()
    s, e, ts = cp.cuda.Event(), cp.cuda.Event(), []
    for _ in range(repeat):
        s.record(); f(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))
r = np.arange(15) - 7.0
g = np.exp(-r * r / 50.0); g /= g.sum()
g1 = cp.asarray(g, dtype=cp.float32)
k2 = cp.asarray(np.outer(g, g), dtype=cp.float32)
rows = {}
x = cp.random.rand(4096, 4096, 3, dtype=cp.float32)   # interleaved RGB
p = cp.ascontiguousarray(x.transpose(2, 0, 1))         # planar RGB
rows["rgb4096_general_interleaved_ms"] = bench(lambda: nd.convolve(x, k2[:, :, None], mode="nearest"))
rows["rgb4096_general_planar_ms"] = bench(lambda: nd.convolve(p, k2[None], mode="nearest"))
rows["rgb4096_separable_interleaved_ms"] = bench(lambda: nd.convolve1d(nd.convolve1d(x, g1, axis=0, mode="nearest"), g1, axis=1, mode="nearest"))
rows["rgb4096_separable_planar_ms"] = bench(lambda: nd.convolve1d(nd.convolve1d(p, g1, axis=1, mode="nearest"), g1, axis=2, mode="nearest"))
del x, p
img = cp.random.rand(426, 640, 3, dtype=cp.float32)
rows["seed_zoom2_gauss15_ms"] = bench(lambda: nd.convolve(nd.zoom(img, (2, 2, 1), order=3, mode="mirror"), k2[:, :, None], mode="nearest"))
for k, v in rows.items():
    print(f"{k}: {v:.4f}")
)";

/** Runs the CuPy snippet through python3 (as cif_bench::RunCuPy runs cupy_peer.py). */
std::map<std::string, std::string>
RunCuPySnippet(int repeat)
{
  std::map<std::string, std::string> rows;
  const std::string                  path = "/tmp/cif_convolution_cupy_" + std::to_string(::getpid()) + ".py";
  std::ofstream(path) << kCuPySnippet;
  FILE * pipe = popen(("python3 " + path + " " + std::to_string(repeat) + " 2>&1").c_str(), "r");
  char   line[512];
  while (pipe && fgets(line, sizeof(line), pipe))
  {
    const std::string s(line);
    const auto        colon = s.find(": ");
    if (colon != std::string::npos)
    {
      rows[s.substr(0, colon)] = s.substr(colon + 2, s.find_last_not_of("\r\n") - colon - 1);
    }
    else
    {
      std::fprintf(stderr, "cupy: %s", line);
    }
  }
  if (pipe)
  {
    pclose(pipe);
  }
  std::remove(path.c_str());
  return rows;
}

double
Value(const std::map<std::string, std::string> & rows, const std::string & key)
{
  const auto it = rows.find(key);
  return it == rows.end() ? -1 : std::atof(it->second.c_str());
}

double
Fastest(double a, double b)
{
  return a < 0 ? b : (b < 0 ? a : std::min(a, b));
}

void
Row(const std::string & name, double ms, double floorMs, double cupyMs, double itkMs)
{
  std::printf("| %s | %.3f | %s | %s | %s | %s | %s | %s |\n",
              name.c_str(),
              ms,
              Cell(floorMs, "%.3f").c_str(),
              Cell(floorMs > 0 ? floorMs / ms * 100 : -1, "%.0f%%").c_str(),
              Cell(cupyMs, "%.3f").c_str(),
              Cell(cupyMs > 0 ? cupyMs / ms : -1, "%.1fx").c_str(),
              Cell(itkMs, "%.0f").c_str(),
              Cell(itkMs > 0 ? itkMs / ms : -1, "%.0fx").c_str());
  std::fflush(stdout);
}

template <typename TFilter>
double
MedianUpdateMs(TFilter * filter, int repeat)
{
  filter->Update(); // warm-up
  std::vector<double> t;
  for (int r = 0; r < repeat; ++r)
  {
    filter->Modified();
    t.push_back(WallMilliseconds([&] { filter->Update(); }));
  }
  return cif_bench::Median(t);
}

/** ITK's convolution of each channel of a planar float buffer (n x n), all threads. */
double
ITKConvolutionMs(const std::vector<float> & planar, long n, int channels, const Gray * kernel)
{
  double total = 0;
  for (int c = 0; c < channels; ++c)
  {
    auto channel = Gray::New();
    channel->SetRegions(itk::Size<2>{ { static_cast<itk::SizeValueType>(n), static_cast<itk::SizeValueType>(n) } });
    channel->Allocate();
    std::copy(planar.begin() + c * n * n, planar.begin() + (c + 1) * n * n, channel->GetBufferPointer());
    auto filter = itk::ConvolutionImageFilter<Gray, Gray, Gray>::New();
    filter->SetInput(channel);
    filter->SetKernelImage(kernel);
    total += WallMilliseconds([&] { filter->Update(); });
  }
  return total;
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  const cif_bench::Options       options = cif_bench::ParseOptions(argc, argv, "ConvolutionBenchmark", 4096L);
  if (!options.ok)
  {
    return 2;
  }
  const int repeat = options.repeat;
  if (!cif::IsGPUAvailable())
  {
    std::cerr << "ConvolutionBenchmark needs a CUDA device: " << cif::GetNoDeviceReason() << "\n";
    return 1;
  }
  const cif::DeviceInfo              info = cif::GetDeviceInfo();
  const double                       copyGBps = cif_bench::MeasureCopyBandwidth(repeat);
  std::map<std::string, std::string> cupy, peer;
  if (!options.cupyScript.empty())
  {
    cupy = RunCuPySnippet(repeat);
    peer = cif_bench::RunCuPy(options.cupyScript, { 64 }, repeat);
  }
  std::printf("Device: %s; copy bandwidth %.0f GB/s; host threads %u\n\n",
              info.name.c_str(),
              copyGBps,
              itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads());
  std::printf("| case | GPU (ms) | floor (ms) | of floor | CuPy (ms) | vs CuPy | ITK CPU (ms) | vs ITK |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");

  const cif::ConvolutionKernel gaussian = cif::MakeGaussianKernel(15, 5.0);
  std::string                  targets;
  auto                         kernelImage = itk::MakeKernelImage<Gray>(gaussian);

  // 4096^2 RGB float, planar on the device.
  {
    const long                            n = 4096;
    const int                             channels = 3;
    const std::int64_t                    scalars = n * n * channels;
    std::vector<float>                    host(static_cast<std::size_t>(scalars));
    std::mt19937                          rng(11);
    std::uniform_real_distribution<float> u(0.f, 255.f);
    for (float & v : host)
      v = u(rng);
    cif::ConvolutionGeometry g;
    g.inSize[0] = g.outSize[0] = n;
    g.inSize[1] = g.outSize[1] = n;
    g.planes = channels;
    const cif::ConvolutionPlan separable = cif::MakeConvolutionPlan(gaussian, g, false);
    const cif::ConvolutionPlan general = cif::MakeConvolutionPlan(gaussian, g, true);
    cif::DeviceBuffer          in(scalars * 4), out(scalars * 4), sw(separable.weights.size() * 4),
      gw(general.weights.size() * 4);
    in.Upload(host.data(), scalars * 4);
    sw.Upload(separable.weights.data(), separable.weights.size() * 4);
    gw.Upload(general.weights.data(), general.weights.size() * 4);
    const double floorMs = 8.0 * scalars / (copyGBps * 1e9) * 1e3;
    const double sepMs = DeviceMilliseconds(repeat, [&] {
      cif::RunConvolutionOnDevice(separable, in.As<const float>(), sw.As<const float>(), out.As<float>(), nullptr);
    });
    const double genMs = DeviceMilliseconds(repeat, [&] {
      cif::RunConvolutionOnDevice(general, in.As<const float>(), gw.As<const float>(), out.As<float>(), nullptr);
    });
    const double itkMs = n <= options.itkMax ? ITKConvolutionMs(host, n, channels, kernelImage) : -1;
    const double cupyGeneralMs =
      Fastest(Value(cupy, "rgb4096_general_interleaved_ms"), Value(cupy, "rgb4096_general_planar_ms"));
    Row("4096^2 RGB float, 15x15 Gaussian, separable path, on device",
        sepMs,
        floorMs,
        Fastest(Value(cupy, "rgb4096_separable_interleaved_ms"), Value(cupy, "rgb4096_separable_planar_ms")),
        itkMs);
    Row("4096^2 RGB float, 15x15 Gaussian, general path (forced), on device", genMs, floorMs, cupyGeneralMs, itkMs);
    targets = std::string("targets: separable path within 2x of the floor: ") +
              (sepMs <= 2 * floorMs ? "met" : "NOT met") + " (" + Cell(sepMs / floorMs, "%.2f") +
              "x the floor); general 15x15 >= 4x faster than CuPy: " +
              (cupyGeneralMs < 0 ? "n/a (no CuPy)" : (cupyGeneralMs >= 4 * genMs ? "met" : "NOT met")) + " (" +
              Cell(cupyGeneralMs > 0 ? cupyGeneralMs / genMs : -1, "%.1fx") + ")";

    using RGB = itk::Image<itk::RGBPixel<float>, 2>;
    auto image = RGB::New();
    image->SetRegions(itk::Size<2>{ { 4096, 4096 } });
    image->Allocate();
    for (std::int64_t i = 0; i < n * n; ++i)
      for (int c = 0; c < channels; ++c)
        image->GetBufferPointer()[i][c] = host[c * n * n + i];
    auto filter = itk::ConvolutionGPUImageFilter<RGB, Gray, RGB>::New();
    filter->SetInput(image);
    filter->SetKernelImage(kernelImage);
    const double e2eMs = MedianUpdateMs(filter.GetPointer(), std::max(3, repeat / 3));
    Row(std::string("4096^2 RGB float, 15x15 Gaussian, filter end to end (") +
          (filter->GetLastRunWasSeparable() ? "separable" : "general") + ", transfers included)",
        e2eMs,
        -1,
        -1,
        itkMs);
    if (peer.count("convolve_4096^2_15x15_ms"))
    {
      std::printf(
        "| reference: CuPy convolve, 4096^2 gray float, random 15x15 (shared peer script) | | | | %s | | | |\n",
        peer.at("convolve_4096^2_15x15_ms").c_str());
    }
  }

  // The seed's case: 640x426 RGB 8-bit, the whole picture zoomed x2 and enhanced.
  {
    using RGB8 = itk::Image<itk::RGBPixel<unsigned char>, 2>;
    const unsigned w = 640, h = 426;
    auto           image = RGB8::New();
    image->SetRegions(itk::Size<2>{ { w, h } });
    image->Allocate();
    std::mt19937 rng(5);
    for (std::size_t i = 0; i < std::size_t(w) * h; ++i)
      for (int c = 0; c < 3; ++c)
        image->GetBufferPointer()[i][c] = static_cast<unsigned char>(rng());
    auto zoom = itk::ZoomGPUImageFilter<RGB8>::New();
    zoom->SetInput(image);
    zoom->SetCutOutCenter({ { w / 2, h / 2 } });
    zoom->SetCutOutSize({ { w, h } });
    zoom->SetZoomFactor(2.0);
    zoom->SetKernel(gaussian);
    const double e2eMs = MedianUpdateMs(zoom.GetPointer(), repeat);
    zoom->SetUseGPU(false);
    const double moduleCpuMs = MedianUpdateMs(zoom.GetPointer(), 3);
    zoom->SetUseGPU(true);

    // The same passes on the device, without the transfers.
    const auto        region = zoom->GetInterpolationRegion();
    const auto        canvas = zoom->GetCanvasRegion();
    const auto        outSize = zoom->GetOutput()->GetLargestPossibleRegion().GetSize();
    cif::ZoomGeometry zg;
    for (int a = 0; a < 2; ++a)
    {
      zg.regionSize[a] = region.GetSize()[a];
      zg.cutInRegion[a] = double(zoom->GetCutOutRegion().GetIndex()[a] - region.GetIndex()[a]);
      zg.zoom[a] = 2.0;
      zg.canvasStart[a] = canvas.GetIndex()[a];
      zg.canvasSize[a] = canvas.GetSize()[a];
    }
    zg.planes = 3;
    cif::ConvolutionGeometry cg;
    for (int a = 0; a < 2; ++a)
    {
      cg.inSize[a] = zg.canvasSize[a];
      cg.outSize[a] = outSize[a];
      cg.outOffset[a] = -zg.canvasStart[a];
    }
    cg.planes = 3;
    const cif::ConvolutionPlan plan = cif::MakeConvolutionPlan(gaussian, cg, false);
    const std::int64_t         regionPixels = zg.regionSize[0] * zg.regionSize[1];
    const std::int64_t         outPixels = cg.outSize[0] * cg.outSize[1];
    cif::DeviceBuffer          raw(regionPixels * 3), planar(regionPixels * 12), canvasBuffer(zg.CanvasCount() * 12),
      enhanced(outPixels * 12), result(outPixels * 3), weights(plan.weights.size() * 4);
    raw.Upload(image->GetBufferPointer(), regionPixels * 3); // the region is the whole picture here
    weights.Upload(plan.weights.data(), plan.weights.size() * 4);
    cif::BufferShape shape;
    shape.dimension = 2;
    shape.size[0] = zg.regionSize[0];
    shape.size[1] = zg.regionSize[1];
    cif::SplinePoles poles;
    cif::MakeSplinePoles(3, poles);
    const double deviceMs = DeviceMilliseconds(repeat, [&] {
      cif::ToPlanarOnDevice<std::uint8_t>(raw.As<const std::uint8_t>(), regionPixels, 3, planar.As<float>());
      for (int c = 0; c < 3; ++c)
        cif::PrefilterOnDevice<float>(planar.As<float>() + c * regionPixels, shape, poles, cif::BoundaryMode::Mirror);
      cif::ZoomOnDevice(planar.As<const float>(), zg, canvasBuffer.As<float>());
      cif::RunConvolutionOnDevice(
        plan, canvasBuffer.As<const float>(), weights.As<const float>(), enhanced.As<float>(), nullptr);
      cif::FromPlanarOnDevice<std::uint8_t>(enhanced.As<const float>(), outPixels, 3, result.As<std::uint8_t>());
    });
    // Floor on the device: the 8-bit picture read once, the 8-bit result written once.
    const double floorMs = (3.0 * regionPixels + 3.0 * outPixels) / (copyGBps * 1e9) * 1e3;

    // ITK: per channel, extract -> cubic B-spline resample -> convolve (all threads).
    double itkMs = 0;
    for (int c = 0; c < 3; ++c)
    {
      auto channel = Gray::New();
      channel->SetRegions(image->GetBufferedRegion());
      channel->Allocate();
      for (std::size_t i = 0; i < std::size_t(w) * h; ++i)
        channel->GetBufferPointer()[i] = image->GetBufferPointer()[i][c];
      itkMs += WallMilliseconds([&] {
        auto extract = itk::ExtractImageFilter<Gray, Gray>::New();
        extract->SetInput(channel);
        extract->SetExtractionRegion(region);
        extract->SetDirectionCollapseToSubmatrix();
        auto resample = itk::ResampleImageFilter<Gray, Gray>::New();
        resample->SetInput(extract->GetOutput());
        resample->SetInterpolator(itk::BSplineInterpolateImageFunction<Gray, double, double>::New());
        itk::ContinuousIndex<double, 2> first;
        Gray::SpacingType               spacing;
        for (int a = 0; a < 2; ++a)
        {
          first[a] = zoom->GetCutOutRegion().GetIndex()[a] + (canvas.GetIndex()[a] + 0.5) / 2.0 - 0.5;
          spacing[a] = 0.5;
        }
        Gray::PointType origin;
        channel->TransformContinuousIndexToPhysicalPoint(first, origin);
        resample->SetOutputOrigin(origin);
        resample->SetOutputSpacing(spacing);
        resample->SetSize(canvas.GetSize());
        auto convolve = itk::ConvolutionImageFilter<Gray, Gray, Gray>::New();
        convolve->SetInput(resample->GetOutput());
        convolve->SetKernelImage(kernelImage);
        convolve->Update();
      });
    }
    const double cupyMs = Value(cupy, "seed_zoom2_gauss15_ms");
    Row("seed: 640x426 RGB 8-bit, zoom x2 (cubic) + 15x15 Gaussian, end to end (transfers included)",
        e2eMs,
        -1,
        cupyMs,
        itkMs);
    Row("seed: the same, on device only", deviceMs, floorMs, cupyMs, itkMs);
    std::printf("| seed: the same, the module's CPU path (%u threads) | %.1f | | | | | %.0f | %.1fx |\n",
                itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads(),
                moduleCpuMs,
                itkMs,
                itkMs / moduleCpuMs);
  }
  std::printf(
    "\nfloor: one read and one write of every float at the copy bandwidth (seed rows: of every byte). "
    "CuPy: ndimage.convolve (general) and two convolve1d (separable), mode nearest (ITK's "
    "ZeroFluxNeumann), on float32 in interleaved and planar layouts, the faster shown; seed row: zoom(order=3) + "
    "convolve, 640x426x3 float32. ITK: ConvolutionImageFilter per channel (it cannot convolve RGB pixels), and "
    "for the seed extract -> ResampleImageFilter with BSplineInterpolateImageFunction -> "
    "ConvolutionImageFilter per channel, all host threads, one run. The seed's own figure: 0.137 s on a "
    "Jetson Nano (its v1, shared memory, Gaussian 15x15).\n");
  std::printf("%s\n", targets.c_str());
  return 0;
}
