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
#ifndef cifRecursiveGaussianMath_h
#define cifRecursiveGaussianMath_h

#include "cifHostDevice.h"
#include "cifPixelRounding.h"
#include "cifUnfusedArithmetic.h"

#include <cstdint>

/** \file cifRecursiveGaussianMath.h
 * The 1-D recursive Gaussian of itk::RecursiveSeparableImageFilter::FilterDataArray
 * (Deriche's 4th-order causal + anticausal recursion with ITK's edge-extension
 * starting values), written once for the CPU path and the CUDA kernels. Plain types
 * only: the coefficients come from ITK's own RecursiveGaussianImageFilter::SetUp on
 * the host (itkRecursiveGaussianCoefficients.h).
 *
 * Every product and sum is evaluated in double in ITK's order, (((a1 b1 + a2 b2) +
 * a3 b3) + a4 b4), and on the device without fused multiply-adds (MulUnfused / AddUnfused /
 * SubUnfused, cifUnfusedArithmetic.h), so that the CPU path and the GPU give ITK's bits where ITK's build
 * does not fuse either (x86-64 without -mfma, Debian's). */
namespace cif
{
/** The coefficients of one recursive Gaussian pass (ITK's m_N0..m_BM4 after SetUp). */
struct RecursiveGaussianCoefficients
{
  double n0 = 1, n1 = 1, n2 = 1, n3 = 1;
  double d1 = 0, d2 = 0, d3 = 0, d4 = 0;
  double m1 = 0, m2 = 0, m3 = 0, m4 = 0;
  double bn1 = 0, bn2 = 0, bn3 = 0, bn4 = 0;
  double bm1 = 0, bm2 = 0, bm3 = 0, bm4 = 0;
};

/** The most dimensions the passes take. */
constexpr int kGaussianMaxDimension = 4;

/** A dense volume of one scalar per pixel, x fastest. */
struct GaussianShape
{
  int          dimension = 1;
  std::int64_t size[kGaussianMaxDimension] = { 1, 1, 1, 1 };

  CIF_HD std::int64_t
         Count() const
  {
    std::int64_t n = 1;
    for (int d = 0; d < dimension; ++d)
    {
      n *= size[d];
    }
    return n;
  }
};

/** Where a pass writes and what it does to each result before storing it. */
struct GaussianPassOutput
{
  /** The destination holds \a components scalars per pixel; the pass writes number
   * \a component of each (the gradient's interleaved CovariantVector). */
  int components = 1;
  int component = 0;
  /** Round each result to float before storing it (in double): the float images
   * between ITK's passes (the internal images of SmoothingRecursiveGaussianImageFilter
   * and GradientRecursiveGaussianImageFilter are float in ITK 5.2 for float and
   * double input: NumericTraits<double>::FloatType is float). With a divisor the
   * quotient is rounded to float again, as ITK's gradient passes it through
   * DefaultConvertPixelTraits<float> and its float NthElementImageAdaptor. */
  bool roundToFloat = false;
  /** Divide each (rounded) result by this: the gradient's division by the spacing. */
  double divisor = 1.0;
};

/** The lines of a GaussianShape along one axis: line l starts at Start(l) (in pixels)
 * and has \a length samples \a stride pixels apart. Lines are numbered with the other
 * axes in increasing order, so that neighbouring lines are neighbours along x
 * (coalesced loads on the device) whenever the axis is not x. */
struct GaussianLines
{
  std::int64_t count = 0;
  std::int64_t length = 0;
  std::int64_t stride = 1;
  int          others = 0;
  std::int64_t otherSize[kGaussianMaxDimension - 1] = { 1, 1, 1 };
  std::int64_t otherStride[kGaussianMaxDimension - 1] = { 0, 0, 0 };

  CIF_HD std::int64_t
         Start(std::int64_t line) const
  {
    std::int64_t offset = 0;
    for (int k = 0; k < others; ++k)
    {
      const std::int64_t q = line / otherSize[k];
      offset += (line - q * otherSize[k]) * otherStride[k];
      line = q;
    }
    return offset;
  }
};

inline GaussianLines
MakeGaussianLines(const GaussianShape & shape, int axis)
{
  GaussianLines lines;
  std::int64_t  stride = 1;
  lines.count = 1;
  for (int d = 0; d < shape.dimension; ++d)
  {
    if (d == axis)
    {
      lines.length = shape.size[d];
      lines.stride = stride;
    }
    else
    {
      lines.otherSize[lines.others] = shape.size[d];
      lines.otherStride[lines.others] = stride;
      ++lines.others;
      lines.count *= shape.size[d];
    }
    stride *= shape.size[d];
  }
  return lines;
}


/** ITK's MathEMAMAMAM: a1 b1 + a2 b2 + a3 b3 + a4 b4, left to right. */
CIF_HD double
Sum4(double a1, double b1, double a2, double b2, double a3, double b3, double a4, double b4)
{
  return AddUnfused(AddUnfused(AddUnfused(MulUnfused(a1, b1), MulUnfused(a2, b2)), MulUnfused(a3, b3)),
                    MulUnfused(a4, b4));
}

/** What a pass stores for one result: rounded to float when asked, then divided
 * (and the quotient rounded to float again when asked). */
CIF_HD double
FinishGaussianValue(double v, bool roundToFloat, double divisor)
{
  if (roundToFloat)
  {
    v = RoundToFloat(v);
  }
  if (divisor != 1.0)
  {
    v = v / divisor;
    if (roundToFloat)
    {
      v = RoundToFloat(v);
    }
  }
  return v;
}

/** One line of n >= 4 samples: out[i] = Finish(causal[i] + anticausal[i]) exactly as
 * ITK's FilterDataArray sums them (outs[i] += scratch2[i]). \a data is read as
 * double (operator[] returning something convertible); \a out is a double line the
 * function uses as its scratch: the anticausal sweep stores there first, the causal
 * sweep then adds its values and stores the finished results. \a data and \a out
 * must not overlap. */
template <typename TData, typename TOut>
CIF_HD void
RecursiveGaussianLine(const TData &                         data,
                      TOut &                                out,
                      std::int64_t                          n,
                      const RecursiveGaussianCoefficients & c,
                      bool                                  roundToFloat,
                      double                                divisor)
{
  // Anticausal sweep (ITK's second), stored into out.
  {
    const double v = static_cast<double>(data[n - 1]); // assumed from the border to infinity
    const double x1 = v;                               // data[n - 1]
    const double x2 = static_cast<double>(data[n - 2]);
    const double x3 = static_cast<double>(data[n - 3]);
    double       s1 = Sum4(v, c.m1, v, c.m2, v, c.m3, v, c.m4);    // scratch2[n-1]
    double       s2 = Sum4(x1, c.m1, v, c.m2, v, c.m3, v, c.m4);   // scratch2[n-2]
    double       s3 = Sum4(x2, c.m1, x1, c.m2, v, c.m3, v, c.m4);  // scratch2[n-3]
    double       s4 = Sum4(x3, c.m1, x2, c.m2, x1, c.m3, v, c.m4); // scratch2[n-4]
    s1 = SubUnfused(s1, Sum4(v, c.bm1, v, c.bm2, v, c.bm3, v, c.bm4));
    s2 = SubUnfused(s2, Sum4(s1, c.d1, v, c.bm2, v, c.bm3, v, c.bm4));
    s3 = SubUnfused(s3, Sum4(s2, c.d1, s1, c.d2, v, c.bm3, v, c.bm4));
    s4 = SubUnfused(s4, Sum4(s3, c.d1, s2, c.d2, s1, c.d3, v, c.bm4));
    out[n - 1] = s1;
    out[n - 2] = s2;
    out[n - 3] = s3;
    out[n - 4] = s4;
    // Rolling windows: y1 = scratch2[i], y2 = scratch2[i+1], ...; a1 = data[i], ...
    double y1 = s4, y2 = s3, y3 = s2, y4 = s1;
    // ITK: for (i = n - 4; i > 0; i--) scratch2[i-1] from data[i..i+3] (a1..a4 here)
    // and scratch2[i..i+3] (y1..y4).
    double a1 = static_cast<double>(data[n - 4]), a2 = x3, a3 = x2, a4 = x1;
    for (std::int64_t i = n - 4; i > 0; --i)
    {
      double s = Sum4(a1, c.m1, a2, c.m2, a3, c.m3, a4, c.m4);
      s = SubUnfused(s, Sum4(y1, c.d1, y2, c.d2, y3, c.d3, y4, c.d4));
      out[i - 1] = s;
      y4 = y3;
      y3 = y2;
      y2 = y1;
      y1 = s;
      a4 = a3;
      a3 = a2;
      a2 = a1;
      if (i > 1)
      {
        a1 = static_cast<double>(data[i - 1]);
      }
    }
  }
  // Causal sweep (ITK's first), added to the anticausal values.
  {
    const double v = static_cast<double>(data[0]);
    const double x1 = static_cast<double>(data[1]);
    const double x2 = static_cast<double>(data[2]);
    const double x3 = static_cast<double>(data[3]);
    double       s0 = Sum4(v, c.n0, v, c.n1, v, c.n2, v, c.n3);
    double       s1 = Sum4(x1, c.n0, v, c.n1, v, c.n2, v, c.n3);
    double       s2 = Sum4(x2, c.n0, x1, c.n1, v, c.n2, v, c.n3);
    double       s3 = Sum4(x3, c.n0, x2, c.n1, x1, c.n2, v, c.n3);
    s0 = SubUnfused(s0, Sum4(v, c.bn1, v, c.bn2, v, c.bn3, v, c.bn4));
    s1 = SubUnfused(s1, Sum4(s0, c.d1, v, c.bn2, v, c.bn3, v, c.bn4));
    s2 = SubUnfused(s2, Sum4(s1, c.d1, s0, c.d2, v, c.bn3, v, c.bn4));
    s3 = SubUnfused(s3, Sum4(s2, c.d1, s1, c.d2, s0, c.d3, v, c.bn4));
    out[0] = FinishGaussianValue(AddUnfused(s0, static_cast<double>(out[0])), roundToFloat, divisor);
    out[1] = FinishGaussianValue(AddUnfused(s1, static_cast<double>(out[1])), roundToFloat, divisor);
    out[2] = FinishGaussianValue(AddUnfused(s2, static_cast<double>(out[2])), roundToFloat, divisor);
    out[3] = FinishGaussianValue(AddUnfused(s3, static_cast<double>(out[3])), roundToFloat, divisor);
    // y1 = scratch1[i-1], ..., y4 = scratch1[i-4]; a1 = data[i-1], a2 = data[i-2], a3 = data[i-3].
    double y1 = s3, y2 = s2, y3 = s1, y4 = s0;
    double a1 = x3, a2 = x2, a3 = x1;
    for (std::int64_t i = 4; i < n; ++i)
    {
      const double x = static_cast<double>(data[i]);
      double       s = Sum4(x, c.n0, a1, c.n1, a2, c.n2, a3, c.n3);
      s = SubUnfused(s, Sum4(y1, c.d1, y2, c.d2, y3, c.d3, y4, c.d4));
      out[i] = FinishGaussianValue(AddUnfused(s, static_cast<double>(out[i])), roundToFloat, divisor);
      y4 = y3;
      y3 = y2;
      y2 = y1;
      y1 = s;
      a3 = a2;
      a2 = a1;
      a1 = x;
    }
  }
}

/** A strided line of a buffer: element k is p[k * stride]. */
template <typename T>
struct GaussianStridedLine
{
  T *          p;
  std::int64_t stride;
  CIF_HD T &
  operator[](std::int64_t k) const
  {
    return p[k * stride];
  }
};

/** The gradient's direction correction of one pixel's D components in place:
 * g <- Direction g, summed as ImageBase::TransformLocalVectorToPhysicalVector sums. */
template <typename TLine>
CIF_HD void
RotateCovariantPixel(TLine & g, int dimension, const double * direction)
{
  double in[kGaussianMaxDimension];
  for (int j = 0; j < dimension; ++j)
  {
    in[j] = g[j];
  }
  for (int i = 0; i < dimension; ++i)
  {
    double sum = 0.0;
    for (int j = 0; j < dimension; ++j)
    {
      sum = AddUnfused(sum, MulUnfused(direction[i * dimension + j], in[j]));
    }
    g[i] = sum;
  }
}
} // namespace cif

#endif
