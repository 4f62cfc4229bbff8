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
// Pipelines in several host threads at once: 8 threads each run prefilter -> cubic
// resample -> displacement field (a B-spline transform whose coefficients are the
// resampled values) on inputs of their own, and every output must equal, bit for
// bit, what the same pipeline gives when the pipelines run one after the other. On
// the CPU path (CI) this checks the module's CPU code and its use of ITK's threader
// from concurrent pipelines; on the GPU it checks the per-thread streams, the memory
// pool, the staging rings (forced into several chunks and fewer rings than threads)
// and every shared state of the filters. On the device, run this binary under
// compute-sanitizer --tool racecheck too (Modules/Core/README.md).
#include "cifResampleTestSupport.h"
#include "itkBSplinePrefilterGPUImageFilter.h"
#include "itkCudaDeviceImage.h"
#include "itkTransformToDisplacementFieldGPUFilter.h"

#include <cstring>
#include <thread>
#include <vector>

namespace
{
using namespace cif_test;
using namespace cif_resample_test;

using Samples = itk::Image<float, 3>;
using Field = itk::Image<itk::Vector<float, 3>, 3>;
constexpr int kThreads = 8;
constexpr int kRounds = 3; // each thread runs its pipeline this often, every round checked

/** What one pipeline produced, copied out of its images. */
struct Outputs
{
  std::vector<float>                  coefficients, resampled, field;
  std::vector<itk::CudaExecutionPath> paths;
};

template <typename T, typename TImage>
std::vector<T>
CopyOf(const TImage * image, std::size_t scalarsPerPixel = 1)
{
  const std::size_t count = image->GetBufferedRegion().GetNumberOfPixels() * scalarsPerPixel;
  const T *         first = reinterpret_cast<const T *>(image->GetBufferPointer()); // a CudaDeviceImage downloads here
  return std::vector<T>(first, first + count);
}

/** prefilter -> resample (the coefficients, through an affine) -> the displacement
 * field of a B-spline transform made from the resampled values, over the resampled
 * grid. TCoefficients is itk::Image (host between the filters) or itk::CudaDeviceImage
 * (device between the prefilter and the resampler). */
template <typename TCoefficients>
Outputs
RunPipeline(std::uint32_t seed, Path path)
{
  const bool   gpu = path == Path::GPU;
  std::mt19937 rng(seed);
  auto         samples = MakeInput<Samples>({ { 64, 60, 56 } }, Content::Random, seed);

  auto prefilter = itk::BSplinePrefilterGPUImageFilter<Samples, TCoefficients>::New();
  prefilter->SetInput(samples);
  prefilter->SetUseGPU(gpu);

  auto resample = itk::CubicResampleGPUImageFilter<TCoefficients, Samples>::New();
  auto affine = RandomAffine<3>(rng);
  auto geometry = OutputGeometry<Samples>({ { 48, 44, 40 } });
  ConfigureCubicResample(resample.GetPointer(), affine.GetPointer(), geometry.GetPointer(), -7.0);
  resample->SetInputIsCoefficients(true);
  resample->SetInput(prefilter->GetOutput());
  resample->SetMinimumVoxelsPerSlab(8000); // several slabs: more interleaving between threads
  resample->SetUseGPU(gpu);
  resample->Update();
  const Samples * resampled = resample->GetOutput();

  // The B-spline's coefficients come from the resampled values: the field depends on
  // everything upstream.
  auto                             bspline = RandomBSpline<3>(resampled, 5, 1.0, rng);
  const std::vector<float>         values = CopyOf<float>(resampled);
  itk::OptimizerParameters<double> parameters(bspline->GetNumberOfParameters());
  for (unsigned int i = 0; i < parameters.GetSize(); ++i)
  {
    parameters[i] = 0.01 * (values[(7 * i) % values.size()] - 100.0);
  }
  bspline->SetParametersByValue(parameters);

  auto field = itk::TransformToDisplacementFieldGPUFilter<Field>::New();
  field->SetTransform(bspline);
  field->SetReferenceImage(resampled);
  field->SetUseReferenceImage(true);
  field->SetMinimumVoxelsPerSlab(8000);
  field->SetUseGPU(gpu);
  field->Update();

  Outputs out;
  out.coefficients = CopyOf<float>(prefilter->GetOutput());
  out.resampled = values;
  out.field = CopyOf<float>(field->GetOutput(), 3);
  out.paths = { prefilter->GetLastExecutionPath(), resample->GetLastExecutionPath(), field->GetLastExecutionPath() };
  return out;
}

/** How many values differ in their bits. */
std::size_t
DifferingBits(const std::vector<float> & a, const std::vector<float> & b)
{
  if (a.size() != b.size())
  {
    return std::max(a.size(), b.size());
  }
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
  {
    differing += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
  }
  return differing;
}

template <typename TCoefficients>
void
ExpectConcurrentEqualsSerial(Path path)
{
  std::vector<std::uint32_t> seeds(kThreads);
  for (auto & seed : seeds)
  {
    seed = FreshSeed(); // here, not in the threads: std::random_device is not shared safely
  }
  std::vector<Outputs> serial(kThreads);
  for (int t = 0; t < kThreads; ++t)
  {
    serial[t] = RunPipeline<TCoefficients>(seeds[t], path);
    const auto want = path == Path::GPU ? itk::CudaExecutionPath::GPU : itk::CudaExecutionPath::CPU;
    for (const auto got : serial[t].paths)
    {
      ASSERT_EQ(got, want) << "a filter did not take the path under test";
    }
  }

  std::vector<std::vector<Outputs>> concurrent(kThreads, std::vector<Outputs>(kRounds));
  std::vector<std::string>          errors(kThreads);
  std::vector<std::thread>          threads;
  for (int t = 0; t < kThreads; ++t)
  {
    threads.emplace_back([&, t] {
      try
      {
        for (int round = 0; round < kRounds; ++round)
        {
          concurrent[t][round] = RunPipeline<TCoefficients>(seeds[t], path);
        }
      }
      catch (const std::exception & e)
      {
        errors[t] = e.what();
      }
    });
  }
  for (auto & thread : threads)
  {
    thread.join();
  }

  for (int t = 0; t < kThreads; ++t)
  {
    SCOPED_TRACE(testing::Message() << "thread " << t << ", seed " << seeds[t]);
    ASSERT_EQ(errors[t], "");
    for (int round = 0; round < kRounds; ++round)
    {
      SCOPED_TRACE(testing::Message() << "round " << round);
      const Outputs & got = concurrent[t][round];
      EXPECT_EQ(got.paths, serial[t].paths);
      EXPECT_EQ(DifferingBits(got.coefficients, serial[t].coefficients), 0u) << "prefilter";
      EXPECT_EQ(DifferingBits(got.resampled, serial[t].resampled), 0u) << "resampler";
      EXPECT_EQ(DifferingBits(got.field, serial[t].field), 0u) << "displacement field";
    }
  }
}

/** Staging forced onto these small images: several chunks per copy, several threads
 * per ring, and fewer rings than pipelines. */
cif::PinnedStagingSettings
SmallStaging()
{
  cif::PinnedStagingSettings s = cif::GetPinnedStagingSettings();
  s.chunkBytes = 64 << 10;
  s.threads = 3;
  s.rings = 3;
  s.directBelowBytes = 16 << 10;
  return s;
}

TEST(ConcurrentPipelines, EightThreadsGiveTheSerialBitsOnTheCPUPath)
{
  ExpectConcurrentEqualsSerial<Samples>(Path::CPU);
}

TEST(ConcurrentPipelinesGPU, EightThreadsGiveTheSerialBits)
{
  CIF_REQUIRE_GPU();
  const ScopedStagingSettings staging(SmallStaging());
  ExpectConcurrentEqualsSerial<Samples>(Path::GPU);
}

TEST(ConcurrentPipelinesGPU, EightThreadsWithCoefficientsLeftOnTheDevice)
{
  CIF_REQUIRE_GPU();
  const ScopedStagingSettings staging(SmallStaging());
  ExpectConcurrentEqualsSerial<itk::CudaDeviceImage<float, 3>>(Path::GPU);
}
} // namespace
