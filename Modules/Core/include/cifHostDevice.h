#ifndef cifHostDevice_h
#define cifHostDevice_h

/** \file cifHostDevice.h
 * CIF_HD marks functions compiled for both the host and the device. The CPU path
 * and the CUDA kernels call the very same math, so CI (which has no GPU) tests the
 * arithmetic that the GPU runs. */
#if defined(__CUDACC__)
#  define CIF_HD __host__ __device__ __forceinline__
#else
#  define CIF_HD inline
#endif

#endif
