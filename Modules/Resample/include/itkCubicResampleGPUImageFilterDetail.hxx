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
// The helpers every path of CubicResampleGPUImageFilter shares (geometry, host mapping, host evaluation).
#ifndef itkCubicResampleGPUImageFilterDetail_hxx
#define itkCubicResampleGPUImageFilterDetail_hxx

#include "cifBSplinePrefilterMath.h"
#include "cifDeviceBuffer.h"
#include "cifResampleMath.h"
#include "cifResampleSlabs.h"
#include "cifTransformChain.h"
#include "itkCudaGeometry.h"
#include "itkCudaParallelFor.h"
#include "itkCudaPixelTraits.h"

#include <vector>

namespace itk
{
namespace CubicResampleDetail
{
/** When the pixels of \a input were last written through a CudaDeviceImage's data manager
 * (host writes through its non-const accessors, device writes), which need not
 * touch the image's MTime; 0 for other images. */
template <typename TImage>
ModifiedTimeType
PixelWriteTime(const TImage * input)
{
  if constexpr (CudaImageTraits<TImage>::IsCudaDeviceImage)
  {
    return input->GetDataManager()->GetMTime();
  }
  else
  {
    return 0;
  }
}

/** Geometry of output region \a outRegion and input region \a inRegion. */
template <unsigned int D, typename TInputImage, typename TOutputImage>
cif::ResampleGeometry
MakeGeometry(const TInputImage *                       input,
             const typename TInputImage::RegionType &  inRegion,
             const TOutputImage *                      output,
             const typename TOutputImage::RegionType & outRegion)
{
  cif::ResampleGeometry g;
  for (unsigned int a = 0; a < D; ++a)
  {
    g.outputSize[a] = static_cast<std::int64_t>(outRegion.GetSize()[a]);
    g.outputStart[a] = outRegion.GetIndex()[a];
    g.outputOrigin[a] = output->GetOrigin()[a];
    g.input.size[a] = static_cast<std::int64_t>(inRegion.GetSize()[a]);
    g.input.start[a] = inRegion.GetIndex()[a];
    g.inputOrigin[a] = input->GetOrigin()[a];
  }
  IndexToPointMatrix<D>(output, g.outputIndexToPoint);
  PointToIndexMatrix<D>(input, g.inputPointToIndex);
  g.lineStart = output->GetLargestPossibleRegion().GetIndex()[0];
  g.lineLength = static_cast<std::int64_t>(output->GetLargestPossibleRegion().GetSize()[0]);
  return g;
}

/** Geometry of the output's buffered region and the input's buffer. */
template <unsigned int D, typename TInputImage, typename TOutputImage>
cif::ResampleGeometry
MakeGeometry(const TInputImage * input, const TOutputImage * output)
{
  return MakeGeometry<D>(input, input->GetBufferedRegion(), output, output->GetBufferedRegion());
}

/** The input buffer's shape, for the prefilter. */
template <unsigned int D>
cif::BufferShape
InputShape(const cif::ResampleGeometry & g)
{
  cif::BufferShape shape;
  shape.dimension = D;
  for (unsigned int a = 0; a < D; ++a)
  {
    shape.size[a] = g.input.size[a];
  }
  return shape;
}

/** Runs body(row) for every row (line along the first axis) of the output grid. */
template <typename TFilter, typename TBody>
void
ForEachOutputRow(TFilter * filter, const cif::ResampleGeometry & g, TBody && body)
{
  CudaParallelFor(filter->GetMultiThreader(), g.OutputRows(), body);
}
/** Points of the transforms the device cannot evaluate: ITK maps every output point
 * (D doubles per output voxel), in parallel. */
template <unsigned int D, typename TFilter, typename TOutputImage, typename TTransform>
std::vector<double>
MapPointsOnHost(TFilter *                     filter,
                const cif::ResampleGeometry & g,
                const TOutputImage *          output,
                const TTransform *            transform)
{
  std::vector<double> mapped(D * static_cast<std::size_t>(g.OutputCount()), 0.0);
  ForEachOutputRow(filter, g, [&](std::int64_t row) {
    typename TOutputImage::IndexType index;
    std::int64_t                     rest = row;
    index[0] = g.outputStart[0];
    for (unsigned int a = 1; a < D; ++a) // rows run over axes 1.., axis 1 fastest
    {
      index[a] = g.outputStart[a] + rest % g.outputSize[a];
      rest /= g.outputSize[a];
    }
    for (std::int64_t x = 0; x < g.outputSize[0]; ++x)
    {
      index[0] = g.outputStart[0] + x;
      typename TOutputImage::PointType p;
      output->TransformIndexToPhysicalPoint(index, p);
      const auto q = transform->TransformPoint(p);
      const auto i = static_cast<std::size_t>(row * g.outputSize[0] + x);
      for (unsigned int a = 0; a < D; ++a)
      {
        mapped[D * i + a] = q[a];
      }
    }
  });
  return mapped;
}

/** The CPU path's evaluation of every output voxel from host coefficients, slab by
 * slab (cifResampleSlabs.h; \a afterSlab after each). \a mapped: D transformed
 * points per output voxel, or nullptr where \a hostChain maps them. */
template <unsigned int D, typename TC, typename TOut, typename TFilter>
void
ResampleOnHost(TFilter *                     filter,
               const TC *                    coefficients,
               const cif::ResampleGeometry & whole,
               const cif::ResampleSlabs &    slabs,
               const cif::TransformChain &   hostChain,
               const double *                mapped,
               bool                          linearRows,
               TOut                          defaultValue,
               TOut *                        out,
               const cif::StageCallback &    afterSlab)
{
  for (std::int64_t slab = 0; slab < slabs.count; ++slab)
  {
    const cif::ResampleGeometry g = cif::SlabGeometry(whole, slabs, slab);
    const std::int64_t          first = cif::SlabFirstVoxel(slabs, slab);
    ForEachOutputRow(filter, g, [&](std::int64_t row) {
      double start[cif::kMaxDimension], end[cif::kMaxDimension];
      if (linearRows)
      {
        cif::RowEndpoints<static_cast<int>(D)>(g, hostChain, row, start, end);
      }
      for (std::int64_t x = 0; x < g.outputSize[0]; ++x)
      {
        const std::int64_t i = row * g.outputSize[0] + x; // within the slab
        out[first + i] =
          linearRows
            ? cif::ResampleVoxelOnRow<static_cast<int>(D), TC, TOut>(coefficients, g, start, end, x, defaultValue)
            : cif::ResampleVoxel<static_cast<int>(D), TC, TOut>(
                coefficients, g, hostChain, mapped ? mapped + D * (first + i) : nullptr, i, defaultValue);
      }
    });
    cif::StageDone(afterSlab);
  }
}

/** Progress stages of one scalar image (or of one component): its samples on the
 * device or converted on the host, one prefilter pass per axis (unless the input
 * holds coefficients), the slabs, and on the GPU path the download (for components,
 * on either path, the copy into the interleaved output). */
inline unsigned int
ResampleStages(unsigned int dimension, bool prefilter, const cif::ResampleSlabs & slabs, bool outputStage)
{
  return 1 + (prefilter ? dimension : 0) + static_cast<unsigned int>(slabs.count) + (outputStage ? 1 : 0);
}

/** \a mapped (D doubles per output voxel, or none) on the device. */
inline cif::DeviceBuffer
UploadMappedPoints(const std::vector<double> & mapped)
{
  cif::DeviceBuffer onDevice;
  if (!mapped.empty())
  {
    onDevice.Allocate(mapped.size() * sizeof(double));
    onDevice.Upload(mapped.data(), mapped.size() * sizeof(double));
  }
  return onDevice;
}
} // namespace CubicResampleDetail
} // namespace itk

#endif
