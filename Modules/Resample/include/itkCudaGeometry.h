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
#ifndef itkCudaGeometry_h
#define itkCudaGeometry_h

#include "cifImageFrame.h"
#include "itkImageBase.h"
#include "itkMatrix.h"

namespace itk
{
/** ITK image geometry as the plain arrays the GPU layer uses (up to 4-D, unused
 * axes identity). The matrices are those ImageBase computes: index -> point is
 * Direction * diag(Spacing), point -> index its inverse. */
template <unsigned int D>
Matrix<double, D, D>
IndexToPointMatrixOf(const ImageBase<D> * image)
{
  Matrix<double, D, D> scale;
  scale.Fill(0.0);
  for (unsigned int i = 0; i < D; ++i)
  {
    scale[i][i] = image->GetSpacing()[i];
  }
  return image->GetDirection() * scale;
}

/** Copies a D x D matrix into the top-left of an N x N identity (the plain arrays
 * of the resampling layer: N = cif::kMaxDimension for images, 3 for transform grids). */
template <unsigned int D, int N>
void
ToMatrixN(const Matrix<double, D, D> & m, double (&out)[N][N])
{
  static_assert(static_cast<int>(D) <= N, "the matrix does not fit");
  for (int i = 0; i < N; ++i)
  {
    for (int j = 0; j < N; ++j)
    {
      out[i][j] = (i < static_cast<int>(D) && j < static_cast<int>(D)) ? m[i][j] : (i == j ? 1.0 : 0.0);
    }
  }
}

template <unsigned int D, int N>
void
IndexToPointMatrix(const ImageBase<D> * image, double (&m)[N][N])
{
  ToMatrixN<D>(IndexToPointMatrixOf<D>(image), m);
}

template <unsigned int D, int N>
void
PointToIndexMatrix(const ImageBase<D> * image, double (&m)[N][N])
{
  ToMatrixN<D>(Matrix<double, D, D>(IndexToPointMatrixOf<D>(image).GetInverse()), m);
}

/** The image's physical frame for point evaluation (cifImageFrame.h). */
template <unsigned int D>
cif::ImageFrame
MakeImageFrame(const ImageBase<D> * image)
{
  cif::ImageFrame frame;
  for (unsigned int a = 0; a < D; ++a)
  {
    frame.origin[a] = image->GetOrigin()[a];
    frame.spacing[a] = image->GetSpacing()[a];
  }
  ToMatrixN<D>(image->GetDirection(), frame.direction);
  PointToIndexMatrix<D>(image, frame.pointToIndex);
  return frame;
}
} // namespace itk

#endif
