#ifndef cifScalarTypes_h
#define cifScalarTypes_h

#include <cstdint>

/** \file cifScalarTypes.h
 * The pixel scalars the kernels are instantiated for, as an X-macro so the CUDA
 * sources and their no-CUDA twins instantiate the same list:
 * CIF_FOR_EACH_SCALAR(M) expands M(type) for each. */
#define CIF_FOR_EACH_SCALAR(M)                                                                                       \
  M(std::uint8_t)                                                                                                    \
  M(std::int8_t)                                                                                                     \
  M(std::uint16_t)                                                                                                   \
  M(std::int16_t)                                                                                                    \
  M(std::uint32_t)                                                                                                   \
  M(std::int32_t)                                                                                                    \
  M(float)                                                                                                           \
  M(double)

#endif
