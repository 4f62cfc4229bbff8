// Large data on one GPU (issue 16, item 5): an N^3 float volume in host memory,
// prefiltered and resampled through an affine (CubicResampleGPUImageFilter, host image
// in and out), in one piece on the device and again under a device memory limit that
// makes the filter work in slabs (cif::SetDeviceMemoryLimit), against the bus floor
// measured in the same run (pinned cudaMemcpy of 1 GiB, scaled to the volume's bytes
// in and out). The two outputs are compared bit for bit. Target: the limited run
// <= 1.5x the floor.
//
//   LargeDataBenchmark [--size 1536] [--limit-gib 16] [--no-whole] [--no-limited] [--stages] [--devices N]
//
// --no-limited leaves out the run under the device memory limit.
// --devices N adds the one-piece run spread over N GPUs (SetNumberOfDevices), timed
// and compared bit for bit with the one-GPU run.
// --stages prints when each run reached each progress stage (conversion, prefilter
// axes, output slabs).
//
// Host memory: 3 volumes (input, two outputs), plus one more in the limited run
// (the whole input's coefficients, kept on the host): 4 N^3 floats, 54 GiB at 1536^3,
// 128 GiB at 2048^3 (use --no-whole there: one output less, no comparison). Without a
// GPU the filter's CPU path runs the same slab plans (ctest runs it at 48^3).
#include "cifBenchmarkSupport.h"
#include "cifBusFloor.h"
#include "cifDeviceMemoryLimit.h"
#include "cifStageClock.h"
#include "itkAffineTransform.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkCubicResampleGPUImageFilter.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace
{
using cif_bench::Cell;
using cif_bench::WallMilliseconds;
using Image = itk::Image<float, 3>;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/** An N^3 volume of pseudo-random floats, filled by all host threads (a single
 * thread takes tens of seconds at 2048^3). */
Image::Pointer
RandomVolume(long n)
{
  auto image = Image::New();
  image->SetRegions(Image::RegionType(Image::SizeType{ { static_cast<itk::SizeValueType>(n),
                                                         static_cast<itk::SizeValueType>(n),
                                                         static_cast<itk::SizeValueType>(n) } }));
  image->Allocate();
  float *             p = image->GetBufferPointer();
  const std::size_t   count = image->GetBufferedRegion().GetNumberOfPixels();
  const unsigned      threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
  {
    pool.emplace_back([=] {
      std::uint64_t state = 0x9E3779B97F4A7C15ull * (t + 1);
      for (std::size_t i = count * t / threads; i < count * (t + 1) / threads; ++i)
      {
        state = state * 6364136223846793005ull + 1442695040888963407ull; // LCG: cheap, enough for timing
        p[i] = static_cast<float>(state >> 40) * (1.0f / 16777216.0f);
      }
    });
  }
  for (auto & th : pool)
  {
    th.join();
  }
  return image;
}

/** With --stages, when each Update() reached each of its progress stages. */
bool g_Stages = false;

Image::Pointer
Resample(const Image * input, const itk::AffineTransform<double, 3> * affine, double & ms, bool & onGPU,
         const char * what, unsigned int devices = 1)
{
  auto filter = itk::CubicResampleGPUImageFilter<Image, Image>::New();
  filter->SetNumberOfDevices(devices);
  auto clock = cif_bench::StageClock::New();
  if (g_Stages)
  {
    filter->AddObserver(itk::StartEvent(), clock);
    filter->AddObserver(itk::ProgressEvent(), clock);
  }
  filter->SetInput(input);
  filter->SetInterpolator(itk::BSplineInterpolateImageFunction<Image, double, double>::New());
  filter->SetTransform(affine);
  filter->SetOutputParametersFromImage(input);
  ms = WallMilliseconds([&] { filter->Update(); });
  onGPU = filter->GetLastExecutionPath() == itk::CudaExecutionPath::GPU;
  if (g_Stages)
  {
    cif_bench::PrintStages(what, *clock);
  }
  Image::Pointer output = filter->GetOutput();
  output->DisconnectPipeline();
  return output;
}
} // namespace

int
main(int argc, char * argv[])
{
  long   n = 1536;
  double limitGiB = 16;
  bool   whole = true;
  bool   limited = true;
  unsigned int devices = 1;
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    if (a == "--size" && i + 1 < argc)
      n = std::max(8L, std::atol(argv[++i]));
    else if (a == "--limit-gib" && i + 1 < argc)
      limitGiB = std::atof(argv[++i]);
    else if (a == "--no-whole")
      whole = false;
    else if (a == "--no-limited")
      limited = false;
    else if (a == "--stages")
      g_Stages = true;
    else if (a == "--devices" && i + 1 < argc)
      devices = static_cast<unsigned int>(std::max(1, std::atoi(argv[++i])));
    else
    {
      std::fprintf(stderr, "usage: LargeDataBenchmark [--size N] [--limit-gib L] [--no-whole] [--no-limited] [--stages] "
                           "[--devices N]\n");
      return 2;
    }
  }
  const double bytes = static_cast<double>(n) * n * n * sizeof(float);
  const auto   bus = cif_bench::MeasureBus(std::size_t(1) << 30, 3);
  const double upMsPerByte = bus.pinnedUpMs > 0 ? bus.pinnedUpMs / kGiB : -1;
  const double downMsPerByte = bus.pinnedDownMs > 0 ? bus.pinnedDownMs / kGiB : -1;
  const double floorMs = upMsPerByte > 0 ? bytes * (upMsPerByte + downMsPerByte) : -1;
  std::printf("LargeDataBenchmark: %ld^3 float (%.1f GiB) prefilter + affine cubic resample, host image in and out; "
              "bus floor from pinned copies of 1 GiB: up %s ms, down %s ms per GiB\n\n",
              n, bytes / kGiB, Cell(bus.pinnedUpMs, "%.2f").c_str(), Cell(bus.pinnedDownMs, "%.2f").c_str());

  const auto input = RandomVolume(n);
  const auto affine = cif_bench::TurnAndEnlarge(n);

  std::printf("| run | path | time (ms) | floor (ms) | x floor |\n|---|---|---|---|---|\n");
  Image::Pointer onePiece;
  if (whole)
  {
    double ms = -1;
    bool   gpu = false;
    onePiece = Resample(input, affine, ms, gpu, "one piece");
    std::printf("| one piece on the device | %s | %.1f | %s | %s |\n", gpu ? "GPU" : "CPU", ms,
                Cell(floorMs, "%.1f").c_str(), Cell(floorMs > 0 && gpu ? ms / floorMs : -1, "%.2fx").c_str());
  }
  if (whole && devices > 1)
  {
    for (int repeat = 0; repeat < 2; ++repeat) // the second run: output pages and pools warm
    {
      double     ms1 = -1, msN = -1;
      bool       gpu1 = false, gpuN = false;
      const auto one = Resample(input, affine, ms1, gpu1, "one device");
      const auto spread = Resample(input, affine, msN, gpuN, "several devices", devices);
      std::printf("| one piece, 1 device (run %d) | %s | %.1f | %s | %s |\n", repeat + 1, gpu1 ? "GPU" : "CPU", ms1,
                  Cell(floorMs, "%.1f").c_str(), Cell(floorMs > 0 && gpu1 ? ms1 / floorMs : -1, "%.2fx").c_str());
      std::printf("| one piece, %u devices (run %d) | %s | %.1f | %s | %s |\n", devices, repeat + 1,
                  gpuN ? "GPU" : "CPU", msN, Cell(floorMs, "%.1f").c_str(),
                  Cell(floorMs > 0 && gpuN ? msN / floorMs : -1, "%.2fx").c_str());
      const std::size_t count = spread->GetBufferedRegion().GetNumberOfPixels();
      std::printf("%u devices: %s\n", devices,
                  std::memcmp(one->GetBufferPointer(), spread->GetBufferPointer(), count * sizeof(float)) == 0
                    ? "output equals the one-device output, bit for bit"
                    : "OUTPUT DIFFERS from the one-device output");
    }
  }
  if (!limited)
  {
    return 0;
  }
  double ms = -1;
  bool   gpu = false;
  cif::SetDeviceMemoryLimit(static_cast<std::size_t>(limitGiB * kGiB));
  const auto slabbed = Resample(input, affine, ms, gpu, "under the limit");
  cif::SetDeviceMemoryLimit(0);
  std::printf("| under a device memory limit of %s GiB (slabs) | %s | %.1f | %s | %s |\n",
              Cell(limitGiB, "%g").c_str(), gpu ? "GPU" : "CPU", ms, Cell(floorMs, "%.1f").c_str(),
              Cell(floorMs > 0 && gpu ? ms / floorMs : -1, "%.2fx").c_str());
  if (onePiece)
  {
    const bool same = std::memcmp(onePiece->GetBufferPointer(), slabbed->GetBufferPointer(),
                                  static_cast<std::size_t>(bytes)) == 0;
    std::printf("\nlimited output %s the one-piece output, bit for bit\n", same ? "equals" : "DIFFERS FROM");
    if (!same)
    {
      return 1;
    }
  }
  std::printf("floor = bytes in at the pinned upload rate + bytes out at the pinned download rate. Target: the "
              "limited run <= 1.5x the floor.\n");
  return 0;
}
