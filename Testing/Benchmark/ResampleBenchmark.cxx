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
// Resampling benchmark: prints a markdown table of exact cubic resampling of N^3
// float volumes through an affine transform with rotation (from coefficients on the
// device, and prefilter + resample end to end on the device), the dense B-spline
// deformation field of a 256^3 grid from a 10^3 mesh, and 10^7 random point
// evaluations with gradients. Each is timed with CUDA events (median of --repeat
// after a warm-up) against the floor (8 bytes per output voxel, or per point 8 in +
// 8 out, at the measured copy bandwidth), ITK on all cores, and CuPy
// (affine_transform order 3, from coefficients and with its prefilter). Two rows
// show what bounds the exact kernel: the same resampling under a sub-voxel
// translation (perfectly coalesced reads) and the load floor of 64 coalesced loads
// per voxel without arithmetic (cifGatherFloorKernel.h); turns by 30 to 90 degrees
// (reorientations) show that no turn is a slow case, and a pure rotation by the
// benchmark's 6 degrees (no scale: its output grid is not coarser, so the kernel takes
// it sheared, not in row buckets, cifRowBuckets.h) what the scale of 1.01 changes.
//
// The filter row times CubicResampleGPUImageFilter::Update() itself on a new input
// each time (CudaDeviceImage in and out, input already on the device): what an ITK pipeline
// pays on top of the device calls (allocations, transform set-up, synchronisation).
//
//   ResampleBenchmark [--sizes 256 512] [--repeat 10] [--cupy Testing/Benchmark/cupy_peer.py] [--itk-max 256]
#include "cifITKPoolParking.h"
#include "cifBSplinePrefilterDevice.h"
#include "cifBenchmarkSupport.h"
#include "cifDeviceBuffer.h"
#include "cifGatherFloorKernel.h"
#include "cifPointEvaluationDevice.h"
#include "cifResampleDevice.h"
#include "itkAffineTransform.h"
#include "itkCubicResampleGPUImageFilter.h"
#include "itkCudaDeviceImage.h"
#include "itkBSplineInterpolateImageFunction.h"
#include "itkBSplineTransform.h"
#include "itkCudaGeometry.h"
#include "itkCudaTransformChain.h"
#include "itkMultiThreaderBase.h"
#include "itkResampleImageFilter.h"
#include "itkTransformToDisplacementFieldFilter.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <numeric>
#include <cstdio>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace
{
using Image = itk::Image<float, 3>;
using cif_bench::Cell;
using cif_bench::DeviceMilliseconds;
using cif_bench::WallMilliseconds;

Image::Pointer
RandomVolume(long n)
{
  auto image = Image::New();
  image->SetRegions(itk::Size<3>{
    { static_cast<itk::SizeValueType>(n), static_cast<itk::SizeValueType>(n), static_cast<itk::SizeValueType>(n) } });
  image->Allocate();
  std::mt19937                          rng(777u + static_cast<unsigned>(n));
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  for (std::size_t i = 0, c = image->GetBufferedRegion().GetNumberOfPixels(); i < c; ++i)
  {
    image->GetBufferPointer()[i] = unit(rng);
  }
  return image;
}

/** A rotation of about 6 degrees around the volume's centre, a slight scale and a shift. */
itk::AffineTransform<double, 3>::Pointer
RotationAffine(long n)
{
  auto                                            affine = itk::AffineTransform<double, 3>::New();
  itk::AffineTransform<double, 3>::InputPointType centre;
  centre.Fill(0.5 * (n - 1));
  affine->SetCenter(centre);
  affine->Rotate(0, 1, 0.1);
  affine->Rotate(1, 2, 0.02);
  affine->Scale(1.01);
  itk::AffineTransform<double, 3>::OutputVectorType shift;
  shift[0] = 1.3;
  shift[1] = -2.1;
  shift[2] = 0.7;
  affine->Translate(shift);
  return affine;
}

/** A turn by \a angle in the plane of axes \a p and \a q around the volume's centre:
 * past 45 degrees the input's rows run along output axis 1 or 2 (a reorientation). */
itk::AffineTransform<double, 3>::Pointer
TurnAffine(long n, unsigned int p, unsigned int q, double angle)
{
  auto                                            affine = itk::AffineTransform<double, 3>::New();
  itk::AffineTransform<double, 3>::InputPointType centre;
  centre.Fill(0.5 * (n - 1));
  affine->SetCenter(centre);
  affine->Rotate(p, q, angle);
  return affine;
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  const cif_bench::Options       options = cif_bench::ParseOptions(argc, argv, "ResampleBenchmark", 256L);
  if (!options.ok)
  {
    return 2;
  }
  const std::vector<long> & sizes = options.sizes;
  const int                 repeat = options.repeat;
  const long                itkMax = options.itkMax;
  const std::string &       cupyScript = options.cupyScript;
  if (!cif::IsGPUAvailable())
  {
    std::cerr << "ResampleBenchmark needs a CUDA device: " << cif::GetNoDeviceReason() << "\n";
    return 1;
  }
  const cif::DeviceInfo info = cif::GetDeviceInfo();
  const double          copyGBps = cif_bench::MeasureCopyBandwidth(repeat);
  const auto            cupy = cif_bench::RunCuPy(cupyScript, sizes, repeat);
  std::printf("Device: %s; copy bandwidth %.0f GB/s; host threads %u\n\n",
              info.name.c_str(),
              copyGBps,
              itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads());
  std::printf("| case | GPU (ms) | floor (ms) | of floor | CuPy (ms) | vs CuPy | ITK CPU (ms) | vs ITK |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");

  cif::SplinePoles poles;
  cif::MakeSplinePoles(3, poles);
  for (long n : sizes)
  {
    auto                       input = RandomVolume(n);
    const std::int64_t         count = n * n * n;
    auto                       affine = RotationAffine(n);
    itk::CudaTransformChain<3> chain(affine.GetPointer());
    cif::ResampleGeometry      g;
    for (int a = 0; a < 3; ++a)
    {
      g.outputSize[a] = g.input.size[a] = n;
    }
    g.lineLength = n;
    cif::DeviceBuffer samples(count * 4), coefficients(count * 4), output(count * 4);
    samples.Upload(input->GetBufferPointer(), count * 4);
    cif::CopyDeviceToDevice(coefficients.Data(), samples.Data(), count * 4);
    cif::BufferShape shape;
    shape.dimension = 3;
    shape.size[0] = shape.size[1] = shape.size[2] = n;
    cif::PrefilterOnDevice<float>(coefficients.As<float>(), shape, poles, cif::BoundaryMode::Mirror);

    const double exactMs = DeviceMilliseconds(repeat, [&] {
      cif::ResampleOnDevice<3, float, float>(
        coefficients.As<const float>(), g, chain.DeviceChain(), nullptr, true, 0.f, output.As<float>());
    });
    // What the access pattern costs: the same exact resampling under a sub-voxel
    // translation (a warp's supports consecutive along x, the best case), and the load
    // floor of any one-voxel-per-thread exact kernel (64 coalesced loads per voxel,
    // no arithmetic).
    auto                                              translation = itk::AffineTransform<double, 3>::New();
    itk::AffineTransform<double, 3>::OutputVectorType subVoxel;
    subVoxel[0] = 0.37;
    subVoxel[1] = 0.41;
    subVoxel[2] = 0.23;
    translation->Translate(subVoxel);
    itk::CudaTransformChain<3> translationChain(translation.GetPointer());
    const double               translationMs = DeviceMilliseconds(repeat, [&] {
      cif::ResampleOnDevice<3, float, float>(
        coefficients.As<const float>(), g, translationChain.DeviceChain(), nullptr, true, 0.f, output.As<float>());
    });
    // The resampler's own layout: the coefficients with a mirrored halo
    // (cifMirrorPadding.h), written by the prefilter and FillMirrorHaloOnDevice; every
    // voxel then takes the interior sum. The same bits as from dense coefficients.
    cif::ResampleGeometry padded = g;
    padded.inputMirrorPadded = true;
    cif::DeviceBuffer paddedCoefficients(cif::MirrorPaddedCount<3>(g.input) * 4), paddedOutput(count * 4);
    const auto        prefilterPadded = [&] {
      cif::PrefilterIntoLayoutOnDevice<float>(samples.As<const float>(),
                                              paddedCoefficients.As<float>(),
                                              cif::MirrorPaddedLayout<3>(g.input),
                                              shape,
                                              poles,
                                              cif::BoundaryMode::Mirror);
      cif::FillMirrorHaloOnDevice<3, float>(paddedCoefficients.As<float>(), g.input);
    };
    prefilterPadded();
    const double paddedMs = DeviceMilliseconds(repeat, [&] {
      cif::ResampleOnDevice<3, float, float>(paddedCoefficients.As<const float>(),
                                             padded,
                                             chain.DeviceChain(),
                                             nullptr,
                                             true,
                                             0.f,
                                             paddedOutput.As<float>());
    });
    const double paddedTranslationMs = DeviceMilliseconds(repeat, [&] {
      cif::ResampleOnDevice<3, float, float>(paddedCoefficients.As<const float>(),
                                             padded,
                                             translationChain.DeviceChain(),
                                             nullptr,
                                             true,
                                             0.f,
                                             paddedOutput.As<float>());
    });
    // Turns past 45 degrees and one in the x-z plane: the kernel lays its lanes along
    // the output axis that runs along the input's rows (cifRowShear.h). The rotation's
    // 0.1 rad without the rest: sheared, not in buckets (cifRowBuckets.h).
    struct Turn
    {
      const char * name;
      unsigned int p, q;
      double       angle;
      double       ms;
    };
    Turn turns[] = { { "90 degrees in x-y", 0, 1, 1.5707963267948966, 0 },
                     { "60 degrees in x-y", 0, 1, 1.0471975511965976, 0 },
                     { "90 degrees in x-z", 0, 2, 1.5707963267948966, 0 },
                     { "30 degrees in x-z", 0, 2, 0.5235987755982988, 0 },
                     { "0.1 rad in x-y (a pure rotation)", 0, 1, 0.1, 0 } };
    for (Turn & turn : turns)
    {
      auto                       turned = TurnAffine(n, turn.p, turn.q, turn.angle);
      itk::CudaTransformChain<3> turnedChain(turned.GetPointer());
      turn.ms = DeviceMilliseconds(repeat, [&] {
        cif::ResampleOnDevice<3, float, float>(paddedCoefficients.As<const float>(),
                                               padded,
                                               turnedChain.DeviceChain(),
                                               nullptr,
                                               true,
                                               0.f,
                                               paddedOutput.As<float>());
      });
    }
    const double paddedEndToEndMs = DeviceMilliseconds(repeat, [&] {
      prefilterPadded();
      cif::ResampleOnDevice<3, float, float>(paddedCoefficients.As<const float>(),
                                             padded,
                                             chain.DeviceChain(),
                                             nullptr,
                                             true,
                                             0.f,
                                             paddedOutput.As<float>());
    });
    // Same bits from either layout (the rotation, both computed last above and below).
    cif::ResampleOnDevice<3, float, float>(
      coefficients.As<const float>(), g, chain.DeviceChain(), nullptr, true, 0.f, output.As<float>());
    std::vector<float> dense(count), fromPadded(count);
    output.Download(dense.data(), count * 4);
    paddedOutput.Download(fromPadded.data(), count * 4);
    const std::int64_t differing = std::inner_product(
      dense.begin(), dense.end(), fromPadded.begin(), std::int64_t(0), std::plus<>(), [](float a, float b) {
        return std::memcmp(&a, &b, sizeof(float)) != 0 ? 1 : 0;
      });
    double loadFloorMs = -1;
#ifdef CIF_BENCHMARK_GATHER_FLOOR
    if (n >= 4) // a 4^3 block per voxel must fit
    {
      loadFloorMs = DeviceMilliseconds(
        repeat, [&] { cif_bench::LaunchCoalescedGatherFloor(coefficients.As<const float>(), n, output.As<float>()); });
    }
#endif
    const double endToEndMs = DeviceMilliseconds(repeat, [&] {
      cif::PrefilterOnDevice<float>(
        samples.As<const float>(), coefficients.As<float>(), shape, poles, cif::BoundaryMode::Mirror);
      cif::ResampleOnDevice<3, float, float>(
        coefficients.As<const float>(), g, chain.DeviceChain(), nullptr, true, 0.f, output.As<float>());
    });
    const double floorMs = 8.0 * count / (copyGBps * 1e9) * 1e3;

    // The same work through the ITK filter: samples in a CudaDeviceImage already on the
    // device, the output left there.
    using DeviceImage = itk::CudaDeviceImage<float, 3>;
    auto onDevice = DeviceImage::New();
    onDevice->SetRegions(input->GetBufferedRegion());
    onDevice->Allocate();
    std::copy(input->GetBufferPointer(), input->GetBufferPointer() + count, onDevice->GetBufferPointer());
    onDevice->GetDeviceBufferForReading();
    // Only the device copy current (as a GPU filter's output leaves it): Modified()
    // below then marks a new input without making the host copy current, which would
    // upload the volume again at every repeat.
    onDevice->GetDeviceBufferForWriting(true);
    auto filter = itk::CubicResampleGPUImageFilter<DeviceImage, DeviceImage>::New();
    auto filterInterpolator = itk::BSplineInterpolateImageFunction<DeviceImage, double, double>::New();
    filter->SetInput(onDevice);
    filter->SetInterpolator(filterInterpolator);
    filter->SetTransform(affine);
    filter->SetOutputParametersFromImage(input);
    const double filterMs = DeviceMilliseconds(repeat, [&] {
      onDevice->Modified(); // a new input each time, as a pipeline over a series sees it
      filter->Update();
    });
    filter = nullptr; // its output's device buffer goes before the next size

    double itkMs = -1;
    if (n <= itkMax)
    {
      auto resample = itk::ResampleImageFilter<Image, Image>::New();
      auto interpolator = itk::BSplineInterpolateImageFunction<Image, double, double>::New();
      resample->SetInput(input);
      resample->SetInterpolator(interpolator);
      resample->SetTransform(affine);
      resample->SetOutputParametersFromImage(input);
      itkMs = WallMilliseconds([&] { resample->Update(); });
    }
    const std::string suffix = std::to_string(n) + "^3_ms";
    const double      fromCoefficients = cupy.count("affine_order3_from_coeffs_" + suffix)
                                           ? std::atof(cupy.at("affine_order3_from_coeffs_" + suffix).c_str())
                                           : -1;
    const double      withPrefilter = cupy.count("affine_order3_with_prefilter_" + suffix)
                                        ? std::atof(cupy.at("affine_order3_with_prefilter_" + suffix).c_str())
                                        : -1;
    std::printf("| %ld^3 affine, exact, from coefficients | %.3f | %.3f | %.0f%% | %s | %s | %s | %s |\n",
                n,
                exactMs,
                floorMs,
                floorMs / exactMs * 100,
                Cell(fromCoefficients, "%.3f").c_str(),
                Cell(fromCoefficients > 0 ? fromCoefficients / exactMs : -1, "%.1fx").c_str(),
                Cell(itkMs, "%.0f").c_str(),
                "");
    std::printf("| %ld^3 sub-voxel translation, exact, from coefficients | %.3f | %.3f | %.0f%% | %s | %s | | |\n",
                n,
                translationMs,
                floorMs,
                floorMs / translationMs * 100,
                Cell(fromCoefficients, "%.3f").c_str(),
                Cell(fromCoefficients > 0 ? fromCoefficients / translationMs : -1, "%.1fx").c_str());
    std::printf(
      "| %ld^3 affine, exact, from mirror-padded coefficients (%lld voxels differ) | %.3f | %.3f | %.0f%% | %s | "
      "%s | | |\n",
      n,
      static_cast<long long>(differing),
      paddedMs,
      floorMs,
      floorMs / paddedMs * 100,
      Cell(fromCoefficients, "%.3f").c_str(),
      Cell(fromCoefficients > 0 ? fromCoefficients / paddedMs : -1, "%.1fx").c_str());
    std::printf(
      "| %ld^3 sub-voxel translation, exact, from mirror-padded coefficients | %.3f | %.3f | %.0f%% | %s | %s "
      "| | |\n",
      n,
      paddedTranslationMs,
      floorMs,
      floorMs / paddedTranslationMs * 100,
      Cell(fromCoefficients, "%.3f").c_str(),
      Cell(fromCoefficients > 0 ? fromCoefficients / paddedTranslationMs : -1, "%.1fx").c_str());
    for (const Turn & turn : turns)
    {
      std::printf("| %ld^3 turn by %s, exact, from mirror-padded coefficients | %.3f | %.3f | %.0f%% | | | | |\n",
                  n,
                  turn.name,
                  turn.ms,
                  floorMs,
                  floorMs / turn.ms * 100);
    }
    std::printf(
      "| %ld^3 load floor: 64 coalesced float loads per voxel, no arithmetic | %s | %.3f | %s | %s | %s | | |\n",
      n,
      Cell(loadFloorMs, "%.3f").c_str(),
      floorMs,
      Cell(loadFloorMs > 0 ? floorMs / loadFloorMs * 100 : -1, "%.0f%%").c_str(),
      Cell(fromCoefficients, "%.3f").c_str(),
      Cell(fromCoefficients > 0 && loadFloorMs > 0 ? fromCoefficients / loadFloorMs : -1, "%.1fx").c_str());
    std::printf("| %ld^3 prefilter + affine, on device | %.3f | %.3f | %.0f%% | %s | %s | %s | %s |\n",
                n,
                endToEndMs,
                floorMs * 4,
                floorMs * 4 / endToEndMs * 100,
                Cell(withPrefilter, "%.3f").c_str(),
                Cell(withPrefilter > 0 ? withPrefilter / endToEndMs : -1, "%.1fx").c_str(),
                Cell(itkMs, "%.0f").c_str(),
                Cell(itkMs > 0 ? itkMs / endToEndMs : -1, "%.0fx").c_str());
    std::printf(
      "| %ld^3 prefilter into the mirror-padded layout + affine, on device | %.3f | %.3f | %.0f%% | %s | %s | "
      "%s | %s |\n",
      n,
      paddedEndToEndMs,
      floorMs * 4,
      floorMs * 4 / paddedEndToEndMs * 100,
      Cell(withPrefilter, "%.3f").c_str(),
      Cell(withPrefilter > 0 ? withPrefilter / paddedEndToEndMs : -1, "%.1fx").c_str(),
      Cell(itkMs, "%.0f").c_str(),
      Cell(itkMs > 0 ? itkMs / paddedEndToEndMs : -1, "%.0fx").c_str());
    std::printf(
      "| %ld^3 prefilter + affine, CubicResampleGPUImageFilter (CudaDeviceImage in and out) | %.3f | %.3f | %.0f%% | "
      "%s | %s | %s | %s |\n",
      n,
      filterMs,
      floorMs * 4,
      floorMs * 4 / filterMs * 100,
      Cell(withPrefilter, "%.3f").c_str(),
      Cell(withPrefilter > 0 ? withPrefilter / filterMs : -1, "%.1fx").c_str(),
      Cell(itkMs, "%.0f").c_str(),
      Cell(itkMs > 0 ? itkMs / filterMs : -1, "%.0fx").c_str());
    std::fflush(stdout);
  }

  // B-spline deformation field: 256^3 output grid, 10^3 mesh.
  {
    const long n = 256;
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
      p = u(rng);
    bspline->SetParametersByValue(parameters);
    itk::CudaTransformChain<3> chain(bspline.GetPointer());
    cif::ResampleGeometry      g;
    for (int a = 0; a < 3; ++a)
      g.outputSize[a] = n;
    const std::int64_t count = n * n * n;
    cif::DeviceBuffer  field(count * 3 * sizeof(float));
    const double       gpuMs = DeviceMilliseconds(
      repeat, [&] { cif::DisplacementFieldOnDevice<3, float>(g, chain.DeviceChain(), field.As<float>()); });
    const double floorMs = 12.0 * count / (copyGBps * 1e9) * 1e3;
    using Field = itk::Image<itk::Vector<float, 3>, 3>;
    auto itkField = itk::TransformToDisplacementFieldFilter<Field, double>::New();
    itkField->SetTransform(bspline);
    Field::SizeType size;
    size.Fill(n);
    itkField->SetSize(size);
    const double itkMs = WallMilliseconds([&] { itkField->Update(); });
    std::printf(
      "| 256^3 B-spline field (10^3 mesh), float vectors | %.3f | %.3f | %.0f%% | n/a | n/a | %.0f | %.0fx |\n",
      gpuMs,
      floorMs,
      floorMs / gpuMs * 100,
      itkMs,
      itkMs / gpuMs);
    std::fflush(stdout);

    // The warp of elastic registration: the image resampled through the same
    // transform, without a field (prefilter + warp on the device vs ITK's
    // ResampleImageFilter with its B-spline interpolator).
    auto              input = RandomVolume(n);
    cif::DeviceBuffer samples(count * 4), coefficients(count * 4), warped(count * 4);
    samples.Upload(input->GetBufferPointer(), count * 4);
    cif::BufferShape shape;
    shape.dimension = 3;
    shape.size[0] = shape.size[1] = shape.size[2] = n;
    g.input.size[0] = g.input.size[1] = g.input.size[2] = n;
    cif::SplinePoles poles;
    cif::MakeSplinePoles(3, poles);
    const double warpMs = DeviceMilliseconds(repeat, [&] {
      cif::PrefilterOnDevice<float>(
        samples.As<const float>(), coefficients.As<float>(), shape, poles, cif::BoundaryMode::Mirror);
      cif::ResampleOnDevice<3, float, float>(
        coefficients.As<const float>(), g, chain.DeviceChain(), nullptr, false, 0.f, warped.As<float>());
    });
    auto         resample = itk::ResampleImageFilter<Image, Image>::New();
    auto         interpolator = itk::BSplineInterpolateImageFunction<Image, double, double>::New();
    resample->SetInput(input);
    resample->SetInterpolator(interpolator);
    resample->SetTransform(bspline);
    resample->SetOutputParametersFromImage(input);
    const double itkWarpMs = WallMilliseconds([&] { resample->Update(); });
    const double warpFloorMs = 32.0 * count / (copyGBps * 1e9) * 1e3; // as prefilter + resample
    std::printf("| 256^3 prefilter + warp through the B-spline (10^3 mesh) | %.3f | %.3f | %.0f%% | n/a | n/a | %.0f | "
                "%.0fx |\n",
                warpMs,
                warpFloorMs,
                warpFloorMs / warpMs * 100,
                itkWarpMs,
                itkWarpMs / warpMs);
    // The warp alone, and with the moving image stored turned by 90 degrees in x-y
    // (its direction a quarter turn: registration across acquisitions of different
    // orientation), where its rows run along the output's axis 1.
    cif::ResampleGeometry turned = g;
    turned.inputPointToIndex[0][0] = 0;
    turned.inputPointToIndex[0][1] = 1;
    turned.inputPointToIndex[1][0] = -1;
    turned.inputPointToIndex[1][1] = 0;
    turned.inputOrigin[0] = n - 1.0;
    const auto warpOnly = [&](const cif::ResampleGeometry & geometry, const cif::TransformChain & through) {
      return DeviceMilliseconds(repeat, [&] {
        cif::ResampleOnDevice<3, float, float>(
          coefficients.As<const float>(), geometry, through, nullptr, false, 0.f, warped.As<float>());
      });
    };
    std::printf("| 256^3 warp through the B-spline, from coefficients | %.3f | | | | | | |\n",
                warpOnly(g, chain.DeviceChain()));
    std::printf("| 256^3 the same, moving image stored turned by 90 degrees | %.3f | | | | | | |\n",
                warpOnly(turned, chain.DeviceChain()));
  }

  // 10^7 random physical points with gradients from a 256^3 float coefficient volume
  // (CubicBSplinePointEvaluatorGPU::EvaluateOnDevice's kernel; ITK's
  // EvaluateValueAndDerivative on a sample of the same points, scaled).
  {
    const long         n = 256;
    const std::int64_t points = 10000000;
    auto               input = RandomVolume(n);
    Image::SpacingType spacing;
    spacing[0] = 0.9;
    spacing[1] = 1.1;
    spacing[2] = 1.7;
    input->SetSpacing(spacing);
    cif::DeviceBuffer coefficients(n * n * n * 4), x(points * 24), values(points * 8), gradients(points * 24);
    coefficients.Upload(input->GetBufferPointer(), n * n * n * 4);
    std::vector<Image::PointType>          hostPoints(points);
    std::mt19937                           rng(9);
    std::uniform_real_distribution<double> u(0, n - 1);
    for (auto & p : hostPoints)
    {
      itk::ContinuousIndex<double, 3> c;
      for (int a = 0; a < 3; ++a)
        c[a] = u(rng);
      input->TransformContinuousIndexToPhysicalPoint(c, p);
    }
    x.Upload(hostPoints.data(), points * 24);
    cif::CoefficientGrid grid;
    grid.size[0] = grid.size[1] = grid.size[2] = n;
    const cif::ImageFrame frame = itk::MakeImageFrame<3>(input.GetPointer());
    const double          gpuMs = DeviceMilliseconds(repeat, [&] {
      cif::EvaluatePhysicalPointsOnDevice<3, float>(coefficients.As<const float>(),
                                                    grid,
                                                    frame,
                                                    x.As<const double>(),
                                                    points,
                                                    values.As<double>(),
                                                    gradients.As<double>());
    });
    // The same points sorted on the device first (PointOrder::ImageOrder, the
    // evaluator's SortPoints), and handed over already in image order (sorted here
    // once, untimed): what scattered points cost, and what the sort recovers.
    const double sortedMs = DeviceMilliseconds(repeat, [&] {
      cif::EvaluatePhysicalPointsOnDevice<3, float>(coefficients.As<const float>(),
                                                    grid,
                                                    frame,
                                                    x.As<const double>(),
                                                    points,
                                                    values.As<double>(),
                                                    gradients.As<double>(),
                                                    cif::PointOrder::ImageOrder);
    });
    double       inOrderMs = 0;
    {
      std::vector<std::pair<long, std::int64_t>> cells(points); // (cell, point)
      for (std::int64_t i = 0; i < points; ++i)
      {
        const auto c = input->TransformPhysicalPointToContinuousIndex<double>(hostPoints[i]);
        cells[i] = { (static_cast<long>(c[2]) * n + static_cast<long>(c[1])) * n + static_cast<long>(c[0]), i };
      }
      std::sort(cells.begin(), cells.end());
      std::vector<Image::PointType> ordered(points);
      for (std::int64_t i = 0; i < points; ++i)
      {
        ordered[i] = hostPoints[cells[i].second];
      }
      cif::DeviceBuffer orderedPoints(points * 24);
      orderedPoints.Upload(ordered.data(), points * 24);
      inOrderMs = DeviceMilliseconds(repeat, [&] {
        cif::EvaluatePhysicalPointsOnDevice<3, float>(coefficients.As<const float>(),
                                                      grid,
                                                      frame,
                                                      orderedPoints.As<const double>(),
                                                      points,
                                                      values.As<double>(),
                                                      gradients.As<double>());
      });
    }
    const double floorMs = (24.0 + 8.0 + 24.0) * points / (copyGBps * 1e9) * 1e3;
    auto         interpolator = itk::BSplineInterpolateImageFunction<Image, double, double>::New();
    interpolator->SetInputImage(input);
    const std::int64_t sample = 200000;
    const double       itkMs = WallMilliseconds([&] {
                           itk::MultiThreaderBase::New()->ParallelizeArray(
                             0,
                             sample,
                             [&](itk::SizeValueType i) {
                               double                                                                           value;
                               itk::BSplineInterpolateImageFunction<Image, double, double>::CovariantVectorType d;
                               interpolator->EvaluateValueAndDerivative(hostPoints[i], value, d);
                             },
                             nullptr);
                         }) *
                         (double(points) / sample);
    std::printf(
      "| 10^7 physical points, value + gradient (from float coefficients) | %.3f | %.3f | %.0f%% | n/a | n/a | "
      "%.0f (scaled from 2*10^5) | %.0fx |\n",
      gpuMs,
      floorMs,
      floorMs / gpuMs * 100,
      itkMs,
      itkMs / gpuMs);
    std::printf("| the same points sorted on the device first (SortPoints) | %.3f | %.3f | %.0f%% | n/a | n/a | %.0f | "
                "%.0fx |\n",
                sortedMs,
                floorMs,
                floorMs / sortedMs * 100,
                itkMs,
                itkMs / sortedMs);
    std::printf("| the same points handed over in image order | %.3f | %.3f | %.0f%% | n/a | n/a | %.0f | %.0fx |\n",
                inOrderMs,
                floorMs,
                floorMs / inOrderMs * 100,
                itkMs,
                itkMs / inOrderMs);
  }
  std::printf("\nfloor: resample 8 B per output voxel (end to end: x4 with the prefilter's 3 passes); field 12 B per "
              "voxel; points 56 B each. ITK's ResampleImageFilter and TransformToDisplacementFieldFilter use all "
              "host threads; the ITK resample includes its own (single-threaded) prefilter.\n");
  return 0;
}
