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
#ifndef itkCubicBSplineTable_h
#define itkCubicBSplineTable_h

#include "CudaImageFiltersExport.h"
#include "cifBSplinePrefilterDevice.h"
#include "cifBoundaryMode.h"
#include "cifDeviceBuffer.h"
#include "cifImageFrame.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaPixelTraits.h"
#include "itkObject.h"
#include "itkObjectFactory.h"

#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace itk
{
/** \class CubicBSplineTable
 * \brief Cubic B-spline lookups in a table of 1 to 6 dimensions held as a plain array,
 * for whole batches of points at once.
 *
 * For tables that are not itk::Images: precomputed functions of several variables
 * (seed 001's light-yield tables of a photodetector simulator: 4-D and more) looked
 * up at many points per call. The numbers are those of
 * BSplineInterpolateImageFunction (order 3) on an itk::Image with the same samples,
 * origin and spacing (identity direction): the values, and the derivatives of
 * EvaluateDerivative.
 *
 * Usage: SetSize() (samples per axis, axis 0 fastest in memory, as ITK's buffers: a
 * C array t[n5][n4]...[n0] has size {n0, ..., n5}), optionally SetOrigin() (the
 * coordinate of sample 0 per axis; default 0) and SetSpacing() (default 1), then
 * SetValues() from host memory or SetValuesOnDevice() from device memory, of any
 * scalar type. That computes the coefficients (every axis prefiltered, ITK's mirror
 * boundary) and keeps them: on the GPU when one is used (UseGPU, the default, and a
 * CUDA device present), in host memory otherwise (the CPU path, multithreaded with
 * ITK's threader, the same arithmetic). Evaluate() then takes N points (D physical
 * coordinates each, point after point) and gives N values and, on request, N x D
 * gradients; EvaluateOnDevice() does the same on device arrays without leaving the
 * device.
 *
 * Points outside the table, beyond the first or last sample of an axis, as
 * SetBoundaryMode() says (cifOutsideRule.h):
 * - Mirror (default): ITK's BSplineInterpolateImageFunction (its support mirrored at
 *   the ends, one reflection deep; further out the reads stay at the edge).
 * - ClampToEdge: the value at the nearest point of the table (coordinates clamped),
 *   with a zero gradient along the clamped axes.
 * - Constant: GetOutsideValue(), NaN by default (a gradient of NaN, or of 0 for a
 *   finite outside value). Points within 1e-6 of a spacing of the table count as
 *   inside, so the last sample's own coordinate is inside despite rounding.
 * A point with a NaN or infinite coordinate gives NaN in every mode (it has no
 * place in the table); a finite one however far out follows the mode.
 *
 * Bad input (no size, an axis of 0 samples, more than 6 axes, a NaN, infinite or
 * non-positive spacing, a non-finite origin, null pointers) throws an
 * itk::ExceptionObject; so does a CUDA failure, with the CUDA message.
 *
 * TCoefficient float (default: float sums on the GPU, within float rounding of
 * ITK's double) or double; both are compiled into the library.
 *
 * \ingroup CudaImageFilters
 */
template <typename TCoefficient = float>
class ITK_TEMPLATE_EXPORT CubicBSplineTable : public Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CubicBSplineTable);
  using Self = CubicBSplineTable;
  using Superclass = Object;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(CubicBSplineTable, Object);

  static_assert(IsCudaRealScalar<TCoefficient>, "coefficients are float or double");
  static constexpr unsigned int MaximumDimension = cif::kMaxGridDimension;

  using CoefficientType = TCoefficient;
  using SizeType = std::vector<SizeValueType>;
  using CoordinatesType = std::vector<double>;

  /** Samples per axis (1 to 6 axes, none of 0), axis 0 fastest in memory; a bad
   * size throws and leaves the table as it was. A new size drops the coefficients:
   * SetValues() again. */
  void
  SetSize(const SizeType & size);
  itkGetConstReferenceMacro(Size, SizeType);
  /** Axes of the table (GetSize().size()). */
  unsigned int
  GetDimension() const
  {
    return static_cast<unsigned int>(m_Size.size());
  }
  /** Samples in the table (the product of the sizes; 0 without a size). */
  std::int64_t
  GetNumberOfValues() const;

  /** Coordinate of the first sample per axis; empty (default) means 0 on every axis. */
  itkSetMacro(Origin, CoordinatesType);
  itkGetConstReferenceMacro(Origin, CoordinatesType);
  /** Distance between samples per axis (finite, > 0); empty (default) means 1. */
  itkSetMacro(Spacing, CoordinatesType);
  itkGetConstReferenceMacro(Spacing, CoordinatesType);

  /** Points outside the table: Mirror (default, ITK's), ClampToEdge or Constant.
   * Periodic is refused (the coefficients are ITK's mirrored ones). */
  void
  SetBoundaryMode(cif::BoundaryMode mode);
  itkGetEnumMacro(BoundaryMode, cif::BoundaryMode);
  /** The value of points outside the table with BoundaryMode Constant (default NaN). */
  itkSetMacro(OutsideValue, double);
  itkGetConstMacro(OutsideValue, double);

  /** Use the GPU when one is present (default on); read when the values are set. */
  itkSetMacro(UseGPU, bool);
  itkGetConstMacro(UseGPU, bool);
  itkBooleanMacro(UseGPU);

  /** Visit scattered points in table order on the device (cif::PointOrder::ImageOrder:
   * sorted by cell, results in the caller's order, the same bits); GPU only, off by
   * default. */
  itkSetMacro(SortPoints, bool);
  itkGetConstMacro(SortPoints, bool);
  itkBooleanMacro(SortPoints);

  /** The samples, GetNumberOfValues() of them in host memory, of any arithmetic type;
   * computes and keeps the coefficients. */
  template <typename TValue>
  void
  SetValues(const TValue * values)
  {
    static_assert(std::is_arithmetic_v<TValue>, "values of a scalar type");
    const std::int64_t count = this->RequireValidSize();
    if (values == nullptr)
    {
      itkExceptionMacro("SetValues: the values pointer is null (" << count << " values expected)");
    }
    if constexpr (std::is_same_v<TValue, TCoefficient>)
    {
      this->ComputeCoefficients(values);
    }
    else
    {
      std::vector<TCoefficient> converted;
      this->AllocateHost(converted, count);
      for (std::int64_t i = 0; i < count; ++i)
      {
        converted[i] = static_cast<TCoefficient>(values[i]);
      }
      this->ComputeCoefficients(converted.data());
    }
  }
  template <typename TValue>
  void
  SetValues(const std::vector<TValue> & values)
  {
    if (static_cast<std::int64_t>(values.size()) != this->RequireValidSize())
    {
      itkExceptionMacro("SetValues: " << values.size() << " values for a table of " << this->GetNumberOfValues());
    }
    this->SetValues(values.data());
  }

  /** The samples in device memory (uchar, char, short, ushort, int, uint, float or
   * double; left untouched): converted and prefiltered on the device. Needs the GPU
   * (UseGPU on and a CUDA device). */
  template <typename TValue>
  void
  SetValuesOnDevice(const TValue * deviceValues)
  {
    using TIn = CudaScalar<TValue>;
    static_assert(IsCudaInputScalar<TIn>, "device values of a scalar type the kernels read");
    const std::int64_t count = this->RequireValidSize();
    if (deviceValues == nullptr)
    {
      itkExceptionMacro("SetValuesOnDevice: the values pointer is null (" << count << " values expected)");
    }
    this->RequireGPU("SetValuesOnDevice");
    const auto * samples = reinterpret_cast<const TIn *>(deviceValues);
    if constexpr (std::is_same_v<TIn, TCoefficient>)
    {
      this->ComputeCoefficientsOnDevice(samples);
    }
    else
    {
      cif::DeviceBuffer converted;
      CIF_ITK_TRY_CUDA([&] {
        converted.Allocate(static_cast<std::size_t>(count) * sizeof(TCoefficient));
        cif::ConvertOnDevice<TIn, TCoefficient>(samples, converted.As<TCoefficient>(), count);
      });
      this->ComputeCoefficientsOnDevice(converted.As<const TCoefficient>());
    }
  }

  /** Values at \a count points (\a points: GetDimension() coordinates each, host
   * memory) into \a values (\a count doubles) and, with \a gradients, the gradients
   * (GetDimension() doubles per point). */
  void
  Evaluate(const double * points, std::int64_t count, double * values, double * gradients = nullptr) const;
  /** The same with vectors: \a points holds GetDimension() coordinates per point;
   * \a values (and \a gradients) are resized. */
  void
  Evaluate(const std::vector<double> & points,
           std::vector<double> &       values,
           std::vector<double> *       gradients = nullptr) const;

  /** Values (and gradients) at \a count points held in device memory, into device
   * memory: asynchronous on the default stream. Needs the coefficients on the device
   * (GetCoefficientsOnDevice()). */
  void
  EvaluateOnDevice(const double * devicePoints,
                   std::int64_t   count,
                   double *       deviceValues,
                   double *       deviceGradients = nullptr) const;

  /** Whether coefficients have been computed (SetValues since the last SetSize). */
  bool
  HasCoefficients() const
  {
    return m_CoefficientDimension > 0;
  }
  /** Whether the coefficients live on the device. */
  bool
  GetCoefficientsOnDevice() const
  {
    return m_OnDevice;
  }
  /** A host copy of the coefficients (the samples prefiltered along every axis, as
   * BSplineDecompositionImageFilter computes them; axis 0 fastest): for other cubic
   * B-spline code, such as scipy's or CuPy's map_coordinates with prefilter=False and
   * mode 'mirror' on the array with its axes reversed. */
  void
  GetCoefficients(std::vector<TCoefficient> & coefficients) const;

protected:
  CubicBSplineTable() = default;
  ~CubicBSplineTable() override = default;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  /** The number of values of a valid \a size, or an exception saying what is wrong. */
  std::int64_t
  CountOf(const SizeType & size) const;
  std::int64_t
  RequireValidSize() const
  {
    return this->CountOf(m_Size);
  }
  /** The grid and the physical frame of the table, checked (origin, spacing). */
  void
  RequireValidGeometry(cif::ImageFrame & frame) const;
  void
  RequireGPU(const char * what) const;
  void
  RequireCoefficients(const char * what) const;
  void
  AllocateHost(std::vector<TCoefficient> & buffer, std::int64_t count) const;
  cif::CoefficientGrid
  MakeGrid() const;
  /** Prefilters \a samples (host, GetNumberOfValues() of them) into the coefficients. */
  void
  ComputeCoefficients(const TCoefficient * samples);
  /** The same from device memory (left untouched), on the device. */
  void
  ComputeCoefficientsOnDevice(const TCoefficient * deviceSamples);

  SizeType                  m_Size;
  CoordinatesType           m_Origin;
  CoordinatesType           m_Spacing;
  cif::BoundaryMode         m_BoundaryMode{ cif::BoundaryMode::Mirror };
  double                    m_OutsideValue{ std::numeric_limits<double>::quiet_NaN() };
  bool                      m_UseGPU{ true };
  bool                      m_SortPoints{ false };
  unsigned int              m_CoefficientDimension{ 0 }; // 0: no coefficients
  cif::CoefficientGrid      m_Grid;
  cif::DeviceBuffer         m_DeviceCoefficients;
  std::vector<TCoefficient> m_HostCoefficients;
  bool                      m_OnDevice{ false };
};

// float and double are compiled into the library (itkCubicBSplineTable.cxx): the
// evaluation of 1-D to 6-D is instantiated there once, not in every user's file.
extern template class CubicBSplineTable<float>;
extern template class CubicBSplineTable<double>;
} // namespace itk

#endif
