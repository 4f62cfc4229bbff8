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
#ifndef itkAdaptiveStochasticGradientDescentParameterEstimator_hxx
#define itkAdaptiveStochasticGradientDescentParameterEstimator_hxx

#include "itkAdaptiveStochasticGradientDescentParameterEstimator.h"
#include "itkMath.h"
#include "itkMetricMovingTransformSplit.h"
#include "itkMultiThreaderBase.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <vector>

namespace itk
{
template <typename TMetric>
auto
AdaptiveStochasticGradientDescentParameterEstimator<TMetric>::GridPoints(SizeValueType count, bool insideMask) const ->
  typename VirtualPointSetType::Pointer
{
  if (!m_Metric)
  {
    itkExceptionMacro("No metric set");
  }
  const auto region = m_Metric->GetVirtualRegion();
  const auto size = region.GetSize();
  // elastix's ImageGridSampler: one isotropic spacing in voxels, the grid centred.
  const double fraction =
    static_cast<double>(region.GetNumberOfPixels()) / static_cast<double>(std::max<SizeValueType>(count, 1));
  const auto spacing = std::max<SizeValueType>(
    1, static_cast<SizeValueType>(std::llround(std::pow(fraction, 1.0 / static_cast<double>(Dimension)))));
  typename TMetric::VirtualIndexType first;
  Size<Dimension>                    gridSize;
  SizeValueType                      total = 1;
  for (unsigned int d = 0; d < Dimension; ++d)
  {
    gridSize[d] = 1 + (size[d] - 1) / spacing;
    first[d] = region.GetIndex()[d] + static_cast<IndexValueType>((size[d] - ((gridSize[d] - 1) * spacing + 1)) / 2);
    total *= gridSize[d];
  }
  auto          points = VirtualPointSetType::New();
  const auto *  mask = insideMask ? m_Metric->GetFixedImageMask() : nullptr;
  const auto *  fixedTransform = m_Metric->GetFixedTransform();
  SizeValueType kept = 0;
  for (SizeValueType k = 0; k < total; ++k)
  {
    SizeValueType                      rest = k; // x fastest, as elastix's loop
    typename TMetric::VirtualIndexType index;
    for (unsigned int d = 0; d < Dimension; ++d)
    {
      index[d] = first[d] + static_cast<IndexValueType>((rest % gridSize[d]) * spacing);
      rest /= gridSize[d];
    }
    VirtualPointType point;
    m_Metric->GetVirtualImage()->TransformIndexToPhysicalPoint(index, point);
    if (mask != nullptr && !mask->IsInsideInWorldSpace(fixedTransform->TransformPoint(point)))
    {
      continue;
    }
    points->SetPoint(kept++, point);
  }
  return points;
}


template <typename TMetric>
double
AdaptiveStochasticGradientDescentParameterEstimator<TMetric>::DefaultMaximumStepLength() const
{
  if (!m_Metric || !m_Metric->GetFixedImage() || !m_Metric->GetMovingImage())
  {
    itkExceptionMacro("The metric and its images must be set");
  }
  constexpr unsigned int axes = std::min(Dimension, 2u);
  double                 sum = 0.0;
  for (unsigned int d = 0; d < axes; ++d)
  {
    sum += m_Metric->GetFixedImage()->GetSpacing()[d] + m_Metric->GetMovingImage()->GetSpacing()[d];
  }
  return sum / (2.0 * axes);
}


template <typename TMetric>
void
AdaptiveStochasticGradientDescentParameterEstimator<TMetric>::ComputeJacobianTerms(
  const VirtualPointSetType *                 points,
  const Array<double> &                       inverseRootScales,
  AdaptiveStochasticGradientDescentEstimate & estimate) const
{
  if (m_UseBSplineStructure && this->ComputeBSplineJacobianTerms(points, inverseRootScales, estimate))
  {
    return;
  }
  const auto *                                        transform = m_Metric->GetMovingTransform();
  const SizeValueType                                 parameters = inverseRootScales.Size();
  const SizeValueType                                 n = points->GetNumberOfPoints();
  typename TMetric::MovingTransformType::JacobianType jacobian;
  std::vector<SizeValueType>                          columns;
  std::vector<double>                                 scaled; // rows x columns, the scaled nonzero columns
  unsigned int                                        rows = 0;
  // The Jacobian at point j, only its nonzero columns (a B-spline's support), scaled
  // to elastix's parameters (columns divided by the scales' square roots).
  auto measure = [&](SizeValueType j) {
    transform->ComputeJacobianWithRespectToParameters(points->GetPoint(j), jacobian);
    rows = jacobian.rows();
    columns.clear();
    for (SizeValueType p = 0; p < parameters; ++p)
    {
      for (unsigned int r = 0; r < rows; ++r)
      {
        if (jacobian(r, p) != 0.0)
        {
          columns.push_back(p);
          break;
        }
      }
    }
    scaled.assign(rows * columns.size(), 0.0);
    for (unsigned int r = 0; r < rows; ++r)
    {
      for (std::size_t k = 0; k < columns.size(); ++k)
      {
        scaled[r * columns.size() + k] = jacobian(r, columns[k]) * inverseRootScales[columns[k]];
      }
    }
  };
  // C = 1/n sum_j J_j^T J_j, its upper triangle, sparse (keyed p * P + q, p <= q).
  std::unordered_map<unsigned long long, double> covariance;
  for (SizeValueType j = 0; j < n; ++j)
  {
    measure(j);
    const std::size_t m = columns.size();
    for (std::size_t k = 0; k < m; ++k)
    {
      for (std::size_t l = k; l < m; ++l)
      {
        double sum = 0.0;
        for (unsigned int r = 0; r < rows; ++r)
        {
          sum += scaled[r * m + k] * scaled[r * m + l];
        }
        covariance[static_cast<unsigned long long>(columns[k]) * parameters + columns[l]] += sum;
      }
    }
  }
  double trace = 0.0;
  double frobenius = 0.0;
  for (auto it = covariance.begin(); it != covariance.end();)
  {
    it->second /= static_cast<double>(n);
    if (std::abs(it->second) <= 1e-14) // elastix keeps no smaller element
    {
      it = covariance.erase(it);
      continue;
    }
    const bool diagonal = it->first / parameters == it->first % parameters;
    trace += diagonal ? it->second : 0.0;
    frobenius += (diagonal ? 1.0 : 2.0) * it->second * it->second;
    ++it;
  }
  estimate.TrC = trace;
  estimate.TrCC = frobenius;

  // maxJJ and maxJCJ: elastix's bounds on a step's largest displacement (eqs. 47, 54),
  // trace(A J^T) + 2 sqrt(2) ||A J^T||_F with A = J and A = J C (rows x m, row-major).
  const double root8 = 2.0 * std::sqrt(2.0);
  const auto   displacementBound = [&rows, &scaled, root8](const std::vector<double> & a, std::size_t m) {
    double diagonal = 0.0;
    double squares = 0.0;
    for (unsigned int r = 0; r < rows; ++r)
    {
      for (unsigned int s = 0; s < rows; ++s)
      {
        double sum = 0.0;
        for (std::size_t k = 0; k < m; ++k)
        {
          sum += a[r * m + k] * scaled[s * m + k];
        }
        diagonal += r == s ? sum : 0.0;
        squares += sum * sum;
      }
    }
    return diagonal + root8 * std::sqrt(squares);
  };
  std::vector<double> block, jc;
  double              maxJJ = 0.0;
  double              maxJCJ = 0.0;
  for (SizeValueType j = 0; j < n; ++j)
  {
    measure(j);
    const std::size_t m = columns.size();
    maxJJ = std::max(maxJJ, displacementBound(scaled, m));

    block.assign(m * m, 0.0); // C restricted to the nonzero columns, both triangles
    for (std::size_t k = 0; k < m; ++k)
    {
      for (std::size_t l = k; l < m; ++l)
      {
        const auto found = covariance.find(static_cast<unsigned long long>(columns[k]) * parameters + columns[l]);
        if (found != covariance.end())
        {
          block[k * m + l] = block[l * m + k] = found->second;
        }
      }
    }
    jc.assign(rows * m, 0.0);
    for (unsigned int r = 0; r < rows; ++r)
    {
      for (std::size_t l = 0; l < m; ++l)
      {
        double sum = 0.0;
        for (std::size_t k = 0; k < m; ++k)
        {
          sum += scaled[r * m + k] * block[k * m + l];
        }
        jc[r * m + l] = sum;
      }
    }
    maxJCJ = std::max(maxJCJ, displacementBound(jc, m));
  }
  estimate.MaxJJ = maxJJ;
  estimate.MaxJCJ = maxJCJ;
}


template <typename TMetric>
bool
AdaptiveStochasticGradientDescentParameterEstimator<TMetric>::ComputeBSplineJacobianTerms(
  const VirtualPointSetType *                 points,
  const Array<double> &                       inverseRootScales,
  AdaptiveStochasticGradientDescentEstimate & estimate) const
{
  constexpr unsigned int D = Dimension;
  using BSplineType = BSplineTransform<double, D, 3>;
  const MetricMovingTransformSplit<D> split(m_Metric->GetMovingTransform());
  const auto * bspline = split.IsSupported() ? dynamic_cast<const BSplineType *>(split.OptimizedStage()) : nullptr;
  const SizeValueType parameters = inverseRootScales.Size();
  if (bspline == nullptr || bspline->GetNumberOfParameters() != parameters || parameters == 0)
  {
    return false;
  }
  const double scale = inverseRootScales[0]; // J = scale M (I (x) w^T) at every point
  for (SizeValueType p = 1; p < parameters; ++p)
  {
    if (std::abs(inverseRootScales[p] - scale) > 1e-12 * std::abs(scale))
    {
      return false;
    }
  }
  const auto & host = split.Host();
  // G = M^T M and M M^T, M G M^T for the affine map M applied after the B-spline
  double g[D][D], mm[D][D], mgm[D][D];
  for (unsigned int i = 0; i < D; ++i)
  {
    for (unsigned int j = 0; j < D; ++j)
    {
      g[i][j] = mm[i][j] = 0.0;
      for (unsigned int k = 0; k < D; ++k)
      {
        g[i][j] += host.after.matrix[k][i] * host.after.matrix[k][j];
        mm[i][j] += host.after.matrix[i][k] * host.after.matrix[j][k];
      }
    }
  }
  for (unsigned int i = 0; i < D; ++i)
  {
    for (unsigned int j = 0; j < D; ++j)
    {
      mgm[i][j] = 0.0;
      for (unsigned int k = 0; k < D; ++k)
      {
        for (unsigned int l = 0; l < D; ++l)
        {
          mgm[i][j] += host.after.matrix[i][k] * g[k][l] * host.after.matrix[j][l];
        }
      }
    }
  }
  const double root8 = 2.0 * std::sqrt(2.0);
  const auto   bound = [root8](const double(&a)[D][D]) { // trace + 2 sqrt(2) ||a||_F
    double trace = 0.0, squares = 0.0;
    for (unsigned int i = 0; i < D; ++i)
    {
      trace += a[i][i];
      for (unsigned int j = 0; j < D; ++j)
      {
        squares += a[i][j] * a[i][j];
      }
    }
    return trace + root8 * std::sqrt(squares);
  };

  // S over pairs of control points at most SplineOrder apart per axis, dense: S[a][o],
  // o = sum_a (b_a - a_a + SplineOrder) span^a for the pair (a, b).
  constexpr unsigned int order = BSplineType::SplineOrder;
  constexpr unsigned int reach = order + 1;    // control points per axis in a support
  constexpr unsigned int span = 2 * order + 1; // offsets per axis between two of them
  const auto             gridSize = bspline->GetCoefficientImages()[0]->GetLargestPossibleRegion().GetSize();
  const auto             controlPoints = static_cast<SizeValueType>(parameters / D);
  const auto             offsets = Math::UnsignedPower<unsigned int>(span, D);
  // (SplineOrder + 1)^D support points: GetNumberOfWeights() is gone with ITK_LEGACY_REMOVE
  const auto supportSize = Math::UnsignedPower<unsigned int>(reach, D);
  // The offset between two support points from their places in the support (place =
  // sum_a local_a reach^a): one table for every point.
  std::vector<unsigned int> pairOffset(static_cast<std::size_t>(supportSize) * supportSize);
  for (unsigned int k = 0; k < supportSize; ++k)
  {
    for (unsigned int l = 0; l < supportSize; ++l)
    {
      unsigned int o = 0;
      for (unsigned int a = D; a-- > 0;)
      {
        const unsigned int stride = Math::UnsignedPower<unsigned int>(reach, a);
        o = o * span + (l / stride % reach) + order - (k / stride % reach);
      }
      pairOffset[static_cast<std::size_t>(k) * supportSize + l] = o;
    }
  }

  // S += w w^T at every point, in parallel without two tasks writing one row: the points
  // go to tiles by their first control point on the last (up to two) axes; tiles whose
  // coordinates agree modulo reach there form a colour, and a colour's tiles touch
  // disjoint rows. Colours in turn, each tile's points in order: the same sums on any
  // number of threads.
  constexpr unsigned int colourAxes = D >= 3 ? 2 : 1;
  SizeValueType          tiles = 1;
  for (unsigned int a = D - colourAxes; a < D; ++a)
  {
    tiles *= gridSize[a];
  }
  const auto tileOf = [&gridSize](const std::array<long, D> & first) {
    SizeValueType tile = 0;
    for (unsigned int a = D; a-- > D - colourAxes;)
    {
      tile = tile * gridSize[a] + static_cast<SizeValueType>(first[a]);
    }
    return tile;
  };
  const auto colourOf = [&gridSize](SizeValueType tile) {
    unsigned int colour = 0;
    for (unsigned int a = D - colourAxes; a < D; ++a)
    {
      colour = colour * reach + static_cast<unsigned int>(tile % gridSize[a] % reach);
      tile /= gridSize[a];
    }
    return colour;
  };

  // Every point's support once (in parallel; a point outside the grid has none): its
  // weights, control points, their places, and its tile (tiles: outside).
  const SizeValueType        n = points->GetNumberOfPoints();
  std::vector<double>        pointWeights(static_cast<std::size_t>(n) * supportSize);
  std::vector<SizeValueType> pointRows(static_cast<std::size_t>(n) * supportSize);
  std::vector<unsigned int>  pointPlaces(static_cast<std::size_t>(n) * supportSize);
  std::vector<SizeValueType> pointTile(n, tiles);
  constexpr SizeValueType    chunk = 256; // points per task; each task keeps its own maximum
  const SizeValueType        chunks = (n + chunk - 1) / chunk;
  std::vector<double>        chunkMax(chunks, 0.0);
  auto                       threader = MultiThreaderBase::New();
  threader->ParallelizeArray(
    0,
    chunks,
    [&](SizeValueType c) {
      typename BSplineType::WeightsType             weights(supportSize);
      typename BSplineType::ParameterIndexArrayType indices(supportSize);
      std::vector<std::array<long, D>>              coordinates(supportSize);
      for (SizeValueType j = c * chunk; j < std::min(n, (c + 1) * chunk); ++j)
      {
        const auto &                         x = points->GetPoint(j);
        typename BSplineType::InputPointType y;
        for (unsigned int i = 0; i < D; ++i)
        {
          y[i] = host.before.offset[i];
          for (unsigned int k = 0; k < D; ++k)
          {
            y[i] += host.before.matrix[i][k] * x[k];
          }
        }
        typename BSplineType::OutputPointType mapped;
        bool                                  inside = false;
        bspline->TransformPoint(y, mapped, weights, indices, inside);
        if (!inside)
        {
          continue;
        }
        std::array<long, D> first;
        first.fill(std::numeric_limits<long>::max());
        double ww = 0.0;
        for (unsigned int k = 0; k < supportSize; ++k)
        {
          SizeValueType rest = indices[k];
          for (unsigned int a = 0; a < D; ++a)
          {
            coordinates[k][a] = static_cast<long>(rest % gridSize[a]);
            rest /= gridSize[a];
            first[a] = std::min(first[a], coordinates[k][a]);
          }
          ww += weights[k] * weights[k];
        }
        const std::size_t at = static_cast<std::size_t>(j) * supportSize;
        for (unsigned int k = 0; k < supportSize; ++k)
        {
          unsigned int place = 0;
          for (unsigned int a = D; a-- > 0;)
          {
            place = place * reach + static_cast<unsigned int>(coordinates[k][a] - first[a]);
          }
          pointWeights[at + k] = weights[k];
          pointRows[at + k] = static_cast<SizeValueType>(indices[k]);
          pointPlaces[at + k] = place;
        }
        pointTile[j] = tileOf(first);
        chunkMax[c] = std::max(chunkMax[c], ww);
      }
    },
    nullptr);
  const double maxWeights = chunkMax.empty() ? 0.0 : *std::max_element(chunkMax.begin(), chunkMax.end()); // max_j w.w

  std::vector<SizeValueType> tileStart(tiles + 1, 0);
  for (SizeValueType j = 0; j < n; ++j)
  {
    if (pointTile[j] < tiles)
    {
      ++tileStart[pointTile[j] + 1];
    }
  }
  std::partial_sum(tileStart.begin(), tileStart.end(), tileStart.begin());
  std::vector<SizeValueType> tilePoints(tileStart.back());
  {
    std::vector<SizeValueType> next(tileStart.begin(), tileStart.end() - 1);
    for (SizeValueType j = 0; j < n; ++j)
    {
      if (pointTile[j] < tiles)
      {
        tilePoints[next[pointTile[j]]++] = j;
      }
    }
  }
  std::vector<double> covariance(static_cast<std::size_t>(controlPoints) * offsets, 0.0);
  const auto          accumulate = [&](SizeValueType j) {
    const std::size_t at = static_cast<std::size_t>(j) * supportSize;
    for (unsigned int k = 0; k < supportSize; ++k)
    {
      double * const             row = &covariance[static_cast<std::size_t>(pointRows[at + k]) * offsets];
      const unsigned int * const pair = &pairOffset[static_cast<std::size_t>(pointPlaces[at + k]) * supportSize];
      const double               wk = pointWeights[at + k];
      for (unsigned int l = 0; l < supportSize; ++l)
      {
        row[pair[pointPlaces[at + l]]] += wk * pointWeights[at + l];
      }
    }
  };
  std::vector<std::vector<SizeValueType>> tilesOfColour(Math::UnsignedPower<unsigned int>(reach, colourAxes));
  for (SizeValueType tile = 0; tile < tiles; ++tile)
  {
    if (tileStart[tile + 1] > tileStart[tile])
    {
      tilesOfColour[colourOf(tile)].push_back(tile);
    }
  }
  for (const auto & inColour : tilesOfColour)
  {
    threader->ParallelizeArray(
      0,
      inColour.size(),
      [&](SizeValueType t) {
        for (SizeValueType p = tileStart[inColour[t]]; p < tileStart[inColour[t] + 1]; ++p)
        {
          accumulate(tilePoints[p]);
        }
      },
      nullptr);
  }

  // Tr C and ||C||_F^2 with C = s^2 G (x) S, row by row, the rows' sums added in order.
  const double        s2 = scale * scale;
  const auto          centre = (offsets - 1) / 2; // offset 0 on every axis
  std::vector<double> rowTrace(controlPoints, 0.0), rowSquares(controlPoints, 0.0);
  threader->ParallelizeArray(
    0,
    controlPoints,
    [&](SizeValueType a) {
      double * const row = &covariance[static_cast<std::size_t>(a) * offsets];
      for (unsigned int o = 0; o < offsets; ++o)
      {
        row[o] /= static_cast<double>(n);
        const double value = row[o];
        if (value == 0.0)
        {
          continue;
        }
        for (unsigned int d = 0; d < D; ++d)
        {
          for (unsigned int e = 0; e < D; ++e)
          {
            const double c = s2 * g[d][e] * value;
            if (std::abs(c) <= 1e-14) // elastix keeps no smaller element
            {
              continue;
            }
            rowSquares[a] += c * c;
            rowTrace[a] += o == centre && d == e ? c : 0.0;
          }
        }
      }
    },
    nullptr);
  estimate.TrC = std::accumulate(rowTrace.begin(), rowTrace.end(), 0.0);
  estimate.TrCC = std::accumulate(rowSquares.begin(), rowSquares.end(), 0.0);

  // J J^T = s^2 (w.w) M M^T; J C J^T = s^4 (w^T S w) M G M^T
  std::fill(chunkMax.begin(), chunkMax.end(), 0.0);
  threader->ParallelizeArray(
    0,
    chunks,
    [&](SizeValueType c) {
      for (SizeValueType j = c * chunk; j < std::min(n, (c + 1) * chunk); ++j)
      {
        if (pointTile[j] == tiles)
        {
          continue;
        }
        const std::size_t at = static_cast<std::size_t>(j) * supportSize;
        double            wsw = 0.0;
        for (unsigned int k = 0; k < supportSize; ++k)
        {
          const double * const       row = &covariance[static_cast<std::size_t>(pointRows[at + k]) * offsets];
          const unsigned int * const pair = &pairOffset[static_cast<std::size_t>(pointPlaces[at + k]) * supportSize];
          double                     sum = 0.0;
          for (unsigned int l = 0; l < supportSize; ++l)
          {
            sum += pointWeights[at + l] * row[pair[pointPlaces[at + l]]];
          }
          wsw += pointWeights[at + k] * sum;
        }
        chunkMax[c] = std::max(chunkMax[c], wsw);
      }
    },
    nullptr);
  const double maxWSW = chunkMax.empty() ? 0.0 : *std::max_element(chunkMax.begin(), chunkMax.end());
  estimate.MaxJJ = s2 * maxWeights * bound(mm);
  estimate.MaxJCJ = s2 * s2 * maxWSW * bound(mgm);
  return true;
}


template <typename TMetric>
AdaptiveStochasticGradientDescentEstimate
AdaptiveStochasticGradientDescentParameterEstimator<TMetric>::Estimate(const Settings &   settings,
                                                                       const ScalesType & scales)
{
  if (!m_Metric)
  {
    itkExceptionMacro("No metric set");
  }
  const auto start = std::chrono::steady_clock::now();
  const auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  double made = 0.0;
  if (m_ExactMetricMaker)
  {
    m_ExactMetric = m_ExactMetricMaker(m_Metric.GetPointer(), this->ExactGradientPoints().GetPointer());
    made = since(start);
  }
  // A made metric (and its device buffers) lives for this estimate only.
  const auto forgetMadeMetric = [this] {
    if (m_ExactMetricMaker)
    {
      m_ExactMetric = nullptr;
    }
  };
  AdaptiveStochasticGradientDescentEstimate estimate;
  const typename TMetric::ParametersType    position = m_Metric->GetParameters();
  const SizeValueType                       parameters = position.Size();
  if (scales.Size() != 0 && parameters % scales.Size() != 0)
  {
    itkExceptionMacro("The scales (" << scales.Size() << ") do not match the parameters (" << parameters << ")");
  }
  Array<double> inverseRootScales(parameters);
  for (SizeValueType p = 0; p < parameters; ++p)
  {
    inverseRootScales[p] = scales.Size() == 0 ? 1.0 : 1.0 / std::sqrt(scales[p % scales.Size()]);
  }
  const double delta = settings.MaximumStepLength > 0.0
                         ? settings.MaximumStepLength
                         : settings.MaximumStepLengthRatio * this->DefaultMaximumStepLength();
  estimate.MaximumStepLength = delta;

  estimate.NumberOfJacobianMeasurements = settings.NumberOfJacobianMeasurements > 0
                                            ? settings.NumberOfJacobianMeasurements
                                            : static_cast<unsigned int>(std::max<SizeValueType>(1000, parameters));
  const auto points = this->GridPoints(estimate.NumberOfJacobianMeasurements);
  if (points->GetNumberOfPoints() == 0)
  {
    itkExceptionMacro("No virtual point (inside the fixed mask) to estimate the parameters at");
  }
  const auto jacobianStart = std::chrono::steady_clock::now();
  this->ComputeJacobianTerms(points, inverseRootScales, estimate);
  estimate.JacobianSeconds = since(jacobianStart);
  const double TrC = estimate.TrC;
  const double TrCC = estimate.TrCC;

  // Enough gradients that their mean square magnitude E stays below 1.5 E with two
  // standard deviations (elastix: N = 8 TrCC / TrC^2 / (K - 1)^2, K = 1.5, at least 2).
  unsigned int measurements = settings.NumberOfGradientMeasurements;
  if (measurements == 0)
  {
    measurements =
      TrCC > 1e-14 && TrC > 1e-14 ? static_cast<unsigned int>(std::ceil(8.0 * TrCC / TrC / TrC / 0.25)) : 2u;
    measurements = std::max(2u, measurements);
  }
  estimate.NumberOfGradientMeasurements = measurements;
  estimate.PerturbationSigma = estimate.MaxJJ > 1e-14 ? delta / std::sqrt(estimate.MaxJJ) : 0.0;

  auto random = Statistics::MersenneTwisterRandomVariateGenerator::New();
  random->SetSeed(m_RandomSeed);
  typename TMetric::DerivativeType exact, approximate;
  typename TMetric::MeasureType    value;
  double                           gg = 0.0;
  double                           ee = 0.0;
  const auto                       gradientStart = std::chrono::steady_clock::now();
  try
  {
    for (unsigned int i = 0; i < measurements; ++i)
    {
      // mu_i ~ N(mu_0, sigma4^2 I) in elastix's scaled parameters.
      typename TMetric::ParametersType perturbed = position;
      for (SizeValueType p = 0; p < parameters; ++p)
      {
        perturbed[p] += estimate.PerturbationSigma * random->GetNormalVariate(0.0, 1.0) * inverseRootScales[p];
      }
      m_Metric->SetParameters(perturbed);
      if (m_ExactMetric)
      {
        m_ExactMetric->SetParameters(perturbed);
        m_ExactMetric->GetValueAndDerivative(value, exact);
        m_Metric->GetValueAndDerivative(value, approximate);
      }
      else
      {
        m_Metric->GetValueAndDerivative(value, exact);
      }
      for (SizeValueType p = 0; p < parameters; ++p)
      {
        const double g = exact[p] * inverseRootScales[p];
        gg += g * g;
        if (m_ExactMetric)
        {
          const double e = (exact[p] - approximate[p]) * inverseRootScales[p];
          ee += e * e;
        }
      }
    }
  }
  catch (...)
  {
    typename TMetric::ParametersType restored = position;
    m_Metric->SetParameters(restored);
    forgetMadeMetric();
    throw;
  }
  typename TMetric::ParametersType restored = position;
  m_Metric->SetParameters(restored);
  if (m_ExactMetric)
  {
    m_ExactMetric->SetParameters(restored);
  }
  forgetMadeMetric();
  estimate.GradientSeconds = made + since(gradientStart);
  estimate.TwinSeconds = made;
  gg /= measurements;
  ee /= measurements;
  estimate.ExactGradientSquaredMagnitude = gg;
  estimate.GradientErrorSquaredMagnitude = ee;

  // Klein et al. 2009: a from the largest allowed displacement delta at the first
  // step (eq. 54), damped by the noise; the sigmoid's minimum and width from the noise.
  const double sigma1 = gg > 1e-14 && TrC > 1e-14 ? std::sqrt(gg / TrC) : 0.0;
  const double sigma3 = ee > 1e-14 && TrC > 1e-14 ? std::sqrt(ee / TrC) : 0.0;
  const double A = settings.Param_A;
  const double aMax = sigma1 > 1e-14 && estimate.MaxJCJ > 1e-14 ? A * delta / sigma1 / std::sqrt(estimate.MaxJCJ) : 0.0;
  const double noise = sigma1 * sigma1 / (sigma1 * sigma1 + sigma3 * sigma3 + 1e-14);
  estimate.Sigma1 = sigma1;
  estimate.Sigma3 = sigma3;
  estimate.NoiseFactor = noise;
  estimate.Param_a = aMax * noise;
  estimate.Param_alpha = 1.0;
  estimate.SigmoidMax = 1.0;
  estimate.SigmoidMin = -0.99 + 0.98 * noise;
  estimate.SigmoidScale = std::max(1e-14, settings.SigmoidScaleFactor * sigma3 * sigma3 * std::sqrt(TrCC));
  estimate.Seconds = since(start);
  return estimate;
}


template <typename TMetric>
void
AdaptiveStochasticGradientDescentParameterEstimator<TMetric>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Metric: " << m_Metric.GetPointer() << '\n'
     << indent << "ExactMetric: " << m_ExactMetric.GetPointer() << '\n'
     << indent << "RandomSeed: " << m_RandomSeed << '\n'
     << indent << "NumberOfSamplesForExactGradient: " << m_NumberOfSamplesForExactGradient << std::endl;
}
} // namespace itk

#endif
