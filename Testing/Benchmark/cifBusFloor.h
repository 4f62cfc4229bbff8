#ifndef cifBusFloor_h
#define cifBusFloor_h

#include <cstddef>

namespace cif_bench
{
/** Plain cudaMemcpy times of one size, wall clock (what a caller waits), median of
 * the repeats after a warm-up; -1 where not measured (no CUDA in the build or no
 * device). HostTransferBenchmark's bus floor and the pageable copies the library
 * made before its staging rings. */
struct BusTimes
{
  double pinnedUpMs = -1;        ///< cudaMallocHost memory -> device: the bus floor up
  double pinnedDownMs = -1;      ///< device -> cudaMallocHost memory: the bus floor down
  double pageableUpMs = -1;      ///< ordinary (touched) host memory -> device
  double pageableDownMs = -1;    ///< device -> ordinary host memory, touched before
  double pageableDownFreshMs = -1; ///< device -> a fresh allocation, pages not yet touched
};

/** Measures the copies of \a bytes (on the current device). */
BusTimes
MeasureBus(std::size_t bytes, int repeat);
} // namespace cif_bench

#endif
