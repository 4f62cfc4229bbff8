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
#ifndef cifDeviceResidentSpread_h
#define cifDeviceResidentSpread_h

#include "cifBSplinePrefilterDevice.h"
#include "cifBenchmarkSupport.h"
#include "cifChainedAxisPass.h"
#include "cifCudaRuntime.h"
#include "cifDeviceBuffer.h"
#include "cifDeviceMemoryPool.h"
#include "cifDeviceThreads.h"
#include "cifMirrorPadding.h"
#include "cifResampleDevice.h"
#include "cifResampleSlabs.h"
#include "cifSpreadPrefilter.h"
#include "cifSpreadResample.h"
#include "cifWorkerRendezvous.h"
#include "itkAffineTransform.h"
#include "itkCudaTransformChain.h"
#include "itkImage.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

/** \file cifDeviceResidentSpread.h
 * LargeDataBenchmark's device-resident rows: an N^3 float volume
 * prefiltered and resampled through an affine with the data already on the devices,
 * on one device (the samples there, the coefficients and the output left there) and
 * spread over several (device k holding its planes of the samples, its share of the
 * output left on it): the resampler's spread path (cifSpreadPrefilter.h, then each
 * device its run of the output's slabs against the planes they read: every plane
 * gathered first, the filter's form, or each slab fed its planes while the earlier
 * ones compute, cifSpreadResample.h, the form it tried) without the host's copies, and a third
 * form with no line gathered whole (the slowest axis chained over the devices,
 * cifChainedAxisPass.h, then each share's few other planes copied; one host thread a
 * device through every step). Wall clock after each device's stream has drained,
 * median of a few runs after a warm-up; the spread run's stages (each the slowest
 * device's), the bytes each device received from the others, and the devices' peer
 * rate measured in the same run. The outputs are compared bit for bit. */
namespace cif_bench
{
namespace detail
{
inline double
MillisecondsSince(std::chrono::steady_clock::time_point start)
{
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}
} // namespace detail

/** Prints the rows for \a input (N^3) through \a affine on device 0 and on devices
 * 0 .. \a devices - 1; returns false where the spread output differs from one
 * device's. Nothing is printed (true) where fewer devices are visible. */
inline bool
DeviceResidentSpreadRows(const itk::Image<float, 3> *            input,
                         const itk::AffineTransform<double, 3> * affine,
                         int                                     devices,
                         int                                     repeat)
{
  if (!cif::IsGPUAvailable() || cif::GetDeviceCount() < devices || devices < 2)
  {
    std::printf("\ndevice-resident rows: not run (%d visible GPUs, %d wanted)\n",
                cif::IsGPUAvailable() ? cif::GetDeviceCount() : 0,
                devices);
    return true;
  }
  using Clock = std::chrono::steady_clock;
  constexpr double      kGiB = 1024.0 * 1024.0 * 1024.0;
  const std::int64_t    n = static_cast<std::int64_t>(input->GetLargestPossibleRegion().GetSize()[0]);
  const std::int64_t    count = n * n * n, plane = n * n;
  const std::size_t     bytes = static_cast<std::size_t>(count) * sizeof(float);
  cif::ResampleGeometry g;
  cif::BufferShape      shape;
  shape.dimension = 3;
  for (int a = 0; a < 3; ++a)
  {
    g.outputSize[a] = g.input.size[a] = n;
    shape.size[a] = n;
  }
  g.lineLength = n;
  cif::SplinePoles poles;
  cif::MakeSplinePoles(3, poles);
  const cif::ResampleSlabs   slabs = cif::PlanResampleSlabs(g, 3, cif::kDefaultSlabVoxels);
  itk::CudaTransformChain<3> chain(affine);
  const cif::TransformChain  hostChain = chain.HostChain();

  // One device: samples on it; prefilter, then the resampling of the whole output,
  // from dense coefficients (what each device of the spread reads) and from the
  // mirror-padded layout that the filter's one-device path takes (cifMirrorPadding.h).
  std::vector<float>  one(static_cast<std::size_t>(count)), onePadded(static_cast<std::size_t>(count));
  std::vector<float>  oneCoefficients; // the dense coefficients, which the chained form's planes must equal
  std::vector<double> onePrefilter[2], oneResample[2], oneTotal[2];
  cif::RunOnDeviceThreads({ 0 }, nullptr, [&](std::int64_t) {
    cif::DeviceBuffer samples(bytes), output(bytes);
    samples.Upload(input->GetBufferPointer(), bytes);
    std::vector<cif::DeviceBuffer> chainBuffers;
    const cif::TransformChain deviceChain = itk::CudaTransformChain<3>::UploadToCurrentDevice(hostChain, chainBuffers);
    for (const bool padded : { false, true })
    {
      cif::ResampleGeometry geometry = g;
      geometry.inputMirrorPadded = padded;
      cif::DeviceBuffer coefficients(
        padded ? static_cast<std::size_t>(cif::MirrorPaddedCount<3>(g.input)) * sizeof(float) : bytes);
      for (int r = 0; r <= repeat; ++r)
      {
        cif::Synchronize();
        const auto start = Clock::now();
        if (padded)
        {
          cif::PrefilterIntoLayoutOnDevice<float>(samples.As<const float>(),
                                                  coefficients.As<float>(),
                                                  cif::MirrorPaddedLayout<3>(g.input),
                                                  shape,
                                                  poles,
                                                  cif::BoundaryMode::Mirror);
          cif::FillMirrorHaloOnDevice<3, float>(coefficients.As<float>(), g.input);
        }
        else
        {
          cif::PrefilterOnDevice<float>(
            samples.As<const float>(), coefficients.As<float>(), shape, poles, cif::BoundaryMode::Mirror);
        }
        cif::Synchronize();
        const double prefiltered = detail::MillisecondsSince(start);
        cif::ResampleOnDevice<3, float, float>(
          coefficients.As<const float>(), geometry, deviceChain, nullptr, true, 0.f, output.As<float>(), slabs);
        cif::Synchronize();
        const double total = detail::MillisecondsSince(start);
        if (r > 0) // the first run is the warm-up
        {
          onePrefilter[padded].push_back(prefiltered);
          oneResample[padded].push_back(total - prefiltered);
          oneTotal[padded].push_back(total);
        }
      }
      output.Download(padded ? onePadded.data() : one.data(), bytes);
      if (!padded)
      {
        oneCoefficients.resize(static_cast<std::size_t>(count));
        coefficients.Download(oneCoefficients.data(), bytes);
      }
    }
  });

  // Several devices: device k's planes of the samples on it, its share of the output
  // left there.
  std::vector<int> used;
  for (int k = 0; k < devices; ++k)
  {
    used.push_back(k);
  }
  const cif::SpreadPrefilterPlan plan = cif::PlanSpreadPrefilter(shape, devices, 1);
  if (plan.Devices() != devices || slabs.count < devices)
  {
    std::printf("\ndevice-resident rows: %ld^3 does not spread over %d devices\n", static_cast<long>(n), devices);
    return true;
  }
  const auto                                             size = static_cast<std::size_t>(devices);
  std::vector<cif::SpreadShareSlabs>                     shares(size);
  std::vector<cif::PlaneRange>                           wanted(size);
  std::vector<std::vector<std::vector<cif::PlaneRange>>> pieces(size);
  double receivedBytes = 0; // by the device that receives most, planes and exchange
  for (int k = 0; k < devices; ++k)
  {
    shares[k] = cif::PlanSpreadShare<3>(g, slabs, k, devices, hostChain);
    wanted[k] = shares[k].wanted;
    pieces[k] = shares[k].pieces;
    const double ownRows = static_cast<double>(plan.rows[k + 1] - plan.rows[k]) / n;
    const double ownPlanes = static_cast<double>(plan.planes[k + 1] - plan.planes[k]) / n;
    receivedBytes =
      std::max(receivedBytes,
               static_cast<double>(bytes) * ownRows * (1 - ownPlanes) +
                 static_cast<double>(wanted[k].end - wanted[k].first) * plane * sizeof(float) * (1 - ownRows));
  }
  std::vector<cif::DeviceSpreadExecutor<float>> executors;
  for (int k = 0; k < devices; ++k)
  {
    executors.emplace_back(k, poles, cif::BoundaryMode::Mirror, "a share of a device-resident prefilter");
  }
  std::vector<cif::DeviceBuffer>              read(size), out(size);
  std::vector<float *>                        readPointers(size);
  std::vector<std::vector<cif::DeviceBuffer>> chainBuffers(size);
  std::vector<cif::TransformChain>            deviceChains(size);
  cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
    read[k].Allocate(static_cast<std::size_t>((wanted[k].end - wanted[k].first) * plane) * sizeof(float));
    readPointers[k] = read[k].As<float>();
    out[k].Allocate(static_cast<std::size_t>(shares[k].share.geometry.OutputCount()) * sizeof(float));
    deviceChains[k] = itk::CudaTransformChain<3>::UploadToCurrentDevice(hostChain, chainBuffers[k]);
  });
  // The devices' peer rate: each device reads 256 MiB from the next one, all at once.
  double peerGBps = -1;
  {
    const std::size_t              probe = std::size_t(256) << 20;
    std::vector<cif::DeviceBuffer> from(size), to(size);
    cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
      from[k].Allocate(probe);
      to[k].Allocate(probe);
      cif::Synchronize();
    });
    std::vector<double> runs;
    for (int r = 0; r <= 3; ++r)
    {
      const auto start = Clock::now();
      cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
        const std::size_t j = (static_cast<std::size_t>(k) + 1) % size;
        cif::CopyBetweenDevices(to[k].Data(), static_cast<int>(k), from[j].Data(), static_cast<int>(j), probe);
        cif::Synchronize();
      });
      if (r > 0)
      {
        runs.push_back(detail::MillisecondsSince(start));
      }
    }
    peerGBps = static_cast<double>(probe) / (Median(runs) * 1e-3) / 1e9;
    cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
      from[k].Release();
      to[k].Release();
    });
  }
  std::vector<int> workers(used);
  workers.insert(workers.end(), used.begin(), used.end());
  const auto onDeviceThreads = [&used](const auto & body) { cif::RunOnDeviceThreads(used, nullptr, body); };
  const auto onWorkerThreads = [&workers](const auto & body) { cif::RunOnDeviceThreads(workers, nullptr, body); };
  // Two forms of the spread, in turn: every plane gathered, then the share resampled
  // against them (the filter's form); or each slab fed its planes while the earlier
  // ones compute (cifSpreadResample.h, tried in the filter: commit 18b0d08).
  std::vector<double> leading[2], slowest[2], rest[2], total[2];
  bool                same = true;
  for (const bool fed : { false, true })
  {
    for (int r = 0; r <= repeat; ++r)
    {
      cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
        const std::int64_t planes = plan.planes[k + 1] - plan.planes[k], rows = plan.rows[k + 1] - plan.rows[k];
        executors[k].Reserve(planes * plane, rows * n * n);
        executors[k].UploadPlanes(input->GetBufferPointer() + plan.planes[k] * plane, planes * plane);
        cif::Synchronize();
      });
      std::vector<double> marks;
      const auto          start = Clock::now();
      const auto          mark = [&] { marks.push_back(detail::MillisecondsSince(start)); };
      if (fed)
      {
        cif::RunSpreadPrefilterFeedingEveryDevice<float>(
          nullptr,
          shape,
          plan,
          executors,
          onDeviceThreads,
          onWorkerThreads,
          readPointers,
          wanted,
          pieces,
          [&](std::int64_t k, const auto & waitForSlab) {
            cif::ResampleSpreadShare<3, float, float>(
              shares[k], read[k].As<const float>(), plane, deviceChains[k], 0.f, out[k].As<float>(), waitForSlab);
            cif::Synchronize();
          },
          mark);
      }
      else
      {
        cif::RunSpreadPrefilterOntoEveryDevice<float>(
          nullptr, shape, plan, executors, onDeviceThreads, readPointers, mark, wanted);
        cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
          // The whole share against the planes its slabs read (their union: every
          // support lies in it, and its edges are the input's where supports reach them).
          cif::SlabShare share = shares[k].share;
          share.geometry.input.start[2] = g.input.start[2] + wanted[k].first;
          share.geometry.input.size[2] = wanted[k].end - wanted[k].first;
          cif::ResampleOnDevice<3, float, float>(read[k].As<const float>(),
                                                 share.geometry,
                                                 deviceChains[k],
                                                 nullptr,
                                                 true,
                                                 0.f,
                                                 out[k].As<float>(),
                                                 share.slabs);
          cif::Synchronize();
        });
      }
      const double ended = detail::MillisecondsSince(start);
      if (r > 0 && marks.size() == 3)
      {
        leading[fed].push_back(marks[1]);
        slowest[fed].push_back(marks[2] - marks[1]);
        rest[fed].push_back(ended - marks[2]);
        total[fed].push_back(ended);
      }
    }
    std::vector<float> spread(static_cast<std::size_t>(count));
    cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
      out[k].Download(spread.data() + shares[k].share.firstVoxel,
                      static_cast<std::size_t>(shares[k].share.geometry.OutputCount()) * sizeof(float));
    });
    same = same && std::memcmp(one.data(), spread.data(), bytes) == 0;
  }

  // A third form: no line gathered whole. Device k filters its own planes along the
  // slowest axis too, the recursion's states passed between the devices inside the
  // kernels (cifChainedAxisPass.h); then it copies the few planes its share reads
  // beyond its own from their devices and resamples against them.
  std::vector<double> chained[3], chainedTotal;
  bool chainable = cif::CanChainSlowestAxis(shape, plan.planes, poles, cif::BoundaryMode::Mirror, sizeof(float));
  for (int a = 0; chainable && a < devices; ++a)
  {
    for (int b = 0; b < devices; ++b)
    {
      chainable = chainable && (a == b || cif::detail::LetDeviceReadPool(a, b));
    }
  }
  if (chainable)
  {
    std::vector<cif::PlaneRange>         held(size); // own planes and the share's, in one buffer
    std::vector<cif::DeviceBuffer>       planesHeld(size);
    std::vector<cif::ChainedAxisMailbox> mailboxes(size);
    cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
      held[k] = { std::min(wanted[k].first, plan.planes[k]), std::max(wanted[k].end, plan.planes[k + 1]) };
      planesHeld[k].Allocate(static_cast<std::size_t>((held[k].end - held[k].first) * plane) * sizeof(float));
      mailboxes[k].Allocate(plane, poles.count, sizeof(float));
    });
    const auto own = [&](std::int64_t k) {
      return planesHeld[k].As<float>() + (plan.planes[k] - held[k].first) * plane;
    };
    for (int r = 0; r <= repeat; ++r)
    {
      cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
        cif::CopyHostToDevice(own(k),
                              input->GetBufferPointer() + plan.planes[k] * plane,
                              static_cast<std::size_t>((plan.planes[k + 1] - plan.planes[k]) * plane) * sizeof(float));
        cif::Synchronize();
      });
      // One thread a device through every step: its chained pass starts when its own
      // leading axes end (the kernel waits for the neighbours' folds itself); only
      // the copies of other devices' planes wait for those devices' passes.
      std::vector<double>   leadingEnd(size), slowestEnd(size);
      cif::WorkerRendezvous passesDone(static_cast<int>(size));
      const auto            start = Clock::now();
      cif::RunOnDeviceThreads(used, &passesDone, [&](std::int64_t k) {
        cif::BufferShape ownPlanes = shape;
        ownPlanes.size[2] = plan.planes[k + 1] - plan.planes[k];
        cif::PrefilterLeadingAxesOnDevice<float>(own(k), ownPlanes, 2, poles, cif::BoundaryMode::Mirror);
        cif::Synchronize();
        leadingEnd[k] = detail::MillisecondsSince(start);
        const cif::ChainedAxisPart part = cif::ChainedAxisMailbox::Part(
          mailboxes, static_cast<std::size_t>(k), own(k), plan.planes[k], plan.planes[k + 1]);
        cif::PrefilterChainedAxisOnDevice<float>(
          &part, 1, shape, poles, cif::BoundaryMode::Mirror, static_cast<unsigned int>(r + 1));
        slowestEnd[k] = detail::MillisecondsSince(start);
        if (!passesDone.ArriveAndWait())
        {
          return; // another device failed; its exception is the one reported
        }
        for (int j = 0; j < devices; ++j)
        {
          const std::int64_t first = std::max(held[k].first, plan.planes[j]);
          const std::int64_t end = std::min(held[k].end, plan.planes[j + 1]);
          if (j != k && first < end)
          {
            cif::CopyBetweenDevices(planesHeld[k].As<float>() + (first - held[k].first) * plane,
                                    static_cast<int>(k),
                                    planesHeld[j].As<float>() + (first - held[j].first) * plane,
                                    j,
                                    static_cast<std::size_t>((end - first) * plane) * sizeof(float));
          }
        }
        cif::SlabShare share = shares[k].share;
        share.geometry.input.start[2] = g.input.start[2] + held[k].first;
        share.geometry.input.size[2] = held[k].end - held[k].first;
        cif::ResampleOnDevice<3, float, float>(planesHeld[k].As<const float>(),
                                               share.geometry,
                                               deviceChains[k],
                                               nullptr,
                                               true,
                                               0.f,
                                               out[k].As<float>(),
                                               share.slabs);
        cif::Synchronize();
      });
      const double ended = detail::MillisecondsSince(start);
      // Stages as the slowest device reached them.
      const double leadingMs = *std::max_element(leadingEnd.begin(), leadingEnd.end());
      const double slowestMs = *std::max_element(slowestEnd.begin(), slowestEnd.end()) - leadingMs;
      if (r > 0)
      {
        chained[0].push_back(leadingMs);
        chained[1].push_back(slowestMs);
        chained[2].push_back(ended - leadingMs - slowestMs);
        chainedTotal.push_back(ended);
      }
    }
    std::vector<float> spread(static_cast<std::size_t>(count)), coefficientsHeld(static_cast<std::size_t>(count));
    cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
      out[k].Download(spread.data() + shares[k].share.firstVoxel,
                      static_cast<std::size_t>(shares[k].share.geometry.OutputCount()) * sizeof(float));
      planesHeld[k].Download(coefficientsHeld.data() + held[k].first * plane,
                             static_cast<std::size_t>((held[k].end - held[k].first) * plane) * sizeof(float));
      planesHeld[k].Release();
      mailboxes[k].Release();
    });
    std::int64_t differentCoefficients = 0, differentVoxels = 0, firstDifferent = -1;
    for (std::int64_t i = 0; i < count; ++i)
    {
      differentCoefficients += coefficientsHeld[i] != oneCoefficients[i];
      if (spread[i] != one[i] && firstDifferent < 0)
      {
        firstDifferent = i;
      }
      differentVoxels += spread[i] != one[i];
    }
    std::printf("\nchained form against one device: %ld coefficients and %ld output voxels differ (first voxel %ld, "
                "plane %ld)\n",
                static_cast<long>(differentCoefficients),
                static_cast<long>(differentVoxels),
                static_cast<long>(firstDifferent),
                static_cast<long>(firstDifferent / plane));
    same = same && differentVoxels == 0 && differentCoefficients == 0;
  }

  cif::RunOnDeviceThreads(used, nullptr, [&](std::int64_t k) {
    read[k].Release();
    out[k].Release();
    chainBuffers[k].clear();
  });
  same = same && std::memcmp(one.data(), onePadded.data(), bytes) == 0;

  // Against the faster of the two one-device layouts.
  const double oneMs = std::min(Median(oneTotal[0]), Median(oneTotal[1]));
  std::printf("\ndevice-resident: %ld^3 float prefilter + affine cubic resample, the data on the devices "
              "(median of %d after a warm-up)\n\n",
              static_cast<long>(n),
              repeat);
  std::printf("| devices | prefilter: leading axes / slowest axis with the exchange (ms) | then: planes gathered and "
              "output resampled (ms) | total (ms) | vs 1 device |\n|---|---|---|---|---|\n");
  for (const bool padded : { false, true })
  {
    std::printf("| 1, %s coefficients | %.2f | %.2f (resample) | %.2f | %.2fx |\n",
                padded ? "mirror-padded" : "dense",
                Median(onePrefilter[padded]),
                Median(oneResample[padded]),
                Median(oneTotal[padded]),
                oneMs / Median(oneTotal[padded]));
  }
  for (const bool fed : { false, true })
  {
    const double spreadMs = Median(total[fed]);
    std::printf("| %d, %s | %.2f / %.2f | %.2f | %.2f | %.2fx |\n",
                devices,
                fed ? "each slab fed its planes while the earlier ones compute" : "every plane gathered first",
                Median(leading[fed]),
                Median(slowest[fed]),
                Median(rest[fed]),
                spreadMs,
                spreadMs > 0 ? oneMs / spreadMs : 0.0);
  }
  if (chainable)
  {
    const double chainedMs = Median(chainedTotal);
    std::printf("| %d, chained: each device its own planes along the slowest axis, the recursion's states passed "
                "between devices | %.2f / %.2f | %.2f (its share's other planes copied, then resampled) | %.2f | "
                "%.2fx |\n",
                devices,
                Median(chained[0]),
                Median(chained[1]),
                Median(chained[2]),
                chainedMs,
                chainedMs > 0 ? oneMs / chainedMs : 0.0);
  }
  else
  {
    std::printf("| %d, chained | not run: the planes' cut is not on chunk bounds, or the devices do not reach each "
                "other's memory | | | |\n",
                devices);
  }
  std::printf("\neach device received at most %.2f GiB from the others (its rows of the other devices' planes, then "
              "the planes its share reads: %ld to %ld of %ld on device 0); peer rate, every device reading from the "
              "next at once: %.0f GB/s, so %.2f ms of copies\n",
              receivedBytes / kGiB,
              static_cast<long>(wanted[0].first),
              static_cast<long>(wanted[0].end),
              static_cast<long>(n),
              peerGBps,
              peerGBps > 0 ? receivedBytes / (peerGBps * 1e9) * 1e3 : -1.0);
  std::printf("%d devices, device-resident: %s (vs 1 device: against the faster one-device layout)\n",
              devices,
              same ? "outputs equal the one-device outputs, bit for bit" : "OUTPUT DIFFERS from a one-device output");
  return same;
}
} // namespace cif_bench

#endif
