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
// Directional filter bank benchmark: prints a markdown table of analysis +
// synthesis of N² float images on the GPU (data on the device, CUDA events, median
// of --repeat runs after a warm-up, random data), the memory floor, and the CPU path
// (this module's, ITK's threader, float) in the same run. Each row also checks the
// device's reconstruction error (perfect reconstruction is the point of the bank).
//
//   DirectionalFilterBankBenchmark [--sizes 1024 4096] [--repeat 10] [--itk-max 4096]
//
// Floor: analysis reads the image and writes the subbands, synthesis the reverse:
// at least 4 × 4 bytes per pixel for the pair, at the measured device-to-device
// copy bandwidth (bytes read + written per second). The seed thesis for context:
// its 1920² 2-band analysis filters took 35 ms each, with transfers, on a GeForce
// 8800 GTX (one stage; the transfers were > 80 % of it).
#include "cifITKPoolParking.h"
#include "cifBenchmarkSupport.h"
#include "cifDirectionalFilterBankDevice.h"
#include "cifDirectionalFilterBankHost.h"
#include "itkCudaParallelFor.h"
#include "itkMultiThreaderBase.h"

#include <cstdio>
#include <cstdlib>
#include <random>

namespace
{
using cif_bench::DeviceMilliseconds;
using cif_bench::WallMilliseconds;

void
PrintRow(int n, int levels, cif::DirectionalFilterSet set, int repeat, double copyGBps, bool runCPU)
{
  const cif::DFBPlan                    analysis = cif::MakeDirectionalAnalysisPlan(n, n, levels, set);
  const cif::DFBPlan                    synthesis = cif::MakeDirectionalSynthesisPlan(n, n, levels, set);
  const std::int64_t                    pixels = static_cast<std::int64_t>(n) * n;
  std::vector<float>                    image(static_cast<std::size_t>(pixels));
  std::mt19937                          rng(777u + n);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  for (float & v : image)
  {
    v = unit(rng);
  }

  cif::DFBDeviceWorkspace<float> forward(analysis), backward(synthesis);
  forward.Upload(0, image.data(), pixels);
  const int    subbandBuffer = synthesis.subbands.front().buffer;
  const double analysisMs = DeviceMilliseconds(repeat, [&] { forward.Run(); });
  // The synthesis works in place on its subband buffer: every timed run starts from
  // a fresh copy of the analysis output (a device copy, timed apart and subtracted).
  auto freshSubbands = [&] {
    cif::CopyDeviceToDevice(backward.DevicePointer({ subbandBuffer, 0, n, n }),
                            forward.DevicePointer({ analysis.subbands.front().buffer, 0, n, n }),
                            pixels * sizeof(float));
  };
  const double copyMs = DeviceMilliseconds(repeat, freshSubbands);
  const double synthesisMs = DeviceMilliseconds(repeat,
                                                [&] {
                                                  freshSubbands();
                                                  backward.Run();
                                                }) -
                             copyMs;
  freshSubbands();
  backward.Run();
  std::vector<float> rebuilt(static_cast<std::size_t>(pixels));
  backward.Download(0, rebuilt.data(), pixels);
  double maxError = 0;
  for (std::int64_t k = 0; k < pixels; ++k)
  {
    maxError = std::max(maxError, static_cast<double>(std::abs(rebuilt[k] - image[k])));
  }
  const double floorMs = 4.0 * 4.0 * pixels / (copyGBps * 1e9) * 1e3;
  const double totalMs = analysisMs + synthesisMs;

  std::string cpu = "–";
  if (runCPU)
  {
    auto                       threader = itk::MultiThreaderBase::New();
    cif::DFBHostBuffers<float> a(analysis), s(synthesis);
    std::copy(image.begin(), image.end(), a.At(analysis.image));
    const double cpuMs = WallMilliseconds([&] {
      cif::RunDFBPlanOnHost(analysis, a, itk::MakeParallelFor(threader));
      std::copy(a.storage[analysis.subbands.front().buffer].begin(),
                a.storage[analysis.subbands.front().buffer].end(),
                s.storage[subbandBuffer].begin());
      cif::RunDFBPlanOnHost(synthesis, s, itk::MakeParallelFor(threader));
    });
    char         text[64];
    std::snprintf(text, sizeof text, "%.0f ms (%.0f×)", cpuMs, cpuMs / totalMs);
    cpu = text;
  }
  std::printf("| %d² | %d (%d subbands) | %s | %.3f | %.3f | %.3f | %.3f (%.0f %%) | %s | %.1e |\n",
              n,
              levels,
              1 << levels,
              cif::ToString(set),
              analysisMs,
              synthesisMs,
              totalMs,
              floorMs,
              100.0 * floorMs / totalMs,
              cpu.c_str(),
              maxError);
}
/** Device time per operation kind of one analysis + synthesis (where the time goes). */
void
PrintProfile(int n, int levels, cif::DirectionalFilterSet set)
{
  const char * names[] = { "Split",
                           "Merge",
                           "FilterRows",
                           "FilterColumns",
                           "Butterfly",
                           "InverseButterfly",
                           "Resample",
                           "BacksampleOneLevel",
                           "UndoBacksampleOneLevel" };
  for (int direction = 0; direction < 2; ++direction)
  {
    const cif::DFBPlan             plan = direction == 0 ? cif::MakeDirectionalAnalysisPlan(n, n, levels, set)
                                                         : cif::MakeDirectionalSynthesisPlan(n, n, levels, set);
    cif::DFBDeviceWorkspace<float> workspace(plan);
    std::vector<double>            ms(9, 0.0), count(9, 0.0);
    workspace.Run(); // warm-up
    for (const cif::DFBOp & op : plan.ops)
    {
      const double t = DeviceMilliseconds(5, [&] { workspace.RunOps(&op, 1); });
      ms[static_cast<int>(op.kind)] += t;
      count[static_cast<int>(op.kind)] += 1;
    }
    std::printf("profile %d² n=%d %s %s:", n, levels, cif::ToString(set), direction == 0 ? "analysis" : "synthesis");
    for (int k = 0; k < 9; ++k)
    {
      if (count[k] > 0)
      {
        std::printf(" %s %.3f ms (%g ops)", names[k], ms[k], count[k]);
      }
    }
    std::printf("\n");
  }
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  cif_bench::Options             o = cif_bench::ParseOptions(argc, argv, "DirectionalFilterBankBenchmark", 4096);
  if (!o.ok)
  {
    return 1;
  }
  if (o.sizes == std::vector<long>{ 256, 512 })
  {
    o.sizes = { 1024, 4096 };
  }
  if (!cif::IsGPUAvailable())
  {
    std::fprintf(
      stderr, "DirectionalFilterBankBenchmark: no usable CUDA device: %s\n", cif::GetNoDeviceReason().c_str());
    return 1;
  }
  const cif::DeviceInfo info = cif::GetDeviceInfo();
  const double          copyGBps = cif_bench::MeasureCopyBandwidth(o.repeat);
  std::printf("Directional filter bank, float, analysis + synthesis on %s; copy bandwidth %.0f GB/s; median of %d\n\n",
              info.name.c_str(),
              copyGBps,
              o.repeat);
  std::printf("| image | levels | filters | analysis ms | synthesis ms | total ms | floor ms (%% of it) | CPU path "
              "(ratio) | max PR error |\n|---|---|---|---|---|---|---|---|---|\n");
  if (std::getenv("CIF_DFB_PROFILE") != nullptr)
  {
    PrintProfile(4096, 3, cif::DirectionalFilterSet::LadderPKVA12);
    PrintProfile(4096, 3, cif::DirectionalFilterSet::QMF16);
  }
  for (long n : o.sizes)
  {
    for (int levels : { 3, 5 })
    {
      for (auto set : { cif::DirectionalFilterSet::LadderPKVA12, cif::DirectionalFilterSet::QMF16 })
      {
        PrintRow(static_cast<int>(n), levels, set, o.repeat, copyGBps, n <= o.itkMax);
      }
    }
  }
  return 0;
}
