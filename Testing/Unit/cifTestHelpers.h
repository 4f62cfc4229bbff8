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
#ifndef cifTestHelpers_h
#define cifTestHelpers_h

// Shared pieces of the unit tests: fresh random and smooth test images, error
// measures, and the skip for machines without a GPU.
#include "cifCudaRuntime.h"
#include "cifDeviceBuffer.h"
#include "cifDeviceMemoryPool.h"
#include "cifDeviceMemoryLimit.h"
#include "cifPinnedHostMemory.h"
#include "cifPinnedStaging.h"
#include "cifSimulatedOutOfMemory.h"
#include "itkImage.h"
#include "itkImageRegionIteratorWithIndex.h"
#include "itkObjectFactoryBase.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

namespace cif_test
{
/** Skips the calling test, with the reason, when no CUDA device can be used. */
#define CIF_REQUIRE_GPU()                                                    \
  do                                                                         \
  {                                                                          \
    if (!cif::IsGPUAvailable())                                              \
    {                                                                        \
      GTEST_SKIP() << "no usable CUDA device: " << cif::GetNoDeviceReason(); \
    }                                                                        \
  } while (false)

/** A test body run twice: TEST(<Suite>CPU, Name) calls \a ... (a callable taking the
 * bool onGPU) with false, TEST(<Suite>GPU, Name) with true after CIF_REQUIRE_GPU();
 * the module's twins keep each test on both paths, one declaration for the pair. */
#define CIF_TEST_ON_CPU_AND_GPU(Suite, Name, ...)  \
  TEST(Suite##CPU, Name) { (__VA_ARGS__)(false); } \
  TEST(Suite##GPU, Name)                           \
  {                                                \
    CIF_REQUIRE_GPU();                             \
    (__VA_ARGS__)(true);                           \
  }

/** Device memory taken until about \a leave bytes stay free, for the tests of memory
 * pressure: in pieces of at most 1 GiB, each sized from the driver's free memory at
 * that moment, so that the test does the same on an 80 GB and a 141 GB card (one
 * allocation of "free - 8 MiB" failed on an H200 where pieces succeed). A piece
 * that fails is halved; the ballast stops within 1 MiB of \a leave. */
class DeviceBallast
{
public:
  explicit DeviceBallast(std::size_t leave)
  {
    cif::ReleaseCachedDeviceMemory(); // what earlier tests freed: the driver's free memory is then all there is
    std::size_t piece = std::size_t{ 1 } << 30;
    while (piece >= (std::size_t{ 1 } << 20))
    {
      const std::size_t free = cif::GetDeviceInfo().freeMemoryBytes;
      if (free <= leave + (std::size_t{ 1 } << 20))
      {
        break;
      }
      piece = std::min(piece, free - leave);
      try
      {
        m_Pieces.push_back(std::make_unique<cif::DeviceBuffer>(piece));
      }
      catch (const cif::CudaOutOfMemory &)
      {
        piece /= 2;
      }
    }
  }
  /** Gives the memory back (the pieces return to the library's pool, then to the driver). */
  void
  Release()
  {
    m_Pieces.clear();
    cif::ReleaseCachedDeviceMemory();
  }

private:
  std::vector<std::unique_ptr<cif::DeviceBuffer>> m_Pieces;
};

/** A new seed per run (printed by the test on failure through SCOPED_TRACE), so
 * inputs are fresh random data rather than one fixed pattern. To replay a failure,
 * set CIF_TEST_SEED to the printed seed: every call then gives that seed. */
inline std::uint32_t
FreshSeed()
{
  if (const char * replay = std::getenv("CIF_TEST_SEED"))
  {
    return static_cast<std::uint32_t>(std::strtoul(replay, nullptr, 10));
  }
  static std::random_device device;
  return device();
}

enum class Content
{
  Random, ///< independent uniform samples: the prefilter's hardest case
  Smooth  ///< a sum of low-frequency cosines plus a ramp
};

inline const char *
ToString(Content c)
{
  return c == Content::Random ? "random" : "smooth";
}

/** An image of the given size and start index, filled with \a content scaled to
 * [low, high). */
template <typename TImage>
typename TImage::Pointer
MakeImage(const typename TImage::SizeType &  size,
          const typename TImage::IndexType & start,
          Content                            content,
          std::uint32_t                      seed,
          double                             low = -50.0,
          double                             high = 150.0)
{
  auto image = TImage::New();
  image->SetRegions(typename TImage::RegionType(start, size));
  typename TImage::SpacingType spacing;
  for (unsigned int d = 0; d < TImage::ImageDimension; ++d)
  {
    spacing[d] = 0.5 + d * 0.25;
  }
  image->SetSpacing(spacing);
  image->Allocate();
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  constexpr unsigned int                 D = TImage::ImageDimension;
  double                                 frequency[D], phase[D];
  for (unsigned int d = 0; d < D; ++d)
  {
    frequency[d] = 0.05 + 0.2 * unit(rng);
    phase[d] = 6.28 * unit(rng);
  }
  using PixelType = typename TImage::PixelType;
  // The cosines add up to 0.5 +- 0.45 at most (plus a ramp of at most 0.01 per
  // axis), inside the clamp's [0, 1]: a clamp that bites flattens the content, and a
  // small image could be flattened whole. With 0.2 each in 4-D an 8x9x6x7 table came
  // out constant (largest gradient 1.6e-13;
  // CubicBSplineTableCPU.ValuesOfAnotherScalarType, H100, 2026-11-26).
  const double amplitude = std::min(0.2, 0.45 / D);
  for (itk::ImageRegionIteratorWithIndex<TImage> it(image, image->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    double value;
    if (content == Content::Random)
    {
      value = unit(rng);
    }
    else
    {
      value = 0.5;
      for (unsigned int d = 0; d < TImage::ImageDimension; ++d)
      {
        const double x = static_cast<double>(it.GetIndex()[d] - start[d]);
        value += amplitude * std::cos(frequency[d] * x + phase[d]) + 0.01 * x / (1.0 + size[d]);
      }
      value = std::clamp(value, 0.0, 1.0);
    }
    it.Set(static_cast<PixelType>(low + (high - low) * value));
  }
  return image;
}

/** How much the float tolerances of the prefilter's and the lookups' tests (a few
 * 1e-6 of the data range, measured in 1-D to 4-D) grow past 4-D: each prefilter pass
 * rounds to float, and every later pass can amplify those errors by the cubic
 * prefilter's gain, at most its impulse response's sum of magnitudes
 * sqrt(3) (1 + |z|) / (1 - |z|) = 3, so each axis past the fourth multiplies the
 * tolerance by 3. Measured on the CPU
 * path (smooth data of range 300, 5 seeds): max |float - ITK double| up to 1.0e-3 in
 * 5-D and 2.6e-3 in 6-D, 2 to 4 times ITK's own float filter's (which sums each
 * line in double); tolerances 3.6e-3 and 1.1e-2. */
inline double
FloatPassGrowth(unsigned int dimension)
{
  return dimension > 4 ? std::pow(3.0, static_cast<double>(dimension - 4)) : 1.0;
}

struct ErrorStats
{
  double      maxAbs = 0; ///< largest |a - b|
  double      rms = 0;    ///< root mean square of a - b
  double      maxRef = 0; ///< largest |b| (the reference's scale)
  std::size_t count = 0;
};

/** Differences of two buffers of scalars (a tested, b reference). */
template <typename TA, typename TB>
ErrorStats
Compare(const TA * a, const TB * b, std::size_t count)
{
  ErrorStats s;
  double     sum = 0;
  for (std::size_t i = 0; i < count; ++i)
  {
    const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    s.maxAbs = std::max(s.maxAbs, std::fabs(d));
    s.maxRef = std::max(s.maxRef, std::fabs(static_cast<double>(b[i])));
    sum += d * d;
  }
  s.count = count;
  s.rms = count ? std::sqrt(sum / count) : 0;
  return s;
}

/** Registers a new instance of an object factory for the lifetime of this object,
 * so that the ITK references of later tests in the same process stay ITK's own. */
template <typename TFactory>
class ScopedFactory
{
public:
  ScopedFactory()
    : m_Factory(TFactory::New())
  {
    itk::ObjectFactoryBase::RegisterFactory(m_Factory);
  }
  ~ScopedFactory() { itk::ObjectFactoryBase::UnRegisterFactory(m_Factory); }
  ScopedFactory(const ScopedFactory &) = delete;
  ScopedFactory &
  operator=(const ScopedFactory &) = delete;

private:
  typename TFactory::Pointer m_Factory;
};

/** Sets the pinned staging settings (cifPinnedStaging.h) for the lifetime of this
 * object, then restores the process's. */
class ScopedStagingSettings
{
public:
  explicit ScopedStagingSettings(const cif::PinnedStagingSettings & settings)
  {
    cif::SetPinnedStagingSettings(settings);
  }
  ~ScopedStagingSettings() { cif::SetPinnedStagingSettings(m_Saved); }
  ScopedStagingSettings(const ScopedStagingSettings &) = delete;
  ScopedStagingSettings &
  operator=(const ScopedStagingSettings &) = delete;

private:
  cif::PinnedStagingSettings m_Saved = cif::GetPinnedStagingSettings();
};

/** Sets one of the library's byte-count settings (\a Get / \a Set) for the scope of
 * a test, then restores it. */
template <std::size_t (*Get)(), void (*Set)(std::size_t)>
class ScopedByteSetting
{
public:
  explicit ScopedByteSetting(std::size_t bytes)
    : m_Previous(Get())
  {
    Set(bytes);
  }
  ~ScopedByteSetting() { Set(m_Previous); }
  ScopedByteSetting(const ScopedByteSetting &) = delete;
  ScopedByteSetting &
  operator=(const ScopedByteSetting &) = delete;

private:
  std::size_t m_Previous;
};

/** The cap on pinned host memory. */
using ScopedPinnedHostLimit = ScopedByteSetting<cif::GetPinnedHostLimit, cif::SetPinnedHostLimit>;
/** cif::SetPinnedOutputMinimumBytes: tests pin small images. */
using ScopedPinnedOutputMinimum = ScopedByteSetting<cif::GetPinnedOutputMinimumBytes, cif::SetPinnedOutputMinimumBytes>;
/** The device memory limit. */
using ScopedDeviceMemoryLimit = ScopedByteSetting<cif::GetDeviceMemoryLimit, cif::SetDeviceMemoryLimit>;
/** Device allocations above a size that fail as the driver's do (cifSimulatedOutOfMemory.h). */
using ScopedAllocationFailuresAbove =
  ScopedByteSetting<cif::GetSimulatedAllocationCeiling, cif::SimulateAllocationFailuresAbove>;

/** True when two buffers hold the same bits (NaN equal to the same NaN). */
template <typename T>
bool
SameBits(const T * a, const T * b, std::size_t count)
{
  return std::memcmp(a, b, count * sizeof(T)) == 0;
}

inline std::ostream &
operator<<(std::ostream & os, const ErrorStats & s)
{
  return os << "max |diff| " << s.maxAbs << ", rms " << s.rms << ", max |reference| " << s.maxRef << " over " << s.count
            << " values";
}
/** A direction matrix turned by \a angle (radians) in the x-y plane. */
template <unsigned int D>
itk::Matrix<double, D, D>
RotationDirection(double angle)
{
  itk::Matrix<double, D, D> m;
  m.SetIdentity();
  m[0][0] = std::cos(angle);
  m[0][1] = -std::sin(angle);
  m[1][0] = std::sin(angle);
  m[1][1] = std::cos(angle);
  return m;
}

} // namespace cif_test

#endif
