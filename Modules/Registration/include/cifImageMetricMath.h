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
#ifndef cifImageMetricMath_h
#define cifImageMetricMath_h

#include "cifHostDevice.h"
#include "cifMetricImageSampling.h"
#include "cifPixelRounding.h"
#include "cifTransformChain.h"

#include <cstdint>
#include <cstring>

/** \file cifImageMetricMath.h
 * What an ITK v4 image metric does at one point of its virtual domain
 * (itk::ImageToImageMetricv4GetValueAndDerivativeThreaderBase::ProcessVirtualPoint),
 * as plain data and functions that the CUDA kernels and the CPU path share: the
 * point mapped into the fixed and the moving image, the masks, ITK's IsInsideBuffer,
 * the fixed value by linear interpolation, the moving value (linear or cubic
 * B-spline), the moving gradient (the gradient image linearly interpolated, or
 * central differences), and the moving transform split into the stage being
 * optimized and the fixed stages around it, so that the derivative can be formed as
 * an adjoint (a "force" per point, gathered per parameter) instead of ITK's
 * per-point Jacobian. 2-D and 3-D. The images' side (buffer grids, masks, linear and
 * cubic sampling, the moving gradient) is cifMetricImageSampling.h. */
namespace cif
{
/** p' = matrix p + offset (a composed chain of affine-family transforms). */
struct AffineMap
{
  double matrix[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
  double offset[3] = { 0, 0, 0 };
};

template <int D>
CIF_HD void
ApplyAffineMap(const AffineMap & map, const double p[3], double out[3])
{
  double r[3] = { 0, 0, 0 };
  for (int i = 0; i < D; ++i) // ITK: m_Matrix * point + m_Offset
  {
    for (int j = 0; j < D; ++j)
    {
      r[i] = MulAddUnfused(map.matrix[i][j], p[j], r[i]);
    }
    r[i] += map.offset[i];
  }
  for (int i = 0; i < 3; ++i)
  {
    out[i] = r[i];
  }
}

/** Whether \a map is exactly the identity (a fixed or surrounding stage that is
 * not there: the common case). Its product then returns the point itself (up to
 * the sign of a zero), so a kernel may skip the 2 D^2 roundings. */
inline bool
IsIdentityMap(const AffineMap & map)
{
  for (int i = 0; i < 3; ++i)
  {
    for (int j = 0; j < 3; ++j)
    {
      if (map.matrix[i][j] != (i == j ? 1.0 : 0.0))
      {
        return false;
      }
    }
    if (map.offset[i] != 0.0)
    {
      return false;
    }
  }
  return true;
}

/** ApplyAffineMap, or a copy of \a p where \a identity says the map is the identity. */
template <int D>
CIF_HD void
ApplyAffineMapUnless(bool identity, const AffineMap & map, const double p[3], double out[3])
{
  if (identity)
  {
    for (int i = 0; i < 3; ++i)
    {
      out[i] = p[i];
    }
    return;
  }
  ApplyAffineMap<D>(map, p, out);
}

/** The moving transform as the metric sees it: fixed stages before (\a before) and
 * after (\a after) the one stage being optimized, which is affine-family (its
 * current matrix and offset) or a cubic B-spline (cifTransformChain.h's stage, with
 * the current coefficients). The moving point is after(optimized(before(v))). */
enum class OptimizedStageKind : int
{
  Affine = 0,
  BSpline = 1
};

struct MetricMovingTransform
{
  AffineMap          before;
  OptimizedStageKind kind = OptimizedStageKind::Affine;
  AffineMap          affine;
  TransformStage     bspline;
  AffineMap          after;
  /** Set by MarkIdentityStages just before a launch (false: always multiply). */
  bool beforeIsIdentity = false;
  bool afterIsIdentity = false;
};

/** The virtual domain's points: a dense grid (every index of the virtual region)
 * or a list of physical points. */
struct MetricDomain
{
  const double * points = nullptr; ///< D doubles per point; null: dense grid
  std::int64_t   count = 0;
  std::int64_t   start[3] = { 0, 0, 0 };
  std::int64_t   size[3] = { 1, 1, 1 };
  double         origin[3] = { 0, 0, 0 };
  double         indexToPoint[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
};

/** ImageBase::TransformIndexToPhysicalPoint of the dense grid's index \a index. */
template <int D>
CIF_HD void
VirtualPointAtIndex(const MetricDomain & domain, const double index[3], double v[3])
{
  for (int i = 0; i < 3; ++i)
  {
    double sum = domain.origin[i];
    if (i < D)
    {
      for (int j = 0; j < D; ++j)
      {
        sum = MulAddUnfused(domain.indexToPoint[i][j], index[j], sum);
      }
    }
    v[i] = i < D ? sum : 0.0;
  }
}

/** The dense grid's \a n-th index (in the region's x-fastest order) as a physical
 * point, or the n-th listed point. */
template <int D>
CIF_HD void
VirtualPointOf(const MetricDomain & domain, std::int64_t n, double v[3])
{
  if (domain.points != nullptr)
  {
    for (int a = 0; a < 3; ++a)
    {
      v[a] = a < D ? domain.points[D * n + a] : 0.0;
    }
    return;
  }
  // 32-bit division (the domain has fewer than 2^31 points: the scene checks it); a
  // 64-bit division costs a GPU several times as many instructions.
  double        index[3] = { 0, 0, 0 };
  std::uint32_t rest = static_cast<std::uint32_t>(n);
  for (int a = 0; a < D; ++a)
  {
    const auto size = static_cast<std::uint32_t>(domain.size[a]);
    index[a] = static_cast<double>(domain.start[a] + static_cast<std::int64_t>(rest % size));
    rest /= size;
  }
  VirtualPointAtIndex<D>(domain, index, v);
}

/** Everything a metric evaluation keeps between iterations. */
template <typename TValue>
struct MetricScene
{
  MetricDomain              domain;
  AffineMap                 fixedTransform;          ///< virtual -> fixed
  bool                      fixedIsIdentity = false; ///< set by MarkIdentityStages (false: always multiply)
  MetricImage<TValue>       fixed;
  MetricImage<std::uint8_t> fixedMask; ///< data null: no mask
  MovingSampling<TValue>    moving;
  MetricImage<std::uint8_t> movingMask; ///< data null: no mask
};

/** The identity flags of \a scene's fixed transform and \a transform's surrounding
 * stages, from the maps themselves (done on the copies a launch passes, so a flag
 * never outlives its map). */
template <typename TValue>
void
MarkIdentityStages(MetricScene<TValue> & scene, MetricMovingTransform & transform)
{
  scene.fixedIsIdentity = IsIdentityMap(scene.fixedTransform);
  transform.beforeIsIdentity = IsIdentityMap(transform.before);
  transform.afterIsIdentity = IsIdentityMap(transform.after);
}

/** One point's samples as ITK's ProcessVirtualPoint leaves them for the metric's
 * ProcessPoint: valid, the fixed and moving values (in the pixel type, as ITK
 * stores them), the moving gradient, and the optimized stage's input point \a q. */
struct MetricPointSample
{
  bool   valid = false;
  double fixedValue = 0.0;
  double movingValue = 0.0;
  double movingGradient[3] = { 0, 0, 0 };
  double q[3] = { 0, 0, 0 };
};

/** The optimized stage as MetricMovingTransform holds it: its current affine map or
 * B-spline (a callable stage for SampleMetricPointThrough). */
struct OptimizedStageOf
{
  const MetricMovingTransform & transform;

  template <int D>
  CIF_HD void
  Apply(const double q[3], double y[3]) const
  {
    if (transform.kind == OptimizedStageKind::Affine)
    {
      ApplyAffineMap<D>(transform.affine, q, y);
    }
    else
    {
      ApplyBSpline<D>(transform.bspline, q, y);
    }
  }
};

/** The scene's fixed transform as a stage (SampleMetricPointThroughStages). */
template <typename TValue>
struct SceneFixedStage
{
  const MetricScene<TValue> & scene;

  template <int D>
  CIF_HD void
  Apply(const double v[3], double f[3]) const
  {
    ApplyAffineMapUnless<D>(scene.fixedIsIdentity, scene.fixedTransform, v, f);
  }
};

/** ProcessVirtualPoint for virtual point \a v, with the fixed transform given as
 * \a fixedStage and the moving transform's optimized stage as \a stage (types with
 * Apply<D>(in, out)): the neighbourhood correlation passes displacement fields. */
template <int D, typename TValue, typename TFixedStage, typename TStage>
CIF_HD MetricPointSample
SampleMetricPointThroughStages(const MetricScene<TValue> &   scene,
                               const TFixedStage &           fixedStage,
                               const MetricMovingTransform & transform,
                               const TStage &                stage,
                               const double                  v[3],
                               bool                          withGradient)
{
  // Locals, and the sample formed once at the end: a sample filled in place stayed
  // in a kernel's local memory.
  double f[3];
  fixedStage.template Apply<D>(v, f);
  if (scene.fixedMask.data != nullptr && !MetricMaskContains<D>(scene.fixedMask, f))
  {
    return MetricPointSample{};
  }
  double xf[3];
  MetricContinuousIndex<D>(scene.fixed, f, xf);
  if (!MetricInsideBuffer<D>(scene.fixed, xf))
  {
    return MetricPointSample{};
  }
  double fixedValue;
  MetricLinearInterpolate<D, 1>(scene.fixed, xf, &fixedValue);

  double q[3];
  ApplyAffineMapUnless<D>(transform.beforeIsIdentity, transform.before, v, q);
  double y[3];
  stage.template Apply<D>(q, y);
  double m[3];
  ApplyAffineMapUnless<D>(transform.afterIsIdentity, transform.after, y, m);
  if (scene.movingMask.data != nullptr && !MetricMaskContains<D>(scene.movingMask, m))
  {
    return MetricPointSample{};
  }
  double xm[3];
  MetricContinuousIndex<D>(scene.moving.image, m, xm);
  if (!MetricInsideBuffer<D>(scene.moving.image, xm))
  {
    return MetricPointSample{};
  }
  const MovingSampling<TValue> & moving = scene.moving;
  double                         movingValue, gradient[3] = { 0, 0, 0 };
  if (withGradient && moving.coefficients == nullptr && moving.valueAndGradient != nullptr)
  {
    MetricLinearInterpolateValueAndGradient<D>(moving.image, moving.valueAndGradient, xm, movingValue, gradient);
  }
  else if (withGradient && moving.coefficients == nullptr && moving.gradient.data != nullptr &&
           moving.gradientOnImageGrid)
  {
    MetricLinearInterpolateWithGradient<D>(moving.image, moving.gradient, xm, movingValue, gradient);
  }
  else
  {
    movingValue = MovingValueAt<D>(moving, xm);
    if (withGradient)
    {
      MovingGradientAt<D>(moving, m, xm, gradient);
    }
  }
  MetricPointSample s;
  // ITK keeps both values in the pixel type (mappedFixedPixelValue, ...).
  s.fixedValue = RoundToPixelType<TValue>(fixedValue);
  s.movingValue = RoundToPixelType<TValue>(movingValue);
  for (int a = 0; a < 3; ++a)
  {
    s.movingGradient[a] = gradient[a];
    s.q[a] = q[a];
  }
  s.valid = true;
  return s;
}

/** ProcessVirtualPoint for virtual point \a v, with the optimized stage given as
 * \a stage (a type with Apply<D>(q, y)): the cell-box path passes the displacement
 * it has already formed separably for the point. */
template <int D, typename TValue, typename TStage>
CIF_HD MetricPointSample
SampleMetricPointThrough(const MetricScene<TValue> &   scene,
                         const MetricMovingTransform & transform,
                         const TStage &                stage,
                         const double                  v[3],
                         bool                          withGradient)
{
  return SampleMetricPointThroughStages<D>(scene, SceneFixedStage<TValue>{ scene }, transform, stage, v, withGradient);
}

/** ProcessVirtualPoint for virtual point \a v. */
template <int D, typename TValue>
CIF_HD MetricPointSample
SampleMetricPoint(const MetricScene<TValue> &   scene,
                  const MetricMovingTransform & transform,
                  const double                  v[3],
                  bool                          withGradient)
{
  return SampleMetricPointThrough<D>(scene, transform, OptimizedStageOf{ transform }, v, withGradient);
}

/** The derivative of the moving point with respect to the optimized stage's output,
 * transposed, applied to \a g: the force pulled back through the fixed stages after
 * the optimized one (h = after.matrix^T g). */
template <int D>
CIF_HD void
PullBackThroughAfter(const MetricMovingTransform & transform, const double g[3], double h[3])
{
  if (transform.afterIsIdentity)
  {
    for (int j = 0; j < 3; ++j)
    {
      h[j] = j < D ? g[j] : 0.0;
    }
    return;
  }
  for (int j = 0; j < 3; ++j)
  {
    double sum = 0.0;
    if (j < D)
    {
      for (int i = 0; i < D; ++i)
      {
        sum += transform.after.matrix[i][j] * g[i];
      }
    }
    h[j] = sum;
  }
}

/** Number of affine moments kept per evaluation: the force's sum (D) and its
 * products with the offset of q from the reference point (D x D). */
template <int D>
constexpr int kAffineMoments = D + D * D;

/** What a metric evaluation sums over the points: the number of valid points, the
 * metric's sums, and for an affine-family optimized stage the force's moments. */
constexpr int kMaxMetricSums = 2 + 3 + 9;
} // namespace cif

#endif
