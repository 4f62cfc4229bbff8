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
// The seed's kernel presets and the rank-one test that sends kernels to the
// separable path.
#include "cifKernelPresets.h"
#include "cifKernelSeparability.h"
#include "cifTestHelpers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace
{
using cif_test::FreshSeed;

TEST(KernelPresets, GaussianIsTheSeedsNormalizedGaussian)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  std::mt19937 rng(seed);
  const int    length = 3 + 2 * int(rng() % 62);
  const double sigma = 0.5 + 10.0 * std::uniform_real_distribution<double>(0, 1)(rng);
  SCOPED_TRACE("length " + std::to_string(length) + ", sigma " + std::to_string(sigma));
  const auto k = cif::MakeGaussianKernel(length, sigma);
  ASSERT_EQ(k.size[0], length);
  ASSERT_EQ(k.size[1], length);
  EXPECT_NEAR(k.Sum(), 1.0, 1e-12);
  const int r = length / 2;
  for (int y = 0; y < length; ++y)
    for (int x = 0; x < length; ++x)
    {
      const double expected = k.At(r, r) * std::exp(-((x - r) * (x - r) + (y - r) * (y - r)) / (2 * sigma * sigma));
      EXPECT_NEAR(k.At(x, y), expected, 1e-12 * k.At(r, r));
    }
  cif::SeparableFactors f;
  EXPECT_TRUE(cif::FactorSeparable(k, f));
}

TEST(KernelPresets, GaussianRefusesTheSeedsLimits)
{
  for (int length : { -3, 0, 1, 2, 4, 128, 129 })
  {
    try
    {
      cif::MakeGaussianKernel(length, 2.0);
      ADD_FAILURE() << "length " << length << " accepted";
    }
    catch (const cif::KernelError & e)
    {
      EXPECT_NE(std::string(e.what()).find("length"), std::string::npos) << e.what();
    }
  }
  for (double sigma : { 0.49, 0.0, -1.0, std::nan("") })
  {
    try
    {
      cif::MakeGaussianKernel(5, sigma);
      ADD_FAILURE() << "sigma " << sigma << " accepted";
    }
    catch (const cif::KernelError & e)
    {
      EXPECT_NE(std::string(e.what()).find("sigma"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(cif::MakeGaussianKernel(127, 0.5));
  EXPECT_NO_THROW(cif::MakeGaussianKernel(3, 0.5));
}

TEST(KernelPresets, EveryPresetHasItsDefiningProperty)
{
  for (const auto & name : cif::PresetKernelNames())
  {
    const auto k = cif::MakePresetKernel(name, 7, 1.5);
    EXPECT_EQ(k.size[0] % 2, 1) << name;
    EXPECT_EQ(k.size[0], k.size[1]) << name;
    EXPECT_EQ(std::int64_t(k.weights.size()), k.Count()) << name;
  }
  // Blurs and sharpeners keep a flat image's level; detectors map it to zero;
  // darken and lighten scale it.
  for (const char * name : { "gaussian", "box", "sharpen", "unsharp", "emboss", "identity" })
  {
    EXPECT_NEAR(cif::MakePresetKernel(name, 7, 1.5).Sum(), 1.0, 1e-12) << name;
  }
  for (const char * name : { "edge", "ridge" })
  {
    EXPECT_NEAR(cif::MakePresetKernel(name).Sum(), 0.0, 1e-12) << name;
  }
  EXPECT_LT(cif::MakePresetKernel("darken").Sum(), 1.0);
  EXPECT_GT(cif::MakePresetKernel("lighten").Sum(), 1.0);
  EXPECT_EQ(cif::MakePresetKernel("darken").At(1, 1), cif::MakePresetKernel("darken").Sum()); // centre only
  // Emboss is antisymmetric about its centre apart from the centre itself.
  const auto emboss = cif::MakePresetKernel("emboss");
  EXPECT_EQ(emboss.At(0, 0), -emboss.At(2, 2));
  EXPECT_EQ(cif::MakePresetKernel("box", 5).size[0], 5);
}

TEST(KernelPresets, UnknownNameListsTheKnownOnes)
{
  try
  {
    cif::MakePresetKernel("blurr");
    FAIL();
  }
  catch (const cif::KernelError & e)
  {
    const std::string what = e.what();
    EXPECT_NE(what.find("blurr"), std::string::npos);
    EXPECT_NE(what.find("gaussian"), std::string::npos);
    EXPECT_NE(what.find("emboss"), std::string::npos);
  }
}

TEST(KernelSeparability, RankOneKernelsFactorAndOthersDoNot)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  cif::ConvolutionKernel                 k;
  k.dimension = 3;
  k.size[0] = 5;
  k.size[1] = 7;
  k.size[2] = 3;
  std::vector<double> a(5), b(7), c(3);
  for (auto * v : { &a, &b, &c })
    for (double & x : *v)
      x = u(rng);
  for (int z = 0; z < 3; ++z)
    for (int y = 0; y < 7; ++y)
      for (int x = 0; x < 5; ++x)
        k.weights.push_back(a[x] * b[y] * c[z]);
  cif::SeparableFactors f;
  ASSERT_TRUE(cif::FactorSeparable(k, f));
  for (int z = 0; z < 3; ++z)
    for (int y = 0; y < 7; ++y)
      for (int x = 0; x < 5; ++x)
        EXPECT_NEAR(f.factor[0][x] * f.factor[1][y] * f.factor[2][z], k.At(x, y, z), 1e-14);
  // One weight off the product by more than the tolerance: not separable.
  k.weights[17] += 1e-3;
  EXPECT_FALSE(cif::FactorSeparable(k, f));
  EXPECT_FALSE(cif::FactorSeparable(cif::MakePresetKernel("emboss"), f));
  EXPECT_FALSE(cif::FactorSeparable(cif::MakePresetKernel("sharpen"), f));
  cif::ConvolutionKernel zero;
  zero.size[0] = zero.size[1] = 3;
  zero.weights.assign(9, 0.0);
  EXPECT_FALSE(cif::FactorSeparable(zero, f));
}
} // namespace
