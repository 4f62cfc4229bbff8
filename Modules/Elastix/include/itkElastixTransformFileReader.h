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
#ifndef itkElastixTransformFileReader_h
#define itkElastixTransformFileReader_h

#include "itkElastixOutputGrid.h"
#include "itkElastixParameterFile.h"
#include "itkObject.h"
#include "itkObjectFactory.h"
#include "itkTransform.h"

#include <string>
#include <vector>

namespace itk
{
/** \class ElastixTransformFileReader
 * \brief Reads an elastix transform parameter file (TransformParameters.0.txt, the
 * chain it starts) as the ITK transform that transformix applies, with the output
 * grid the file names.
 *
 * Each file is one stage, by its (Transform ...):
 *  - TranslationTransform: TranslationTransform (the D offsets);
 *  - EulerTransform: Euler2DTransform (angle, translation) or Euler3DTransform
 *    (angles about x, y, z, translation; (ComputeZYX "true") is ITK's ComputeZYX,
 *    R = Rz Ry Rx, otherwise R = Rz Rx Ry, as elastix's AdvancedEuler3DTransform);
 *  - SimilarityTransform: Similarity2DTransform (scale, angle, translation) or
 *    Similarity3DTransform (versor, translation, scale);
 *  - AffineTransform: AffineTransform (the matrix row by row, then the translation);
 *  - BSplineTransform and RecursiveBSplineTransform: BSplineTransform<double, D, 3>.
 * The rigid, similarity and affine stages turn about (CenterOfRotationPoint), their
 * ITK center. The B-spline's GridSize, GridSpacing and GridDirection are ITK's grid
 * size, spacing and direction (GridDirection written column by column, as
 * Direction); its first node is at GridOrigin + GridDirection diag(GridSpacing)
 * GridIndex, ITK's grid origin (elastix writes GridIndex 0, so GridOrigin itself).
 * The coefficients are laid out as ITK's: all x displacements, x fastest, then y ...
 * elastix's (BSplineTransformSplineOrder) must be 3 and (UseCyclicTransform) false; a
 * RecursiveBSplineTransform must have GridIndex 0 (elastix 5.0.1 evaluates it as if it
 * had, whatever the file says).
 *
 * (InitialTransformParametersFileName F) (or elastix 5.1's spelling
 * InitialTransformParameterFileName) names the stage before, read in turn, until
 * "NoInitialTransform". A relative F is looked for as elastix looks for it: in the
 * working directory (elastix 5.0.1's only place), then next to the file that names
 * it (elastix 5.1 on). (HowToCombineTransforms "Compose") applies the stage before
 * first, T(p) = T_this(T_before(p)): the result is a CompositeTransform whose queue
 * lists the head file's stage first (ITK applies the last one added first).
 * "Add" is T(p) = T_this(p) + T_before(p) - p, which ITK expresses when both are
 * affine-family (one AffineTransform), when one of them is a translation, when one is
 * an invertible affine-family transform A and the other a B-spline B (A after a
 * B-spline whose coefficients are A's matrix inverse times B's), and for two
 * B-splines on one grid (the coefficients added); anything else is an error at the
 * HowToCombineTransforms line. A chain of one file gives that stage's transform
 * itself, not a composite.
 *
 * The output grid (Size, Index, Spacing, Origin, Direction, DefaultPixelValue) is the
 * head file's, as transformix takes it (ElastixOutputGrid).
 *
 * Errors are itk::ExceptionObject with the file and line to fix: a file that cannot
 * be read, a line elastix's parser refuses, a transform this reader does not know,
 * a parameter count that does not fit the transform, a chain that loops, a file of
 * another dimension than VDimension, (UseDirectionCosines "false") (the transform is
 * then expressed in a space that ignores the images' directions, which an ITK
 * transform cannot describe), binary parameters that cannot be read.
 *
 * \sa ElastixTransformFileWriter, ReadElastixTransform
 * \ingroup CudaImageFilters
 */
template <unsigned int VDimension>
class ITK_TEMPLATE_EXPORT ElastixTransformFileReader : public Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ElastixTransformFileReader);
  using Self = ElastixTransformFileReader;
  using Superclass = Object;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(ElastixTransformFileReader, Object);

  static constexpr unsigned int Dimension = VDimension;
  using TransformType = Transform<double, VDimension, VDimension>;
  using TransformPointer = typename TransformType::Pointer;
  using OutputGridType = ElastixOutputGrid<VDimension>;

  /** The head of the chain: the file transformix would be given (-tp). */
  itkSetStringMacro(FileName);
  itkGetStringMacro(FileName);

  /** Reads the chain; throws itk::ExceptionObject with the reason. */
  void
  Update();

  /** The transform read (null before Update). */
  TransformType *
  GetTransform() const
  {
    return m_Transform.GetPointer();
  }

  /** The head file's output grid; not IsValid() when the file has no Size. */
  const OutputGridType &
  GetOutputGrid() const
  {
    return m_OutputGrid;
  }

  /** The files read, the head first, each as it was opened. */
  const std::vector<std::string> &
  GetFileNames() const
  {
    return m_FileNames;
  }

protected:
  ElastixTransformFileReader() = default;
  ~ElastixTransformFileReader() override = default;

  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  /** The transform one file describes, without its initial transform. */
  static TransformPointer
  ReadStage(const ElastixParameterFile & file);

  /** The stage's parameters: (TransformParameters ...) or the binary file it names,
   * NumberOfParameters of them, which must be \a expected. */
  static std::vector<double>
  ReadParameters(const ElastixParameterFile & file, std::size_t expected, const std::string & what);

  static typename TransformType::InputPointType
  ReadCenter(const ElastixParameterFile & file, const std::string & transform);

  static TransformPointer
  ReadBSpline(const ElastixParameterFile & file);

  /** outer o inner as one CompositeTransform (nested composites flattened). */
  static TransformPointer
  Composed(const TransformType * outer, const TransformType * inner);

  /** T(p) = current(p) + before(p) - p where ITK can express it. */
  static TransformPointer
  Added(const TransformType * before, const TransformType * current, const ElastixParameterFile & file);

  std::string              m_FileName;
  TransformPointer         m_Transform;
  OutputGridType           m_OutputGrid;
  std::vector<std::string> m_FileNames;
};

/** The transform of the elastix parameter file \a path (and of the chain it
 * starts), as ElastixTransformFileReader reads it; with \a grid, the output grid the
 * file names too. */
template <unsigned int VDimension>
typename Transform<double, VDimension, VDimension>::Pointer
ReadElastixTransform(const std::string & path, ElastixOutputGrid<VDimension> * grid = nullptr)
{
  auto reader = ElastixTransformFileReader<VDimension>::New();
  reader->SetFileName(path);
  reader->Update();
  if (grid != nullptr)
  {
    *grid = reader->GetOutputGrid();
  }
  return reader->GetTransform();
}
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkElastixTransformFileReader.hxx"
#endif

#endif
