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
// ANTs' neighbourhood cross-correlation per virtual voxel: the math the CPU path and the kernels share.
#ifndef cifNeighborhoodCorrelation_h
#define cifNeighborhoodCorrelation_h

#include "CudaImageFiltersExport.h"
#include "cifImageMetricMath.h"
#include "cifTransformChain.h"
#include "cifUnfusedArithmetic.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <vector>

/** \file cifNeighborhoodCorrelation.h
 * ANTSNeighborhoodCorrelationImageToImageMetricv4's dense threader, one virtual voxel
 * at a time: the samples of every voxel first (ITK's TransformAndEvaluateFixedPoint /
 * MovingPoint and the moving gradient), then every window column's sums once (the
 * in-bounds, valid points of one x around a voxel's y and z, in ITK's order: its y
 * offsets inside its z offsets), then per voxel the sums of its window's columns
 * (oldest first, as ITK's queue holds them), ITK's centred sums, local correlation and
 * its derivative with respect to the moving point. Every double operation is rounded on its own (no fused
 * multiply-add), and the pixel-type products are formed in the pixel type, as ITK's code forms them: the CPU path and
 * the device form the same terms, within 1e-12 of ITK's (measured). */
namespace cif
{
/** A displacement field as itk::DisplacementFieldTransform::TransformPoint applies
 * it (cifTransformChain.h's ApplyDisplacementField: ITK's vector linear
 * interpolation, term for term); \a stage.field null: no field. */
struct DisplacementFieldStage
{
  TransformStage stage;

  template <int D>
  CIF_HD void
  Apply(const double p[3], double out[3]) const
  {
    ApplyDisplacementField<D>(stage, p, out);
  }
};

/** The fixed side of a sample as a stage (SampleMetricPointThroughStages): the
 * scene's affine map, or a displacement field. */
struct NeighborhoodFixedStage
{
  const AffineMap *              affine = nullptr; ///< used when field is null
  bool                           affineIsIdentity = false;
  const DisplacementFieldStage * field = nullptr;

  template <int D>
  CIF_HD void
  Apply(const double v[3], double f[3]) const
  {
    if (field != nullptr)
    {
      field->template Apply<D>(v, f);
    }
    else
    {
      ApplyAffineMapUnless<D>(affineIsIdentity, *affine, v, f);
    }
  }
};

/** The moving side's stage: the bound affine-family map, or a displacement field. */
struct NeighborhoodMovingStage
{
  const MetricMovingTransform *  transform = nullptr;
  const DisplacementFieldStage * field = nullptr;

  template <int D>
  CIF_HD void
  Apply(const double q[3], double y[3]) const
  {
    if (field != nullptr)
    {
      field->template Apply<D>(q, y);
    }
    else
    {
      ApplyAffineMap<D>(transform->affine, q, y);
    }
  }
};

/** Every virtual voxel's samples (the dense domain's order): valid, the fixed and
 * moving values in the pixel type, D gradient components (double). */
template <typename TValue>
struct NeighborhoodSamples
{
  std::uint8_t * valid = nullptr;
  TValue *       fixed = nullptr;
  TValue *       moving = nullptr;
  double *       gradient = nullptr; ///< null: no derivative
};

/** What the correlation pass needs besides the samples. */
struct NeighborhoodWindow
{
  int          radius[3] = { 2, 2, 2 };
  std::int64_t size[3] = { 1, 1, 1 }; ///< the virtual region's (= the virtual image's buffer)
};

/** Voxel \a n's sample (ITK's TransformAndEvaluateFixedPoint, ...MovingPoint and,
 * with \a withGradient, ComputeMovingImageGradientAtPoint) stored in \a out. */
template <int D, typename TValue>
CIF_HD void
SampleNeighborhoodVoxel(const MetricScene<TValue> &         scene,
                        const MetricMovingTransform &       transform,
                        const NeighborhoodFixedStage &      fixedStage,
                        const NeighborhoodMovingStage &     movingStage,
                        std::int64_t                        n,
                        const NeighborhoodSamples<TValue> & out)
{
  double v[3];
  VirtualPointOf<D>(scene.domain, n, v);
  const MetricPointSample s =
    SampleMetricPointThroughStages<D>(scene, fixedStage, transform, movingStage, v, out.gradient != nullptr);
  out.valid[n] = s.valid ? 1 : 0;
  out.fixed[n] = static_cast<TValue>(s.fixedValue);
  out.moving[n] = static_cast<TValue>(s.movingValue);
  if (out.gradient != nullptr)
  {
    for (int a = 0; a < D; ++a)
    {
      out.gradient[n * D + a] = s.movingGradient[a];
    }
  }
}

/** a * b in the pixel type (ITK multiplies two pixel values before the sum takes
 * the product), then as a double. */
template <typename TValue>
CIF_HD double
PixelProduct(TValue a, TValue b)
{
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(TValue) == sizeof(float))
  {
    return static_cast<double>(__fmul_rn(a, b));
  }
  else
  {
    return __dmul_rn(a, b);
  }
#else
  return static_cast<double>(a * b);
#endif
}

/** One voxel's result: ITK's point validity, local correlation (the value adds
 * -localCC) and derivWRTImage (the force on the moving point, D components). */
struct NeighborhoodCorrelationTerm
{
  bool   valid = false;
  double localCC = 0.0;
  double force[3] = { 0, 0, 0 };
};

/** The sums a window column holds: ITK's queue entry of one x (f^2, m^2, f, m, f m,
 * the number of valid points). */
constexpr int kNeighborhoodColumnSums = 6;

/** ITK's UpdateQueues for one column: the sums over the in-bounds, valid points of
 * column x = voxel \a k's x, around k's y and z (z offsets outer, y inner, one running
 * sum each, as ITK forms a queue entry), stored in the planes of \a columns (plane j
 * at j * voxels + k). Every voxel whose window holds that column reads it: ITK forms
 * the entry once per x as its queue slides, and so does this pass. */
template <int D, typename TValue>
CIF_HD void
NeighborhoodColumnAt(const NeighborhoodSamples<TValue> & samples,
                     const NeighborhoodWindow &          window,
                     std::int64_t                        k,
                     double *                            columns)
{
  const auto         sx = window.size[0], sy = window.size[1], sz = D == 3 ? window.size[2] : 1;
  const std::int64_t x = k % sx, yc = (k / sx) % sy, zc = D == 3 ? k / (sx * sy) : 0;
  const int          r1 = window.radius[1], r2 = D == 3 ? window.radius[2] : 0;
  double             f2 = 0.0, m2 = 0.0, f = 0.0, m = 0.0, fm = 0.0, c = 0.0;
  for (int dz = -r2; dz <= r2; ++dz)
  {
    const std::int64_t z = zc + dz;
    if (z < 0 || z >= sz)
    {
      continue;
    }
    for (int dy = -r1; dy <= r1; ++dy)
    {
      const std::int64_t y = yc + dy;
      if (y < 0 || y >= sy)
      {
        continue;
      }
      const std::int64_t j = x + sx * (y + sy * z);
      if (!samples.valid[j])
      {
        continue;
      }
      const TValue fixedValue = samples.fixed[j];
      const TValue movingValue = samples.moving[j];
      f2 = AddUnfused(f2, PixelProduct(fixedValue, fixedValue));
      m2 = AddUnfused(m2, PixelProduct(movingValue, movingValue));
      f = AddUnfused(f, static_cast<double>(fixedValue));
      m = AddUnfused(m, static_cast<double>(movingValue));
      fm = AddUnfused(fm, PixelProduct(fixedValue, movingValue));
      c = AddUnfused(c, 1.0);
    }
  }
  const std::int64_t voxels = sx * sy * sz;
  columns[k] = f2;
  columns[voxels + k] = m2;
  columns[2 * voxels + k] = f;
  columns[3 * voxels + k] = m;
  columns[4 * voxels + k] = fm;
  columns[5 * voxels + k] = c;
}

/** ITK's ComputeInformationFromQueues and ComputeMovingTransformDerivative at voxel
 * \a n of the dense domain: the window's columns (NeighborhoodColumnAt's \a columns)
 * summed oldest first, ITK's centred sums, local correlation and force. */
template <int D, typename TValue>
CIF_HD NeighborhoodCorrelationTerm
NeighborhoodCorrelationAt(const NeighborhoodSamples<TValue> & samples,
                          const NeighborhoodWindow &          window,
                          const double *                      columns,
                          std::int64_t                        n,
                          bool                                withDerivative)
{
  const auto         sx = window.size[0];
  const std::int64_t voxels = sx * window.size[1] * (D == 3 ? window.size[2] : 1);
  const std::int64_t x0 = n % sx;
  const int          r0 = window.radius[0];
  double sumFixed2 = 0.0, sumMoving2 = 0.0, sumFixed = 0.0, sumMoving = 0.0, sumFixedMoving = 0.0, count = 0.0;
  for (int dx = -r0; dx <= r0; ++dx)
  {
    const std::int64_t x = x0 + dx;
    if (x < 0 || x >= sx)
    {
      continue; // ITK's zero-filled (or out-of-bounds) column: adding 0 leaves the sums' bits
    }
    const std::int64_t k = n + dx;
    sumFixed2 = AddUnfused(sumFixed2, columns[k]);
    sumMoving2 = AddUnfused(sumMoving2, columns[voxels + k]);
    sumFixed = AddUnfused(sumFixed, columns[2 * voxels + k]);
    sumMoving = AddUnfused(sumMoving, columns[3 * voxels + k]);
    sumFixedMoving = AddUnfused(sumFixedMoving, columns[4 * voxels + k]);
    count = AddUnfused(count, columns[5 * voxels + k]);
  }
  NeighborhoodCorrelationTerm term;
  if (count <= 0.0 || !samples.valid[n])
  {
    return term; // no point in the window, or the centre itself invalid
  }
  const double fixedMean = sumFixed / count;
  const double movingMean = sumMoving / count;
  // ITK's expressions, left to right.
  const double sFixedFixed =
    AddUnfused(SubUnfused(SubUnfused(sumFixed2, MulUnfused(fixedMean, sumFixed)), MulUnfused(fixedMean, sumFixed)),
               MulUnfused(MulUnfused(count, fixedMean), fixedMean));
  const double sMovingMoving =
    AddUnfused(SubUnfused(SubUnfused(sumMoving2, MulUnfused(movingMean, sumMoving)), MulUnfused(movingMean, sumMoving)),
               MulUnfused(MulUnfused(count, movingMean), movingMean));
  const double sFixedMoving = AddUnfused(
    SubUnfused(SubUnfused(sumFixedMoving, MulUnfused(movingMean, sumFixed)), MulUnfused(fixedMean, sumMoving)),
    MulUnfused(MulUnfused(count, movingMean), fixedMean));
  const double fixedI = SubUnfused(static_cast<double>(samples.fixed[n]), fixedMean);
  const double movingI = SubUnfused(static_cast<double>(samples.moving[n]), movingMean);
  const double sFixedFixed_sMovingMoving = MulUnfused(sFixedFixed, sMovingMoving);
  term.valid = true;
  term.localCC = 1.0; // ITK's value where the window is flat
  if (fabs(sFixedFixed_sMovingMoving) > DBL_EPSILON)
  {
    term.localCC = MulUnfused(sFixedMoving, sFixedMoving) / sFixedFixed_sMovingMoving;
  }
  if (withDerivative && sFixedFixed > DBL_EPSILON && sMovingMoving > DBL_EPSILON)
  {
    const double scale = MulUnfused(2.0, sFixedMoving) / sFixedFixed_sMovingMoving;
    const double factor = MulUnfused(scale, SubUnfused(fixedI, MulUnfused(sFixedMoving / sMovingMoving, movingI)));
    for (int a = 0; a < D; ++a)
    {
      term.force[a] = MulUnfused(factor, samples.gradient[n * D + a]);
    }
  }
  return term;
}

/** What the correlation pass sums over the valid voxels: their number, the local
 * correlations, and for an affine-family moving transform the forces' moments
 * about the virtual centre (cifImageMetricMath.h's kAffineMoments). */
constexpr int kNeighborhoodSums = 2 + 3 + 9;

/** Voxel \a n's contribution to the sums (\a virtualCentre: the moments' reference). */
template <int D>
CIF_HD void
AddNeighborhoodSums(const NeighborhoodCorrelationTerm & term,
                    const MetricDomain &                domain,
                    std::int64_t                        n,
                    bool                                moments,
                    const double                        virtualCentre[3],
                    double *                            sums)
{
  if (!term.valid)
  {
    return;
  }
  sums[0] += 1.0;
  sums[1] += term.localCC;
  if (!moments)
  {
    return;
  }
  double v[3];
  VirtualPointOf<D>(domain, n, v);
  for (int i = 0; i < D; ++i)
  {
    sums[2 + i] += term.force[i];
    for (int j = 0; j < D; ++j)
    {
      sums[2 + D + i * D + j] += term.force[i] * (v[j] - virtualCentre[j]);
    }
  }
}

/** What one evaluation hands the device: the scene and stages with device pointers,
 * the window, and where the forces go. */
template <typename TValue>
struct NeighborhoodCorrelationLaunch
{
  MetricScene<TValue>         scene;
  MetricMovingTransform       transform;
  DisplacementFieldStage      fixedField;  ///< stage.field null: the scene's affine fixed map
  DisplacementFieldStage      movingField; ///< stage.field null: \a transform's affine map
  NeighborhoodWindow          window;
  bool                        withDerivative = false;
  bool                        moments = false; ///< affine-family moving transform: the forces' moments
  double                      virtualCentre[3] = { 0, 0, 0 };
  NeighborhoodSamples<TValue> samples;             ///< device arrays of the domain's size
  double *                    columns = nullptr;   ///< device, kNeighborhoodColumnSums planes of the domain's size
  double *                    forces = nullptr;    ///< device, D per voxel (local support), or null
  double *                    blockSums = nullptr; ///< device, kNeighborhoodSums per block
  int                         blocks = 1;
};

/** The threads of a block of the device pass, and the number of blocks it sums in
 * (the block sums' size): from the domain's size alone. */
constexpr int kNeighborhoodThreads = 256;
inline int
NeighborhoodCorrelationBlocks(std::int64_t voxels)
{
  const std::int64_t wanted = (voxels + kNeighborhoodThreads - 1) / kNeighborhoodThreads;
  return static_cast<int>(wanted < 1 ? 1 : (wanted > 1024 ? 1024 : wanted));
}

/** \a launch's fixed and moving stages (built where they are used: a kernel takes
 * the addresses of its own copy). */
template <typename TValue>
CIF_HD NeighborhoodFixedStage
FixedStageOf(const NeighborhoodCorrelationLaunch<TValue> & launch)
{
  return NeighborhoodFixedStage{ &launch.scene.fixedTransform,
                                 launch.scene.fixedIsIdentity,
                                 launch.fixedField.stage.field != nullptr ? &launch.fixedField : nullptr };
}
template <typename TValue>
CIF_HD NeighborhoodMovingStage
MovingStageOf(const NeighborhoodCorrelationLaunch<TValue> & launch)
{
  return NeighborhoodMovingStage{ &launch.transform,
                                  launch.movingField.stage.field != nullptr ? &launch.movingField : nullptr };
}

/** The device pass's work on the host (the CPU path): \a launch with host arrays
 * (its columns among them), \a parallelFor(count, body) running body(i) for i in
 * [0, count) (itk::MakeParallelFor); the blocks of the device pass summed in order. */
template <int D, typename TValue, typename TParallelFor>
void
NeighborhoodCorrelationOnHost(const NeighborhoodCorrelationLaunch<TValue> & launch,
                              TParallelFor &&                               parallelFor,
                              double *                                      sums)
{
  const NeighborhoodFixedStage  fixedStage = FixedStageOf(launch);
  const NeighborhoodMovingStage movingStage = MovingStageOf(launch);
  const std::int64_t            count = launch.scene.domain.count;
  constexpr std::int64_t        chunk = 4096;
  parallelFor((count + chunk - 1) / chunk, [&](std::int64_t c) {
    const std::int64_t end = (c + 1) * chunk < count ? (c + 1) * chunk : count;
    for (std::int64_t n = c * chunk; n < end; ++n)
    {
      SampleNeighborhoodVoxel<D>(launch.scene, launch.transform, fixedStage, movingStage, n, launch.samples);
    }
  });
  parallelFor((count + chunk - 1) / chunk, [&](std::int64_t c) {
    const std::int64_t end = (c + 1) * chunk < count ? (c + 1) * chunk : count;
    for (std::int64_t n = c * chunk; n < end; ++n)
    {
      NeighborhoodColumnAt<D>(launch.samples, launch.window, n, launch.columns);
    }
  });
  const int           blocks = NeighborhoodCorrelationBlocks(count);
  const std::int64_t  perBlock = (count + blocks - 1) / blocks;
  std::vector<double> blockSums(static_cast<std::size_t>(blocks) * kNeighborhoodSums, 0.0);
  parallelFor(blocks, [&](std::int64_t b) {
    double *           own = blockSums.data() + b * kNeighborhoodSums;
    const std::int64_t end = (b + 1) * perBlock < count ? (b + 1) * perBlock : count;
    for (std::int64_t n = b * perBlock; n < end; ++n)
    {
      const NeighborhoodCorrelationTerm term =
        NeighborhoodCorrelationAt<D>(launch.samples, launch.window, launch.columns, n, launch.withDerivative);
      if (launch.forces != nullptr)
      {
        for (int a = 0; a < D; ++a)
        {
          launch.forces[n * D + a] = term.force[a];
        }
      }
      AddNeighborhoodSums<D>(term, launch.scene.domain, n, launch.moments, launch.virtualCentre, own);
    }
  });
  for (int k = 0; k < kNeighborhoodSums; ++k)
  {
    sums[k] = 0.0;
  }
  for (int b = 0; b < blocks; ++b)
  {
    for (int k = 0; k < kNeighborhoodSums; ++k)
    {
      sums[k] += blockSums[static_cast<std::size_t>(b) * kNeighborhoodSums + k];
    }
  }
}

/** The device pass: samples, correlation, block sums (then summed on the host in
 * block order: the same bits on every run), forces into launch.forces when set;
 * \a sums receives kNeighborhoodSums values. Throws CudaError. */
template <int D, typename TValue>
CudaImageFilters_EXPORT void
NeighborhoodCorrelationOnDevice(const NeighborhoodCorrelationLaunch<TValue> & launch, double * sums);
} // namespace cif

#endif
