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
// The prefilter spread over several devices (SetNumberOfDevices, SetDevices;
// cifSpreadPrefilter.h): each device filters its share of the slowest axis's planes
// along the other axes, the devices exchange chunks, each filters its share of the
// next axis's rows along the slowest axis, and the chunks go back. Every test asks
// for the bits of one device:
//  - the plan and the runner in plain C++, with the host standing in for each device
//    (several device counts, passes of one row, a separate source), against the
//    one-piece host prefilter;
//  - the filter's CPU path with NumberOfDevices or Devices asking for several (it
//    runs the devices' plan in turn: what CI tests);
//  - on a GPU, device 0 listed two and three times (threads and streams of their own,
//    the exchange as device-to-device copies), and on two GPUs devices 0 and 1, and
//    NumberOfDevices 0 (every visible device).
#include "cifPrefilterTestSupport.h"
#include "cifSpreadPrefilter.h"
#include "itkVector.h"
#include "itkVectorImage.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <thread>
#include <vector>

namespace
{
using namespace cif_test;

/** One update with the given devices; MinimumVoxelsPerDevice 1 spreads small images. */
template <typename TOut, typename TIn>
typename TOut::Pointer
RunOnDevices(const TIn *              input,
             Path                     path,
             const std::vector<int> & devices,
             unsigned int             numberOfDevices,
             cif::BoundaryMode        mode = cif::BoundaryMode::Mirror)
{
  using Filter = itk::BSplinePrefilterGPUImageFilter<TIn, TOut>;
  auto filter = Filter::New();
  filter->SetInput(input);
  filter->SetBoundaryMode(mode);
  filter->SetUseGPU(path == Path::GPU);
  filter->SetDevices(devices);
  filter->SetNumberOfDevices(numberOfDevices);
  filter->SetMinimumVoxelsPerDevice(1);
  filter->Update();
  EXPECT_EQ(filter->GetLastExecutionPath(),
            path == Path::GPU ? Filter::ExecutionPath::GPU : Filter::ExecutionPath::CPU);
  typename TOut::Pointer output = filter->GetOutput();
  output->DisconnectPipeline();
  return output;
}

template <typename TImage>
std::size_t
ScalarCount(const TImage * image)
{
  return image->GetBufferedRegion().GetNumberOfPixels() * image->GetNumberOfComponentsPerPixel();
}

/** The spread (\a devices, \a numberOfDevices) against one device, bit for bit. */
template <typename TOut, typename TIn>
void
ExpectSpreadGivesOneDevicesBits(const TIn *              input,
                                Path                     path,
                                const std::vector<int> & devices,
                                unsigned int             numberOfDevices,
                                cif::BoundaryMode        mode = cif::BoundaryMode::Mirror)
{
  const auto one = RunOnDevices<TOut>(input, path, {}, 1, mode);
  const auto spread = RunOnDevices<TOut>(input, path, devices, numberOfDevices, mode);
  using Scalar = typename itk::NumericTraits<typename TOut::PixelType>::ValueType;
  const std::size_t count = ScalarCount(one.GetPointer());
  ASSERT_EQ(count, ScalarCount(spread.GetPointer()));
  EXPECT_TRUE(SameBits(reinterpret_cast<const Scalar *>(one->GetBufferPointer()),
                       reinterpret_cast<const Scalar *>(spread->GetBufferPointer()),
                       count))
    << ToString(path) << ", " << devices.size() << " devices listed, NumberOfDevices " << numberOfDevices << ", size "
    << input->GetBufferedRegion().GetSize();
}

/** 2-D, 3-D and 4-D, float and double, an input of another type, and pixels of 3
 * components (Vector and VectorImage), spread as \a devices / \a numberOfDevices ask. */
void
SpreadMatchesOneDevice(Path path, const std::vector<int> & devices, unsigned int numberOfDevices)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  auto f2 = MakeImage<itk::Image<float, 2>>({ { 70, 91 } }, { { 0, 0 } }, Content::Random, seed);
  ExpectSpreadGivesOneDevicesBits<itk::Image<float, 2>>(f2.GetPointer(), path, devices, numberOfDevices);
  auto f3 = MakeImage<itk::Image<float, 3>>({ { 40, 33, 29 } }, { { 2, -1, 0 } }, Content::Random, seed);
  ExpectSpreadGivesOneDevicesBits<itk::Image<float, 3>>(f3.GetPointer(), path, devices, numberOfDevices);
  ExpectSpreadGivesOneDevicesBits<itk::Image<float, 3>>(
    f3.GetPointer(), path, devices, numberOfDevices, cif::BoundaryMode::Periodic);
  ExpectSpreadGivesOneDevicesBits<itk::Image<double, 3>>(f3.GetPointer(), path, devices, numberOfDevices);
  auto u3 = MakeImage<itk::Image<unsigned char, 3>>({ { 31, 17, 23 } }, { { 0, 0, 0 } }, Content::Random, seed, 0, 255);
  ExpectSpreadGivesOneDevicesBits<itk::Image<float, 3>>(u3.GetPointer(), path, devices, numberOfDevices);
  auto d4 = MakeImage<itk::Image<double, 4>>({ { 9, 8, 7, 11 } }, { { 0, 0, 0, 0 } }, Content::Smooth, seed);
  ExpectSpreadGivesOneDevicesBits<itk::Image<double, 4>>(d4.GetPointer(), path, devices, numberOfDevices);
  auto f4 = MakeImage<itk::Image<float, 4>>({ { 12, 10, 5, 9 } }, { { 0, 0, 0, 0 } }, Content::Random, seed);
  ExpectSpreadGivesOneDevicesBits<itk::Image<float, 4>>(f4.GetPointer(), path, devices, numberOfDevices);
  // A slowest axis with fewer planes than devices listed: fewer devices take part.
  auto thin = MakeImage<itk::Image<float, 3>>({ { 30, 20, 2 } }, { { 0, 0, 0 } }, Content::Random, seed);
  ExpectSpreadGivesOneDevicesBits<itk::Image<float, 3>>(thin.GetPointer(), path, devices, numberOfDevices);

  std::mt19937                          rng(seed);
  std::uniform_real_distribution<float> value(-10.f, 10.f);
  using VectorPixelImage = itk::Image<itk::Vector<float, 3>, 3>;
  auto vectors = VectorPixelImage::New();
  vectors->SetRegions(VectorPixelImage::SizeType{ { 21, 19, 17 } });
  vectors->Allocate();
  for (std::size_t i = 0; i < vectors->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    for (unsigned int c = 0; c < 3; ++c)
    {
      vectors->GetBufferPointer()[i][c] = value(rng);
    }
  }
  ExpectSpreadGivesOneDevicesBits<VectorPixelImage>(vectors.GetPointer(), path, devices, numberOfDevices);
  using VariableImage = itk::VectorImage<double, 3>;
  auto variable = VariableImage::New();
  variable->SetRegions(VariableImage::SizeType{ { 13, 11, 9 } });
  variable->SetNumberOfComponentsPerPixel(3);
  variable->Allocate();
  double * v = variable->GetBufferPointer();
  for (std::size_t i = 0; i < 3 * variable->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    v[i] = value(rng);
  }
  ExpectSpreadGivesOneDevicesBits<VariableImage>(variable.GetPointer(), path, devices, numberOfDevices);
}

TEST(BSplinePrefilterDevices, PlanSharesPlanesAndRows)
{
  cif::BufferShape shape;
  shape.dimension = 3;
  shape.size[0] = 128;
  shape.size[1] = 96;
  shape.size[2] = 80;
  const auto plan = cif::PlanSpreadPrefilter(shape, 3, 1);
  ASSERT_EQ(plan.Devices(), 3);
  EXPECT_EQ(plan.planes, (std::vector<std::int64_t>{ 0, 26, 53, 80 }));
  EXPECT_EQ(plan.rows, (std::vector<std::int64_t>{ 0, 32, 64, 96 }));
  EXPECT_EQ(cif::LargestSpreadShareScalars(shape, plan), 27 * 128 * 96 + 32 * 128 * 80);
  // Fewer devices where the image is small, none below two devices' worth.
  EXPECT_EQ(cif::PlanSpreadPrefilter(shape, 8, 128 * 96 * 80 / 4).Devices(), 4);
  EXPECT_EQ(cif::PlanSpreadPrefilter(shape, 8, 128 * 96 * 80 / 2 + 1).Devices(), 0);
  EXPECT_EQ(cif::PlanSpreadPrefilter(shape, 1, 1).Devices(), 0);
  // No more devices than planes or rows; a line is not cut.
  shape.size[2] = 2;
  EXPECT_EQ(cif::PlanSpreadPrefilter(shape, 8, 1).Devices(), 2);
  shape.dimension = 1;
  shape.size[0] = 1 << 20;
  EXPECT_EQ(cif::PlanSpreadPrefilter(shape, 8, 1).Devices(), 0);
}

// The runner with the host standing in for each device, against the one-piece host
// prefilter: device counts 2, 3 and 5, passes of the default size and of one row
// (the block's pass loop), in place and from a separate source.
TEST(BSplinePrefilterDevices, RunnerGivesTheBitsOfOnePiece)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> value(-100.0, 100.0);
  cif::SplinePoles                       poles;
  cif::MakeSplinePoles(3, poles);
  const auto filterLeading =
    [&poles](double * data, const cif::BufferShape & s, int axisEnd, const cif::StageCallback & afterAxis) {
      cif::PrefilterLeadingAxesOnHost(
        data, s, axisEnd, poles, cif::BoundaryMode::Mirror, cif::SequentialFor{}, afterAxis);
    };
  using Executor = cif::HostSpreadExecutor<double, decltype(filterLeading)>;
  for (const auto & size :
       { std::vector<int>{ 23, 17 }, std::vector<int>{ 13, 11, 9 }, std::vector<int>{ 6, 5, 7, 8 } })
  {
    for (const int components : { 1, 2 })
    {
      cif::BufferShape shape;
      shape.dimension = static_cast<int>(size.size());
      shape.components = components;
      for (std::size_t d = 0; d < size.size(); ++d)
      {
        shape.size[d] = size[d];
      }
      const std::size_t   count = static_cast<std::size_t>(shape.ScalarCount());
      std::vector<double> samples(count);
      for (double & x : samples)
      {
        x = value(rng);
      }
      std::vector<double> whole = samples;
      cif::PrefilterOnHost(whole.data(), shape, poles, cif::BoundaryMode::Mirror, cif::SequentialFor{});
      for (const int devices : { 2, 3, 5 })
      {
        for (const bool onePerPass : { false, true })
        {
          SCOPED_TRACE(testing::Message() << shape.dimension << "-D, " << components << " component(s), " << devices
                                          << " devices" << (onePerPass ? ", one row per pass" : ""));
          cif::SpreadPrefilterPlan plan = cif::PlanSpreadPrefilter(shape, devices, 1);
          ASSERT_EQ(plan.Devices(), devices);
          if (onePerPass)
          {
            plan.rowsPerPass = 1;
          }
          const auto inTurn = [&plan](const auto & body) {
            for (std::int64_t k = 0; k < plan.Devices(); ++k)
            {
              body(k);
            }
          };
          int                   stages = 0;
          std::vector<Executor> executors(static_cast<std::size_t>(devices), Executor(filterLeading));
          std::vector<double>   inPlace = samples;
          cif::RunSpreadPrefilter(inPlace.data(), shape, plan, executors, inTurn, [&stages] { ++stages; });
          EXPECT_EQ(stages, shape.dimension);
          EXPECT_TRUE(SameBits(whole.data(), inPlace.data(), count));
          std::vector<double> fromSource(count, std::numeric_limits<double>::quiet_NaN());
          cif::RunSpreadPrefilter(fromSource.data(), shape, plan, executors, inTurn, {}, samples.data());
          EXPECT_TRUE(SameBits(whole.data(), fromSource.data(), count));
          // The resampler's form: the whole result gathered on every device.
          std::vector<std::vector<double>> onEveryDevice(
            static_cast<std::size_t>(devices), std::vector<double>(count, std::numeric_limits<double>::quiet_NaN()));
          std::vector<double *> destinations;
          for (auto & d : onEveryDevice)
          {
            destinations.push_back(d.data());
          }
          stages = 0;
          cif::RunSpreadPrefilterOntoEveryDevice(
            samples.data(), shape, plan, executors, inTurn, destinations, [&stages] { ++stages; });
          EXPECT_EQ(stages, shape.dimension);
          for (int k = 0; k < devices; ++k)
          {
            EXPECT_TRUE(SameBits(whole.data(), onEveryDevice[static_cast<std::size_t>(k)].data(), count))
              << "device " << k;
          }
          // A resampler's devices with a linear transform: each gathers only the planes
          // its share reads (a random run of planes here, one device none), from
          // samples already on the devices (each executor reserved and loaded).
          const std::int64_t           slowest = shape.size[shape.dimension - 1];
          const std::int64_t           plane = static_cast<std::int64_t>(count) / slowest;
          std::vector<cif::PlaneRange> wanted(static_cast<std::size_t>(devices));
          for (int k = 0; k < devices; ++k)
          {
            std::uniform_int_distribution<std::int64_t> pick(0, slowest);
            const std::int64_t                          a = pick(rng), b = pick(rng);
            wanted[static_cast<std::size_t>(k)] =
              k == 1 ? cif::PlaneRange{ a, a } : cif::PlaneRange{ std::min(a, b), std::max(a, b) };
          }
          // Each "device" holding its planes of the samples (as a caller whose data is
          // on the devices already), its destination NaN.
          const auto loadShares = [&] {
            for (int k = 0; k < devices; ++k)
            {
              const auto         index = static_cast<std::size_t>(k);
              const std::int64_t planes = plan.planes[index + 1] - plan.planes[index];
              const std::int64_t rows = plan.rows[index + 1] - plan.rows[index];
              executors[index].Reserve(planes * plane, rows * (plane / shape.size[shape.dimension - 2]) * slowest);
              executors[index].UploadPlanes(samples.data() + plan.planes[index] * plane, planes * plane);
              std::fill(
                onEveryDevice[index].begin(), onEveryDevice[index].end(), std::numeric_limits<double>::quiet_NaN());
            }
          };
          loadShares();
          cif::RunSpreadPrefilterOntoEveryDevice<double>(
            nullptr, shape, plan, executors, inTurn, destinations, {}, wanted);
          for (int k = 0; k < devices; ++k)
          {
            const cif::PlaneRange & w = wanted[static_cast<std::size_t>(k)];
            const std::size_t       gathered = static_cast<std::size_t>((w.end - w.first) * plane);
            EXPECT_TRUE(
              SameBits(whole.data() + w.first * plane, onEveryDevice[static_cast<std::size_t>(k)].data(), gathered))
              << "device " << k << ", planes " << w.first << " to " << w.end;
            if (gathered < count)
            {
              EXPECT_TRUE(std::isnan(onEveryDevice[static_cast<std::size_t>(k)][gathered]))
                << "device " << k << " wrote past its planes";
            }
          }
          // Fed piece by piece (a resampler's slabs): each device's wanted planes in up
          // to three pieces, a middle run first, then the runs below and above it; the
          // consumer checks each piece once waitFor says it is there. In turn (the
          // gatherings first) and on a thread each (the consumers wait).
          std::vector<std::vector<std::vector<cif::PlaneRange>>> pieces(static_cast<std::size_t>(devices));
          for (int k = 0; k < devices; ++k)
          {
            const cif::PlaneRange &                     w = wanted[static_cast<std::size_t>(k)];
            std::uniform_int_distribution<std::int64_t> cut(w.first, w.end);
            std::int64_t                                a = cut(rng), b = cut(rng);
            if (a > b)
            {
              std::swap(a, b);
            }
            auto & p = pieces[static_cast<std::size_t>(k)];
            p.push_back({ { a, b } });
            p.push_back({ { w.first, a } });
            p.push_back({ { b, w.end } });
          }
          for (const bool threads : { false, true })
          {
            SCOPED_TRACE(threads ? "a thread each" : "in turn");
            loadShares();
            const auto forEachWorker = [&](const auto & body) {
              if (!threads)
              {
                inTurn([&](std::int64_t t) { body(t); });
                inTurn([&](std::int64_t t) { body(t + devices); });
                return;
              }
              std::vector<std::thread> running;
              for (std::int64_t t = 2 * devices - 1; t >= 0; --t) // the consumers first: they wait
              {
                running.emplace_back([&body, t] { body(t); });
              }
              for (auto & r : running)
              {
                r.join();
              }
            };
            std::vector<int> consumed(static_cast<std::size_t>(devices), 0);
            cif::RunSpreadPrefilterFeedingEveryDevice<double>(
              nullptr,
              shape,
              plan,
              executors,
              inTurn,
              forEachWorker,
              destinations,
              wanted,
              pieces,
              [&](std::int64_t k, const auto & waitFor) {
                const auto index = static_cast<std::size_t>(k);
                for (std::size_t p = 0; p < pieces[index].size(); ++p)
                {
                  waitFor(p);
                  for (const cif::PlaneRange & run : pieces[index][p])
                  {
                    const std::size_t at = static_cast<std::size_t>((run.first - wanted[index].first) * plane);
                    EXPECT_TRUE(SameBits(whole.data() + run.first * plane,
                                         onEveryDevice[index].data() + at,
                                         static_cast<std::size_t>((run.end - run.first) * plane)))
                      << "device " << k << ", piece " << p;
                  }
                }
                ++consumed[index];
              });
            for (int k = 0; k < devices; ++k)
            {
              EXPECT_EQ(consumed[static_cast<std::size_t>(k)], 1) << "device " << k;
            }
          }
        }
      }
    }
  }
}

TEST(BSplinePrefilterDevices, CPUPathRunsTheDevicesPlan)
{
  SpreadMatchesOneDevice(Path::CPU, {}, 2);
  SpreadMatchesOneDevice(Path::CPU, { 0, 0, 0 }, 1);
  SpreadMatchesOneDevice(Path::CPU, {}, 5);
}

// Under a device memory limit the shares (about 2/n of the coefficients each) must
// fit, else one device (here: its slabs) runs; the bits are the same either way.
TEST(BSplinePrefilterDevices, CPUPathUnderALimit)
{
  auto f3 = MakeImage<itk::Image<float, 3>>({ { 128, 96, 80 } }, { { 0, 0, 0 } }, Content::Random, FreshSeed());
  for (const std::size_t limit : { std::size_t(1) << 20, std::size_t(4) << 20 })
  {
    ScopedDeviceMemoryLimit scoped(limit);
    ExpectSpreadGivesOneDevicesBits<itk::Image<float, 3>>(f3.GetPointer(), Path::CPU, {}, 2);
  }
}

TEST(BSplinePrefilterDevices, PrintSelfShowsTheDevices)
{
  auto filter = itk::BSplinePrefilterGPUImageFilter<itk::Image<float, 3>, itk::Image<float, 3>>::New();
  EXPECT_EQ(filter->GetNumberOfDevices(), 0u);
  EXPECT_TRUE(filter->GetDevices().empty());
  filter->SetDevices({ 0, 1 });
  std::ostringstream os;
  filter->Print(os);
  EXPECT_NE(os.str().find("NumberOfDevices: 0 (every visible device)"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("Devices: 0 1"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("MinimumVoxelsPerDevice: 4194304"), std::string::npos) << os.str();
}

// One GPU: device 0 listed twice and three times (a thread and a stream per entry, the
// exchange as device-to-device copies). Each listed device uploads its share: the
// uploads count the devices that took part.
TEST(BSplinePrefilterDevicesGPU, SameDeviceListedSeveralTimes)
{
  CIF_REQUIRE_GPU();
  SpreadMatchesOneDevice(Path::GPU, { 0, 0 }, 1);
  SpreadMatchesOneDevice(Path::GPU, { 0, 0, 0 }, 1);
  auto f3 = MakeImage<itk::Image<float, 3>>({ { 40, 33, 29 } }, { { 0, 0, 0 } }, Content::Random, FreshSeed());
  cif::TransferCounters::Reset();
  RunOnDevices<itk::Image<float, 3>>(f3.GetPointer(), Path::GPU, { 0, 0, 0 }, 1);
  EXPECT_EQ(cif::TransferCounters::Get().uploads, 3u);
  EXPECT_EQ(cif::TransferCounters::Get().downloads, 3u);
}

TEST(BSplinePrefilterDevicesGPU, TwoDevices)
{
  CIF_REQUIRE_GPU();
  if (cif::GetDeviceCount() < 2)
  {
    GTEST_SKIP() << "needs two CUDA devices, " << cif::GetDeviceCount() << " visible";
  }
  SpreadMatchesOneDevice(Path::GPU, { 0, 1 }, 1);
  SpreadMatchesOneDevice(Path::GPU, { 1, 0 }, 1);
  SpreadMatchesOneDevice(Path::GPU, {}, 0); // every visible device
  // Larger than a tile's lines on the slowest axis (the global-memory kernel).
  auto tall = MakeImage<itk::Image<float, 3>>({ { 8, 6, 20000 } }, { { 0, 0, 0 } }, Content::Random, FreshSeed());
  ExpectSpreadGivesOneDevicesBits<itk::Image<float, 3>>(tall.GetPointer(), Path::GPU, { 0, 1 }, 1);
  // The default (NumberOfDevices 0, 4 Mi voxels per device) spreads a 256^3 volume.
  auto big = MakeImage<itk::Image<float, 3>>({ { 256, 256, 256 } }, { { 0, 0, 0 } }, Content::Random, FreshSeed());
  using Filter = itk::BSplinePrefilterGPUImageFilter<itk::Image<float, 3>, itk::Image<float, 3>>;
  auto one = Filter::New();
  one->SetInput(big);
  one->SetNumberOfDevices(1);
  one->Update();
  auto spread = Filter::New();
  spread->SetInput(big);
  cif::TransferCounters::Reset();
  spread->Update();
  EXPECT_EQ(cif::TransferCounters::Get().uploads, static_cast<std::uint64_t>(std::min(cif::GetDeviceCount(), 4)));
  EXPECT_TRUE(SameBits(one->GetOutput()->GetBufferPointer(),
                       spread->GetOutput()->GetBufferPointer(),
                       big->GetBufferedRegion().GetNumberOfPixels()));
}

TEST(BSplinePrefilterDevicesGPU, MissingDeviceIsAnError)
{
  CIF_REQUIRE_GPU();
  auto f3 = MakeImage<itk::Image<float, 3>>({ { 20, 20, 20 } }, { { 0, 0, 0 } }, Content::Random, 1);
  using Filter = itk::BSplinePrefilterGPUImageFilter<itk::Image<float, 3>, itk::Image<float, 3>>;
  auto filter = Filter::New();
  filter->SetInput(f3);
  filter->SetDevices({ 0, cif::GetDeviceCount() });
  EXPECT_THROW(filter->Update(), itk::ExceptionObject);
  EXPECT_EQ(filter->GetOutput()->GetBufferPointer(), nullptr);
}
} // namespace
