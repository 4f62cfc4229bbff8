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
// Registration benchmark: one GetValueAndDerivative of the module's v4 metrics
// (MeanSquaresImageToImageMetricv4GPU, MattesMutualInformationImageToImageMetricv4GPU
// with 50 bins, CorrelationImageToImageMetricv4GPU) after Initialize(), on N^3 float images of smooth random content,
// dense (every virtual voxel) and on sampled point sets of 2^14 and 2^16 random
// points, for an AffineTransform and a cubic BSplineTransform with a control point
// every ~10 voxels (mesh N/10). Each row: the GPU path, the module's CPU path (all
// host threads) and ITK's own metric (its default threads), each the median wall
// time of --repeat calls after one warm-up (the warm-up builds what the first call
// builds, such as the B-spline gather's point order), against the floor of the
// evaluation on this device, counted first (see the notes the program prints):
//
//   max(bytes the points must read / measured copy bandwidth,
//       FP64 arithmetic per point / nominal FP64 peak)
//   + the parameters up and the derivative down (pinned cudaMemcpy, measured).
//
// ITK's B-spline evaluation costs points x parameters (its Jacobian and derivative
// loops run over every parameter at every point), tens of seconds dense at 128^3:
// for the B-spline rows with more points than --itk-points, ITK runs on a random
// subsample of that many points of the same domain and its time is scaled by
// points / subsample (the "ITK timed on" column says so).
//
//   RegistrationBenchmark [--sizes 128 256] [--repeat 10] [--no-itk] [--no-cpu-path] [--itk-points 16384]
//                         [--fp64-tflops T] [--quick]
//
// Without a GPU (CI) the GPU and floor columns read n/a and the rest runs.
#include "cifITKPoolParking.h"
#include "cifBenchmarkSupport.h"
#include "cifBusFloor.h"
#include "cifCudaRuntime.h"
#include "cifMetricSumsDevice.h"
#include "itkAffineTransform.h"
#include "itkBSplineTransform.h"
#include "itkBSplineTransformInitializer.h"
#include "itkCudaExecutionPath.h"
#include "itkCorrelationImageToImageMetricv4.h"
#include "itkCorrelationImageToImageMetricv4GPU.h"
#include "itkMattesMutualInformationImageToImageMetricv4.h"
#include "itkMattesMutualInformationImageToImageMetricv4GPU.h"
#include "itkMeanSquaresImageToImageMetricv4.h"
#include "itkMeanSquaresImageToImageMetricv4GPU.h"
#include "itkMultiThreaderBase.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace
{
constexpr unsigned int D = 3;
using Image = itk::Image<float, D>;
using MeanSquaresITK = itk::MeanSquaresImageToImageMetricv4<Image, Image>;
using MattesITK = itk::MattesMutualInformationImageToImageMetricv4<Image, Image>;
using MeanSquaresGPU = itk::MeanSquaresImageToImageMetricv4GPU<Image, Image>;
using MattesGPU = itk::MattesMutualInformationImageToImageMetricv4GPU<Image, Image>;
using CorrelationITK = itk::CorrelationImageToImageMetricv4<Image, Image>;
using CorrelationGPU = itk::CorrelationImageToImageMetricv4GPU<Image, Image>;
using PointSet = MeanSquaresITK::FixedSampledPointSetType;
using GradientFilter = MeanSquaresITK::DefaultMovingImageGradientFilter;
using TransformBase = itk::Transform<double, D, D>;
using BSpline = itk::BSplineTransform<double, D, 3>;
using Affine = itk::AffineTransform<double, D>;
using cif_bench::Cell;
using cif_bench::Median;
using cif_bench::WallMilliseconds;

constexpr int kMattesBins = 50;

struct Options
{
  std::vector<long> sizes{ 128, 256 };
  std::vector<long> sampledCounts{ 1L << 14, 1L << 16 };
  int               repeat = 10;
  bool              itk = true;
  bool              cpuPath = true; ///< time the module's CPU path (--no-cpu-path: GPU rows only, quicker)
  long              itkPoints = 1L << 14;
  double            fp64Tflops = -1; ///< <= 0: nominal for the device's architecture
  bool              quick = false;
  bool              digest = false; ///< note each GPU row's value and derivative bits (comparing builds)
  bool              timing = false; ///< note each GPU row's timing report (the host's share of an evaluation)
  bool              coefficientsFirst = false; ///< send a B-spline's coefficients before any kernel (comparing)
  bool              ok = true;
};

Options
Parse(int argc, char * argv[])
{
  Options           o;
  std::vector<long> sizes;
  bool              repeatGiven = false, itkPointsGiven = false;
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc)
    {
      o.repeat = std::max(1, std::atoi(argv[++i]));
      repeatGiven = true;
    }
    else if (a == "--sizes")
    {
      while (i + 1 < argc && argv[i + 1][0] != '-')
      {
        sizes.push_back(std::atol(argv[++i]));
      }
    }
    else if (a == "--no-itk")
    {
      o.itk = false;
    }
    else if (a == "--no-cpu-path")
    {
      o.cpuPath = false;
    }
    else if (a == "--itk-points" && i + 1 < argc)
    {
      o.itkPoints = std::max(1L, std::atol(argv[++i]));
      itkPointsGiven = true;
    }
    else if (a == "--fp64-tflops" && i + 1 < argc)
    {
      o.fp64Tflops = std::atof(argv[++i]);
    }
    else if (a == "--quick")
    {
      o.quick = true;
    }
    else if (a == "--digest")
    {
      o.digest = true;
    }
    else if (a == "--timing")
    {
      o.timing = true;
    }
    else if (a == "--coefficients-first")
    {
      o.coefficientsFirst = true;
    }
    else
    {
      std::fprintf(stderr,
                   "usage: RegistrationBenchmark [--sizes N...] [--repeat R] [--no-itk] [--no-cpu-path] "
                   "[--itk-points P] [--fp64-tflops T] [--quick] [--digest] [--timing] [--coefficients-first]\n"
                   "  --no-cpu-path: leave out the module's CPU path (its column reads n/a), for quicker\n"
                   "            comparisons of the GPU rows\n"
                   "  --quick: a 32^3 size, 2^10 and 2^12 sampled points, 3 repeats, ITK B-spline on 2^10 points "
                   "(the CI smoke run)\n"
                   "  --digest: note a digest of each GPU row's value and derivative bits, to show that a\n"
                   "            change of the kernels kept every bit\n"
                   "  --timing: note each GPU row's timing report (evaluations, the transform's binding and\n"
                   "            upload, the wait for the device), where the host's share of a call goes\n"
                   "  --coefficients-first: send a B-spline's coefficients before the dense pass's kernel\n"
                   "            instead of while it runs (cifControlPlaneArrival.h), to compare the two\n");
      o.ok = false;
    }
  }
  if (o.quick)
  {
    o.sizes = { 32 };
    o.sampledCounts = { 1L << 10, 1L << 12 };
    o.repeat = repeatGiven ? o.repeat : 3;
    o.itkPoints = itkPointsGiven ? o.itkPoints : 1L << 10;
  }
  if (!sizes.empty())
  {
    o.sizes = sizes;
  }
  for (long n : o.sizes)
  {
    if (n < 8)
    {
      std::fprintf(stderr, "RegistrationBenchmark: sizes must be at least 8 (got %ld)\n", n);
      o.ok = false;
    }
  }
  return o;
}

/** A smooth random volume: 50 plus a sum of 6 separable products of random
 * low-frequency cosines (0.5 to 3 periods across the volume) and a gentle ramp. */
Image::Pointer
SmoothRandomVolume(long n, unsigned int seed)
{
  auto image = Image::New();
  image->SetRegions(itk::Size<D>{
    { static_cast<itk::SizeValueType>(n), static_cast<itk::SizeValueType>(n), static_cast<itk::SizeValueType>(n) } });
  image->Allocate();
  constexpr int                          K = 6;
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> frequency(0.5, 3.0), phase(0.0, 6.283185307179586), amplitude(5.0, 15.0);
  std::vector<double>                    table(static_cast<std::size_t>(K * D * n));
  std::vector<double>                    weight(K);
  for (int k = 0; k < K; ++k)
  {
    weight[k] = amplitude(rng);
    for (unsigned int a = 0; a < D; ++a)
    {
      const double f = frequency(rng) * 6.283185307179586 / static_cast<double>(n), p = phase(rng);
      for (long i = 0; i < n; ++i)
      {
        table[(k * D + a) * n + i] = std::cos(f * static_cast<double>(i) + p);
      }
    }
  }
  float * out = image->GetBufferPointer();
  itk::MultiThreaderBase::New()->ParallelizeArray(
    0,
    static_cast<itk::SizeValueType>(n),
    [&](itk::SizeValueType z) {
      for (long y = 0; y < n; ++y)
      {
        for (long x = 0; x < n; ++x)
        {
          double v = 50.0 + 10.0 * static_cast<double>(x + 2 * y + 3 * z) / static_cast<double>(6 * n);
          for (int k = 0; k < K; ++k)
          {
            v += weight[k] * table[(k * D + 0) * n + x] * table[(k * D + 1) * n + y] * table[(k * D + 2) * n + z];
          }
          out[(static_cast<std::size_t>(z) * n + y) * n + x] = static_cast<float>(v);
        }
      }
    },
    nullptr);
  return image;
}

/** A turn of 0.05 rad about z and 0.03 rad about x, a 2% enlargement and a shift of
 * about a voxel, about the volume's centre. */
Affine::Pointer
MakeAffine(const Image * image)
{
  auto                   affine = Affine::New();
  Affine::InputPointType centre;
  const long             n = static_cast<long>(image->GetLargestPossibleRegion().GetSize()[0]);
  centre.Fill(0.5 * (n - 1));
  affine->SetCenter(centre);
  affine->Rotate(0, 1, 0.05);
  affine->Rotate(1, 2, 0.03);
  affine->Scale(1.02);
  Affine::OutputVectorType shift;
  shift[0] = 1.3;
  shift[1] = -0.7;
  shift[2] = 0.4;
  affine->Translate(shift);
  return affine;
}

/** A cubic B-spline over the image with \a mesh cells per axis and random
 * coefficients of about a voxel. */
BSpline::Pointer
MakeBSpline(const Image * image, unsigned int mesh, unsigned int seed)
{
  auto bspline = BSpline::New();
  auto initializer = itk::BSplineTransformInitializer<BSpline, Image>::New();
  initializer->SetTransform(bspline);
  initializer->SetImage(image);
  BSpline::MeshSizeType meshSize;
  meshSize.Fill(mesh);
  initializer->SetTransformDomainMeshSize(meshSize);
  initializer->InitializeTransform();
  std::mt19937                     rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  BSpline::ParametersType          parameters(bspline->GetNumberOfParameters());
  for (auto & p : parameters)
  {
    p = normal(rng);
  }
  bspline->SetParametersByValue(parameters);
  return bspline;
}

/** \a count random physical points of the image's domain: anywhere inside
 * (continuous indices in [0, n-1]), or at voxel centres when \a onGrid (a random
 * subsample of the dense domain). */
PointSet::Pointer
RandomPoints(const Image * image, long count, bool onGrid, unsigned int seed)
{
  auto                                   points = PointSet::New();
  const long                             n = static_cast<long>(image->GetLargestPossibleRegion().GetSize()[0]);
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> u(0.0, static_cast<double>(n - 1));
  std::uniform_int_distribution<long>    v(0, n - 1);
  for (long i = 0; i < count; ++i)
  {
    itk::ContinuousIndex<double, D> index;
    for (unsigned int a = 0; a < D; ++a)
    {
      index[a] = onGrid ? static_cast<double>(v(rng)) : u(rng);
    }
    PointSet::PointType p;
    image->TransformContinuousIndexToPhysicalPoint(index, p);
    points->SetPoint(static_cast<PointSet::PointIdentifier>(i), p);
  }
  return points;
}

enum class MetricKind
{
  MeanSquares,
  Mattes,
  Correlation
};

/** One metric's evaluations: median wall time, the last result, and which path ran. */
struct Timed
{
  double                 ms = -1;
  double                 value = 0;
  itk::Array<double>     derivative;
  itk::SizeValueType     validPoints = 0;
  itk::CudaExecutionPath path = itk::CudaExecutionPath::None;
  std::string            reason;
  std::string            error;
  std::string            timing; ///< the module's GetTimingReport() after the runs
};

template <typename TMetric>
void
Configure(TMetric *        metric,
          const Image *    fixed,
          const Image *    moving,
          TransformBase *  transform,
          PointSet *       points,
          GradientFilter * gradient)
{
  metric->SetFixedImage(fixed);
  metric->SetMovingImage(moving);
  metric->SetMovingTransform(transform);
  // The moving gradient from one GradientRecursiveGaussianImageFilter configured as
  // ITK's default one (sigma the largest spacing, normalized across scale, image
  // direction on), updated once per size: the same gradient image as each metric's
  // own default filter, without recomputing it at every Initialize().
  metric->SetMovingImageGradientFilter(gradient);
  if (points != nullptr)
  {
    metric->SetFixedSampledPointSet(points);
    metric->SetUseSampledPointSet(true);
  }
  if constexpr (std::is_base_of<MattesITK, TMetric>::value)
  {
    metric->SetNumberOfHistogramBins(kMattesBins);
  }
  metric->Initialize();
}

/** Median of \a repeat GetValueAndDerivative calls after one warm-up. */
template <typename TMetric>
Timed
TimeMetric(TMetric * metric, int repeat)
{
  Timed                            t;
  typename TMetric::MeasureType    value{};
  typename TMetric::DerivativeType derivative;
  try
  {
    metric->GetValueAndDerivative(value, derivative); // warm-up
    std::vector<double> times;
    for (int r = 0; r < repeat; ++r)
    {
      times.push_back(WallMilliseconds([&] { metric->GetValueAndDerivative(value, derivative); }));
    }
    t.ms = Median(times);
    t.value = value;
    t.derivative = derivative;
    t.validPoints = metric->GetNumberOfValidPoints();
  }
  catch (const std::exception & e)
  {
    t.error = e.what();
  }
  return t;
}

template <typename TModule>
Timed
TimeModule(bool             useGPU,
           const Image *    fixed,
           const Image *    moving,
           TransformBase *  transform,
           PointSet *       points,
           GradientFilter * gradient,
           int              repeat)
{
  auto metric = TModule::New();
  metric->SetUseGPU(useGPU);
  Timed t;
  try
  {
    Configure(metric.GetPointer(), fixed, moving, transform, points, gradient);
  }
  catch (const std::exception & e)
  {
    t.error = e.what();
    return t;
  }
  t = TimeMetric(metric.GetPointer(), repeat);
  t.path = metric->GetLastExecutionPath();
  t.reason = metric->GetLastExecutionReason();
  t.timing = metric->GetTimingReport();
  return t;
}

template <typename TITK>
Timed
TimeITK(const Image *    fixed,
        const Image *    moving,
        TransformBase *  transform,
        PointSet *       points,
        GradientFilter * gradient,
        int              repeat)
{
  auto  metric = TITK::New();
  Timed t;
  try
  {
    Configure(metric.GetPointer(), fixed, moving, transform, points, gradient);
  }
  catch (const std::exception & e)
  {
    t.error = e.what();
    return t;
  }
  t = TimeMetric(metric.GetPointer(), repeat);
  t.path = itk::CudaExecutionPath::ITK;
  return t;
}

/** What one GetValueAndDerivative must do at least, per point (see the notes printed
 * at the end): bytes read and FP64 operations (an FMA counts 2), split into what
 * every point of the domain costs (its fixed value, its coordinates when sampled,
 * mapping it into the moving image) and what only points that land inside the
 * moving image cost (moving value and gradient, the metric's term, the derivative). */
struct PointCost
{
  double bytesEvery = 0, bytesValid = 0;
  double flopsEvery = 0, flopsValid = 0;
  int    passes = 1;
};

constexpr double kFixedBytes = 4;               // the fixed value (float; dense: the voxel itself)
constexpr double kMovingBytes = 4;              // the moving value (linear: 8 neighbours, mostly cached)
constexpr double kGradientBytes = 12;           // the moving gradient image, 3 floats
constexpr double kPointBytes = 24;              // a sampled point's coordinates as the module keeps them (3 doubles)
constexpr double kAffineMapFlops = 18;          // virtual index or point -> moving continuous index: 3x3 FMA
constexpr double kBSplineMapFlops = 540;        // -> grid index (18), 12 cubic weights (36), 80 tensor products,
                                                // 64 x 3 FMA of the coefficients (384), -> moving index (18)
constexpr double kLinearValueFlops = 32;        // 8 corner weights (16), 8 FMA
constexpr double kLinearValueGradFlops = 80;    // 8 corner weights (16), 8 x 4 FMA (value + gradient)
constexpr double kMeanSquaresTermFlops = 8;     // difference, square added, force 2 d grad
constexpr double kMattesBinFlops = 25;          // fixed and moving bins, 4 cubic Parzen weights
constexpr double kMattesDerivativeFlops = 30;   // bins, 4 Parzen derivative weights x ratio table, force
constexpr double kCorrelationMeansFlops = 2;    // the fixed and moving values added
constexpr double kCorrelationCentredFlops = 8;  // 2 centred values, fm, f2, m2 added
constexpr double kCorrelationForceFlops = 10;   // 2 centred values, the coefficient, force 3
constexpr double kAffineDerivativeFlops = 24;   // q - centre, force sum, 9 FMA of the moments
constexpr double kBSplineDerivativeFlops = 384; // 64 support weights (reused) x 3 FMA

PointCost
CountPointCost(bool sampled, bool bspline, MetricKind kind)
{
  PointCost    c;
  const double map = bspline ? kBSplineMapFlops : kAffineMapFlops;
  const double derivative = bspline ? kBSplineDerivativeFlops : kAffineDerivativeFlops;
  const double every = kFixedBytes + (sampled ? kPointBytes : 0);
  if (kind == MetricKind::MeanSquares)
  {
    c.bytesEvery = every;
    c.bytesValid = kMovingBytes + kGradientBytes;
    c.flopsEvery = map;
    c.flopsValid = kLinearValueGradFlops + kMeanSquaresTermFlops + derivative;
  }
  else if (kind == MetricKind::Correlation)
  {
    // Three passes: the means, the centred sums (fixed and moving values), then the
    // forces (their coefficients need the sums of both value passes).
    c.passes = 3;
    c.bytesEvery = 3 * every;
    c.bytesValid = 2 * kMovingBytes + (kMovingBytes + kGradientBytes);
    c.flopsEvery = 3 * map;
    c.flopsValid = 2 * kLinearValueFlops + kCorrelationMeansFlops + kCorrelationCentredFlops +
                   (kLinearValueGradFlops + kCorrelationForceFlops + derivative);
  }
  else
  {
    // Two passes: the joint histogram (fixed and moving values), then the forces
    // (the histogram must be complete before any point's force is known).
    c.passes = 2;
    c.bytesEvery = 2 * every;
    c.bytesValid = kMovingBytes + (kMovingBytes + kGradientBytes);
    c.flopsEvery = 2 * map;
    c.flopsValid =
      (kLinearValueFlops + kMattesBinFlops) + (kLinearValueGradFlops + kMattesDerivativeFlops + derivative);
  }
  return c;
}

/** What the device offers the floor: measured copy bandwidth, FP64 peak (nominal),
 * and the measured pinned copies of the parameter vector by its size. */
struct Device
{
  bool                                       gpu = false;
  double                                     copyGBps = -1;
  double                                     fp64Tflops = -1;
  std::string                                fp64Source;
  int                                        repeat = 10;
  std::map<std::size_t, cif_bench::BusTimes> bus;

  /** Pinned up + down of \a bytes (ms), measured once per size; -1 without a device. */
  double
  RoundTripMs(std::size_t bytes)
  {
    if (!gpu)
    {
      return -1;
    }
    auto it = bus.find(bytes);
    if (it == bus.end())
    {
      it = bus.emplace(bytes, cif_bench::MeasureBus(bytes, repeat)).first;
    }
    const cif_bench::BusTimes & b = it->second;
    return b.pinnedUpMs > 0 && b.pinnedDownMs > 0 ? b.pinnedUpMs + b.pinnedDownMs : -1;
  }
};

/** The nominal FP64 (non-tensor) peak of the current device from its SM count: FP64
 * FMA lanes per SM by architecture (9.0: 64; 6.0, 7.0, 8.0: 32) at an assumed clock
 * (9.0: 1.98 GHz, the H100/H200 SXM boost clock; 8.0: 1.41 GHz; 6.0, 7.0: 1.5 GHz).
 * An overestimate (a lower clock, a PCIe card) only lowers the floor. -1 for other
 * architectures (their FP64 rate is a small fraction; pass --fp64-tflops). */
double
NominalFp64Tflops(const cif::DeviceInfo & info, std::string & source)
{
  const int cc = info.computeMajor * 10 + info.computeMinor;
  int       lanes = 0;
  double    ghz = 0;
  switch (cc)
  {
    case 90:
      lanes = 64;
      ghz = 1.98;
      break;
    case 80:
      lanes = 32;
      ghz = 1.41;
      break;
    case 60:
    case 70:
      lanes = 32;
      ghz = 1.5;
      break;
    default:
      source = "unknown for compute capability " + std::to_string(info.computeMajor) + "." +
               std::to_string(info.computeMinor) + " (pass --fp64-tflops)";
      return -1;
  }
  char text[160];
  std::snprintf(
    text, sizeof(text), "nominal: %d SMs x %d FP64 FMA/clock x 2 x %.2f GHz", info.multiprocessorCount, lanes, ghz);
  source = text;
  return info.multiprocessorCount * lanes * 2.0 * ghz * 1e9 / 1e12;
}

struct Floor
{
  double memMs = -1, fp64Ms = -1, busMs = -1, totalMs = -1;
  double bytesPerPoint = 0, flopsPerPoint = 0; ///< per point of the domain, at this row's valid fraction
};

Floor
ComputeFloor(const PointCost & c, double points, double validPoints, std::size_t parameters, Device & device)
{
  Floor f;
  f.bytesPerPoint = (c.bytesEvery * points + c.bytesValid * validPoints) / points;
  f.flopsPerPoint = (c.flopsEvery * points + c.flopsValid * validPoints) / points;
  if (device.copyGBps > 0)
  {
    f.memMs = f.bytesPerPoint * points / (device.copyGBps * 1e9) * 1e3;
  }
  if (device.fp64Tflops > 0)
  {
    f.fp64Ms = f.flopsPerPoint * points / (device.fp64Tflops * 1e12) * 1e3;
  }
  f.busMs = device.RoundTripMs(parameters * sizeof(double));
  if (f.memMs >= 0 && f.busMs >= 0)
  {
    f.totalMs = std::max(f.memMs, f.fp64Ms) + f.busMs;
  }
  return f;
}

/** "12.3x", or "1234x" from 100 on: how many times \a slower takes \a faster's time. */
std::string
Times(double slower, double faster)
{
  if (!(slower > 0 && faster > 0))
  {
    return "n/a";
  }
  const double r = slower / faster;
  return Cell(r, r >= 100 ? "%.0fx" : "%.1fx");
}

std::string
Micro(double ms)
{
  return ms >= 0 ? Cell(ms * 1e3, "%.0f") : "n/a";
}

double
RelativeDifference(const Timed & a, const Timed & b, double & derivativeDifference)
{
  double d2 = 0, n2 = 0;
  if (a.derivative.size() == b.derivative.size())
  {
    for (unsigned int k = 0; k < a.derivative.size(); ++k)
    {
      d2 += (a.derivative[k] - b.derivative[k]) * (a.derivative[k] - b.derivative[k]);
      n2 += b.derivative[k] * b.derivative[k];
    }
    derivativeDifference = n2 > 0 ? std::sqrt(d2 / n2) : (d2 > 0 ? 1.0 : 0.0);
  }
  else
  {
    derivativeDifference = -1;
  }
  return b.value != 0 ? std::abs(a.value - b.value) / std::abs(b.value) : std::abs(a.value - b.value);
}

std::string
PathNote(const Timed & t, itk::CudaExecutionPath expected, const char * column)
{
  if (!t.error.empty())
  {
    return std::string(column) + " failed: " + t.error;
  }
  if (t.ms >= 0 && t.path != expected)
  {
    return std::string(column) + " ran " + itk::ToString(t.path) + (t.reason.empty() ? "" : " (" + t.reason + ")");
  }
  return "";
}

/** FNV-1a over the bits of \a t's value and derivative: equal digests of two builds
 * mean the same bits (for changes that must not change the arithmetic). */
std::string
Digest(const Timed & t)
{
  std::uint64_t hash = 1469598103934665603ULL;
  const auto    add = [&hash](double x) {
    std::uint64_t bits;
    std::memcpy(&bits, &x, sizeof(bits));
    for (int b = 0; b < 8; ++b)
    {
      hash = (hash ^ ((bits >> (8 * b)) & 0xffU)) * 1099511628211ULL;
    }
  };
  add(t.value);
  for (unsigned int i = 0; i < t.derivative.GetSize(); ++i)
  {
    add(t.derivative[i]);
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

/** One row: the case on the GPU path, the CPU path and ITK, and its floor. */
template <typename TModule, typename TITK>
void
RunRow(MetricKind                 kind,
       const char *               metricName,
       const Image *              fixed,
       const Image *              moving,
       TransformBase *            transform,
       bool                       bspline,
       const std::string &        transformName,
       PointSet *                 points,
       double                     pointCount,
       const std::string &        pointsName,
       PointSet *                 itkSubsample,
       GradientFilter *           gradient,
       const Options &            o,
       Device &                   device,
       std::vector<std::string> & notes)
{
  const Timed gpu =
    device.gpu ? TimeModule<TModule>(true, fixed, moving, transform, points, gradient, o.repeat) : Timed{};
  const Timed cpu =
    o.cpuPath ? TimeModule<TModule>(false, fixed, moving, transform, points, gradient, o.repeat) : Timed{};

  // ITK: on the same points, or for the B-spline beyond --itk-points on a subsample
  // (scaled by points / subsample: its cost is linear in the points).
  Timed       itkRun;
  double      itkMs = -1;
  std::string itkOn = o.itk ? "" : "not run (--no-itk)";
  bool        itkSamePoints = false;
  if (o.itk)
  {
    const bool subsample = bspline && pointCount > static_cast<double>(o.itkPoints);
    PointSet * itkPoints = subsample ? itkSubsample : points;
    itkRun = TimeITK<TITK>(fixed, moving, transform, itkPoints, gradient, std::max(1, std::min(o.repeat, 3)));
    if (itkRun.ms >= 0)
    {
      const double sampleCount = static_cast<double>(itkSubsample->GetNumberOfPoints());
      itkMs = subsample ? itkRun.ms * pointCount / sampleCount : itkRun.ms;
      char text[96];
      if (subsample && itkMs >= 1e4)
      {
        std::snprintf(
          text, sizeof(text), "%.0f pts, x%.0f (%.0f s)", sampleCount, pointCount / sampleCount, itkMs * 1e-3);
      }
      else if (subsample)
      {
        std::snprintf(text, sizeof(text), "%.0f pts, x%.0f", sampleCount, pointCount / sampleCount);
      }
      else
      {
        std::snprintf(text, sizeof(text), "same points");
      }
      itkOn = text;
      itkSamePoints = !subsample;
    }
    else
    {
      itkOn = "failed";
    }
  }

  // The floor at the valid fraction of the module's (or ITK's) evaluation.
  const Timed & reference = gpu.ms >= 0 ? gpu : cpu.ms >= 0 ? cpu : itkRun;
  const double  valid = reference.ms >= 0 ? static_cast<double>(reference.validPoints) : pointCount;
  const Floor   floor = ComputeFloor(CountPointCost(points != nullptr, bspline, kind),
                                   pointCount,
                                   std::min(valid, pointCount),
                                   transform->GetNumberOfParameters(),
                                   device);

  // Agreement with ITK where it ran on the same points: |value difference| / |value|
  // and |derivative difference| / |derivative| (L2), for the GPU path, else the CPU path.
  std::string   check = "n/a";
  const Timed & module = gpu.ms >= 0 ? gpu : cpu;
  if (itkSamePoints && module.ms >= 0 && itkRun.ms >= 0)
  {
    double       dd = 0;
    const double dv = RelativeDifference(module, itkRun, dd);
    char         text[64];
    std::snprintf(text, sizeof(text), "%.0e, %.0e", dv, dd);
    check = text;
  }
  else if (o.itk && itkRun.ms >= 0)
  {
    check = "other points";
  }

  std::printf("| %s | %s | %s | %s | %s | %s | %s | %.0f B, %.0f flop | %s | %s / %s / %s | %s | %s | %s | %s |\n",
              pointsName.c_str(),
              transformName.c_str(),
              metricName,
              Cell(gpu.ms).c_str(),
              Cell(cpu.ms).c_str(),
              Cell(itkMs, itkMs >= 100 ? "%.0f" : "%.3f").c_str(),
              itkOn.c_str(),
              floor.bytesPerPoint,
              floor.flopsPerPoint,
              Cell(floor.totalMs).c_str(),
              Micro(floor.memMs).c_str(),
              Micro(floor.fp64Ms).c_str(),
              Micro(floor.busMs).c_str(),
              Times(gpu.ms, floor.totalMs).c_str(),
              Times(itkMs, gpu.ms).c_str(),
              Times(itkMs, cpu.ms).c_str(),
              check.c_str());
  std::fflush(stdout);
  const std::string where = pointsName + ", " + transformName + ", " + metricName + ": ";
  if (o.digest && gpu.ms >= 0)
  {
    notes.push_back(where + "GPU digest " + Digest(gpu));
  }
  if (o.timing && gpu.ms >= 0)
  {
    notes.push_back(where + "GPU timing: " + gpu.timing);
  }
  for (const std::string & note : { device.gpu ? PathNote(gpu, itk::CudaExecutionPath::GPU, "GPU") : std::string(),
                                    PathNote(cpu, itk::CudaExecutionPath::CPU, "CPU path"),
                                    itkRun.error.empty() ? std::string() : "ITK failed: " + itkRun.error })
  {
    if (!note.empty())
    {
      notes.push_back(where + note);
    }
  }
}

} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  const Options                  o = Parse(argc, argv);
  if (!o.ok)
  {
    return 2;
  }
  if (o.coefficientsFirst)
  {
    cif::ControlPlaneUpload::SetBehaviourForTesting(false, 0);
  }
  const unsigned int cores = std::max(1u, std::thread::hardware_concurrency());
  Device             device;
  device.gpu = cif::IsGPUAvailable();
  device.repeat = o.repeat;
  std::printf("RegistrationBenchmark, %s; ", cif_bench::Today().c_str());
  if (device.gpu)
  {
    const cif::DeviceInfo info = cif::GetDeviceInfo();
    device.copyGBps = cif_bench::MeasureCopyBandwidth(o.repeat);
    device.fp64Tflops = o.fp64Tflops > 0 ? o.fp64Tflops : NominalFp64Tflops(info, device.fp64Source);
    if (o.fp64Tflops > 0)
    {
      device.fp64Source = "--fp64-tflops";
    }
    std::printf("device: %s (compute %d.%d, %d SMs); copy bandwidth %.0f GB/s (measured, read + written); "
                "FP64 peak %s TFLOP/s (%s)",
                info.name.c_str(),
                info.computeMajor,
                info.computeMinor,
                info.multiprocessorCount,
                device.copyGBps,
                Cell(device.fp64Tflops, "%.1f").c_str(),
                device.fp64Source.c_str());
    if (o.coefficientsFirst)
    {
      std::printf("; B-spline coefficients sent before the dense passes' kernels");
    }
  }
  else
  {
    std::printf("no usable CUDA device (%s): GPU and floor columns n/a", cif::GetNoDeviceReason().c_str());
  }
  std::printf("; host cores %u, ITK threads %u; median of %d (ITK: of %d) after a warm-up\n\n",
              cores,
              itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads(),
              o.repeat,
              std::max(1, std::min(o.repeat, 3)));

  std::vector<std::string> notes;
  for (long n : o.sizes)
  {
    const double dense = static_cast<double>(n) * n * n;
    auto         fixed = SmoothRandomVolume(n, 1000u + static_cast<unsigned>(n));
    auto         moving = SmoothRandomVolume(n, 2000u + static_cast<unsigned>(n));
    // ITK's default moving-gradient filter, once per size (Configure()).
    auto gradient = GradientFilter::New();
    gradient->SetSigma(1.0); // the largest spacing
    gradient->SetNormalizeAcrossScale(true);
    gradient->SetUseImageDirection(true);
    gradient->SetInput(moving);
    gradient->Update();

    const unsigned int mesh = static_cast<unsigned int>(std::max(1L, n / 10));
    auto               affine = MakeAffine(fixed);
    auto               bspline = MakeBSpline(fixed, mesh, 3000u + static_cast<unsigned>(n));
    const std::string  bsplineName =
      "B-spline, mesh " + std::to_string(mesh) + "^3 (" + std::to_string(bspline->GetNumberOfParameters()) + " par.)";

    struct PointCase
    {
      std::string       name;
      double            count;
      PointSet::Pointer points; // null: dense
    };
    std::vector<PointCase> pointCases;
    pointCases.push_back({ "dense " + std::to_string(static_cast<long long>(dense)), dense, nullptr });
    for (long count : o.sampledCounts)
    {
      const int log2 = static_cast<int>(std::lround(std::log2(static_cast<double>(count))));
      pointCases.push_back({ "sampled 2^" + std::to_string(log2),
                             static_cast<double>(count),
                             RandomPoints(fixed, count, false, 4000u + static_cast<unsigned>(count + n)) });
    }
    // ITK's subsample for the B-spline rows beyond --itk-points: voxel centres, as the
    // dense domain's points (used for the sampled rows too: their points are as random).
    auto itkSubsample = RandomPoints(fixed, o.itkPoints, true, 5000u + static_cast<unsigned>(n));

    std::printf("### %ld^3 float, smooth random fixed and moving; Mattes %d bins; B-spline mesh %u^3 (%lu "
                "parameters)\n\n",
                n,
                kMattesBins,
                mesh,
                static_cast<unsigned long>(bspline->GetNumberOfParameters()));
    std::printf("| points | transform | metric | GPU (ms) | CPU path (ms) | ITK (ms) | ITK timed on | per point | "
                "floor (ms) | floor: mem / fp64 / bus (us) | GPU / floor | ITK / GPU | ITK / CPU path | vs ITK: "
                "value, derivative |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const PointCase & pc : pointCases)
    {
      for (int t = 0; t < 2; ++t)
      {
        TransformBase *   transform = t == 0 ? static_cast<TransformBase *>(affine.GetPointer()) : bspline.GetPointer();
        const std::string transformName = t == 0 ? "affine (12 par.)" : bsplineName;
        RunRow<MeanSquaresGPU, MeanSquaresITK>(MetricKind::MeanSquares,
                                               "MeanSquares",
                                               fixed,
                                               moving,
                                               transform,
                                               t == 1,
                                               transformName,
                                               pc.points,
                                               pc.count,
                                               pc.name,
                                               itkSubsample,
                                               gradient,
                                               o,
                                               device,
                                               notes);
        RunRow<MattesGPU, MattesITK>(MetricKind::Mattes,
                                     "Mattes",
                                     fixed,
                                     moving,
                                     transform,
                                     t == 1,
                                     transformName,
                                     pc.points,
                                     pc.count,
                                     pc.name,
                                     itkSubsample,
                                     gradient,
                                     o,
                                     device,
                                     notes);
        RunRow<CorrelationGPU, CorrelationITK>(MetricKind::Correlation,
                                               "Correlation",
                                               fixed,
                                               moving,
                                               transform,
                                               t == 1,
                                               transformName,
                                               pc.points,
                                               pc.count,
                                               pc.name,
                                               itkSubsample,
                                               gradient,
                                               o,
                                               device,
                                               notes);
      }
    }
    std::printf("\n");
  }

  std::printf(
    "Times: one GetValueAndDerivative after Initialize() (wall clock: the GPU path's parameter upload, kernels and "
    "downloads included), median after one warm-up. CPU path: the module's own code, SetUseGPU(false), on all host "
    "threads. ITK: itk::MeanSquares/MattesMutualInformation/CorrelationImageToImageMetricv4 with its default "
    "threads; for "
    "B-spline rows with more than %ld points it runs on a random subsample of %ld voxel-centre points and its time is "
    "scaled by points / subsample (its cost is points x parameters). Moving interpolator linear (ITK's default), "
    "moving gradient from ITK's default GradientRecursiveGaussianImageFilter.\n\n",
    o.itkPoints,
    o.itkPoints);
  std::printf(
    "Floor = max(mem, fp64) + bus. mem: bytes per point / the measured device-to-device copy bandwidth; per point of "
    "the domain the fixed value (4 B) and, sampled, the point's 3 double coordinates (24 B); per point landing "
    "inside the moving image the moving value (4 B: linear, 8 neighbours mostly cached) and the moving gradient "
    "image (12 B); Mattes reads twice (histogram pass: fixed + moving; force pass: everything), Correlation three "
    "times (means and centred sums: fixed + moving; force pass: everything). fp64: FP64 "
    "operations per point (FMA = 2) at the FP64 peak: mapping into the moving image (affine 18; B-spline 540: 12 "
    "cubic weights, 80 tensor products, 64 x 3 coefficient FMA), linear value + gradient 80 (value only 32), "
    "MeanSquares term 8, Mattes bins + Parzen weights 25 and its force 30, Correlation sums 2 + 8 and its force 10, "
    "derivative: affine moments 24, B-spline "
    "adjoint 64 x 3 FMA = 384 (no gather of per-cell partials counted); Mattes maps every point twice, Correlation "
    "three times. bus: the "
    "parameters up and the derivative down (8 B each, pinned cudaMemcpy measured in this run). The 'per point' "
    "column averages over the domain at the row's valid fraction.\n");
  if (!notes.empty())
  {
    std::printf("\nNotes:\n");
    for (const std::string & note : notes)
    {
      std::printf("- %s\n", note.c_str());
    }
  }
  return 0;
}
