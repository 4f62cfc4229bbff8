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
#ifndef itkRecursiveGaussianCoefficients_h
#define itkRecursiveGaussianCoefficients_h

#include "cifRecursiveGaussianMath.h"
#include "itkCudaExceptionTranslation.h"
#include "itkCudaParallelFor.h"
#include "itkImage.h"
#include "itkRecursiveGaussianImageFilter.h"

#include <sstream>
#include <type_traits>

namespace itk
{
namespace SmoothingGPUDetail
{
/** ITK's own RecursiveGaussianImageFilter::SetUp, run on a private instance, and its
 * protected coefficients read back as the plain struct the kernels take: the
 * coefficients are ITK's bits by construction. ScalarRealType is double for float
 * and double pixels alike, so one probe type serves every filter of the module. */
class RecursiveGaussianCoefficientProbe : public RecursiveGaussianImageFilter<Image<double, 1>, Image<double, 1>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(RecursiveGaussianCoefficientProbe);
  using Self = RecursiveGaussianCoefficientProbe;
  using Superclass = RecursiveGaussianImageFilter<Image<double, 1>, Image<double, 1>>;
  using Pointer = SmartPointer<Self>;
  itkFactorylessNewMacro(Self);

  /** The coefficients of a pass along an axis of spacing \a spacing (ITK's own
   * exceptions for a spacing near 0). */
  static cif::RecursiveGaussianCoefficients
  Compute(double sigma, GaussianOrderEnum order, bool normalizeAcrossScale, double spacing)
  {
    auto probe = Self::New();
    probe->SetSigma(sigma);
    probe->SetOrder(order);
    probe->SetNormalizeAcrossScale(normalizeAcrossScale);
    probe->SetUp(spacing);
    cif::RecursiveGaussianCoefficients c;
    c.n0 = probe->m_N0;
    c.n1 = probe->m_N1;
    c.n2 = probe->m_N2;
    c.n3 = probe->m_N3;
    c.d1 = probe->m_D1;
    c.d2 = probe->m_D2;
    c.d3 = probe->m_D3;
    c.d4 = probe->m_D4;
    c.m1 = probe->m_M1;
    c.m2 = probe->m_M2;
    c.m3 = probe->m_M3;
    c.m4 = probe->m_M4;
    c.bn1 = probe->m_BN1;
    c.bn2 = probe->m_BN2;
    c.bn3 = probe->m_BN3;
    c.bn4 = probe->m_BN4;
    c.bm1 = probe->m_BM1;
    c.bm2 = probe->m_BM2;
    c.bm3 = probe->m_BM3;
    c.bm4 = probe->m_BM4;
    return c;
  }

protected:
  RecursiveGaussianCoefficientProbe() = default;
  ~RecursiveGaussianCoefficientProbe() override = default;
};

static_assert(std::is_same_v<RecursiveGaussianImageFilter<Image<float, 2>, Image<float, 2>>::ScalarRealType, double>,
              "ITK computes the coefficients of float images in double");

/** float or double. */
template <typename T>
constexpr bool IsRealScalar = std::is_same_v<T, float> || std::is_same_v<T, double>;

/** The dense shape of a region. */
template <typename TRegion>
cif::GaussianShape
ShapeOf(const TRegion & region)
{
  cif::GaussianShape shape;
  shape.dimension = static_cast<int>(TRegion::ImageDimension);
  for (unsigned int d = 0; d < TRegion::ImageDimension; ++d)
  {
    shape.size[d] = static_cast<std::int64_t>(region.GetSize(d));
  }
  return shape;
}

/** What ITK's RecursiveSeparableImageFilter says of a line shorter than 4 samples. */
inline std::string
TooShortMessage(unsigned int direction)
{
  std::ostringstream os;
  os << "The number of pixels along direction " << direction
     << " is less than 4. This filter requires a minimum of four pixels along the dimension to be processed.";
  return os.str();
}
} // namespace SmoothingGPUDetail
} // namespace itk

#endif
