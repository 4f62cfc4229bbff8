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
#ifndef itkCubicBSplineTable_hxx
#define itkCubicBSplineTable_hxx

#include "cifBSplinePrefilterHost.h"
#include "cifPointEvaluationDevice.h"
#include "itkCubicBSplineTable.h"
#include "itkCudaParallelFor.h"
#include "itkMultiThreaderBase.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <sstream>
#include <string>
#include <type_traits>

namespace itk
{
namespace CubicBSplineTableDetail
{
/** "{a, b, c}" for messages. */
template <typename T>
std::string
Join(const std::vector<T> & values)
{
  std::ostringstream os;
  os << "{";
  for (std::size_t i = 0; i < values.size(); ++i)
  {
    os << (i ? ", " : "") << values[i];
  }
  os << "}";
  return os.str();
}

/** Calls f(std::integral_constant<int, D>) for the run-time dimension d (1..6): the
 * table's dimension is a run-time property, the evaluation is compiled per D. */
template <typename F>
void
ForDimension(unsigned int d, F && f)
{
  static_assert(cif::kMaxGridDimension == 6, "one case per dimension");
  switch (d)
  {
    case 1:
      f(std::integral_constant<int, 1>{});
      break;
    case 2:
      f(std::integral_constant<int, 2>{});
      break;
    case 3:
      f(std::integral_constant<int, 3>{});
      break;
    case 4:
      f(std::integral_constant<int, 4>{});
      break;
    case 5:
      f(std::integral_constant<int, 5>{});
      break;
    case 6:
      f(std::integral_constant<int, 6>{});
      break;
    default:
      break; // callers have checked 1..6
  }
}
} // namespace CubicBSplineTableDetail

template <typename TCoefficient>
void
CubicBSplineTable<TCoefficient>::SetSize(const SizeType & size)
{
  this->CountOf(size); // a bad size is refused where it is given, the table unchanged
  if (size == m_Size)
  {
    return;
  }
  m_Size = size;
  // The coefficients belong to the old size.
  m_CoefficientDimension = 0;
  m_OnDevice = false;
  m_DeviceCoefficients.Release();
  std::vector<TCoefficient>().swap(m_HostCoefficients);
  this->Modified();
}

template <typename TCoefficient>
std::int64_t
CubicBSplineTable<TCoefficient>::GetNumberOfValues() const
{
  if (m_Size.empty())
  {
    return 0;
  }
  std::int64_t count = 1;
  for (const auto n : m_Size)
  {
    count *= static_cast<std::int64_t>(n);
  }
  return count;
}

template <typename TCoefficient>
void
CubicBSplineTable<TCoefficient>::SetBoundaryMode(cif::BoundaryMode mode)
{
  if (mode != cif::BoundaryMode::Mirror && mode != cif::BoundaryMode::ClampToEdge &&
      mode != cif::BoundaryMode::Constant)
  {
    itkExceptionMacro("boundary mode " << mode
                                       << " is not a rule for points outside a table: Mirror (ITK's), ClampToEdge "
                                          "or Constant (GetOutsideValue(), NaN by default)");
  }
  if (m_BoundaryMode != mode)
  {
    m_BoundaryMode = mode;
    this->Modified();
  }
}

template <typename TCoefficient>
std::int64_t
CubicBSplineTable<TCoefficient>::CountOf(const SizeType & size) const
{
  if (size.empty())
  {
    itkExceptionMacro("the table is empty: SetSize() with 1 to " << MaximumDimension << " axes first");
  }
  if (size.size() > MaximumDimension)
  {
    itkExceptionMacro("a table of " << size.size() << " axes " << CubicBSplineTableDetail::Join(size) << ": 1 to "
                                    << MaximumDimension << " are supported");
  }
  // Offsets are 64-bit; keep the product (and its byte count) well inside that.
  constexpr std::int64_t limit = std::int64_t(1) << 56;
  std::int64_t           count = 1;
  for (std::size_t a = 0; a < size.size(); ++a)
  {
    if (size[a] == 0)
    {
      itkExceptionMacro("axis " << a << " of the table " << CubicBSplineTableDetail::Join(size) << " has no samples");
    }
    if (size[a] > static_cast<SizeValueType>(limit / count))
    {
      itkExceptionMacro("the table " << CubicBSplineTableDetail::Join(size) << " has more than 2^56 values");
    }
    count *= static_cast<std::int64_t>(size[a]);
  }
  return count;
}

template <typename TCoefficient>
void
CubicBSplineTable<TCoefficient>::RequireValidGeometry(cif::ImageFrame & frame) const
{
  const std::size_t d = m_Size.size();
  if (!m_Origin.empty() && m_Origin.size() != d)
  {
    itkExceptionMacro("the origin " << CubicBSplineTableDetail::Join(m_Origin) << " has " << m_Origin.size()
                                    << " coordinates for a table of " << d << " axes");
  }
  if (!m_Spacing.empty() && m_Spacing.size() != d)
  {
    itkExceptionMacro("the spacing " << CubicBSplineTableDetail::Join(m_Spacing) << " has " << m_Spacing.size()
                                     << " entries for a table of " << d << " axes");
  }
  frame = cif::ImageFrame{};
  for (std::size_t a = 0; a < d; ++a)
  {
    const double origin = m_Origin.empty() ? 0.0 : m_Origin[a];
    const double spacing = m_Spacing.empty() ? 1.0 : m_Spacing[a];
    if (!std::isfinite(origin))
    {
      itkExceptionMacro("the origin of axis " << a << " is " << origin << ": it must be finite");
    }
    // !(spacing > 0) is also true for NaN
    if (!(spacing > 0.0) || !std::isfinite(spacing) || !std::isfinite(1.0 / spacing))
    {
      itkExceptionMacro("the spacing of axis " << a << " is " << spacing << ": it must be finite and positive");
    }
    frame.origin[a] = origin;
    frame.spacing[a] = spacing;
    // what ImageBase computes for an identity direction: the inverse of diag(spacing)
    frame.pointToIndex[a][a] = 1.0 / spacing;
  }
}

template <typename TCoefficient>
void
CubicBSplineTable<TCoefficient>::RequireGPU(const char * what) const
{
  if (!m_UseGPU)
  {
    itkExceptionMacro(<< what << " needs the GPU, and UseGPU is off");
  }
  if (!cif::IsGPUAvailable())
  {
    itkExceptionMacro(<< what << " needs a CUDA device: " << cif::GetNoDeviceReason());
  }
}

template <typename TCoefficient>
void
CubicBSplineTable<TCoefficient>::RequireCoefficients(const char * what) const
{
  if (m_CoefficientDimension == 0)
  {
    itkExceptionMacro(<< what << ": the table has no values; SetSize() and SetValues() first");
  }
}

template <typename TCoefficient>
void
CubicBSplineTable<TCoefficient>::AllocateHost(std::vector<TCoefficient> & buffer, std::int64_t count) const
{
  try
  {
    buffer.resize(static_cast<std::size_t>(count));
  }
  catch (const std::bad_alloc &)
  {
    itkExceptionMacro("out of host memory for " << count << " values of " << sizeof(TCoefficient) << " bytes");
  }
  catch (const std::length_error &)
  {
    itkExceptionMacro("out of host memory for " << count << " values of " << sizeof(TCoefficient) << " bytes");
  }
}

template <typename TCoefficient>
cif::CoefficientGrid
CubicBSplineTable<TCoefficient>::MakeGrid() const
{
  cif::CoefficientGrid grid;
  for (std::size_t a = 0; a < m_Size.size(); ++a)
  {
    grid.size[a] = static_cast<std::int64_t>(m_Size[a]);
  }
  return grid;
}

namespace CubicBSplineTableDetail
{
inline cif::BufferShape
ShapeOf(const cif::CoefficientGrid & grid, unsigned int dimension)
{
  cif::BufferShape shape;
  shape.dimension = static_cast<int>(dimension);
  for (unsigned int a = 0; a < dimension; ++a)
  {
    shape.size[a] = grid.size[a];
  }
  return shape;
}
} // namespace CubicBSplineTableDetail

template <typename TCoefficient>
void
CubicBSplineTable<TCoefficient>::ComputeCoefficients(const TCoefficient * samples)
{
  const std::int64_t count = this->RequireValidSize();
  cif::ImageFrame    frame;
  this->RequireValidGeometry(frame);
  m_CoefficientDimension = 0; // none until they are complete
  const cif::CoefficientGrid grid = this->MakeGrid();
  const cif::BufferShape     shape = CubicBSplineTableDetail::ShapeOf(grid, this->GetDimension());
  cif::SplinePoles           poles;
  cif::MakeSplinePoles(3, poles);
  const bool onDevice = m_UseGPU && cif::IsGPUAvailable();
  if (onDevice)
  {
    CIF_ITK_TRY_CUDA([&] {
      const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(TCoefficient);
      m_DeviceCoefficients.Allocate(bytes);
      m_DeviceCoefficients.Upload(samples, bytes);
      cif::PrefilterOnDevice<TCoefficient>(
        m_DeviceCoefficients.As<TCoefficient>(), shape, poles, cif::BoundaryMode::Mirror);
      cif::Synchronize();
    });
    std::vector<TCoefficient>().swap(m_HostCoefficients);
  }
  else
  {
    this->AllocateHost(m_HostCoefficients, count);
    std::copy(samples, samples + count, m_HostCoefficients.begin());
    const MultiThreaderBase::Pointer threader = MultiThreaderBase::New();
    cif::PrefilterOnHost(
      m_HostCoefficients.data(), shape, poles, cif::BoundaryMode::Mirror, MakeParallelFor(threader.GetPointer()));
    m_DeviceCoefficients.Release();
  }
  m_Grid = grid;
  m_OnDevice = onDevice;
  m_CoefficientDimension = this->GetDimension();
  this->Modified();
}

template <typename TCoefficient>
void
CubicBSplineTable<TCoefficient>::ComputeCoefficientsOnDevice(const TCoefficient * deviceSamples)
{
  const std::int64_t count = this->RequireValidSize();
  cif::ImageFrame    frame;
  this->RequireValidGeometry(frame);
  this->RequireGPU("SetValuesOnDevice");
  m_CoefficientDimension = 0;
  const cif::CoefficientGrid grid = this->MakeGrid();
  const cif::BufferShape     shape = CubicBSplineTableDetail::ShapeOf(grid, this->GetDimension());
  cif::SplinePoles           poles;
  cif::MakeSplinePoles(3, poles);
  CIF_ITK_TRY_CUDA([&] {
    m_DeviceCoefficients.Allocate(static_cast<std::size_t>(count) * sizeof(TCoefficient));
    // out of place: the first pass reads the caller's samples, which stay as they are
    cif::PrefilterOnDevice<TCoefficient>(
      deviceSamples, m_DeviceCoefficients.As<TCoefficient>(), shape, poles, cif::BoundaryMode::Mirror);
    cif::Synchronize();
  });
  std::vector<TCoefficient>().swap(m_HostCoefficients);
  m_Grid = grid;
  m_OnDevice = true;
  m_CoefficientDimension = this->GetDimension();
  this->Modified();
}

template <typename TCoefficient>
void
CubicBSplineTable<TCoefficient>::Evaluate(const double * points,
                                          std::int64_t   count,
                                          double *       values,
                                          double *       gradients) const
{
  this->RequireCoefficients("Evaluate");
  if (count < 0)
  {
    itkExceptionMacro("Evaluate: " << count << " points");
  }
  if (count == 0)
  {
    return;
  }
  if (points == nullptr || values == nullptr)
  {
    itkExceptionMacro("Evaluate: " << count << " points need arrays of points and values (a null pointer given)");
  }
  const unsigned int D = m_CoefficientDimension;
  if (m_OnDevice)
  {
    CIF_ITK_TRY_CUDA([&] {
      const std::size_t pointBytes = static_cast<std::size_t>(count) * D * sizeof(double);
      cif::DeviceBuffer p(pointBytes), v(static_cast<std::size_t>(count) * sizeof(double)),
        g(gradients ? pointBytes : 0);
      p.Upload(points, pointBytes);
      this->EvaluateOnDevice(p.As<const double>(), count, v.As<double>(), gradients ? g.As<double>() : nullptr);
      cif::Synchronize();
      v.Download(values, static_cast<std::size_t>(count) * sizeof(double));
      if (gradients)
      {
        g.Download(gradients, pointBytes);
      }
    });
    return;
  }
  cif::ImageFrame frame;
  this->RequireValidGeometry(frame);
  const cif::OutsideRule           rule{ m_BoundaryMode, m_OutsideValue };
  const TCoefficient *             coefficients = m_HostCoefficients.data();
  const MultiThreaderBase::Pointer threader = MultiThreaderBase::New();
  CubicBSplineTableDetail::ForDimension(D, [&](auto dimension) {
    constexpr int N = decltype(dimension)::value;
    CudaParallelFor(threader.GetPointer(), count, [&](std::int64_t i) {
      values[i] = cif::EvaluateCubicAtPhysicalPoint<N>(
        coefficients, m_Grid, frame, points + N * i, gradients ? gradients + N * i : nullptr, rule);
    });
  });
}

template <typename TCoefficient>
void
CubicBSplineTable<TCoefficient>::Evaluate(const std::vector<double> & points,
                                          std::vector<double> &       values,
                                          std::vector<double> *       gradients) const
{
  this->RequireCoefficients("Evaluate");
  const std::size_t D = m_CoefficientDimension;
  if (points.size() % D != 0)
  {
    itkExceptionMacro("Evaluate: " << points.size() << " coordinates are not whole points of " << D);
  }
  const std::size_t count = points.size() / D;
  values.resize(count);
  if (gradients)
  {
    gradients->resize(count * D);
  }
  this->Evaluate(
    points.data(), static_cast<std::int64_t>(count), values.data(), gradients ? gradients->data() : nullptr);
}

template <typename TCoefficient>
void
CubicBSplineTable<TCoefficient>::EvaluateOnDevice(const double * devicePoints,
                                                  std::int64_t   count,
                                                  double *       deviceValues,
                                                  double *       deviceGradients) const
{
  this->RequireCoefficients("EvaluateOnDevice");
  if (!m_OnDevice)
  {
    itkExceptionMacro("EvaluateOnDevice needs the coefficients on the device: UseGPU on and a CUDA device when "
                      "the values are set ("
                      << (!m_UseGPU               ? std::string("UseGPU is off")
                          : cif::IsGPUAvailable() ? std::string("the values were set on the CPU path")
                                                  : cif::GetNoDeviceReason())
                      << ")");
  }
  if (count < 0 || (count > 0 && (devicePoints == nullptr || deviceValues == nullptr)))
  {
    itkExceptionMacro("EvaluateOnDevice: " << count << " points need device arrays of points and values");
  }
  cif::ImageFrame frame;
  this->RequireValidGeometry(frame);
  const cif::OutsideRule rule{ m_BoundaryMode, m_OutsideValue };
  const cif::PointOrder  order = m_SortPoints ? cif::PointOrder::ImageOrder : cif::PointOrder::AsGiven;
  CIF_ITK_TRY_CUDA([&] {
    CubicBSplineTableDetail::ForDimension(m_CoefficientDimension, [&](auto dimension) {
      constexpr int N = decltype(dimension)::value;
      cif::EvaluatePhysicalPointsOnDevice<N, TCoefficient>(m_DeviceCoefficients.As<const TCoefficient>(),
                                                           m_Grid,
                                                           frame,
                                                           devicePoints,
                                                           count,
                                                           deviceValues,
                                                           deviceGradients,
                                                           order,
                                                           rule);
    });
  });
}

template <typename TCoefficient>
void
CubicBSplineTable<TCoefficient>::GetCoefficients(std::vector<TCoefficient> & coefficients) const
{
  this->RequireCoefficients("GetCoefficients");
  if (!m_OnDevice)
  {
    coefficients = m_HostCoefficients;
    return;
  }
  const std::int64_t count = this->GetNumberOfValues();
  this->AllocateHost(coefficients, count);
  CIF_ITK_TRY_CUDA([&] {
    m_DeviceCoefficients.Download(coefficients.data(), static_cast<std::size_t>(count) * sizeof(TCoefficient));
  });
}

template <typename TCoefficient>
void
CubicBSplineTable<TCoefficient>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Size: " << CubicBSplineTableDetail::Join(m_Size) << std::endl;
  os << indent
     << "Origin: " << (m_Origin.empty() ? std::string("0 on every axis") : CubicBSplineTableDetail::Join(m_Origin))
     << std::endl;
  os << indent
     << "Spacing: " << (m_Spacing.empty() ? std::string("1 on every axis") : CubicBSplineTableDetail::Join(m_Spacing))
     << std::endl;
  os << indent << "BoundaryMode: " << m_BoundaryMode << std::endl;
  os << indent << "OutsideValue: " << m_OutsideValue << std::endl;
  os << indent << "UseGPU: " << (m_UseGPU ? "On" : "Off") << std::endl;
  os << indent << "SortPoints: " << (m_SortPoints ? "On" : "Off") << std::endl;
  os << indent << "Coefficients: "
     << (m_CoefficientDimension == 0 ? "none"
         : m_OnDevice                ? "on the device"
                                     : "in host memory")
     << std::endl;
}
} // namespace itk

#endif
