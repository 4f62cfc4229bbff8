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
#ifndef cifDirectionalFilterBankFilters_h
#define cifDirectionalFilterBankFilters_h

// The two filter families of the directional filter bank's 2-band stage, as 1-D
// periodic FIR kernels applied separably to the two polyphase components.
//
// Every 1-D filter is a correlation kernel: out[i] = Σ_d c[d] · x[i + d], for d in
// [first, first + count). Keeping the offset explicit is what makes the half-sample
// alignment of the two polyphase components visible in one number.
#include <algorithm>
#include <cmath>
#include <complex>
#include <stdexcept>
#include <string>
#include <vector>

namespace cif
{
/** Which filters the 2-band stages use.
 * - Ladder structures (lifting): perfect reconstruction for any filter, by
 *   construction. The PKVA filters (Phoong, Kim, Vaidyanathan, Ansari 1995) are
 *   those of the Do–Vetterli contourlet toolbox ("pkva6", "pkva8", "pkva12").
 * - QMF: the seed thesis's half-band QMF h0 (its Tables 4.1 / 4.2, Johnston's 8- and
 *   16-tap filters) in Bamberger's polyphase sum/difference structure
 *   y0,1 = (A p0 ∓ B p1)/√2, A and B the separable products of h0's even and odd
 *   polyphase filters. Its synthesis inverts A and B exactly (periodic inverse
 *   filters; their taps decay by ~4× per tap, see InversePeriodicKernel). */
enum class DirectionalFilterSet
{
  LadderPKVA12,
  LadderPKVA8,
  LadderPKVA6,
  QMF8,
  QMF16
};

inline const char *
ToString(DirectionalFilterSet set)
{
  switch (set)
  {
    case DirectionalFilterSet::LadderPKVA12:
      return "ladder-pkva12";
    case DirectionalFilterSet::LadderPKVA8:
      return "ladder-pkva8";
    case DirectionalFilterSet::LadderPKVA6:
      return "ladder-pkva6";
    case DirectionalFilterSet::QMF8:
      return "qmf8";
    default:
      return "qmf16";
  }
}

/** Every filter set, in the order of the enum. */
inline const DirectionalFilterSet kDirectionalFilterSets[] = { DirectionalFilterSet::LadderPKVA12,
                                                               DirectionalFilterSet::LadderPKVA8,
                                                               DirectionalFilterSet::LadderPKVA6,
                                                               DirectionalFilterSet::QMF8,
                                                               DirectionalFilterSet::QMF16 };

/** The filter set ToString names \a name; std::invalid_argument listing the names
 * for any other. */
inline DirectionalFilterSet
DirectionalFilterSetNamed(const std::string & name)
{
  for (auto set : kDirectionalFilterSets)
  {
    if (name == ToString(set))
    {
      return set;
    }
  }
  throw std::invalid_argument("unknown filter set '" + name +
                              "' (ladder-pkva12, ladder-pkva8, ladder-pkva6, qmf8, qmf16)");
}

inline bool
IsLadder(DirectionalFilterSet set)
{
  return set == DirectionalFilterSet::LadderPKVA12 || set == DirectionalFilterSet::LadderPKVA8 ||
         set == DirectionalFilterSet::LadderPKVA6;
}

/** A 1-D correlation kernel: out[i] = Σ_k taps[k] · x[i + first + k]. */
struct CorrelationKernel
{
  int                 first = 0;
  std::vector<double> taps;
};

/** The ladder filter: the PKVA half-band filter f = [reverse(v), v], modulated by
 * (-1)^(k+1) (the fan filter is the diamond filter shifted by π), aligned half a
 * sample before (shift 1) or after (shift 0) the output sample. */
inline CorrelationKernel
LadderKernel(DirectionalFilterSet set, int shift)
{
  std::vector<double> v;
  switch (set)
  {
    case DirectionalFilterSet::LadderPKVA12:
      v = { 0.6300, -0.1930, 0.0972, -0.0526, 0.0272, -0.0144 };
      break;
    case DirectionalFilterSet::LadderPKVA8:
      v = { 0.6302, -0.1924, 0.0930, -0.0403 };
      break;
    case DirectionalFilterSet::LadderPKVA6:
      v = { 0.6261, -0.1794, 0.0688 };
      break;
    default:
      throw std::invalid_argument("LadderKernel: not a ladder filter set");
  }
  const int           half = static_cast<int>(v.size());
  const int           length = 2 * half;
  std::vector<double> f(length);
  for (int k = 0; k < half; ++k)
  {
    f[half - 1 - k] = v[k];
    f[half + k] = v[k];
  }
  // out[i] = Σ_k g[k] x[i + origin - k], origin = length - 1 - ((length - 1) / 2 + shift)
  const int         origin = length - 1 - ((length - 1) / 2 + shift);
  CorrelationKernel kernel;
  kernel.first = origin - (length - 1);
  kernel.taps.resize(length);
  for (int k = 0; k < length; ++k)
  {
    const double g = (k % 2 == 0) ? -f[k] : f[k];
    kernel.taps[origin - k - kernel.first] = g;
  }
  return kernel;
}

/** The thesis's QMF h0 (Tables 4.1 and 4.2). */
inline std::vector<double>
QMFLowpass(DirectionalFilterSet set)
{
  if (set == DirectionalFilterSet::QMF8)
  {
    return { .93871500e-02, -.70651830e-01, .69428270e-01,  .48998080e+00,
             .48998080e+00, .69428270e-01,  -.70651830e-01, .93871500e-02 };
  }
  if (set == DirectionalFilterSet::QMF16)
  {
    return { .10501670e-02, -.50545260e-02, -.25897560e-02, .27641400e-01, -.96663760e-02, -.90392230e-01,
             .97798170e-01, .48102840e+00,  .48102840e+00,  .97798170e-01, -.90392230e-01, -.96663760e-02,
             .27641400e-01, -.25897560e-02, -.50545260e-02, .10501670e-02 };
  }
  throw std::invalid_argument("QMFLowpass: not a QMF filter set");
}

/** Polyphase filter `phase` (0: p0[m] = h0[2m], 1: p1[m] = h0[2m+1]) of the QMF as a
 * correlation kernel, modulated by (-1)^m and scaled by 2 (each polyphase filter of
 * h0 sums to ½; the stage keeps unit gain).
 *
 * Why this alignment: the sum/difference structure y = A p0 ∓ B p1 = A (p0 ∓ (B/A) p1)
 * is the ladder's first step p0 − F p1 with F replaced by B/A, an exact all-pass for
 * a linear-phase QMF (p1 is p0 reversed). The modulation moves its transition to DC
 * as the ladder's modulated filter has it, and the odd phase one sample earlier
 * makes B/A follow the ladder filter's half-sample phase; the directionality test
 * (DirectionalFilterBankTest) checks the resulting wedges, which match the ladder's
 * subband for subband. */
inline CorrelationKernel
QMFPolyphaseKernel(DirectionalFilterSet set, int phase)
{
  const std::vector<double> h0 = QMFLowpass(set);
  const int                 length = static_cast<int>(h0.size()) / 2;
  CorrelationKernel         kernel;
  // y[n] = Σ_m p[m] x[n - m] as a correlation (d = -m), centred by length/2.
  kernel.first = -(length - 1) + length / 2 - phase;
  kernel.taps.resize(length);
  for (int m = 0; m < length; ++m)
  {
    const double sign = (m % 2 == 0) ? 1.0 : -1.0;
    kernel.taps[(length - 1) - m] = 2.0 * sign * h0[2 * m + phase];
  }
  return kernel;
}

/** The inverse of a periodic correlation kernel on lines of length `period`: the
 * kernel whose circular correlation undoes it (division by its DFT). The taps are
 * returned for the whole period when it is short, and otherwise for |d| ≤ 96 — the
 * QMF polyphase filters' zeros lie at |z| ≤ 0.27 or ≥ 4.2, so the inverse decays
 * below 1e-50 of its peak there, far past double precision. Throws if the kernel
 * has a zero on the period's DFT grid (not invertible). */
inline CorrelationKernel
InversePeriodicKernel(const CorrelationKernel & kernel, long long period)
{
  const double                      pi = 3.14159265358979323846;
  std::vector<std::complex<double>> inverseSpectrum(static_cast<std::size_t>(period));
  for (long long k = 0; k < period; ++k)
  {
    std::complex<double> sum = 0.0;
    for (std::size_t t = 0; t < kernel.taps.size(); ++t)
    {
      const long long d = kernel.first + static_cast<long long>(t);
      const double    angle = 2.0 * pi * static_cast<double>((k * d) % period) / static_cast<double>(period);
      sum += kernel.taps[t] * std::complex<double>(std::cos(angle), std::sin(angle));
    }
    if (std::abs(sum) < 1e-12)
    {
      throw std::runtime_error("InversePeriodicKernel: the filter has a zero on the DFT grid of period " +
                               std::to_string(period));
    }
    inverseSpectrum[static_cast<std::size_t>(k)] = 1.0 / sum;
  }
  constexpr long long reach = 96;
  CorrelationKernel   inverse;
  long long           count;
  if (period <= 2 * reach + 1)
  {
    inverse.first = -static_cast<int>((period - 1) / 2);
    count = period;
  }
  else
  {
    inverse.first = -static_cast<int>(reach);
    count = 2 * reach + 1;
  }
  inverse.taps.resize(static_cast<std::size_t>(count));
  for (long long t = 0; t < count; ++t)
  {
    const long long      d = inverse.first + t;
    std::complex<double> sum = 0.0;
    for (long long k = 0; k < period; ++k)
    {
      const long long phase = ((k * d) % period + period) % period;
      const double    angle = -2.0 * pi * static_cast<double>(phase) / static_cast<double>(period);
      sum += inverseSpectrum[static_cast<std::size_t>(k)] * std::complex<double>(std::cos(angle), std::sin(angle));
    }
    inverse.taps[static_cast<std::size_t>(t)] = sum.real() / static_cast<double>(period);
  }
  // Drop the tails that are below double precision (they only cost time).
  double peak = 0.0;
  for (double v : inverse.taps)
  {
    peak = std::max(peak, std::abs(v));
  }
  std::size_t begin = 0, end = inverse.taps.size();
  if (period > 2 * reach + 1)
  {
    while (begin < end && std::abs(inverse.taps[begin]) < 1e-20 * peak)
    {
      ++begin;
    }
    while (end > begin && std::abs(inverse.taps[end - 1]) < 1e-20 * peak)
    {
      --end;
    }
  }
  inverse.first += static_cast<int>(begin);
  inverse.taps = std::vector<double>(inverse.taps.begin() + begin, inverse.taps.begin() + end);
  return inverse;
}
} // namespace cif

#endif
