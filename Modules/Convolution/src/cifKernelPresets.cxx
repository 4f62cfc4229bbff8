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
#include "cifKernelPresets.h"

#include <cmath>
#include <sstream>

namespace cif
{
namespace
{
void
RequireOddLength(int length, const char * what)
{
  if (length < 3 || length > MaxKernelSide || length % 2 == 0)
  {
    std::ostringstream message;
    message << what << " length must be odd, 3 to " << MaxKernelSide << " (got " << length << ")";
    throw KernelError(message.str());
  }
}

ConvolutionKernel
Square(int side, std::vector<double> weights, const std::string & name)
{
  ConvolutionKernel k;
  k.dimension = 2;
  k.size[0] = k.size[1] = side;
  k.weights = std::move(weights);
  k.name = name;
  return k;
}
} // namespace

ConvolutionKernel
MakeGaussianKernel(int length, double sigma)
{
  RequireOddLength(length, "Gaussian");
  if (!(sigma >= 0.5) || !std::isfinite(sigma))
  {
    std::ostringstream message;
    message << "Gaussian sigma must be at least 0.5 (got " << sigma << ")";
    throw KernelError(message.str());
  }
  // The seed's formula; its 1 / (2 pi sigma^2) cancels in the normalization.
  std::vector<double> w(static_cast<std::size_t>(length) * length);
  const int           r = length / 2;
  double              sum = 0;
  for (int y = 0; y < length; ++y)
  {
    for (int x = 0; x < length; ++x)
    {
      const double d2 = double((x - r) * (x - r) + (y - r) * (y - r));
      sum += w[static_cast<std::size_t>(y) * length + x] = std::exp(-d2 / (2.0 * sigma * sigma));
    }
  }
  for (double & v : w)
  {
    v /= sum;
  }
  std::ostringstream name;
  name << "gaussian " << length << "x" << length << " sigma " << sigma;
  return Square(length, std::move(w), name.str());
}

ConvolutionKernel
MakeBoxKernel(int length)
{
  RequireOddLength(length, "box");
  const double n = double(length) * length;
  return Square(length,
                std::vector<double>(static_cast<std::size_t>(n), 1.0 / n),
                "box " + std::to_string(length) + "x" + std::to_string(length));
}

ConvolutionKernel
MakeCentreWeightKernel(double centre, const std::string & name)
{
  return Square(3, { 0, 0, 0, 0, centre, 0, 0, 0, 0 }, name);
}

ConvolutionKernel
MakePresetKernel(const std::string & name, int length, double sigma)
{
  if (name == "gaussian")
  {
    return MakeGaussianKernel(length, sigma);
  }
  if (name == "box")
  {
    return MakeBoxKernel(length);
  }
  // The 3x3 kernels of the seed's references (Wikipedia's "Kernel (image processing)").
  if (name == "identity")
  {
    return Square(3, { 0, 0, 0, 0, 1, 0, 0, 0, 0 }, name);
  }
  if (name == "sharpen")
  {
    return Square(3, { 0, -1, 0, -1, 5, -1, 0, -1, 0 }, name);
  }
  if (name == "edge")
  {
    return Square(3, { -1, -1, -1, -1, 8, -1, -1, -1, -1 }, name);
  }
  if (name == "ridge")
  {
    return Square(3, { 0, -1, 0, -1, 4, -1, 0, -1, 0 }, name);
  }
  if (name == "emboss")
  {
    return Square(3, { -2, -1, 0, -1, 1, 1, 0, 1, 2 }, name);
  }
  if (name == "darken")
  {
    return MakeCentreWeightKernel(0.5, name);
  }
  if (name == "lighten")
  {
    return MakeCentreWeightKernel(1.5, name);
  }
  if (name == "unsharp")
  {
    // Unsharp masking based on the 5x5 Gaussian (binomial) with amount 1 and threshold 0.
    const double        b[5] = { 1, 4, 6, 4, 1 };
    std::vector<double> w(25);
    for (int y = 0; y < 5; ++y)
    {
      for (int x = 0; x < 5; ++x)
      {
        w[y * 5 + x] = -b[x] * b[y] / 256.0;
      }
    }
    w[12] += 2.0; // 2 * identity - blur
    return Square(5, std::move(w), name);
  }
  std::string known;
  for (const auto & n : PresetKernelNames())
  {
    known += (known.empty() ? "" : ", ") + n;
  }
  throw KernelError("unknown kernel preset \"" + name + "\" (known: " + known + ")");
}

std::vector<std::string>
PresetKernelNames()
{
  return { "gaussian", "box", "sharpen", "unsharp", "emboss", "edge", "ridge", "darken", "lighten", "identity" };
}
} // namespace cif
