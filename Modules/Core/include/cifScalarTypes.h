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
#ifndef cifScalarTypes_h
#define cifScalarTypes_h

#include <cstdint>

/** \file cifScalarTypes.h
 * The pixel scalars the kernels are instantiated for, as an X-macro so the CUDA
 * sources and their no-CUDA twins instantiate the same list:
 * CIF_FOR_EACH_SCALAR(M) expands M(type) for each. */
#define CIF_FOR_EACH_SCALAR(M) \
  M(std::uint8_t)              \
  M(std::int8_t)               \
  M(std::uint16_t)             \
  M(std::int16_t)              \
  M(std::uint32_t)             \
  M(std::int32_t)              \
  M(float)                     \
  M(double)

#endif
