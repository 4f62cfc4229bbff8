// The no-CUDA twin of cifBusFloor.cu: a build without the CUDA toolkit measures no bus.
#include "cifBusFloor.h"

namespace cif_bench
{
BusTimes
MeasureBus(std::size_t, int)
{
  return {};
}

BusTimes
MeasureBusOnDevices(std::size_t, int, int)
{
  return {};
}
} // namespace cif_bench
