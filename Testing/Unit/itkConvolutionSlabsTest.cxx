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
// A convolution in slabs (cifConvolutionSlabs.h): on the host, every slab cut of fresh
// random geometries (SAME- and VALID-like offsets, 2-D and 3-D, several components)
// convolved slab by slab gives the bits of one piece, and the plan stays within its
// budget; on the GPU, ConvolutionGPUImageFilter under a device memory limit runs in
// slabs and gives the bits of its one-piece run, so does it where the device refuses
// allocations its free memory would allow (planned again finer), and a limit below
// one plane is the clear error.
#include "cifConvolutionSlabs.h"
#include "cifConvolutionPlan.h"
#include "cifConvolutionTestSupport.h"
#include "itkConvolutionGPUImageFilter.h"
#include "itkConvolutionKernelImage.h"
#include "itkCudaDeviceImage.h"
#include "itkVectorImage.h"

#include <gtest/gtest.h>

namespace
{
using namespace cif_test;

/** Interleaved pixels (x fastest, components innermost) of \a g's input, random. */
std::vector<float>
RandomInput(const cif::ConvolutionGeometry & g, std::mt19937 & rng)
{
  std::uniform_real_distribution<float> value(-50.0f, 150.0f);
  std::vector<float>                    input(static_cast<std::size_t>(g.InVolume() * g.planes));
  for (float & v : input)
  {
    v = value(rng);
  }
  return input;
}

/** The convolution of \a input (interleaved) over \a plan's geometry on the host. */
std::vector<float>
ConvolveOnHost(const cif::ConvolutionPlan & plan, const float * input)
{
  const cif::ConvolutionGeometry & g = plan.geometry;
  std::vector<float>               planarIn(static_cast<std::size_t>(g.InVolume() * g.planes));
  std::vector<float>               planarOut(static_cast<std::size_t>(g.OutVolume() * g.planes));
  std::vector<float>               output(planarOut.size());
  cif::ToPlanarOnHost(input, g.InVolume(), g.planes, planarIn.data(), cif::SequentialFor{});
  cif::RunConvolutionOnHost(plan, planarIn.data(), planarOut.data(), cif::SequentialFor{});
  cif::FromPlanarOnHost(planarOut.data(), g.OutVolume(), g.planes, output.data(), cif::SequentialFor{});
  return output;
}

/** Every cut of the slab axis into slabs of \a planes output planes gives the bits of
 * one piece: the slab's input planes are read from the whole input at its first input
 * plane, its output written at its first output plane. */
void
ExpectSlabsGiveOnePiece(const cif::ConvolutionKernel &   kernel,
                        const cif::ConvolutionGeometry & geometry,
                        std::mt19937 &                   rng)
{
  const cif::ConvolutionPlan       plan = cif::MakeConvolutionPlan(kernel, geometry, false);
  const cif::ConvolutionGeometry & g = plan.geometry;
  const std::vector<float>         input = RandomInput(g, rng);
  const std::vector<float>         whole = ConvolveOnHost(plan, input.data());
  const int                        axis = cif::ConvolutionSlabAxis(g);
  const std::int64_t               inPlane = g.InVolume() / g.inSize[axis] * g.planes;
  const std::int64_t               outPlane = g.OutVolume() / g.outSize[axis] * g.planes;
  for (std::int64_t planes : { std::int64_t{ 1 }, std::int64_t{ 2 }, std::int64_t{ 3 }, g.outSize[axis] - 1 })
  {
    if (planes < 1)
    {
      continue;
    }
    SCOPED_TRACE(std::to_string(planes) + " output planes a slab");
    std::vector<float> slabbed(whole.size(), std::nanf(""));
    for (std::int64_t first = 0; first < g.outSize[axis]; first += planes)
    {
      const cif::ConvolutionSlab slab =
        cif::SlabOfConvolution(g, axis, first, std::min(planes, g.outSize[axis] - first));
      ASSERT_GE(slab.firstInputPlane, 0);
      ASSERT_LE(slab.firstInputPlane + slab.geometry.inSize[axis], g.inSize[axis]);
      // At most the slab's planes and the kernel's reach are read.
      EXPECT_LE(slab.geometry.inSize[axis], slab.geometry.outSize[axis] + g.kernelSize[axis] - 1);
      cif::ConvolutionPlan slabPlan = plan;
      slabPlan.geometry = slab.geometry;
      const std::vector<float> part = ConvolveOnHost(slabPlan, input.data() + slab.firstInputPlane * inPlane);
      std::copy(part.begin(), part.end(), slabbed.begin() + slab.firstOutputPlane * outPlane);
    }
    EXPECT_TRUE(SameBits(slabbed.data(), whole.data(), whole.size()));
  }
}

TEST(ConvolutionSlabs, SlabsOnTheHostGiveTheBitsOfOnePiece)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  std::mt19937                       rng(seed);
  std::uniform_int_distribution<int> offset(0, 6), components(1, 3);
  for (int trial = 0; trial < 4; ++trial)
  {
    // 3-D: the separable path with its z pass and the general path; the output a
    // sub-region of the input (a streamed piece) or all of it (SAME).
    for (const auto & kernel : { OuterProductKernel(seed + trial), RandomKernel(3, 5, 7, seed + trial) })
    {
      cif::ConvolutionGeometry g;
      g.inSize[0] = 13, g.inSize[1] = 11, g.inSize[2] = 17;
      g.planes = components(rng);
      const bool sub = trial % 2 == 1;
      for (int a = 0; a < 3; ++a)
      {
        g.outOffset[a] = sub ? offset(rng) : 0;
        g.outSize[a] = sub ? g.inSize[a] - g.outOffset[a] - offset(rng) % 3 : g.inSize[a];
      }
      SCOPED_TRACE("3-D, " + kernel.name + (sub ? ", sub-region" : ", whole"));
      ExpectSlabsGiveOnePiece(kernel, g, rng);
    }
    // 2-D: slabs of rows (axis 1).
    cif::ConvolutionGeometry g;
    g.inSize[0] = 21, g.inSize[1] = 19;
    g.outSize[0] = 21, g.outSize[1] = 19;
    g.planes = components(rng);
    SCOPED_TRACE("2-D");
    ExpectSlabsGiveOnePiece(RandomKernel(7, 9, 1, seed + trial), g, rng);
  }
}

TEST(ConvolutionSlabs, PlanStaysWithinItsBudgetOrIsTheClearError)
{
  cif::ConvolutionGeometry g;
  g.inSize[0] = 64, g.inSize[1] = 48, g.inSize[2] = 40;
  g.outSize[0] = 64, g.outSize[1] = 48, g.outSize[2] = 40;
  g.kernelSize[0] = 5, g.kernelSize[1] = 5, g.kernelSize[2] = 9;
  const std::size_t inPlaneBytes = 64 * 48 * 12, outPlaneBytes = 64 * 48 * 8, fixed = 4096;
  const std::size_t wholeBytes = 40 * (inPlaneBytes + outPlaneBytes) + fixed;
  EXPECT_EQ(cif::PlanConvolutionSlabs(g, inPlaneBytes, outPlaneBytes, fixed, wholeBytes, "test").count, 1);
  for (std::size_t budget :
       { wholeBytes - 1, wholeBytes / 2, wholeBytes / 5, 9 * inPlaneBytes + outPlaneBytes + fixed })
  {
    const cif::SlabPlan plan = cif::PlanConvolutionSlabs(g, inPlaneBytes, outPlaneBytes, fixed, budget, "test");
    EXPECT_GT(plan.count, 1);
    EXPECT_GE(plan.unitsPerSlab, 1);
    EXPECT_GE(plan.unitsPerSlab * plan.count, g.outSize[2]);
    for (std::int64_t s = 0; s < plan.count; ++s)
    {
      const cif::ConvolutionSlab slab = cif::SlabOfConvolution(g, 2, plan.First(s), plan.Size(s, g.outSize[2]));
      EXPECT_LE(static_cast<std::size_t>(slab.geometry.inSize[2]) * inPlaneBytes +
                  static_cast<std::size_t>(slab.geometry.outSize[2]) * outPlaneBytes + fixed,
                budget);
    }
  }
  // One output plane and the kernel's reach (9 input planes) do not fit: the clear error.
  EXPECT_THROW(
    cif::PlanConvolutionSlabs(g, inPlaneBytes, outPlaneBytes, fixed, 9 * inPlaneBytes + outPlaneBytes, "test"),
    cif::CudaOutOfMemory);
}

/** The GPU filter's run on \a input under whatever memory pressure \a pressure puts
 * (a guard it returns for the run's scope, given the job's scalars): slabs, and the
 * bits of its one-piece run. */
template <typename TImage, typename TPressure>
void
ExpectPressuredRunMatchesOnePiece(const TImage * input, const cif::ConvolutionKernel & k, TPressure && pressure)
{
  using Kernel = itk::Image<float, TImage::ImageDimension>;
  auto kernel = itk::MakeKernelImage<Kernel>(k);
  auto run = [&] {
    auto filter = itk::ConvolutionGPUImageFilter<TImage, Kernel, TImage>::New();
    filter->SetInput(input);
    filter->SetKernelImage(kernel);
    filter->Update();
    EXPECT_EQ(filter->GetLastExecutionPath(), itk::CudaExecutionPath::GPU);
    typename TImage::Pointer out = filter->GetOutput();
    out->DisconnectPipeline();
    return std::make_pair(out, filter->GetLastNumberOfSlabs());
  };
  const auto   one = run();
  const auto & oneImage = one.first;
  ASSERT_EQ(one.second, 1u);
  const std::size_t scalars =
    oneImage->GetBufferedRegion().GetNumberOfPixels() * oneImage->GetNumberOfComponentsPerPixel();
  const auto scope = pressure(scalars);
  const auto slabbed = run();
  EXPECT_GT(slabbed.second, 1u);
  EXPECT_TRUE(SameBits(reinterpret_cast<const float *>(slabbed.first->GetBufferPointer()),
                       reinterpret_cast<const float *>(oneImage->GetBufferPointer()),
                       scalars));
}

/** A device memory limit that fits about a third of the job. */
template <typename TImage>
void
ExpectLimitedRunMatchesOnePiece(const TImage * input, const cif::ConvolutionKernel & k)
{
  // staging, planar in and out, output staging (and scratch): about 16 bytes a scalar
  ExpectPressuredRunMatchesOnePiece(
    input, k, [](std::size_t scalars) { return ScopedDeviceMemoryLimit(scalars * 16 / 3); });
}

TEST(ConvolutionGPUDevice, VolumeLargerThanTheLimitRunsInSlabs)
{
  CIF_REQUIRE_GPU();
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  using Image3 = itk::Image<float, 3>;
  auto volume = MakeImage<Image3>({ { 70, 53, 61 } }, { { 0, 0, 0 } }, Content::Random, seed);
  for (const auto & kernel : { OuterProductKernel(seed), RandomKernel(5, 3, 7, seed) })
  {
    SCOPED_TRACE("3-D, " + kernel.name);
    ExpectLimitedRunMatchesOnePiece(volume.GetPointer(), kernel);
  }
  using Image2 = itk::Image<float, 2>;
  auto plane = MakeImage<Image2>({ { 517, 301 } }, { { 0, 0 } }, Content::Random, seed + 1);
  SCOPED_TRACE("2-D");
  ExpectLimitedRunMatchesOnePiece(plane.GetPointer(), RandomKernel(9, 15, 1, seed));
  // Several components, on the device in and out (CudaDeviceImage).
  using Vectors = itk::CudaDeviceImage<itk::Vector<float, 3>, 3>;
  auto vectors = Vectors::New();
  vectors->SetRegions(Vectors::RegionType(Vectors::SizeType{ { 40, 33, 29 } }));
  vectors->Allocate();
  std::mt19937                          rng(seed + 2);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  float *                               p = reinterpret_cast<float *>(vectors->GetBufferPointer());
  for (std::size_t i = 0; i < 3u * 40 * 33 * 29; ++i)
  {
    p[i] = value(rng);
  }
  SCOPED_TRACE("vectors, CudaDeviceImage");
  ExpectLimitedRunMatchesOnePiece(vectors.GetPointer(), RandomKernel(3, 3, 5, seed));
}

/** Allocations above a quarter of the one-piece job refused although the memory is
 * free (as the driver refuses some on a real card): the plan is cut finer until its
 * buffers are granted, with the bits of one piece. */
TEST(ConvolutionGPUDevice, RefusedReservationIsPlannedFiner)
{
  CIF_REQUIRE_GPU();
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  using Image3 = itk::Image<float, 3>;
  auto volume = MakeImage<Image3>({ { 64, 48, 80 } }, { { 0, 0, 0 } }, Content::Random, seed);
  ExpectPressuredRunMatchesOnePiece(volume.GetPointer(), RandomKernel(3, 5, 5, seed), [](std::size_t scalars) {
    return ScopedAllocationFailuresAbove(scalars * sizeof(float) / 4);
  });
}

TEST(ConvolutionGPUDevice, LimitBelowOnePlaneIsAClearError)
{
  CIF_REQUIRE_GPU();
  using Image3 = itk::Image<float, 3>;
  auto volume = MakeImage<Image3>({ { 200, 150, 20 } }, { { 0, 0, 0 } }, Content::Random, FreshSeed());
  auto kernel = itk::MakeKernelImage<Image3>(RandomKernel(3, 3, 9, 5));
  auto filter = itk::ConvolutionGPUImageFilter<Image3, Image3, Image3>::New();
  filter->SetInput(volume);
  filter->SetKernelImage(kernel);
  ScopedDeviceMemoryLimit limit(200 * 150 * 8); // less than the 9 input planes one output plane reads
  try
  {
    filter->Update();
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("not enough GPU memory"), std::string::npos) << e.GetDescription();
  }
  EXPECT_EQ(filter->GetOutput()->GetBufferPointer(), nullptr); // nothing half-convolved is left
}
} // namespace
