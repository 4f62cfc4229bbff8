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
// CubicBSplineTable for float and double coefficients, compiled once here: its CPU
// path instantiates the cubic evaluation for every dimension from 1 to 6, which
// would otherwise be compiled again in every file that uses a table.
#include "itkCubicBSplineTable.hxx"

namespace itk
{
template class CubicBSplineTable<float>;
template class CubicBSplineTable<double>;
} // namespace itk
