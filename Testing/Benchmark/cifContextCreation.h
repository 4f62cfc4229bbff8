#ifndef cifContextCreation_h
#define cifContextCreation_h

namespace cif_bench
{
/** Milliseconds that creating the CUDA context of the current device takes
 * (cudaFree(0), what the first CUDA call of a process pays); -1 without CUDA or a
 * device. Call it first in a fresh process. */
double
CreateContextMs();
} // namespace cif_bench

#endif
