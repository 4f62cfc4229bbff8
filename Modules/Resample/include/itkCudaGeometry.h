#ifndef itkCudaGeometry_h
#define itkCudaGeometry_h

#include "itkImageBase.h"
#include "itkMatrix.h"

namespace itk
{
/** ITK image geometry as the plain arrays the GPU layer uses (up to 3-D, unused
 * axes identity). The matrices are those ImageBase computes: index -> point is
 * Direction * diag(Spacing), point -> index its inverse. */
template <unsigned int D>
void
IndexToPointMatrix(const ImageBase<D> * image, double m[3][3])
{
  Matrix<double, D, D> scale;
  scale.Fill(0.0);
  for (unsigned int i = 0; i < D; ++i)
  {
    scale[i][i] = image->GetSpacing()[i];
  }
  const Matrix<double, D, D> indexToPoint = image->GetDirection() * scale;
  for (unsigned int i = 0; i < 3; ++i)
  {
    for (unsigned int j = 0; j < 3; ++j)
    {
      m[i][j] = (i < D && j < D) ? indexToPoint[i][j] : (i == j ? 1.0 : 0.0);
    }
  }
}

template <unsigned int D>
void
PointToIndexMatrix(const ImageBase<D> * image, double m[3][3])
{
  Matrix<double, D, D> scale;
  scale.Fill(0.0);
  for (unsigned int i = 0; i < D; ++i)
  {
    scale[i][i] = image->GetSpacing()[i];
  }
  const Matrix<double, D, D> pointToIndex = Matrix<double, D, D>((image->GetDirection() * scale).GetInverse());
  for (unsigned int i = 0; i < 3; ++i)
  {
    for (unsigned int j = 0; j < 3; ++j)
    {
      m[i][j] = (i < D && j < D) ? pointToIndex[i][j] : (i == j ? 1.0 : 0.0);
    }
  }
}
} // namespace itk

#endif
