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
// VTK adapters benchmark: prints a markdown table for N^3 float volumes of the cubic
// B-spline coefficients (vtkCudaImageBSplineCoefficients, VTK's clamp border), an
// oblique reslice to an N^3 output (vtkCudaImageReslice with a degree-3
// vtkImageBSplineInterpolator, 30 degrees about (1, 1, 0) through the centre), and
// both in a row, against VTK's CPU pipeline (vtkImageBSplineCoefficients +
// vtkImageReslice on all host cores) in the same run:
// - GPU, device-resident: the kernels on data already on the device (CUDA events,
//   median of --repeat after a warm-up), and their floor (bytes that must move at the
//   measured copy bandwidth: 3 axes x (4 read + 4 written) per voxel for the
//   coefficients, 4 read + 4 written per output voxel for the reslice);
// - GPU, host data: the filters' Update() with vtkImageData in and out (wall clock,
//   transfers included; "both" keeps the coefficients on the device between them);
// - the module's CPU path (the kernels' code, vtkSMPTools on all cores) and VTK's
//   classes (vtkMultiThreader with one thread per core): wall clock, median of
//   min(--repeat, 3).
// The last column is the largest difference to VTK's output, over the input's range.
// Without a GPU the GPU columns say n/a and the CPU rows still run (CI builds and runs
// it at a small size).
//
//   VTKBenchmark [--sizes 256 512] [--repeat 10] [--itk-max 512 (largest size VTK runs at)]
#include "cifITKPoolParking.h"
#include "cifBSplinePrefilterDevice.h"
#include "cifBenchmarkSupport.h"
#include "cifBusFloor.h"
#ifdef CIF_BENCHMARK_GATHER_FLOOR
#  include "cifGatherFloorKernel.h"
#endif
#include "cifCudaRuntime.h"
#include "cifDeviceBuffer.h"
#include "cifVTKPinnedScalars.h"
#include "cifVTKResliceDevice.h"
#include "cifVTKSplinePoles.h"
#include "vtkCudaImageBSplineCoefficients.h"
#include "vtkCudaImageReslice.h"

#include "vtkFloatArray.h"
#include "vtkImageBSplineCoefficients.h"
#include "vtkImageBSplineInterpolator.h"
#include "vtkImageData.h"
#include "vtkImageReslice.h"
#include "vtkMatrix4x4.h"
#include "vtkMultiThreader.h"
#include "vtkNew.h"
#include "vtkPointData.h"
#include "vtkSMPTools.h"
#include "vtkTransform.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace
{
using cif_bench::Cell;
using cif_bench::Ratio;
using cif_bench::DeviceMilliseconds;
using cif_bench::Median;
using cif_bench::WallMilliseconds;

template <typename F>
double
HostMilliseconds(int repeat, F && f)
{
  std::vector<double> t;
  for (int r = 0; r < repeat; ++r)
  {
    t.push_back(WallMilliseconds(f));
  }
  return Median(t);
}

vtkSmartPointer<vtkImageData>
RandomVolume(long n)
{
  auto image = vtkSmartPointer<vtkImageData>::New();
  image->SetExtent(0, static_cast<int>(n - 1), 0, static_cast<int>(n - 1), 0, static_cast<int>(n - 1));
  image->AllocateScalars(VTK_FLOAT, 1);
  auto *                                p = static_cast<float *>(image->GetScalarPointer());
  std::mt19937                          rng(std::random_device{}());
  std::uniform_real_distribution<float> unit(0.0f, 100.0f);
  std::generate_n(p, n * n * n, [&] { return unit(rng); });
  return image;
}

/** The reslice of every row: oblique axes through the centre, an N^3 output of unit
 * spacing centred there, cubic B-spline interpolation, clamp border. */
void
Configure(vtkImageReslice * reslice, vtkMatrix4x4 * axes, long n)
{
  vtkNew<vtkImageBSplineInterpolator> interpolator;
  reslice->SetInterpolator(interpolator);
  reslice->SetResliceAxes(axes);
  reslice->SetOutputSpacing(1, 1, 1);
  reslice->SetOutputOrigin(-0.5 * (n - 1), -0.5 * (n - 1), -0.5 * (n - 1));
  reslice->SetOutputExtent(0, static_cast<int>(n - 1), 0, static_cast<int>(n - 1), 0, static_cast<int>(n - 1));
}

double
LargestDifference(vtkImageData * a, vtkImageData * b, double range)
{
  vtkDataArray * x = a->GetPointData()->GetScalars();
  vtkDataArray * y = b->GetPointData()->GetScalars();
  const auto *   p = static_cast<const float *>(x->GetVoidPointer(0));
  const auto *   q = static_cast<const float *>(y->GetVoidPointer(0));
  double         worst = 0;
  for (vtkIdType i = 0; i < x->GetNumberOfValues(); ++i)
  {
    worst = std::max(worst, std::fabs(static_cast<double>(p[i]) - q[i]));
  }
  return worst / range;
}

struct Row
{
  double device = -1, floor = -1, hostData = -1, cpuPath = -1, vtk = -1, error = -1;
};

void
Print(long n, const char * step, const Row & r)
{
  std::printf("| %ld^3 | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
              n,
              step,
              Cell(r.device).c_str(),
              Cell(r.floor).c_str(),
              r.device > 0 ? Cell(100.0 * r.floor / r.device, "%.0f%%").c_str() : "n/a",
              Cell(r.hostData).c_str(),
              Cell(r.cpuPath, "%.1f").c_str(),
              Cell(r.vtk, "%.1f").c_str(),
              Ratio(r.vtk, r.device).c_str(),
              Ratio(r.vtk, r.hostData).c_str(),
              Cell(r.error, "%.1e").c_str());
  std::fflush(stdout);
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  cif_bench::Options             options = cif_bench::ParseOptions(argc, argv, "VTKBenchmark", 512L);
  if (!options.ok)
  {
    return 2;
  }
  const int  repeat = options.repeat;
  const int  hostRepeat = std::min(repeat, 3);
  const bool gpu = cif::IsGPUAvailable();
  const int  cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  vtkMultiThreader::SetGlobalDefaultNumberOfThreads(cores);
  vtkSMPTools::Initialize(cores);
  const double copyGBps = gpu ? cif_bench::MeasureCopyBandwidth(repeat) : -1;
  if (gpu)
  {
    const cif::DeviceInfo info = cif::GetDeviceInfo();
    std::printf("Device: %s, %d SMs; copy bandwidth %.0f GB/s (read+write). ",
                info.name.c_str(),
                info.multiprocessorCount,
                copyGBps);
  }
  else
  {
    std::printf("No usable CUDA device (%s): GPU columns n/a. ", cif::GetNoDeviceReason().c_str());
  }
  std::printf(
    "Host: %d cores (VTK's multithreader and vtkSMPTools [%s] on all of them).\n\n", cores, vtkSMPTools::GetBackend());
  std::printf("| volume | step | GPU, device-resident (ms) | floor (ms) | of floor | GPU filters, host data (ms) "
              "| module CPU path (ms) | VTK CPU (ms) | vs VTK, device-resident | vs VTK, host data "
              "| max diff / range vs VTK |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");

  std::vector<std::string> ratios;
  for (long n : options.sizes)
  {
    const std::int64_t voxels = static_cast<std::int64_t>(n) * n * n;
    auto               samples = RandomVolume(n);
    double             range[2];
    samples->GetScalarRange(range);
    vtkNew<vtkTransform> rotation;
    rotation->Translate(0.5 * (n - 1), 0.5 * (n - 1), 0.5 * (n - 1));
    rotation->RotateWXYZ(30.0, 1.0, 1.0, 0.0);
    vtkNew<vtkMatrix4x4> axes;
    axes->DeepCopy(rotation->GetMatrix());
    const bool runVTK = n <= options.itkMax;
    Row        coefficients, reslice, both, loadFloor;

    // --- VTK's CPU pipeline
    vtkNew<vtkImageBSplineCoefficients> vtkPrefilter;
    vtkPrefilter->SetInputData(samples);
    vtkPrefilter->SetNumberOfThreads(cores);
    vtkNew<vtkImageReslice> vtkReslice;
    Configure(vtkReslice, axes, n);
    vtkReslice->SetNumberOfThreads(cores);
    vtkReslice->SetInputConnection(vtkPrefilter->GetOutputPort());
    if (runVTK)
    {
      coefficients.vtk = HostMilliseconds(hostRepeat, [&] {
        vtkPrefilter->Modified();
        vtkPrefilter->Update();
      });
      reslice.vtk = HostMilliseconds(hostRepeat, [&] {
        vtkReslice->Modified();
        vtkReslice->Update();
      });
      both.vtk = coefficients.vtk + reslice.vtk;
    }

    // --- the module's filters: GPU with host data, then the CPU path
    vtkNew<vtkCudaImageBSplineCoefficients> prefilter;
    prefilter->SetInputData(samples);
    vtkNew<vtkCudaImageReslice> cudaReslice;
    Configure(cudaReslice, axes, n);
    cudaReslice->SetInputConnection(prefilter->GetOutputPort());
    // The host-data updates timed from each input: the coefficients alone, and the
    // chain with the coefficients kept on the device between the two filters.
    const auto coefficientsMs = [&](int updates) {
      return HostMilliseconds(updates, [&] {
        prefilter->Modified();
        prefilter->Update();
      });
    };
    const auto chainMs = [&](int updates) {
      prefilter->KeepOutputOnDeviceOn();
      const double ms = HostMilliseconds(updates, [&] {
        prefilter->Modified();
        cudaReslice->Update();
      });
      prefilter->KeepOutputOnDeviceOff();
      return ms;
    };
    for (bool onGPU : { true, false })
    {
      if (onGPU && !gpu)
      {
        continue;
      }
      prefilter->SetUseGPU(onGPU);
      cudaReslice->SetUseGPU(onGPU);
      prefilter->KeepOutputOnDeviceOff();
      prefilter->Update(); // warm-up (and the coefficients for the reslice below)
      const double c = coefficientsMs(onGPU ? repeat : hostRepeat);
      const double r = HostMilliseconds(onGPU ? repeat : hostRepeat, [&] {
        cudaReslice->Modified();
        cudaReslice->Update();
      });
      (onGPU ? coefficients.hostData : coefficients.cpuPath) = c;
      (onGPU ? reslice.hostData : reslice.cpuPath) = r;
      if (runVTK)
      {
        coefficients.error = LargestDifference(prefilter->GetOutput(), vtkPrefilter->GetOutput(), range[1] - range[0]);
        reslice.error = LargestDifference(cudaReslice->GetOutput(), vtkReslice->GetOutput(), range[1] - range[0]);
      }
      if (onGPU)
      {
        both.hostData = chainMs(repeat);
      }
      else
      {
        both.cpuPath = coefficients.cpuPath + reslice.cpuPath;
      }
      both.error = std::max(coefficients.error, reslice.error);
    }

    // --- the same host-data updates from an input that the program pinned once
    // (cif::vtkmath::PinScalars: each upload one DMA instead of a staged copy)
    double pinnedCoefficients = -1, pinnedBoth = -1;
    if (gpu)
    {
      vtkNew<vtkImageData> pinnedSamples;
      pinnedSamples->DeepCopy(samples);
      cif::vtkmath::PinScalars(pinnedSamples);
      prefilter->SetInputData(pinnedSamples);
      prefilter->SetUseGPU(true);
      cudaReslice->SetUseGPU(true);
      prefilter->Update();
      pinnedCoefficients = coefficientsMs(repeat);
      pinnedBoth = chainMs(repeat);
      prefilter->SetInputData(samples);
    }

    // --- the kernels on device-resident data
    if (gpu)
    {
      cif::BufferShape shape;
      shape.dimension = 3;
      shape.size[0] = shape.size[1] = shape.size[2] = n;
      const std::size_t      bytes = static_cast<std::size_t>(voxels) * sizeof(float);
      const cif::SplinePoles poles = cif::vtkmath::MakeVTKSplinePoles(3);
      cif::DeviceBuffer      input(bytes), coefficientsOnDevice(bytes), output(bytes);
      input.Upload(samples->GetScalarPointer(), bytes);
      const auto prefilterKernel = [&] {
        cif::PrefilterOnDeviceInDouble(
          input.As<float>(), coefficientsOnDevice.As<float>(), shape, poles, cif::BoundaryMode::HalfSampleMirror);
      };
      // The job vtkCudaImageReslice makes for this reslice (input spacing 1, origin 0).
      cif::vtkmath::ResliceJob job;
      job.input = coefficientsOnDevice.Data();
      job.inputIsDouble = false;
      for (int a = 0; a < 3; ++a)
      {
        job.inputExtent[2 * a] = 0;
        job.inputExtent[2 * a + 1] = static_cast<int>(n - 1);
        job.outputExtent[2 * a] = 0;
        job.outputExtent[2 * a + 1] = static_cast<int>(n - 1);
        job.bounds[2 * a] = -0.5;
        job.bounds[2 * a + 1] = n - 0.5;
      }
      job.inputIncrement[0] = 1;
      job.inputIncrement[1] = n;
      job.inputIncrement[2] = n * n;
      vtkNew<vtkMatrix4x4> toOutput; // output index -> output coordinates
      for (int a = 0; a < 3; ++a)
      {
        toOutput->SetElement(a, 3, -0.5 * (n - 1));
      }
      vtkNew<vtkMatrix4x4> index;
      vtkMatrix4x4::Multiply4x4(axes, toOutput, index);
      for (int r = 0; r < 4; ++r)
      {
        for (int c = 0; c < 4; ++c)
        {
          job.matrix[r][c] = index->GetElement(r, c);
        }
      }
      job.output = output.Data();
      job.outputKind = cif::vtkmath::ScalarKind::Float32;
      const auto resliceKernel = [&] { cif::vtkmath::ResliceOnDevice(job); };
      coefficients.device = DeviceMilliseconds(repeat, prefilterKernel);
      reslice.device = DeviceMilliseconds(repeat, resliceKernel);
#ifdef CIF_BENCHMARK_GATHER_FLOOR
      loadFloor.device = DeviceMilliseconds(repeat, [&] {
        cif_bench::LaunchCoalescedGatherFloor(coefficientsOnDevice.As<float>(), n, output.As<float>());
      });
#endif
      both.device = DeviceMilliseconds(repeat, [&] {
        prefilterKernel();
        resliceKernel();
      });
      coefficients.floor = 3.0 * 8.0 * voxels / (copyGBps * 1e9) * 1e3;
      reslice.floor = 8.0 * voxels / (copyGBps * 1e9) * 1e3;
      both.floor = coefficients.floor + reslice.floor;
    }

    Print(n, "coefficients", coefficients);
    Print(n, "oblique reslice", reslice);
    Print(n, "both", both);
    Print(n, "load floor of the reslice (64 coalesced float loads a voxel)", loadFloor);
    if (gpu)
    {
      // The host-data rows move the volume up and the output down (one float each).
      const cif_bench::BusTimes bus = cif_bench::MeasureBus(static_cast<std::size_t>(voxels) * sizeof(float), repeat);
      const double              floor = bus.pinnedUpMs + bus.pinnedDownMs;
      char                      line[384];
      std::snprintf(line,
                    sizeof(line),
                    "%ld^3, host data: bus floor %.3f ms (pinned, %.3f up + %.3f down); coefficients %.2fx, "
                    "reslice %.2fx, both %.2fx that floor; from an input pinned once (cif::vtkmath::PinScalars): "
                    "coefficients %.3f ms (%.2fx), both %.3f ms (%.2fx)",
                    n,
                    floor,
                    bus.pinnedUpMs,
                    bus.pinnedDownMs,
                    coefficients.hostData / floor,
                    reslice.hostData / floor,
                    both.hostData / floor,
                    pinnedCoefficients,
                    pinnedCoefficients / floor,
                    pinnedBoth,
                    pinnedBoth / floor);
      ratios.push_back(line);
    }
    if (loadFloor.device > 0)
    {
      char line[160];
      std::snprintf(line,
                    sizeof(line),
                    "%ld^3: the oblique reslice takes %.2fx its load floor",
                    n,
                    reslice.device / loadFloor.device);
      ratios.push_back(line);
    }
  }
  for (const std::string & line : ratios)
  {
    std::printf("\n%s", line.c_str());
  }
  std::printf(
    "\n'of floor' = floor / GPU time (100%% = at the copy bandwidth). 'vs VTK' = VTK's time / ours. "
    "'both' on the GPU with host data: vtkCudaImageBSplineCoefficients (KeepOutputOnDevice) feeding "
    "vtkCudaImageReslice, one upload and one download; on the CPU, the sum of the two steps. VTK runs "
    "up to --itk-max (n/a above). The load floor: 64 coalesced 4-byte loads per output voxel and nothing else "
    "(ResampleBenchmark's), on the same coefficients.\n");
  return 0;
}
