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
#ifndef itkElastixOutputGrid_h
#define itkElastixOutputGrid_h

#include "itkElastixParameterFile.h"
#include "itkImageBase.h"
#include "vnl/algo/vnl_determinant.h"

#include <ostream>

namespace itk
{
/** \class ElastixOutputGrid
 * \brief The output grid an elastix transform parameter file names, and its default
 * pixel value: what transformix resamples onto and evaluates -def all on.
 *
 * elastix writes the fixed image's grid into every TransformParameters file: (Size),
 * (Index), (Spacing), (Origin), (Direction) and the resampler's (DefaultPixelValue).
 * Direction is written column by column, elastix's loop being "for i, for j:
 * direction(j, i)" (elxTransformBase.hxx, elxResamplerBase.hxx): the file's
 * (Direction a b c d) of a 2-D grid is the matrix [a c; b d], the i-th axis of the
 * grid being the i-th group of D numbers (the layout of MetaImage's TransformMatrix).
 * transformix's defaults stand for what is absent: Index 0, Spacing 1, Origin 0,
 * Direction identity, DefaultPixelValue 0; Size has none, and a file without it
 * names no grid (IsValid() false).
 *
 * \ingroup CudaImageFilters
 */
template <unsigned int VDimension>
struct ElastixOutputGrid
{
  static constexpr unsigned int Dimension = VDimension;
  using SizeType = typename ImageBase<VDimension>::SizeType;
  using IndexType = typename ImageBase<VDimension>::IndexType;
  using SpacingType = typename ImageBase<VDimension>::SpacingType;
  using PointType = typename ImageBase<VDimension>::PointType;
  using DirectionType = typename ImageBase<VDimension>::DirectionType;
  using RegionType = typename ImageBase<VDimension>::RegionType;

  SizeType      Size{};
  IndexType     Index{};
  SpacingType   Spacing{ 1.0 };
  PointType     Origin{};
  DirectionType Direction{ DirectionType::GetIdentity() };
  double        DefaultPixelValue = 0.0;
  /** Whether the file gave DefaultPixelValue (transformix uses 0 otherwise). */
  bool HasDefaultPixelValue = false;

  /** Whether a grid was named: every axis of Size at least 1. */
  bool
  IsValid() const
  {
    for (unsigned int i = 0; i < VDimension; ++i)
    {
      if (Size[i] == 0)
      {
        return false;
      }
    }
    return true;
  }

  RegionType
  GetRegion() const
  {
    return RegionType(Index, Size);
  }

  /** The grid of \a image's largest possible region (DefaultPixelValue left 0). */
  static ElastixOutputGrid
  FromImage(const ImageBase<VDimension> * image)
  {
    ElastixOutputGrid grid;
    grid.Size = image->GetLargestPossibleRegion().GetSize();
    grid.Index = image->GetLargestPossibleRegion().GetIndex();
    grid.Spacing = image->GetSpacing();
    grid.Origin = image->GetOrigin();
    grid.Direction = image->GetDirection();
    return grid;
  }

  /** Sets \a image's regions, spacing, origin and direction to the grid (nothing is allocated). */
  void
  ApplyTo(ImageBase<VDimension> * image) const
  {
    image->SetRegions(this->GetRegion());
    image->SetSpacing(Spacing);
    image->SetOrigin(Origin);
    image->SetDirection(Direction);
  }

  /** The grid of a parameter file: a wrong number of values, a spacing that is not
   * positive or a singular direction is an error at its line. A file without Size
   * gives a grid that is not IsValid(). */
  static ElastixOutputGrid
  FromParameterFile(const ElastixParameterFile & file)
  {
    ElastixOutputGrid grid;
    if (!file.Has("Size"))
    {
      return grid;
    }
    const auto size = file.GetIntegers("Size", VDimension, 1);
    const auto index =
      file.Has("Index") ? file.GetIntegers("Index", VDimension, -(1LL << 62)) : std::vector<long long>(VDimension, 0);
    const auto spacing =
      file.Has("Spacing") ? file.GetNumbers("Spacing", VDimension) : std::vector<double>(VDimension, 1.0);
    const auto origin =
      file.Has("Origin") ? file.GetNumbers("Origin", VDimension) : std::vector<double>(VDimension, 0.0);
    for (unsigned int i = 0; i < VDimension; ++i)
    {
      grid.Size[i] = static_cast<SizeValueType>(size[i]);
      grid.Index[i] = static_cast<IndexValueType>(index[i]);
      if (!(spacing[i] > 0.0))
      {
        file.Fail("Spacing", "Spacing must be positive");
      }
      grid.Spacing[i] = spacing[i];
      grid.Origin[i] = origin[i];
    }
    if (file.Has("Direction"))
    {
      grid.Direction = ReadDirection(file, "Direction");
    }
    if (file.Has("DefaultPixelValue"))
    {
      grid.DefaultPixelValue = file.GetNumber("DefaultPixelValue", 0.0);
      grid.HasDefaultPixelValue = true;
    }
    return grid;
  }

  /** A D x D matrix written as elastix writes Direction and GridDirection: column by
   * column (value i * D + j is element (j, i)). A singular one is an error. */
  static DirectionType
  ReadDirection(const ElastixParameterFile & file, const std::string & key)
  {
    const auto    values = file.GetNumbers(key, VDimension * VDimension);
    DirectionType direction;
    for (unsigned int i = 0; i < VDimension; ++i)
    {
      for (unsigned int j = 0; j < VDimension; ++j)
      {
        direction(j, i) = values[i * VDimension + j];
      }
    }
    if (vnl_determinant(direction.GetVnlMatrix()) == 0.0)
    {
      file.Fail(key, key + " is a singular matrix");
    }
    return direction;
  }
};

template <unsigned int VDimension>
std::ostream &
operator<<(std::ostream & os, const ElastixOutputGrid<VDimension> & grid)
{
  os << "size " << grid.Size << ", index " << grid.Index << ", spacing " << grid.Spacing << ", origin " << grid.Origin
     << ", direction [";
  for (unsigned int i = 0; i < VDimension; ++i)
  {
    for (unsigned int j = 0; j < VDimension; ++j)
    {
      os << (i + j == 0 ? "" : j == 0 ? "; " : " ") << grid.Direction(i, j);
    }
  }
  return os << "], default pixel value " << grid.DefaultPixelValue << (grid.HasDefaultPixelValue ? "" : " (not given)");
}
} // namespace itk

#endif
