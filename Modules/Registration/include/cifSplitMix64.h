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
#ifndef cifSplitMix64_h
#define cifSplitMix64_h

#include <cstdint>

/** \file cifSplitMix64.h
 * SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014; the generator of Java's SplittableRandom and the seeder
 * recommended for the xoshiro family): a 64-bit counter stepped by the golden ratio,
 * then a bijective mix. It passes BigCrush and costs about a nanosecond a number,
 * where std::mt19937_64 costs four or five (its state of 312 words is regenerated in
 * bulk): the registration draws thousands of random points at every iteration, on
 * the host, between the device's evaluations. A UniformRandomBitGenerator, so the
 * standard distributions take it. */
namespace cif
{
class SplitMix64
{
public:
  using result_type = std::uint64_t;

  explicit SplitMix64(std::uint64_t seed = 0)
    : m_State(seed)
  {}

  void
  seed(std::uint64_t seed)
  {
    m_State = seed;
  }

  static constexpr result_type
  min()
  {
    return 0;
  }
  static constexpr result_type
  max()
  {
    return ~result_type(0);
  }

  result_type
  operator()()
  {
    std::uint64_t z = (m_State += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

private:
  std::uint64_t m_State;
};
} // namespace cif

#endif
