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
// The registration metric a program chooses by name: MeanSquares, Mattes mutual
// information or normalized correlation, as the module's GPU twin (GPU path or, with
// useGPU off or no GPU, the module's CPU path) or as ITK's own class; and what the
// twin reports of its last evaluation (which code ran, where the time went), for any
// of them.
#ifndef cifRegistrationMetrics_h
#define cifRegistrationMetrics_h

#include "itkCorrelationImageToImageMetricv4GPU.h"
#include "itkMattesMutualInformationImageToImageMetricv4GPU.h"
#include "itkMeanSquaresImageToImageMetricv4GPU.h"

#include <string>
#include <type_traits>
#include <vector>

namespace cif
{
/** The image metrics a registration can optimize. */
enum class RegistrationMetricKind
{
  MeanSquares,
  MattesMutualInformation,
  Correlation ///< ITK's CorrelationImageToImageMetricv4: -(normalized cross correlation)^2
};

/** A new metric of \a kind for fixed and moving images of \a TImage: the module's GPU
 * twin (its GPU path when \a useGPU and a GPU is there, else its CPU path), or ITK's
 * own class when \a itkOwn. Mattes gets \a histogramBins bins. */
template <typename TImage>
typename itk::ImageToImageMetricv4<TImage, TImage>::Pointer
MakeRegistrationMetric(RegistrationMetricKind kind, unsigned int histogramBins, bool useGPU, bool itkOwn = false)
{
  if (kind == RegistrationMetricKind::MattesMutualInformation)
  {
    if (itkOwn)
    {
      auto metric = itk::MattesMutualInformationImageToImageMetricv4<TImage, TImage>::New();
      metric->SetNumberOfHistogramBins(histogramBins);
      return metric.GetPointer();
    }
    auto metric = itk::MattesMutualInformationImageToImageMetricv4GPU<TImage, TImage>::New();
    metric->SetNumberOfHistogramBins(histogramBins);
    metric->SetUseGPU(useGPU);
    return metric.GetPointer();
  }
  if (kind == RegistrationMetricKind::Correlation)
  {
    if (itkOwn)
    {
      return itk::CorrelationImageToImageMetricv4<TImage, TImage>::New().GetPointer();
    }
    auto metric = itk::CorrelationImageToImageMetricv4GPU<TImage, TImage>::New();
    metric->SetUseGPU(useGPU);
    return metric.GetPointer();
  }
  if (itkOwn)
  {
    return itk::MeanSquaresImageToImageMetricv4<TImage, TImage>::New().GetPointer();
  }
  auto metric = itk::MeanSquaresImageToImageMetricv4GPU<TImage, TImage>::New();
  metric->SetUseGPU(useGPU);
  return metric.GetPointer();
}

/** Calls \a f with \a metric as the module's twin it is (MeanSquares, Mattes or
 * Correlation, for images of \a TImage); false, without calling, for any other
 * metric (ITK's own classes). \a TMetricObject: itk::Object or const itk::Object. */
template <typename TImage, typename TMetricObject, typename TFunction>
bool
ForMetricTwin(TMetricObject * metric, TFunction && f)
{
  constexpr bool readOnly = std::is_const<TMetricObject>::value;
  auto           visit = [&](auto * twinType) {
    using Twin = std::remove_pointer_t<decltype(twinType)>;
    using Cast = std::conditional_t<readOnly, const Twin *, Twin *>;
    if (auto * twin = dynamic_cast<Cast>(metric))
    {
      f(twin);
      return true;
    }
    return false;
  };
  return visit(static_cast<itk::MeanSquaresImageToImageMetricv4GPU<TImage, TImage> *>(nullptr)) ||
         visit(static_cast<itk::MattesMutualInformationImageToImageMetricv4GPU<TImage, TImage> *>(nullptr)) ||
         visit(static_cast<itk::CorrelationImageToImageMetricv4GPU<TImage, TImage> *>(nullptr));
}

/** Which code ran \a metric's last evaluation: "GPU", "CPU" (the module's twin) or
 * "ITK" (ITK's own class, or the twin's fallback to ITK's code). */
template <typename TImage>
std::string
MetricExecutionPath(const itk::Object * metric)
{
  std::string path = "ITK";
  ForMetricTwin<TImage>(metric, [&](const auto * twin) { path = itk::ToString(twin->GetLastExecutionPath()); });
  return path;
}

/** Where the twin's time went since its last Initialize() (empty for ITK's class). */
template <typename TImage>
std::string
MetricTimingReport(const itk::Object * metric)
{
  std::string report;
  ForMetricTwin<TImage>(metric, [&](const auto * twin) { report = twin->GetTimingReport(); });
  return report;
}

/** New random points at every evaluation (ImageMetricv4GPUBase::
 * SetNumberOfRandomPointsPerEvaluation) with \a seed; false for ITK's own classes,
 * which cannot. */
template <typename TImage>
bool
SetRandomPointsPerEvaluation(itk::Object * metric, itk::SizeValueType points, unsigned int seed)
{
  return ForMetricTwin<TImage>(metric, [&](auto * twin) {
    twin->SetNumberOfRandomPointsPerEvaluation(points);
    twin->SetRandomPointSeed(seed);
  });
}

/** The next evaluations' random points inside a random box of \a size (physical units
 * per axis; empty: the whole domain: ImageMetricv4GPUBase::SetRandomSampleRegionSize);
 * false for ITK's own classes. */
template <typename TImage>
bool
SetRandomSampleRegionSize(itk::Object * metric, const std::vector<double> & size)
{
  return ForMetricTwin<TImage>(metric, [&](auto * twin) { twin->SetRandomSampleRegionSize(size); });
}
} // namespace cif

#endif
