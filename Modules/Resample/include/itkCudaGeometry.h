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

/** Copies a D x D matrix into the top-left of a 3 x 3 identity. */
template <unsigned int D>
void
ToMatrix3(const Matrix<double, D, D> & m, double out[3][3])
{
  for (unsigned int i = 0; i < 3; ++i)
  {
    for (unsigned int j = 0; j < 3; ++j)
    {
      out[i][j] = (i < D && j < D) ? m[i][j] : (i == j ? 1.0 : 0.0);
    }
  }
}

template <unsigned int D>
void
IndexToPointMatrix(const ImageBase<D> * image, double m[3][3])
{
  ToMatrix3<D>(IndexToPointMatrixOf<D>(image), m);
}

template <unsigned int D>
void
PointToIndexMatrix(const ImageBase<D> * image, double m[3][3])
{
  ToMatrix3<D>(Matrix<double, D, D>(IndexToPointMatrixOf<D>(image).GetInverse()), m);
}
} // namespace itk

#endif
