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
// Large data on one GPU: an N^3 float volume in host memory,
// prefiltered and resampled through an affine (CubicResampleGPUImageFilter, host image
// in and out), in one piece on the device and again under a device memory limit that
// makes the filter work in slabs (cif::SetDeviceMemoryLimit), against the bus floor
// measured in the same run (pinned cudaMemcpy of 1 GiB, scaled to the volume's bytes
// in and out). The two outputs are compared bit for bit. Target: the limited run
// <= 1.5x the floor.
//
//   LargeDataBenchmark [--size 1536] [--limit-gib 16] [--no-whole] [--no-limited] [--stages] [--devices N]
//                      [--field M]
//
// --no-limited leaves out the run under the device memory limit.
// --devices N adds the one-piece run spread over N GPUs (SetNumberOfDevices), timed
// and compared bit for bit with the one-GPU run: fresh filters twice, then the same
// filters updated again (outputs reused), then the device-resident rows (the data
// already on the devices, cifDeviceResidentSpread.h).
// --field M (with --devices N) adds the displacement field of a cubic B-spline
// transform (TransformToDisplacementFieldGPUFilter, float vectors, M^3 grid, control
// points every 16 voxels) on 1 and on N GPUs, into host memory, bit for bit, against
// the bus floor of its download. With --devices N the spread rows' floor is the bus
// floor of N devices copying at once (each 1/N of the bytes), measured in the run.
// --stages prints when each run reached each progress stage (conversion, prefilter
// axes, output slabs).
//
// Host memory: 3 volumes (input, two outputs), plus one more in the limited run
// (the whole input's coefficients, kept on the host): 4 N^3 floats, 54 GiB at 1536^3,
// 128 GiB at 2048^3 (use --no-whole there: one output less, no comparison). Without a
// GPU the filter's CPU path runs the same slab plans (ctest runs it at 48^3).
#include "cifITKPoolParking.h"
#include "cifBenchmarkSupport.h"
#include "cifBusFloor.h"
#include "cifDeviceMemoryLimit.h"
#include "cifDeviceResidentSpread.h"
#include "cifStageClock.h"
#include "itkAffineTransform.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkBSplineTransform.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkTransformToDisplacementFieldGPUFilter.h"

#include <algorithm>
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
  image->SetRegions(Image::RegionType(Image::SizeType{
    { static_cast<itk::SizeValueType>(n), static_cast<itk::SizeValueType>(n), static_cast<itk::SizeValueType>(n) } }));
  image->Allocate();
  float *                  p = image->GetBufferPointer();
  const std::size_t        count = image->GetBufferedRegion().GetNumberOfPixels();
  const unsigned           threads = std::max(1u, std::thread::hardware_concurrency());
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

using ResampleFilter = itk::CubicResampleGPUImageFilter<Image, Image>;

/** The filter's Update() timed; \a what names it in --stages. */
Image::Pointer
Resample(const Image *                           input,
         const itk::AffineTransform<double, 3> * affine,
         double &                                ms,
         bool &                                  onGPU,
         const char *                            what,
         unsigned int                            devices = 1,
         ResampleFilter::Pointer *               keep = nullptr)
{
  auto filter = ResampleFilter::New();
  if (keep != nullptr)
  {
    *keep = filter;
  }
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
  if (keep != nullptr)
  {
    return filter->GetOutput(); // stays the filter's, for its next update
  }
  Image::Pointer output = filter->GetOutput();
  output->DisconnectPipeline();
  return output;
}

/** The same filter updated again (Modified(), Update()): its output buffer is
 * reused, pinned from this update on (Core), and the input is known. */
double
UpdateAgain(ResampleFilter * filter)
{
  filter->Modified();
  return WallMilliseconds([&] { filter->Update(); });
}
using Field = itk::Image<itk::Vector<float, 3>, 3>;
using BSpline = itk::BSplineTransform<double, 3, 3>;

/** A cubic B-spline transform over an m^3 grid of unit spacing, control points every
 * 16 voxels, random coefficients of up to 2 voxels. */
BSpline::Pointer
RandomBSpline(long m)
{
  auto                            transform = BSpline::New();
  BSpline::PhysicalDimensionsType extent;
  extent.Fill(static_cast<double>(m - 1));
  BSpline::MeshSizeType mesh;
  mesh.Fill(static_cast<itk::SizeValueType>(std::max(1L, m / 16)));
  transform->SetTransformDomainPhysicalDimensions(extent);
  transform->SetTransformDomainMeshSize(mesh);
  BSpline::ParametersType parameters(transform->GetNumberOfParameters());
  std::uint64_t           state = 7;
  for (unsigned int i = 0; i < parameters.size(); ++i)
  {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    parameters[i] = 4.0 * (static_cast<double>(state >> 11) / 9007199254740992.0) - 2.0;
  }
  transform->SetParameters(parameters);
  return transform;
}

/** The field of \a transform over an m^3 grid on \a devices GPUs, into host memory. */
Field::Pointer
FieldOf(const BSpline * transform, long m, unsigned int devices, double & ms, bool & onGPU)
{
  auto filter = itk::TransformToDisplacementFieldGPUFilter<Field, double>::New();
  filter->SetTransform(transform);
  filter->SetSize(Field::SizeType{
    { static_cast<itk::SizeValueType>(m), static_cast<itk::SizeValueType>(m), static_cast<itk::SizeValueType>(m) } });
  filter->SetNumberOfDevices(devices);
  ms = WallMilliseconds([&] { filter->Update(); });
  onGPU = filter->GetLastExecutionPath() == itk::CudaExecutionPath::GPU;
  Field::Pointer field = filter->GetOutput();
  field->DisconnectPipeline();
  return field;
}

/** The field rows: 1 and \a devices GPUs, twice each (the second with pools warm). */
void
FieldRows(long m, unsigned int devices, double downMsPerByte, double spreadDownMsPerByte)
{
  const auto   transform = RandomBSpline(m);
  const double bytes = static_cast<double>(m) * m * m * 3 * sizeof(float);
  const double floorMs = downMsPerByte > 0 ? bytes * downMsPerByte : -1;
  const double spreadFloorMs = spreadDownMsPerByte > 0 ? bytes * spreadDownMsPerByte : -1;
  std::printf("\nDisplacement field of a cubic B-spline (control points every 16 voxels), %ld^3 float vectors "
              "(%.2f GiB) into host memory; floor: its download at the pinned rate\n\n",
              m,
              bytes / kGiB);
  std::printf("| run | path | time (ms) | floor (ms) | x floor |\n|---|---|---|---|---|\n");
  for (int repeat = 0; repeat < 2; ++repeat)
  {
    double     ms1 = -1, msN = -1;
    bool       gpu1 = false, gpuN = false;
    const auto one = FieldOf(transform, m, 1, ms1, gpu1);
    const auto spread = FieldOf(transform, m, devices, msN, gpuN);
    std::printf("| field, 1 device (run %d) | %s | %.1f | %s | %s |\n",
                repeat + 1,
                gpu1 ? "GPU" : "CPU",
                ms1,
                Cell(floorMs, "%.1f").c_str(),
                Cell(floorMs > 0 && gpu1 ? ms1 / floorMs : -1, "%.2fx").c_str());
    std::printf("| field, %u devices (run %d) | %s | %.1f | %s (%u devices) | %s |\n",
                devices,
                repeat + 1,
                gpuN ? "GPU" : "CPU",
                msN,
                Cell(spreadFloorMs, "%.1f").c_str(),
                devices,
                Cell(spreadFloorMs > 0 && gpuN ? msN / spreadFloorMs : -1, "%.2fx").c_str());
    std::printf("%u devices: %s; %.2fx one device\n",
                devices,
                std::memcmp(one->GetBufferPointer(), spread->GetBufferPointer(), static_cast<std::size_t>(bytes)) == 0
                  ? "field equals the one-device field, bit for bit"
                  : "FIELD DIFFERS from the one-device field",
                msN > 0 ? ms1 / msN : 0.0);
  }
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  long                           n = 1536;
  double                         limitGiB = 16;
  bool                           whole = true;
  bool                           limited = true;
  unsigned int                   devices = 1;
  long                           fieldSize = 0;
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
    else if (a == "--field" && i + 1 < argc)
      fieldSize = std::max(16L, std::atol(argv[++i]));
    else
    {
      std::fprintf(stderr,
                   "usage: LargeDataBenchmark [--size N] [--limit-gib L] [--no-whole] [--no-limited] [--stages] "
                   "[--devices N] [--field M]\n");
      return 2;
    }
  }
  const double bytes = static_cast<double>(n) * n * n * sizeof(float);
  const auto   bus = cif_bench::MeasureBus(std::size_t(1) << 30, 3);
  const double upMsPerByte = bus.pinnedUpMs > 0 ? bus.pinnedUpMs / kGiB : -1;
  const double downMsPerByte = bus.pinnedDownMs > 0 ? bus.pinnedDownMs / kGiB : -1;
  const double floorMs = upMsPerByte > 0 ? bytes * (upMsPerByte + downMsPerByte) : -1;
  std::printf("LargeDataBenchmark: %ld^3 float (%.1f GiB) prefilter + affine cubic resample, host image in and out; "
              "bus floor from pinned copies of 1 GiB: up %s ms, down %s ms per GiB\n",
              n,
              bytes / kGiB,
              Cell(bus.pinnedUpMs, "%.2f").c_str(),
              Cell(bus.pinnedDownMs, "%.2f").c_str());
  // The floor of a job spread over the devices: each device moves 1/N of the bytes,
  // all at once (1 GiB / N to each device, every device copying at the same time).
  double spreadFloorMs = -1, spreadDownMsPerByte = -1;
  if (devices > 1)
  {
    const std::size_t share = (std::size_t(1) << 30) / devices;
    const auto        busN = cif_bench::MeasureBusOnDevices(share, static_cast<int>(devices), 3);
    if (busN.pinnedUpMs > 0)
    {
      spreadFloorMs = bytes / kGiB * (busN.pinnedUpMs + busN.pinnedDownMs);
      spreadDownMsPerByte = busN.pinnedDownMs / kGiB;
      std::printf("bus floor of %u devices at once (1/%u GiB to and from each, all copying together): up %.2f ms, "
                  "down %.2f ms per GiB in all (%.2fx one device's rate)\n",
                  devices,
                  devices,
                  busN.pinnedUpMs,
                  busN.pinnedDownMs,
                  (bus.pinnedUpMs + bus.pinnedDownMs) / (busN.pinnedUpMs + busN.pinnedDownMs));
    }
  }
  std::printf("\n");

  const auto input = RandomVolume(n);
  const auto affine = cif_bench::TurnAndEnlarge(n);

  std::printf("| run | path | time (ms) | floor (ms) | x floor |\n|---|---|---|---|---|\n");
  Image::Pointer onePiece;
  if (whole)
  {
    double ms = -1;
    bool   gpu = false;
    onePiece = Resample(input, affine, ms, gpu, "one piece");
    std::printf("| one piece on the device | %s | %.1f | %s | %s |\n",
                gpu ? "GPU" : "CPU",
                ms,
                Cell(floorMs, "%.1f").c_str(),
                Cell(floorMs > 0 && gpu ? ms / floorMs : -1, "%.2fx").c_str());
  }
  if (whole && devices > 1)
  {
    for (int repeat = 0; repeat < 2; ++repeat) // the second run: output pages and pools warm
    {
      double     ms1 = -1, msN = -1;
      bool       gpu1 = false, gpuN = false;
      const auto one = Resample(input, affine, ms1, gpu1, "one device");
      const auto spread = Resample(input, affine, msN, gpuN, "several devices", devices);
      std::printf("| one piece, 1 device (run %d) | %s | %.1f | %s | %s |\n",
                  repeat + 1,
                  gpu1 ? "GPU" : "CPU",
                  ms1,
                  Cell(floorMs, "%.1f").c_str(),
                  Cell(floorMs > 0 && gpu1 ? ms1 / floorMs : -1, "%.2fx").c_str());
      std::printf("| one piece, %u devices (run %d) | %s | %.1f | %s (%u devices) | %s |\n",
                  devices,
                  repeat + 1,
                  gpuN ? "GPU" : "CPU",
                  msN,
                  Cell(spreadFloorMs, "%.1f").c_str(),
                  devices,
                  Cell(spreadFloorMs > 0 && gpuN ? msN / spreadFloorMs : -1, "%.2fx").c_str());
      const std::size_t count = spread->GetBufferedRegion().GetNumberOfPixels();
      std::printf("%u devices: %s; %.2fx one device\n",
                  devices,
                  std::memcmp(one->GetBufferPointer(), spread->GetBufferPointer(), count * sizeof(float)) == 0
                    ? "output equals the one-device output, bit for bit"
                    : "OUTPUT DIFFERS from the one-device output",
                  msN > 0 ? ms1 / msN : 0.0);
    }
    // A pipeline that runs again (a new transform, the next volume of a series): the
    // same filters updated again, their outputs reused.
    {
      double                  ms1 = -1, msN = -1;
      bool                    gpu1 = false, gpuN = false;
      ResampleFilter::Pointer filter1, filterN;
      Resample(input, affine, ms1, gpu1, "one device", 1, &filter1);
      Resample(input, affine, msN, gpuN, "several devices", devices, &filterN);
      std::vector<double> again1, againN;
      for (int repeat = 0; repeat < 3; ++repeat)
      {
        again1.push_back(UpdateAgain(filter1));
        againN.push_back(UpdateAgain(filterN));
      }
      std::sort(again1.begin(), again1.end());
      std::sort(againN.begin(), againN.end());
      ms1 = again1[1];
      msN = againN[1];
      std::printf("| the same filter updated again, 1 device (median of 3) | %s | %.1f | %s | %s |\n",
                  gpu1 ? "GPU" : "CPU",
                  ms1,
                  Cell(floorMs, "%.1f").c_str(),
                  Cell(floorMs > 0 && gpu1 ? ms1 / floorMs : -1, "%.2fx").c_str());
      std::printf("| the same filter updated again, %u devices (median of 3) | %s | %.1f | %s (%u devices) | %s |\n",
                  devices,
                  gpuN ? "GPU" : "CPU",
                  msN,
                  Cell(spreadFloorMs, "%.1f").c_str(),
                  devices,
                  Cell(spreadFloorMs > 0 && gpuN ? msN / spreadFloorMs : -1, "%.2fx").c_str());
      const std::size_t count = filterN->GetOutput()->GetBufferedRegion().GetNumberOfPixels();
      std::printf("%u devices, updated again: %s; %.2fx one device\n",
                  devices,
                  std::memcmp(filter1->GetOutput()->GetBufferPointer(),
                              filterN->GetOutput()->GetBufferPointer(),
                              count * sizeof(float)) == 0
                    ? "output equals the one-device output, bit for bit"
                    : "OUTPUT DIFFERS from the one-device output",
                  msN > 0 ? ms1 / msN : 0.0);
    }
    if (!cif_bench::DeviceResidentSpreadRows(input, affine, static_cast<int>(devices), 5))
    {
      return 1;
    }
  }
  if (fieldSize > 0 && devices > 1)
  {
    FieldRows(fieldSize, devices, downMsPerByte, spreadFloorMs > 0 ? spreadDownMsPerByte : -1);
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
              Cell(limitGiB, "%g").c_str(),
              gpu ? "GPU" : "CPU",
              ms,
              Cell(floorMs, "%.1f").c_str(),
              Cell(floorMs > 0 && gpu ? ms / floorMs : -1, "%.2fx").c_str());
  if (onePiece)
  {
    const bool same =
      std::memcmp(onePiece->GetBufferPointer(), slabbed->GetBufferPointer(), static_cast<std::size_t>(bytes)) == 0;
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
