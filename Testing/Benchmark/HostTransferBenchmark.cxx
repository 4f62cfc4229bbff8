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
// Host images at the bus's speed: prints a markdown table of
//   - the bus floor measured in this run: cudaMemcpy of the N^3 float bytes from and
//     to pinned host memory (wall clock, median of --repeat after a warm-up);
//   - the same copies from and to ordinary (pageable) memory, as the library made
//     them before its staging rings, and into a fresh allocation (the pages an ITK
//     output buffer has before its first Update);
//   - DeviceBuffer::Upload / Download through the staging rings (cifPinnedStaging.h);
//   - Update() with host input and output (itk::Image, not CudaDeviceImage) of the
//     prefilter (N^3 float), the resampler (prefilter + cubic resample through an
//     affine, N^3 float), the field filter (a 10^3-mesh BSplineTransform, N^3 float
//     vectors) and the convolution (M^2 RGB float, 15x15 Gaussian); first Update and
//     median of the next --repeat; each into the pinned output memory the filters
//     give host images (cifPinnedHostMemory.h), with the input registered at its
//     ninth upload (itkCudaHostInputRegistration.h; the update that registers it is
//     named below the table; --repeat 30 makes the median that of registered
//     uploads), then with registration off (every upload staged), then into
//     ordinary memory;
// each against its floor: bytes in at the pinned upload bandwidth plus bytes out at
// the pinned download bandwidth, both measured above. Target: Update() <= 1.25x.
//
//   HostTransferBenchmark [--size 512] [--image 4096] [--repeat 10] [--sweep] [--cpu] [--stages]
//
// --sweep adds a table of staged Upload/Download times over chunk sizes and thread
// counts (the defaults of cifPinnedStaging.cu come from it). --cpu also times the
// module's CPU path of each filter (always done without a GPU, where every GPU
// column reads n/a: CI runs this at a small size). --stages prints, for each filter,
// when its last Update() reached each progress stage (upload, passes, slabs, download).
#include "cifITKPoolParking.h"
#include "cifBenchmarkSupport.h"
#include "cifBusFloor.h"
#include "cifDeviceBuffer.h"
#include "cifHostWorkArea.h"
#include "cifPinnedHostMemory.h"
#include "cifPinnedStaging.h"
#include "cifStageClock.h"
#include "itkCudaHostInputRegistration.h"
#include "itkAffineTransform.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkBSplinePrefilterGPUImageFilter.h"
#include "itkBSplineTransform.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkMultiThreaderBase.h"
#include "itkTransformToDisplacementFieldGPUFilter.h"
#ifdef CIF_BENCHMARK_CONVOLUTION
#  include "cifKernelPresets.h"
#  include "itkConvolutionGPUImageFilter.h"
#  include "itkConvolutionKernelImage.h"
#  include "itkRGBPixel.h"
#endif

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace
{
using cif_bench::Cell;
using cif_bench::Median;
using cif_bench::WallMilliseconds;
using Image = itk::Image<float, 3>;
using Field = itk::Image<itk::Vector<float, 3>, 3>;
constexpr double kMiB = 1024.0 * 1024.0;

struct Options
{
  long size = 512;
  long image = 4096;
  int  repeat = 10;
  bool sweep = false;
  bool cpu = false;
  bool stages = false;
  bool ok = true;
};

Options
Parse(int argc, char * argv[])
{
  Options o;
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    if (a == "--size" && i + 1 < argc)
      o.size = std::max(8L, std::atol(argv[++i]));
    else if (a == "--image" && i + 1 < argc)
      o.image = std::max(16L, std::atol(argv[++i]));
    else if (a == "--repeat" && i + 1 < argc)
      o.repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--sweep")
      o.sweep = true;
    else if (a == "--cpu")
      o.cpu = true;
    else if (a == "--stages")
      o.stages = true;
    else
    {
      std::fprintf(stderr,
                   "usage: HostTransferBenchmark [--size N] [--image M] [--repeat R] [--sweep] [--cpu] [--stages]\n");
      o.ok = false;
    }
  }
  return o;
}

/** Pinned bandwidths of this run, bytes per millisecond; the floor of a job. */
struct Floor
{
  double upBytesPerMs = -1, downBytesPerMs = -1;
  double
  Ms(double in, double out) const
  {
    return upBytesPerMs > 0 && downBytesPerMs > 0 ? in / upBytesPerMs + out / downBytesPerMs : -1;
  }
};

void
Row(const std::string & what, double in, double out, double firstMs, double ms, const Floor & floor, double cpuMs)
{
  const double f = floor.Ms(in, out);
  std::printf("| %s | %.1f | %s | %s | %s | %s | %s |\n",
              what.c_str(),
              (in + out) / kMiB,
              Cell(firstMs, "%.1f").c_str(),
              Cell(ms, "%.2f").c_str(),
              Cell(f, "%.2f").c_str(),
              Cell(ms > 0 && f > 0 ? ms / f : -1, "%.2fx").c_str(),
              Cell(cpuMs, "%.1f").c_str());
  std::fflush(stdout);
}

Image::Pointer
RandomVolume(long n)
{
  auto image = Image::New();
  image->SetRegions(itk::Size<3>{
    { static_cast<itk::SizeValueType>(n), static_cast<itk::SizeValueType>(n), static_cast<itk::SizeValueType>(n) } });
  image->Allocate();
  std::mt19937                          rng(2026u + static_cast<unsigned>(n));
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  float *                               p = image->GetBufferPointer();
  for (std::size_t i = 0, count = image->GetBufferedRegion().GetNumberOfPixels(); i < count; ++i)
  {
    p[i] = unit(rng);
  }
  return image;
}

/** First Update() (fresh output buffer) and the median of \a repeat more. */
struct UpdateTimes
{
  double firstMs = -1, medianMs = -1;
  bool   onGPU = false;
  /** The update during which the input was registered (itkCudaHostInputRegistration.h;
   * 0: none), its time and the cudaHostRegister part of it. */
  int    registeringUpdate = 0;
  double registeringMs = -1, registerMs = -1;
};

/** With --stages, the progress marks of each filter's last timed Update(). */
bool g_Stages = false;

template <typename TFilter>
UpdateTimes
TimeUpdates(TFilter * filter, int repeat, const std::string & what)
{
  UpdateTimes t;
  // Every row starts with its input unregistered (the rows share their input).
  cif::ReleaseHostInputRegistrations();
  std::vector<double> ms;
  for (int r = 0; r <= repeat; ++r)
  {
    const auto before = cif::GetHostInputRegistrationStatistics();
    filter->Modified();
    const double took = WallMilliseconds([&] { filter->Update(); });
    const auto   after = cif::GetHostInputRegistrationStatistics();
    if (after.registrations > before.registrations)
    {
      t.registeringUpdate = r + 1;
      t.registeringMs = took;
      t.registerMs = after.registerMilliseconds - before.registerMilliseconds;
    }
    if (r == 0)
    {
      t.firstMs = took;
    }
    else
    {
      ms.push_back(took);
    }
  }
  t.medianMs = Median(ms);
  t.onGPU = filter->GetLastExecutionPath() == itk::CudaExecutionPath::GPU;
  if (g_Stages)
  {
    auto clock = cif_bench::StageClock::New();
    filter->AddObserver(itk::StartEvent(), clock);
    filter->AddObserver(itk::ProgressEvent(), clock);
    filter->Modified();
    filter->Update();
    cif_bench::PrintStages(what.c_str(), *clock);
    filter->RemoveAllObservers();
  }
  return t;
}

/** One filter's rows: the GPU times where there is a GPU (into the pinned output
 * memory the filters give host images, then with that turned off: ordinary memory,
 * as before), the CPU path's where asked for or where there is none. \a make
 * returns a configured filter. */
template <typename TMake>
void
FilterRow(const std::string &        what,
          double                     in,
          double                     out,
          TMake &&                   make,
          bool                       gpu,
          bool                       cpu,
          int                        repeat,
          const Floor &              floor,
          std::vector<std::string> & missed,
          std::vector<std::string> & notes)
{
  UpdateTimes g, staged, ordinary;
  if (gpu)
  {
    {
      auto filter = make();
      g = TimeUpdates(filter.GetPointer(), repeat, what);
    }
    if (in > 0)
    {
      const unsigned uploadsBefore = cif::GetHostInputUploadsBeforeRegistration();
      cif::SetHostInputUploadsBeforeRegistration(0);
      auto filter = make();
      staged = TimeUpdates(filter.GetPointer(), repeat, what + ", input registration off");
      cif::SetHostInputUploadsBeforeRegistration(uploadsBefore);
    }
    const std::size_t pinnedLimit = cif::GetPinnedHostLimit();
    cif::SetPinnedHostLimit(0);
    {
      auto filter = make();
      ordinary = TimeUpdates(filter.GetPointer(), repeat, what + ", ordinary output memory");
    }
    cif::SetPinnedHostLimit(pinnedLimit);
    if (!g.onGPU || !ordinary.onGPU)
    {
      std::fprintf(stderr, "warning: %s did not run on the GPU\n", what.c_str());
    }
    if (g.registeringUpdate > 0)
    {
      notes.push_back(what + ": input registered during update " + std::to_string(g.registeringUpdate) +
                      ", which took " + Cell(g.registeringMs, "%.1f") + " ms (cudaHostRegister " +
                      Cell(g.registerMs, "%.1f") + " ms)");
    }
  }
  double cpuMs = -1;
  if (cpu)
  {
    auto filter = make();
    filter->SetUseGPU(false);
    cpuMs = WallMilliseconds([&] { filter->Update(); });
  }
  Row(what, in, out, gpu ? g.firstMs : -1, gpu ? g.medianMs : -1, floor, cpuMs);
  if (gpu && in > 0)
  {
    Row("the same, input registration off (every upload staged)", in, out, staged.firstMs, staged.medianMs, floor, -1);
  }
  if (gpu)
  {
    Row("the same into ordinary (pageable) output memory", in, out, ordinary.firstMs, ordinary.medianMs, floor, -1);
  }
  const double f = floor.Ms(in, out);
  if (gpu && f > 0 && g.medianMs > 1.25 * f)
  {
    missed.push_back(what + " (" + Cell(g.medianMs / f, "%.2fx") + ")");
  }
}

/** Staged Upload and Download of \a bytes, wall clock, median of \a repeat. */
std::pair<double, double>
StagedMs(std::size_t bytes, const std::vector<unsigned char> & host, std::vector<unsigned char> & back, int repeat)
{
  cif::DeviceBuffer   buffer(bytes);
  std::vector<double> up, down;
  buffer.Upload(host.data(), bytes); // warm-up: the ring is made
  buffer.Download(back.data(), bytes);
  for (int r = 0; r < repeat; ++r)
  {
    up.push_back(WallMilliseconds([&] { buffer.Upload(host.data(), bytes); }));
    down.push_back(WallMilliseconds([&] { buffer.Download(back.data(), bytes); }));
  }
  return { Median(up), Median(down) };
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  const Options                  options = Parse(argc, argv);
  if (!options.ok)
  {
    return 2;
  }
  g_Stages = options.stages;
  const long        n = options.size;
  const int         repeat = options.repeat;
  const bool        gpu = cif::IsGPUAvailable();
  const bool        cpu = options.cpu || !gpu;
  const std::size_t voxels = static_cast<std::size_t>(n) * n * n;
  const std::size_t bytes = voxels * sizeof(float);

  const cif::PinnedStagingSettings staging = cif::GetPinnedStagingSettings();
  if (gpu)
  {
    const cif::DeviceInfo info = cif::GetDeviceInfo();
    std::printf("Device: %s; ", info.name.c_str());
  }
  else
  {
    std::printf("No GPU (%s): GPU columns n/a, the module's CPU path timed; ", cif::GetNoDeviceReason().c_str());
  }
  std::printf("host threads %u; staging: %zu KiB chunks, %d threads x %d chunks, %d rings, direct below %zu KiB\n\n",
              itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads(),
              staging.chunkBytes >> 10,
              staging.threads,
              staging.chunksPerThread,
              staging.rings,
              staging.directBelowBytes >> 10);

  Floor               floor;
  cif_bench::BusTimes bus;
  if (gpu)
  {
    bus = cif_bench::MeasureBus(bytes, repeat);
    if (bus.pinnedUpMs > 0 && bus.pinnedDownMs > 0)
    {
      floor.upBytesPerMs = bytes / bus.pinnedUpMs;
      floor.downBytesPerMs = bytes / bus.pinnedDownMs;
      std::printf("Pinned bandwidth: %.1f GB/s up, %.1f GB/s down\n\n",
                  floor.upBytesPerMs * 1e3 / 1e9,
                  floor.downBytesPerMs * 1e3 / 1e9);
    }
  }

  const std::string volume = std::to_string(n) + "^3 float";
  std::printf("| case | MiB in + out | first (ms) | median (ms) | floor (ms) | x floor | module CPU path (ms) |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  const double b = static_cast<double>(bytes);
  Row("bus floor: cudaMemcpy pinned -> device, " + volume, b, 0, -1, bus.pinnedUpMs, floor, -1);
  Row("bus floor: cudaMemcpy device -> pinned, " + volume, 0, b, -1, bus.pinnedDownMs, floor, -1);
  Row("cudaMemcpy pageable -> device (before staging)", b, 0, -1, bus.pageableUpMs, floor, -1);
  Row("cudaMemcpy device -> pageable (before staging)", 0, b, -1, bus.pageableDownMs, floor, -1);
  Row("cudaMemcpy device -> fresh pageable allocation (before staging)", 0, b, -1, bus.pageableDownFreshMs, floor, -1);
  if (gpu)
  {
    std::vector<unsigned char> host(bytes, 3), back(bytes);
    const auto                 staged = StagedMs(bytes, host, back, repeat);
    Row("DeviceBuffer::Upload, staged", b, 0, -1, staged.first, floor, -1);
    Row("DeviceBuffer::Download, staged", 0, b, -1, staged.second, floor, -1);
    std::vector<double> fresh;
    cif::DeviceBuffer   buffer(bytes);
    for (int r = 0; r < repeat; ++r)
    {
      const std::unique_ptr<unsigned char[]> into(new unsigned char[bytes]); // untouched pages
      fresh.push_back(WallMilliseconds([&] { buffer.Download(into.get(), bytes); }));
    }
    Row("DeviceBuffer::Download, staged, into a fresh allocation", 0, b, -1, Median(fresh), floor, -1);
    std::vector<double> freshHuge;
    for (int r = 0; r < repeat; ++r)
    {
      const auto into = cif::AllocateHostWorkArea<unsigned char>(bytes); // 2 MiB-aligned, MADV_HUGEPAGE
      freshHuge.push_back(WallMilliseconds([&] { buffer.Download(into.get(), bytes); }));
    }
    Row("DeviceBuffer::Download, staged, into a fresh allocation advised as huge pages",
        0,
        b,
        -1,
        Median(freshHuge),
        floor,
        -1);
  }

  std::vector<std::string> missed, notes;
  const auto               input = RandomVolume(n);
  FilterRow(
    "BSplinePrefilterGPUImageFilter::Update(), " + volume + ", host in and out",
    b,
    b,
    [&] {
      auto f = itk::BSplinePrefilterGPUImageFilter<Image, Image>::New();
      f->SetInput(input);
      return f;
    },
    gpu,
    cpu,
    repeat,
    floor,
    missed,
    notes);

  const auto affine = cif_bench::TurnAndEnlarge(n);
  FilterRow(
    "CubicResampleGPUImageFilter::Update() (prefilter + affine), " + volume + ", host in and out",
    b,
    b,
    [&] {
      auto f = itk::CubicResampleGPUImageFilter<Image, Image>::New();
      f->SetInput(input);
      f->SetInterpolator(itk::BSplineInterpolateImageFunction<Image, double, double>::New());
      f->SetTransform(affine);
      f->SetOutputParametersFromImage(input);
      return f;
    },
    gpu,
    cpu,
    repeat,
    floor,
    missed,
    notes);

  using BSpline = itk::BSplineTransform<double, 3, 3>;
  auto                            bspline = BSpline::New();
  BSpline::PhysicalDimensionsType extent;
  BSpline::MeshSizeType           mesh;
  extent.Fill(n - 1.0);
  mesh.Fill(10);
  bspline->SetTransformDomainPhysicalDimensions(extent);
  bspline->SetTransformDomainMeshSize(mesh);
  BSpline::ParametersType                parameters(bspline->GetNumberOfParameters());
  std::mt19937                           rng(5);
  std::uniform_real_distribution<double> u(-3, 3);
  for (auto & p : parameters)
  {
    p = u(rng);
  }
  bspline->SetParametersByValue(parameters);
  FilterRow(
    "TransformToDisplacementFieldGPUFilter::Update(), 10^3-mesh BSplineTransform, " + std::to_string(n) +
      "^3 float vectors out",
    0,
    3 * b,
    [&] {
      auto            f = itk::TransformToDisplacementFieldGPUFilter<Field>::New();
      Field::SizeType size;
      size.Fill(n);
      f->SetTransform(bspline);
      f->SetSize(size);
      return f;
    },
    gpu,
    cpu,
    repeat,
    floor,
    missed,
    notes);

#ifdef CIF_BENCHMARK_CONVOLUTION
  {
    using Gray = itk::Image<float, 2>;
    using RGB = itk::Image<itk::RGBPixel<float>, 2>;
    const long m = options.image;
    auto       image = RGB::New();
    image->SetRegions(itk::Size<2>{ { static_cast<itk::SizeValueType>(m), static_cast<itk::SizeValueType>(m) } });
    image->Allocate();
    std::uniform_real_distribution<float> v(0.f, 255.f);
    for (std::size_t i = 0, count = image->GetBufferedRegion().GetNumberOfPixels(); i < count; ++i)
    {
      for (int c = 0; c < 3; ++c)
      {
        image->GetBufferPointer()[i][c] = v(rng);
      }
    }
    auto         kernel = itk::MakeKernelImage<Gray>(cif::MakeGaussianKernel(15, 5.0));
    const double rgbBytes = static_cast<double>(m) * m * 3 * sizeof(float);
    FilterRow(
      "ConvolutionGPUImageFilter::Update(), " + std::to_string(m) + "^2 RGB float, 15x15 Gaussian, host in and out",
      rgbBytes,
      rgbBytes,
      [&] {
        auto f = itk::ConvolutionGPUImageFilter<RGB, Gray, RGB>::New();
        f->SetInput(image);
        f->SetKernelImage(kernel);
        return f;
      },
      gpu,
      cpu,
      repeat,
      floor,
      missed,
      notes);
  }
#endif

  std::printf("\nfloor = bytes in / pinned upload bandwidth + bytes out / pinned download bandwidth, both measured "
              "above in this run. 'first' = the first Update(), into a freshly allocated output; 'median' = the next "
              "%d, into the same buffer. Target: median <= 1.25x floor: %s\n",
              repeat,
              !gpu             ? "n/a (no GPU)"
              : missed.empty() ? "met by every filter row"
                               : ("NOT met by " + std::to_string(missed.size()) + " row(s)").c_str());
  for (const auto & m : missed)
  {
    std::printf("  over: %s\n", m.c_str());
  }
  for (const auto & note : notes)
  {
    std::printf("  %s\n", note.c_str());
  }

  if (options.sweep && gpu)
  {
    std::printf("\nStaging sweep, %s (%.0f MiB), median of %d; x floor against the pinned copies above:\n\n",
                volume.c_str(),
                b / kMiB,
                repeat);
    std::printf(
      "| chunk (KiB) | threads | upload (ms) | x floor | download (ms) | x floor |\n|---|---|---|---|---|---|\n");
    std::vector<unsigned char> host(bytes, 5), back(bytes);
    for (const std::size_t chunkKiB : { 1024, 2048, 4096, 8192, 16384 })
    {
      for (const int threads : { 1, 2, 4, 6, 8 })
      {
        cif::PinnedStagingSettings s = staging;
        s.chunkBytes = chunkKiB << 10;
        s.threads = threads;
        cif::SetPinnedStagingSettings(s);
        const auto t = StagedMs(bytes, host, back, repeat);
        std::printf("| %zu | %d | %.2f | %s | %.2f | %s |\n",
                    chunkKiB,
                    threads,
                    t.first,
                    Cell(t.first / floor.Ms(b, 0), "%.2fx").c_str(),
                    t.second,
                    Cell(t.second / floor.Ms(0, b), "%.2fx").c_str());
        std::fflush(stdout);
      }
    }
    cif::SetPinnedStagingSettings(staging);
  }
  return 0;
}
