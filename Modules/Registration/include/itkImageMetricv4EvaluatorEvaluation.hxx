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
// ImageMetricv4Evaluator's evaluation: the bound transform, the point grouping, the metrics' passes.
#ifndef itkImageMetricv4EvaluatorEvaluation_hxx
#define itkImageMetricv4EvaluatorEvaluation_hxx

#include "cifMattesHistogram.h"
#include "cifMetricSumsDevice.h"
#include "cifMetricSumsHost.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaParallelFor.h"
#include "itkImageMetricv4Evaluator.h"
#include "itkMetricMovingTransformSplit.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <string>

namespace itk
{
template <typename TMetric>
inline bool
ImageMetricv4Evaluator<TMetric>::ValueRangesOnDevice(ValueType & fixedMin,
                                                     ValueType & fixedMax,
                                                     ValueType & movingMin,
                                                     ValueType & movingMax)
{
  if constexpr (kTypesSupported)
  {
    if (!m_Supported || !m_OnGPU)
    {
      return false;
    }
    const auto fixedCount = static_cast<std::int64_t>(CountOf(m_HostScene.fixed));
    const auto movingCount = static_cast<std::int64_t>(CountOf(m_HostScene.moving.image));
    CIF_ITK_TRY_CUDA([&] {
      cif::ValueRangeOnDevice(m_DeviceScene.fixed.data, fixedCount, fixedMin, fixedMax);
      cif::ValueRangeOnDevice(m_DeviceScene.moving.image.data, movingCount, movingMin, movingMax);
    });
    return true;
  }
  else
  {
    (void)fixedMin, (void)fixedMax, (void)movingMin, (void)movingMax;
    return false;
  }
}

template <typename TMetric>
inline bool
ImageMetricv4Evaluator<TMetric>::BindTransform(const MovingTransformType * transform, std::string & reason)
{
  if constexpr (!kTypesSupported)
  {
    (void)transform;
    reason = m_Reason;
    return false;
  }
  else
  {
    const auto start = std::chrono::steady_clock::now();
    struct Timed
    {
      std::chrono::steady_clock::time_point start;
      double &                              seconds;
      ~Timed() { seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
    } timed{ start, m_BindSeconds };
    m_Split = std::make_unique<SplitType>(transform);
    if (!m_Split->IsSupported())
    {
      reason = m_Split->Reason();
      return false;
    }
    const cif::MetricMovingTransform & host = m_Split->Host();
    m_DeviceTransform = host;
    if (m_OnGPU && host.kind == cif::OptimizedStageKind::BSpline)
    {
      CIF_ITK_TRY_CUDA([&] {
        // Only taken here: sent by the pass that reads them (SentDeviceTransform,
        // ArrivingCoefficients), a cell-box pass while its first kernel runs.
        const std::int64_t * size = host.bspline.gridSize;
        const std::int64_t   planeValues = D > 2 ? size[0] * size[1] : size[0];
        m_CoefficientUpload.Bind(
          host.bspline.coefficients, D, planeValues, size[D - 1], m_DeviceTransform.bspline.coefficients);
      });
    }
    return true;
  }
}

template <typename TMetric>
inline cif::MattesSummary
ImageMetricv4Evaluator<TMetric>::EvaluateMattes(const cif::MattesParzen & windows,
                                                MultiThreaderBase *       threader,
                                                DerivativeType *          derivative,
                                                bool &                    zerosPending)
{
  cif::MattesSummary summary;
  if constexpr (kTypesSupported)
  {
    cif::MattesParzen parzen = windows;
    parzen.fixedPointScale = cif::ParzenFixedPointScale(m_HostScene.domain.count);
    const cif::MetricMovingTransform & host = m_Split->Host();
    cif::MattesDerivativeTerm          term;
    term.parzen = parzen;
    if (m_OnGPU)
    {
      if (host.kind == cif::OptimizedStageKind::BSpline)
      {
        this->UpdateOrder(host, threader, false);
      }
      CIF_ITK_TRY_CUDA([&] {
        if (m_UseBoxes && host.kind == cif::OptimizedStageKind::BSpline)
        {
          this->WithArrivingCoefficients([&](const cif::MetricMovingTransform & transform) {
            cif::MattesFirstPassInCellBoxesOnDevice<D, ValueType>(
              m_DeviceScene, transform, parzen, m_DeviceBoxes.view, m_Workspace);
          });
        }
        else
        {
          cif::MattesFirstPassOnDevice<D, ValueType>(m_DeviceScene, this->SentDeviceTransform(), parzen, m_Workspace);
        }
      });
      term.ratioTable = cif::MattesRatioTableOnDevice(m_Workspace);
    }
    else
    {
      cif::MattesHistogram histogram;
      cif::MattesHistogramOnHost<D, ValueType>(m_HostScene, host, parzen, MakeParallelFor(threader), histogram);
      summary = cif::MattesSummaryAndRatios(parzen, histogram, m_RatioTable);
      if (!summary.HasResults())
      {
        return summary; // the caller raises ITK's error
      }
      term.ratioTable = m_RatioTable.data();
    }
    if (derivative != nullptr)
    {
      cif::MetricSums sums;
      this->EvaluateSums(term, true, threader, sums, derivative, zerosPending);
    }
    if (m_OnGPU)
    {
      CIF_ITK_TRY_CUDA([&] { summary = cif::ReadBackMattesSummary(m_Workspace, derivative == nullptr); });
    }
  }
  return summary;
}

template <typename TMetric>
template <typename TTerm>
inline void
ImageMetricv4Evaluator<TMetric>::EvaluateValueSums(const TTerm &       term,
                                                   MultiThreaderBase * threader,
                                                   cif::MetricSums &   sums)
{
  if constexpr (kTypesSupported)
  {
    if (m_OnGPU)
    {
      CIF_ITK_TRY_CUDA([&] {
        sums = cif::EvaluateMetricValueSumsOnDevice<D, ValueType>(
          m_DeviceScene, this->SentDeviceTransform(), term, m_Workspace);
      });
    }
    else
    {
      const double reference[3] = { 0, 0, 0 };
      sums = cif::EvaluateMetricSumsInDomainOrderOnHost<D, ValueType>(
        m_HostScene, m_Split->Host(), term, reference, false, MakeParallelFor(threader));
    }
  }
}

template <typename TMetric>
template <typename TTerm>
inline void
ImageMetricv4Evaluator<TMetric>::EvaluateSums(const TTerm &        term,
                                              bool                 withDerivative,
                                              MultiThreaderBase *  threader,
                                              cif::MetricSums &    sums,
                                              DerivativeType *     derivative,
                                              bool &               zerosPending,
                                              cif::DerivativeScale scale)
{
  if constexpr (kTypesSupported)
  {
    const cif::MetricMovingTransform & host = m_Split->Host();
    double                             reference[3] = { 0, 0, 0 };
    cif::ApplyAffineMap<D>(host.before, m_VirtualCenter, reference);
    const bool gather = withDerivative && host.kind == cif::OptimizedStageKind::BSpline;
    if (gather)
    {
      this->UpdateOrder(host, threader);
    }
    // The B-spline derivative: in the host readback on the GPU path (no copy), in
    // a vector kept between evaluations on the CPU path.
    const double * bsplineDerivative = nullptr;
    if (gather && m_UseBoxes)
    {
      if (m_OnGPU)
      {
        CIF_ITK_TRY_CUDA([&] {
          this->WithArrivingCoefficients([&](const cif::MetricMovingTransform & transform) {
            sums = cif::EvaluateMetricSumsInCellBoxesOnDevice<D, ValueType>(
              m_DeviceScene, transform, term, m_DeviceBoxes.view, scale, m_Workspace, &bsplineDerivative);
          });
        });
      }
      else
      {
        cif::EvaluateMetricSumsInCellBoxesOnHost<D, ValueType>(
          m_HostScene, host, term, cif::HostView(m_Boxes), MakeParallelFor(threader), sums.value, &m_BSplineDerivative);
        bsplineDerivative = m_BSplineDerivative.data();
      }
    }
    else if (m_OnGPU)
    {
      CIF_ITK_TRY_CUDA([&] {
        sums = cif::EvaluateMetricSumsOnDevice<D, ValueType>(m_DeviceScene,
                                                             this->SentDeviceTransform(),
                                                             term,
                                                             gather ? &m_DeviceOrder.view : nullptr,
                                                             reference,
                                                             withDerivative,
                                                             scale,
                                                             m_Workspace,
                                                             &bsplineDerivative);
      });
    }
    else
    {
      sums = cif::EvaluateMetricSumsOnHost<D, ValueType>(m_HostScene,
                                                         host,
                                                         term,
                                                         gather ? m_Order.get() : nullptr,
                                                         reference,
                                                         withDerivative,
                                                         MakeParallelFor(threader),
                                                         &m_BSplineDerivative);
      bsplineDerivative = m_BSplineDerivative.data();
    }
    if (withDerivative)
    {
      // Divided here unless the device did it as it gathered.
      bool       divide = scale == cif::DerivativeScale::PerValidPoint;
      const bool zeroed = !zerosPending;
      zerosPending = false;
      if (host.kind == cif::OptimizedStageKind::Affine)
      {
        if (!zeroed)
        {
          derivative->Fill(0.0);
        }
        m_Split->AddAffineDerivative(sums.value + 2, reference, *derivative);
      }
      else
      {
        const std::size_t values =
          static_cast<std::size_t>(D * host.bspline.gridSize[0] * host.bspline.gridSize[1] * host.bspline.gridSize[2]);
        if (zeroed)
        {
          for (std::size_t k = 0; k < values; ++k)
          {
            (*derivative)[k] += bsplineDerivative[k];
          }
        }
        else
        {
          // ITK's zeros and addition in one pass (0 + value: +0 for a -0 value, as
          // ITK's); the B-spline stage's derivative is every parameter's.
          for (std::size_t k = 0; k < values; ++k)
          {
            (*derivative)[k] = 0.0 + bsplineDerivative[k];
          }
        }
        divide = divide && !m_OnGPU;
      }
      if (divide)
      {
        *derivative /= sums.value[0];
      }
    }
  }
}

template <typename TMetric>
inline void
ImageMetricv4Evaluator<TMetric>::UpdateOrder(const cif::MetricMovingTransform & t,
                                             MultiThreaderBase *                threader,
                                             bool                               sortOtherwise)
{
  OrderKey key;
  std::memcpy(key.before, &t.before, sizeof(cif::AffineMap));
  for (unsigned int a = 0; a < 3; ++a)
  {
    key.gridSize[a] = t.bspline.gridSize[a];
    key.gridOrigin[a] = t.bspline.gridOrigin[a];
    for (unsigned int b = 0; b < 3; ++b)
    {
      key.gridPointToIndex[a][b] = t.bspline.gridPointToIndex[a][b];
    }
  }
  if (m_HaveOrder && std::memcmp(&key, &m_OrderKey, sizeof(OrderKey)) == 0)
  {
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  if (!m_HaveBoxesKey || std::memcmp(&key, &m_BoxesKey, sizeof(OrderKey)) != 0)
  {
    m_UseBoxes = cif::BuildMetricCellBoxes<D>(m_HostScene.domain, t, m_Boxes);
    if (m_UseBoxes && m_OnGPU)
    {
      CIF_ITK_TRY_CUDA([&] { cif::UploadMetricCellBoxes(m_Boxes, m_DeviceBoxes); });
    }
    m_BoxesKey = key;
    m_HaveBoxesKey = true;
  }
  if (m_UseBoxes || sortOtherwise)
  {
    if (!m_UseBoxes && m_OnGPU)
    {
      // Sorted on the device (the points of a 256^3 domain in milliseconds).
      CIF_ITK_TRY_CUDA([&] {
        cif::BuildMetricPointOrderOnDevice<D, ValueType>(m_DeviceScene, this->SentDeviceTransform(), m_DeviceOrder);
      });
    }
    else if (!m_UseBoxes)
    {
      m_Order = std::make_unique<cif::MetricPointOrder>(
        cif::BuildMetricPointOrder<D>(m_HostScene, t, MakeParallelFor(threader)));
    }
    m_OrderKey = key;
    m_HaveOrder = true;
  }
  m_OrderSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
} // namespace itk

#endif
