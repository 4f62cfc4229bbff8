// CubicBSplineTable for float and double coefficients, compiled once here: its CPU
// path instantiates the cubic evaluation for every dimension from 1 to 6, which
// would otherwise be compiled again in every file that uses a table.
#include "itkCubicBSplineTable.hxx"

namespace itk
{
template class CubicBSplineTable<float>;
template class CubicBSplineTable<double>;
} // namespace itk
