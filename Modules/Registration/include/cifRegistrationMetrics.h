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

/** Which code ran \a metric's last evaluation: "GPU", "CPU" (the module's twin) or
 * "ITK" (ITK's own class, or the twin's fallback to ITK's code). */
template <typename TImage>
std::string
MetricExecutionPath(const itk::Object * metric)
{
  if (const auto * m = dynamic_cast<const itk::MeanSquaresImageToImageMetricv4GPU<TImage, TImage> *>(metric))
  {
    return itk::ToString(m->GetLastExecutionPath());
  }
  if (const auto * m = dynamic_cast<const itk::MattesMutualInformationImageToImageMetricv4GPU<TImage, TImage> *>(metric))
  {
    return itk::ToString(m->GetLastExecutionPath());
  }
  if (const auto * m = dynamic_cast<const itk::CorrelationImageToImageMetricv4GPU<TImage, TImage> *>(metric))
  {
    return itk::ToString(m->GetLastExecutionPath());
  }
  return "ITK";
}

/** Where the twin's time went since its last Initialize() (empty for ITK's class). */
template <typename TImage>
std::string
MetricTimingReport(const itk::Object * metric)
{
  if (const auto * m = dynamic_cast<const itk::MeanSquaresImageToImageMetricv4GPU<TImage, TImage> *>(metric))
  {
    return m->GetTimingReport();
  }
  if (const auto * m = dynamic_cast<const itk::MattesMutualInformationImageToImageMetricv4GPU<TImage, TImage> *>(metric))
  {
    return m->GetTimingReport();
  }
  if (const auto * m = dynamic_cast<const itk::CorrelationImageToImageMetricv4GPU<TImage, TImage> *>(metric))
  {
    return m->GetTimingReport();
  }
  return "";
}
} // namespace cif

#endif
