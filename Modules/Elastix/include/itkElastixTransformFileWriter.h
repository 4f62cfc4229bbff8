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
#ifndef itkElastixTransformFileWriter_h
#define itkElastixTransformFileWriter_h

#include "itkElastixOutputGrid.h"
#include "itkObject.h"
#include "itkObjectFactory.h"
#include "itkTransform.h"

#include <string>
#include <vector>

namespace itk
{
/** \class ElastixTransformFileWriter
 * \brief Writes an ITK transform and an output grid as elastix transform parameter
 * files, so that transformix applies the transform (and ElastixTransformFileReader
 * reads it back).
 *
 * Each stage becomes one file, as elastix would have written it:
 * TranslationTransform and IdentityTransform as TranslationTransform;
 * Euler2DTransform and Rigid2DTransform, Euler3DTransform (with its ComputeZYX) as
 * EulerTransform; Similarity2DTransform and Similarity3DTransform as
 * SimilarityTransform; every other MatrixOffsetTransformBase (affine, versor, scale,
 * ...) as AffineTransform (its matrix, translation and center: the same map);
 * BSplineTransform<double, D, 3> as BSplineTransform (GridIndex 0, GridOrigin the
 * ITK grid origin). A CompositeTransform becomes a chain: the stage ITK applies first
 * has no initial transform, each later one names the one before it by its absolute
 * path ((HowToCombineTransforms "Compose")): transformix 5.0.1 resolves a relative
 * name from its working directory only. The file transformix is given is FileName
 * (the stage applied last); the stage applied k-th before it (k = 0 first) is
 * written next to it as NAME.k.txt for FileName NAME.txt. GetFileNames() lists them,
 * FileName first.
 *
 * Every file holds the output grid (Size, Index, Spacing, Origin, Direction, column
 * by column, DefaultPixelValue), and the resampler's settings: the final B-spline
 * interpolator of FinalBSplineInterpolationOrder (3, the module's cubic resampler,
 * by default) and ResultImagePixelType ("float" by default). Numbers are written
 * with the fewest digits that read back to the same double, so reading the files
 * gives the transform's parameters exactly.
 *
 * FileName must end in .txt (elastix's parser refuses other names). A transform with
 * no elastix equivalent, a grid without a size, a path with a character elastix's
 * parser refuses, or a file that cannot be written: itk::ExceptionObject with the
 * reason.
 *
 * \sa ElastixTransformFileReader, WriteElastixTransform
 * \ingroup CudaImageFilters
 */
template <unsigned int VDimension>
class ITK_TEMPLATE_EXPORT ElastixTransformFileWriter : public Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ElastixTransformFileWriter);
  using Self = ElastixTransformFileWriter;
  using Superclass = Object;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(ElastixTransformFileWriter, Object);

  static constexpr unsigned int Dimension = VDimension;
  using TransformType = Transform<double, VDimension, VDimension>;
  using OutputGridType = ElastixOutputGrid<VDimension>;

  itkSetStringMacro(FileName);
  itkGetStringMacro(FileName);

  itkSetConstObjectMacro(Transform, TransformType);
  itkGetConstObjectMacro(Transform, TransformType);

  void
  SetOutputGrid(const OutputGridType & grid)
  {
    m_OutputGrid = grid;
    this->Modified();
  }
  const OutputGridType &
  GetOutputGrid() const
  {
    return m_OutputGrid;
  }

  /** transformix's (FinalBSplineInterpolationOrder); 3 by default. */
  itkSetClampMacro(FinalBSplineInterpolationOrder, unsigned int, 0, 5);
  itkGetConstMacro(FinalBSplineInterpolationOrder, unsigned int);

  /** transformix's (ResultImagePixelType): "float" by default (transformix's own
   * default is "short"). */
  itkSetStringMacro(ResultImagePixelType);
  itkGetStringMacro(ResultImagePixelType);

  /** transformix's (ResultImageFormat), "mhd" by default, and (CompressResultImage),
   * false by default. */
  itkSetStringMacro(ResultImageFormat);
  itkGetStringMacro(ResultImageFormat);
  itkSetMacro(CompressResultImage, bool);
  itkGetConstMacro(CompressResultImage, bool);

  /** Writes the files; throws itk::ExceptionObject with the reason. */
  void
  Update();

  /** The files written, FileName (the head of the chain) first. */
  const std::vector<std::string> &
  GetFileNames() const
  {
    return m_FileNames;
  }

protected:
  ElastixTransformFileWriter() = default;
  ~ElastixTransformFileWriter() override = default;

  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  /** One stage's lines from (Transform ...) to its own settings, the initial
   * transform named \a initial. */
  std::string
  StageText(const TransformType * stage, const std::string & initial) const;

  std::string                          m_FileName;
  typename TransformType::ConstPointer m_Transform;
  OutputGridType                       m_OutputGrid;
  unsigned int                         m_FinalBSplineInterpolationOrder = 3;
  std::string                          m_ResultImagePixelType = "float";
  std::string                          m_ResultImageFormat = "mhd";
  bool                                 m_CompressResultImage = false;
  std::vector<std::string>             m_FileNames;
};

/** Writes \a transform and \a grid as elastix parameter files, the head at \a path
 * (ElastixTransformFileWriter); returns the files written, \a path first. */
template <unsigned int VDimension>
std::vector<std::string>
WriteElastixTransform(const Transform<double, VDimension, VDimension> * transform,
                      const ElastixOutputGrid<VDimension> &             grid,
                      const std::string &                               path)
{
  auto writer = ElastixTransformFileWriter<VDimension>::New();
  writer->SetTransform(transform);
  writer->SetOutputGrid(grid);
  writer->SetFileName(path);
  writer->Update();
  return writer->GetFileNames();
}
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkElastixTransformFileWriter.hxx"
#endif

#endif
