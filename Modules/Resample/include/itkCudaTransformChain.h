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
#ifndef itkCudaTransformChain_h
#define itkCudaTransformChain_h

#include "cifDeviceBuffer.h"
#include "cifTransformChain.h"
#include "itkBSplineTransform.h"
#include "itkCompositeTransform.h"
#include "itkCudaGeometry.h"
#include "itkDisplacementFieldTransform.h"
#include "itkIdentityTransform.h"
#include "itkMatrixOffsetTransformBase.h"
#include "itkTranslationTransform.h"
#include "itkVectorLinearInterpolateImageFunction.h"

#include <vector>

namespace itk
{
/** \class CudaTransformChain
 * \brief An ITK transform as a cif::TransformChain the GPU (or the CPU path) applies.
 *
 * Handles every MatrixOffsetTransformBase (translation-free or not: Euler, rigid,
 * similarity, scale, affine...), TranslationTransform, IdentityTransform, the cubic
 * BSplineTransform, DisplacementFieldTransform (with its default linear
 * interpolator), and CompositeTransform chains of these (applied in ITK's order,
 * the last added first). For the GPU the B-spline coefficients are uploaded once
 * and fields are uploaded once and owned here. Anything else makes IsDeviceEvaluable() false: the caller then
 * maps points on the host with ITK itself.
 *
 * \ingroup CudaImageFilters
 */
template <unsigned int D>
class CudaTransformChain
{
public:
  using TransformType = Transform<double, D, D>;

  explicit CudaTransformChain(const TransformType * transform) { m_Evaluable = this->Append(transform); }

  bool
  IsDeviceEvaluable() const
  {
    return m_Evaluable;
  }

  /** The chain with host pointers to B-spline coefficients (CPU path). */
  const cif::TransformChain &
  HostChain() const
  {
    return m_Chain;
  }

  /** The chain with device pointers (uploads the coefficients on first use), on the
   * device that is current at that first use. */
  const cif::TransformChain &
  DeviceChain()
  {
    if (!m_Uploaded)
    {
      // Kept only once every array is up: an upload that fails (out of memory, which
      // a slab plan answers by planning finer) leaves nothing allocated behind.
      std::vector<cif::DeviceBuffer> owners;
      m_DeviceChain = UploadToCurrentDevice(m_Chain, owners);
      m_DeviceCoefficients = std::move(owners);
      m_Uploaded = true;
    }
    return m_DeviceChain;
  }

  /** \a hostChain with its B-spline coefficients and fields uploaded to the current
   * device into buffers appended to \a owners (which must outlive the chain's use).
   * What a thread working on another device than DeviceChain()'s calls: device
   * memory of one GPU is not readable by another one's kernels. */
  static cif::TransformChain
  UploadToCurrentDevice(const cif::TransformChain & hostChain, std::vector<cif::DeviceBuffer> & owners)
  {
    cif::TransformChain deviceChain = hostChain;
    ForEachDeviceArray(deviceChain, [&owners](const double *& array, std::size_t count) {
      owners.emplace_back(count * sizeof(double));
      owners.back().Upload(array, count * sizeof(double));
      array = owners.back().template As<const double>();
    });
    return deviceChain;
  }

  /** The device bytes UploadToCurrentDevice takes for \a hostChain: what a slab plan
   * sets aside for the transform before its slabs. */
  static std::size_t
  DeviceBytes(const cif::TransformChain & hostChain)
  {
    cif::TransformChain chain = hostChain;
    std::size_t         bytes = 0;
    ForEachDeviceArray(chain, [&bytes](const double *&, std::size_t count) { bytes += count * sizeof(double); });
    return bytes;
  }

  /** \a transform, not a composite, as one stage: AffineStageOf's transforms, the
   * cubic BSplineTransform (BSplineStageOf) and DisplacementFieldTransform with its
   * default linear interpolator (1-D to 3-D). False for any other: ITK maps the
   * points. MetricMovingTransformSplit reads its stages with the same functions. */
  static bool
  StageOf(const TransformType * transform, cif::TransformStage & stage)
  {
    if (AffineStageOf(transform, stage))
    {
      return true;
    }
    if constexpr (D <= 3)
    {
      if (const auto * bspline = dynamic_cast<const BSplineTransform<double, D, 3> *>(transform))
      {
        return BSplineStageOf(bspline, stage);
      }
      if (const auto * displacement = dynamic_cast<const DisplacementFieldTransform<double, D> *>(transform))
      {
        return DisplacementFieldStageOf(displacement, stage);
      }
    }
    return false;
  }

  /** Every MatrixOffsetTransformBase (Euler, rigid, similarity, scale, affine...),
   * TranslationTransform and IdentityTransform as an affine stage; false (\a stage
   * untouched) for any other transform. */
  static bool
  AffineStageOf(const TransformType * transform, cif::TransformStage & stage)
  {
    if (const auto * affine = dynamic_cast<const MatrixOffsetTransformBase<double, D, D> *>(transform))
    {
      stage.kind = cif::TransformKind::Affine;
      for (unsigned int i = 0; i < D; ++i)
      {
        for (unsigned int j = 0; j < D; ++j)
        {
          stage.matrix[i][j] = affine->GetMatrix()[i][j];
        }
        stage.offset[i] = affine->GetOffset()[i];
      }
      return true;
    }
    if (const auto * translation = dynamic_cast<const TranslationTransform<double, D> *>(transform))
    {
      stage.kind = cif::TransformKind::Affine;
      for (unsigned int i = 0; i < D; ++i)
      {
        stage.offset[i] = translation->GetOffset()[i];
      }
      return true;
    }
    if (dynamic_cast<const IdentityTransform<double, D> *>(transform))
    {
      stage.kind = cif::TransformKind::Affine;
      return true;
    }
    return false;
  }

  /** The cubic B-spline's grid and host pointers to its coefficients (1-D to 3-D);
   * false where it has no coefficients (ITK warns and returns the point). */
  static bool
  BSplineStageOf(const BSplineTransform<double, D, 3> * bspline, cif::TransformStage & stage)
  {
    static_assert(D <= 3, "grid stages exist up to 3-D");
    const auto & images = bspline->GetCoefficientImages();
    if (images[0]->GetBufferPointer() == nullptr)
    {
      return false;
    }
    stage.kind = cif::TransformKind::BSpline;
    const auto size = images[0]->GetLargestPossibleRegion().GetSize();
    for (unsigned int i = 0; i < D; ++i)
    {
      stage.gridSize[i] = static_cast<std::int64_t>(size[i]);
      stage.gridOrigin[i] = images[0]->GetOrigin()[i];
      stage.coefficients[i] = images[i]->GetBufferPointer();
    }
    PointToIndexMatrix<D>(images[0].GetPointer(), stage.gridPointToIndex);
    return true;
  }

  /** The field's buffered grid and a host pointer to it (1-D to 3-D); false without
   * a field or with another interpolator than the default linear one. */
  static bool
  DisplacementFieldStageOf(const DisplacementFieldTransform<double, D> * displacement, cif::TransformStage & stage)
  {
    static_assert(D <= 3, "grid stages exist up to 3-D");
    using Field = typename DisplacementFieldTransform<double, D>::DisplacementFieldType;
    const Field * field = displacement->GetDisplacementField();
    if (field == nullptr || dynamic_cast<const VectorLinearInterpolateImageFunction<Field, double> *>(
                              displacement->GetInterpolator()) == nullptr)
    {
      return false;
    }
    stage.kind = cif::TransformKind::DisplacementField;
    const auto region = field->GetBufferedRegion();
    for (unsigned int i = 0; i < D; ++i)
    {
      stage.gridSize[i] = static_cast<std::int64_t>(region.GetSize()[i]);
      stage.gridStart[i] = region.GetIndex()[i];
      stage.gridOrigin[i] = field->GetOrigin()[i];
    }
    stage.field = reinterpret_cast<const double *>(field->GetBufferPointer());
    PointToIndexMatrix<D>(field, stage.gridPointToIndex);
    return true;
  }

private:
  /** Calls visit(array, count) for every host array of \a chain that a device reads
   * (its B-spline stages' coefficients, its fields), \a array by reference so that
   * UploadToCurrentDevice can point it at its device copy. */
  template <typename TVisit>
  static void
  ForEachDeviceArray(cif::TransformChain & chain, TVisit && visit)
  {
    for (int s = 0; s < chain.count; ++s)
    {
      cif::TransformStage & stage = chain.stage[s];
      const std::size_t     count = stage.gridSize[0] * stage.gridSize[1] * stage.gridSize[2];
      if (stage.kind == cif::TransformKind::BSpline)
      {
        for (unsigned int a = 0; a < D && a < 3; ++a)
        {
          visit(stage.coefficients[a], count);
        }
      }
      else if (stage.kind == cif::TransformKind::DisplacementField)
      {
        visit(stage.field, D * count);
      }
    }
  }

  bool
  Append(const TransformType * transform)
  {
    if (transform == nullptr)
    {
      return false;
    }
    if (const auto * composite = dynamic_cast<const CompositeTransform<double, D> *>(transform))
    {
      // CompositeTransform::TransformPoint applies its queue back to front.
      for (SizeValueType n = composite->GetNumberOfTransforms(); n > 0; --n)
      {
        if (!this->Append(composite->GetNthTransformConstPointer(n - 1)))
        {
          return false;
        }
      }
      return true;
    }
    if (m_Chain.count == cif::kMaxTransformStages || !StageOf(transform, m_Chain.stage[m_Chain.count]))
    {
      return false;
    }
    ++m_Chain.count;
    return true;
  }

  cif::TransformChain            m_Chain;
  cif::TransformChain            m_DeviceChain;
  std::vector<cif::DeviceBuffer> m_DeviceCoefficients;
  bool                           m_Evaluable = false;
  bool                           m_Uploaded = false;
};
} // namespace itk

#endif
