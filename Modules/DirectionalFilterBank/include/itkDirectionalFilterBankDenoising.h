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
// Denoising with the directional filter bank: noise estimated from the data, a
// two-scale front end, hard thresholding of each scale's directional subbands at a
// multiple of the noise level in each subband, and cycle spinning. Used by the
// DirectionalFilterBankCLI module and the DirectionalFilterBankTool example.
#ifndef itkDirectionalFilterBankDenoising_h
#define itkDirectionalFilterBankDenoising_h

#include "itkDirectionalFilterBankGPUImageFilter.h"
#include "itkDirectionalFilterBankSynthesisGPUImageFilter.h"
#include "itkDiscreteGaussianImageFilter.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

namespace itk
{
/** Decomposition, reconstruction and denoising of 2-D float images with the
 * Bamberger-Smith directional filter bank.
 *
 * Denoising: the image split into two scales (a Gaussian of scaleWidth pixels and the
 * rest; the bank alone keeps every scale of a direction together, and the noise at
 * fine scales along the structures with it), then hard thresholding of each scale's
 * directional subbands at threshold x sigma x g_b, sigma the noise level estimated
 * from the data (median absolute value of the finest diagonal Haar detail / 0.6745)
 * and g_b the bank's noise gain into subband b (measured by decomposing unit white
 * noise), averaged over `shifts` circular shifts of the image (cycle spinning). */
namespace DirectionalDenoising
{
using Image = itk::Image<float, 2>;
using Analysis = DirectionalFilterBankGPUImageFilter<Image, Image>;
using Synthesis = DirectionalFilterBankSynthesisGPUImageFilter<Image, Image>;

struct Settings
{
  unsigned int              levels = 3;
  cif::DirectionalFilterSet filters = cif::DirectionalFilterSet::QMF16;
  bool                      useGPU = true;
  double                    threshold = 3.0; ///< denoising: hard threshold in noise sigma
  int                       shifts = 8;      ///< denoising: cycle-spinning shifts
  double                    scaleWidth = 1;  ///< denoising: two-scale front end's Gaussian width (0: none)
  /** Called with the fraction of the denoising done after each of its steps (a
   * caller's progress bar; it may throw to stop the run). */
  std::function<void(double)> progress;
};

inline Analysis::Pointer
Decompose(const Image * image, const Settings & s)
{
  auto analysis = Analysis::New();
  analysis->SetInput(image);
  analysis->SetNumberOfLevels(s.levels);
  analysis->SetFilterSet(s.filters);
  analysis->SetUseGPU(s.useGPU);
  analysis->Update();
  return analysis;
}

inline Image::Pointer
Reconstruct(const std::vector<Image::Pointer> & subbands, const Settings & s)
{
  auto synthesis = Synthesis::New();
  synthesis->SetNumberOfLevels(s.levels);
  synthesis->SetFilterSet(s.filters);
  synthesis->SetUseGPU(s.useGPU);
  for (unsigned int b = 0; b < subbands.size(); ++b)
  {
    synthesis->SetSubband(b, subbands[b]);
  }
  synthesis->Update();
  return synthesis->GetOutput();
}

inline std::vector<Image::Pointer>
Detach(Analysis * analysis)
{
  std::vector<Image::Pointer> subbands;
  for (unsigned int b = 0; b < analysis->GetNumberOfSubbands(); ++b)
  {
    Image::Pointer s = analysis->GetSubband(b);
    s->DisconnectPipeline();
    subbands.push_back(s);
  }
  return subbands;
}

/** Noise σ from the data: the finest diagonal Haar detail of white noise of σ has
 * standard deviation σ; its median absolute value / 0.6745 ignores most of the signal. */
inline double
EstimateNoise(const Image * image)
{
  const auto          size = image->GetBufferedRegion().GetSize();
  const float *       p = image->GetBufferPointer();
  std::vector<double> detail;
  for (std::size_t y = 0; y + 1 < size[1]; y += 2)
  {
    for (std::size_t x = 0; x + 1 < size[0]; x += 2)
    {
      const double d =
        0.5 * (p[y * size[0] + x] - p[y * size[0] + x + 1] - p[(y + 1) * size[0] + x] + p[(y + 1) * size[0] + x + 1]);
      detail.push_back(std::fabs(d));
    }
  }
  if (detail.empty())
  {
    itkGenericExceptionMacro("the noise level of a " << size << " image cannot be estimated (2 x 2 pixels at least)");
  }
  std::nth_element(detail.begin(), detail.begin() + detail.size() / 2, detail.end());
  return detail[detail.size() / 2] / 0.6745;
}

/** A two-scale front end (as a contourlet's pyramid, without decimation): the image
 * as coarse = Gaussian(width) and fine = image − coarse, each decomposed by the bank
 * on its own, so thresholds follow each scale's noise. width 0: one band, the image. */
inline std::vector<Image::Pointer>
SplitScales(const Image * image, double width)
{
  if (width <= 0)
  {
    Image::Pointer copy = Image::New();
    copy->Graft(image);
    return { copy };
  }
  auto gaussian = itk::DiscreteGaussianImageFilter<Image, Image>::New();
  gaussian->SetInput(image);
  gaussian->SetVariance(width * width);
  gaussian->SetUseImageSpacing(false);
  gaussian->SetMaximumKernelWidth(64);
  gaussian->Update();
  Image::Pointer coarse = gaussian->GetOutput();
  coarse->DisconnectPipeline();
  auto fine = Image::New();
  fine->CopyInformation(image);
  fine->SetRegions(image->GetLargestPossibleRegion());
  fine->Allocate();
  for (std::size_t k = 0; k < image->GetBufferedRegion().GetNumberOfPixels(); ++k)
  {
    fine->GetBufferPointer()[k] = image->GetBufferPointer()[k] - coarse->GetBufferPointer()[k];
  }
  return { coarse, fine };
}

/** Standard deviation of unit white noise in each subband of each scale band (the
 * front end's and the bank's noise gains). */
inline std::vector<std::vector<double>>
NoiseGains(const Image * like, const Settings & s, double scaleWidth)
{
  auto noise = Image::New();
  noise->CopyInformation(like);
  noise->SetRegions(like->GetLargestPossibleRegion());
  noise->Allocate();
  std::mt19937                    rng(2026u);
  std::normal_distribution<float> normal(0.f, 1.f);
  for (std::size_t k = 0; k < noise->GetBufferedRegion().GetNumberOfPixels(); ++k)
  {
    noise->GetBufferPointer()[k] = normal(rng);
  }
  std::vector<std::vector<double>> gains;
  for (const auto & band : SplitScales(noise, scaleWidth))
  {
    auto analysis = Decompose(band, s);
    gains.emplace_back();
    for (unsigned int b = 0; b < analysis->GetNumberOfSubbands(); ++b)
    {
      const Image * sb = analysis->GetSubband(b);
      double        sum = 0;
      const auto    count = sb->GetBufferedRegion().GetNumberOfPixels();
      for (std::size_t k = 0; k < count; ++k)
      {
        sum += static_cast<double>(sb->GetBufferPointer()[k]) * sb->GetBufferPointer()[k];
      }
      gains.back().push_back(std::sqrt(sum / count));
    }
  }
  return gains;
}

/** The image circularly shifted by (dx, dy) (the bank's own periodic extension). */
inline Image::Pointer
CircularShift(const Image * image, long dx, long dy)
{
  auto shifted = Image::New();
  shifted->CopyInformation(image);
  shifted->SetRegions(image->GetLargestPossibleRegion());
  shifted->Allocate();
  const auto size = image->GetLargestPossibleRegion().GetSize();
  const long w = static_cast<long>(size[0]), h = static_cast<long>(size[1]);
  for (long y = 0; y < h; ++y)
  {
    for (long x = 0; x < w; ++x)
    {
      shifted->GetBufferPointer()[((y + dy + h) % h) * w + (x + dx + w) % w] = image->GetBufferPointer()[y * w + x];
    }
  }
  return shifted;
}

inline Image::Pointer
DenoiseOnce(const Image * noisy, const Settings & s, double threshold, double sigma, const std::vector<double> & gains)
{
  auto                        analysis = Decompose(noisy, s);
  std::vector<Image::Pointer> subbands = Detach(analysis);
  for (unsigned int b = 0; b < subbands.size(); ++b)
  {
    const double limit = threshold * sigma * gains[b];
    float *      p = subbands[b]->GetBufferPointer();
    for (std::size_t k = 0; k < subbands[b]->GetBufferedRegion().GetNumberOfPixels(); ++k)
    {
      if (std::fabs(p[k]) < limit) // hard: measured better here than soft or garrote
      {
        p[k] = 0.f;
      }
    }
  }
  return Reconstruct(subbands, s);
}

/** Thresholding of the directional subbands of each scale band, averaged over
 * `shifts` circular shifts of the image (cycle spinning: the decimated bank is not
 * shift invariant, and the average of its shifted estimates has fewer artefacts). */
inline Image::Pointer
Denoise(const Image * noisy, const Settings & s, double * sigmaOut = nullptr)
{
  const double                           sigma = EstimateNoise(noisy);
  const std::vector<std::vector<double>> gains = NoiseGains(noisy, s, s.scaleWidth);
  // steps: the noise gains, then each shift
  const auto reportStep = [&](int done) {
    if (s.progress)
    {
      s.progress(static_cast<double>(done) / (s.shifts + 1));
    }
  };
  reportStep(1);
  if (sigmaOut)
  {
    *sigmaOut = sigma;
  }
  auto sum = Image::New();
  sum->CopyInformation(noisy);
  sum->SetRegions(noisy->GetLargestPossibleRegion());
  sum->Allocate();
  sum->FillBuffer(0.f);
  const auto count = sum->GetBufferedRegion().GetNumberOfPixels();
  const long step = 1L << s.levels; // shifts spread over the bank's decimation period
  for (int k = 0; k < s.shifts; ++k)
  {
    const long dx = (k * 5) % step, dy = (k * 3) % step;
    const auto bands = SplitScales(CircularShift(noisy, dx, dy), s.scaleWidth);
    for (std::size_t band = 0; band < bands.size(); ++band)
    {
      auto estimate = CircularShift(DenoiseOnce(bands[band], s, s.threshold, sigma, gains[band]), -dx, -dy);
      for (std::size_t i = 0; i < count; ++i)
      {
        sum->GetBufferPointer()[i] += estimate->GetBufferPointer()[i] / s.shifts;
      }
    }
    reportStep(k + 2);
  }
  return sum;
}

} // namespace DirectionalDenoising
} // namespace itk

#endif
