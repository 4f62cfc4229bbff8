# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# The VTK adapters' benchmark (built with the adapters): GPU, the module's CPU path
# and VTK's own CPU pipeline in one run.
add_executable(VTKBenchmark VTKBenchmark.cxx ${cif_bus_floor_source})
target_link_libraries(VTKBenchmark PRIVATE CudaImageFiltersVTK)
if(CIF_HAVE_CUDA)
  # The reslice's load floor, measured in the same run (a CUDA kernel).
  target_sources(VTKBenchmark PRIVATE cifGatherFloorKernel.cu)
  target_compile_definitions(VTKBenchmark PRIVATE CIF_BENCHMARK_GATHER_FLOOR)
endif()
if(CudaImageFilters_BUILD_TESTING)
  # its CPU rows at a small size, so CI builds and runs it
  add_test(NAME VTKBenchmarkRunsCPURows COMMAND VTKBenchmark --sizes 32 --repeat 1)
endif()
