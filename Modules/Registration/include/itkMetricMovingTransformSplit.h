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
#ifndef itkMetricMovingTransformSplit_h
#define itkMetricMovingTransformSplit_h

#include "cifImageMetricMath.h"
#include "itkBSplineTransform.h"
#include "itkCompositeTransform.h"
#include "itkCudaTransformChain.h"
#include "itkIdentityTransform.h"

#include <string>
#include <vector>

namespace itk
{
/** \class MetricMovingTransformSplit
 * \brief A metric's moving transform as the stage being optimized and the fixed
 * affine stages before and after it (cif::MetricMovingTransform).
 *
 * What the GPU metrics take: an affine-family transform (every
 * MatrixOffsetTransformBase, TranslationTransform), a cubic BSplineTransform, or a
 * CompositeTransform with exactly one stage to optimize (one of those) whose other
 * stages are affine-family or identity; ITK's CompositeTransform applies its last
 * added stage first, so in ITK's and elastix's "affine, then B-spline" layout the
 * B-spline stage is optimized and the affine comes after it. Anything else:
 * IsSupported() is false and Reason() says why (ITK's CPU code then runs).
 *
 * The derivative of an affine-family stage comes from the force's moments: ITK's
 * Jacobian of such a stage is affine in the point (J(q) = J(r) + sum_j (q - r)_j
 * (J(r + e_j) - J(r))), so sum_q h(q)^T J(q) follows from sum h and sum h (q - r)^T
 * with the stage's own ComputeJacobianWithRespectToParameters at D + 1 points.
 *
 * \ingroup CudaImageFilters
 */
template <unsigned int D>
class MetricMovingTransformSplit
{
public:
  using TransformType = Transform<double, D, D>;
  using DerivativeType = typename TransformType::DerivativeType;
  using BSplineType = BSplineTransform<double, D, 3>;

  explicit MetricMovingTransformSplit(const TransformType * transform) { m_Supported = this->Split(transform); }

  bool
  IsSupported() const
  {
    return m_Supported;
  }
  const std::string &
  Reason() const
  {
    return m_Reason;
  }
  /** The split with the optimized stage's current parameters (host pointers to the
   * B-spline's coefficients). */
  const cif::MetricMovingTransform &
  Host() const
  {
    return m_Split;
  }
  const TransformType *
  OptimizedStage() const
  {
    return m_Optimized;
  }

  /** sum_q h(q)^T J(q) for an affine-family stage, from the moments (cifImageMetricMath.h:
   * D sums, then D x D) about \a reference; added into \a derivative. */
  void
  AddAffineDerivative(const double * moments, const double reference[3], DerivativeType & derivative) const
  {
    using JacobianType = typename TransformType::JacobianType;
    typename TransformType::InputPointType r;
    for (unsigned int a = 0; a < D; ++a)
    {
      r[a] = reference[a];
    }
    JacobianType atReference;
    m_Optimized->ComputeJacobianWithRespectToParameters(r, atReference);
    const unsigned int parameters = atReference.cols();
    for (unsigned int k = 0; k < parameters; ++k)
    {
      double sum = 0.0;
      for (unsigned int i = 0; i < D; ++i)
      {
        sum += moments[i] * atReference(i, k);
      }
      derivative[k] += sum;
    }
    for (unsigned int j = 0; j < D; ++j)
    {
      auto shifted = r;
      shifted[j] += 1.0;
      JacobianType atShifted;
      m_Optimized->ComputeJacobianWithRespectToParameters(shifted, atShifted);
      for (unsigned int k = 0; k < parameters; ++k)
      {
        double sum = 0.0;
        for (unsigned int i = 0; i < D; ++i)
        {
          sum += moments[D + i * D + j] * (atShifted(i, k) - atReference(i, k));
        }
        derivative[k] += sum;
      }
    }
  }

  /** An affine-family (or identity) transform as a map, read as the resampler reads
   * it (CudaTransformChain::AffineStageOf); false for any other. */
  static bool
  AffineMapOf(const TransformType * t, cif::AffineMap & map)
  {
    map = cif::AffineMap{};
    cif::TransformStage stage;
    if (!CudaTransformChain<D>::AffineStageOf(t, stage))
    {
      return false;
    }
    for (unsigned int i = 0; i < D; ++i)
    {
      for (unsigned int j = 0; j < D; ++j)
      {
        map.matrix[i][j] = stage.matrix[i][j];
      }
      map.offset[i] = stage.offset[i];
    }
    return true;
  }

private:
  /** second(first(p)) as one map. */
  static cif::AffineMap
  Then(const cif::AffineMap & first, const cif::AffineMap & second)
  {
    cif::AffineMap r;
    for (unsigned int i = 0; i < D; ++i)
    {
      double offset = second.offset[i];
      for (unsigned int j = 0; j < D; ++j)
      {
        double sum = 0.0;
        for (unsigned int k = 0; k < D; ++k)
        {
          sum += second.matrix[i][k] * first.matrix[k][j];
        }
        r.matrix[i][j] = sum;
        offset += second.matrix[i][j] * first.offset[j];
      }
      r.offset[i] = offset;
    }
    return r;
  }

  bool
  SetOptimized(const TransformType * t)
  {
    m_Optimized = t;
    if (dynamic_cast<const IdentityTransform<double, D> *>(t) == nullptr && AffineMapOf(t, m_Split.affine))
    {
      m_Split.kind = cif::OptimizedStageKind::Affine;
      return true;
    }
    if constexpr (D <= 3)
    {
      if (const auto * bspline = dynamic_cast<const BSplineType *>(t))
      {
        if (!CudaTransformChain<D>::BSplineStageOf(bspline, m_Split.bspline))
        {
          m_Reason = "the B-spline transform has no coefficients";
          return false;
        }
        m_Split.kind = cif::OptimizedStageKind::BSpline;
        return true;
      }
    }
    m_Reason = std::string("the optimized transform (") + t->GetNameOfClass() +
               ") is neither affine-family nor a cubic BSplineTransform";
    return false;
  }

  bool
  Split(const TransformType * transform)
  {
    if (transform == nullptr)
    {
      m_Reason = "no moving transform";
      return false;
    }
    const auto * composite = dynamic_cast<const CompositeTransform<double, D> *>(transform);
    if (composite == nullptr)
    {
      return this->SetOptimized(transform);
    }
    const SizeValueType count = composite->GetNumberOfTransforms();
    SizeValueType       optimized = count;
    for (SizeValueType n = 0; n < count; ++n)
    {
      if (composite->GetNthTransformToOptimize(n))
      {
        if (optimized != count)
        {
          m_Reason = "the composite transform optimizes more than one stage";
          return false;
        }
        optimized = n;
      }
    }
    if (optimized == count)
    {
      m_Reason = "the composite transform optimizes no stage";
      return false;
    }
    // Applied back to front: stages after the optimized one in the queue come first.
    for (SizeValueType n = count; n-- > 0;)
    {
      const TransformType * stage = composite->GetNthTransformConstPointer(n);
      if (n == optimized)
      {
        if (!this->SetOptimized(stage))
        {
          return false;
        }
        continue;
      }
      cif::AffineMap map;
      if (!AffineMapOf(stage, map))
      {
        m_Reason = std::string("a fixed stage of the composite transform (") + stage->GetNameOfClass() +
                   ") is not affine-family";
        return false;
      }
      if (n > optimized)
      {
        m_Split.before = Then(m_Split.before, map);
      }
      else
      {
        m_Split.after = Then(m_Split.after, map);
      }
    }
    return true;
  }

  cif::MetricMovingTransform m_Split;
  const TransformType *      m_Optimized = nullptr;
  bool                       m_Supported = false;
  std::string                m_Reason;
};
} // namespace itk

#endif
