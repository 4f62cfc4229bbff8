# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Registration sub-module: one GetValueAndDerivative of the v4 metrics (GPU, the
# module's CPU path, ITK) against its floor, with the bus floor of the parameters
# and derivative (cifBusFloor.h).
add_executable(RegistrationBenchmark RegistrationBenchmark.cxx ${cif_bus_floor_source})
target_link_libraries(RegistrationBenchmark PRIVATE CudaImageFilters)
if(CudaImageFilters_BUILD_TESTING)
  # Without a GPU: the CPU path and ITK at 32^3 with small point sets, in seconds.
  add_test(NAME RegistrationBenchmarkRuns COMMAND RegistrationBenchmark --quick)
endif()
# SyN: SyNImageRegistrationMethodGPU (GPU, CPU path) against ITK's SyN on a pair with a
# known warp.
add_executable(SyNBenchmark SyNBenchmark.cxx)
target_link_libraries(SyNBenchmark PRIVATE CudaImageFilters)
if(CudaImageFilters_BUILD_TESTING)
  # Without a GPU: the CPU path and ITK at 32^3, in seconds.
  add_test(NAME SyNBenchmarkRuns COMMAND SyNBenchmark --quick)
endif()
