# The VTK adapters' benchmark (built with the adapters): GPU, the module's CPU path
# and VTK's own CPU pipeline in one run.
add_executable(VTKBenchmark VTKBenchmark.cxx)
target_link_libraries(VTKBenchmark PRIVATE CudaImageFiltersVTK)
if(CudaImageFilters_BUILD_TESTING)
  # its CPU rows at a small size, so CI builds and runs it
  add_test(NAME VTKBenchmarkRunsCPURows COMMAND VTKBenchmark --sizes 32 --repeat 1)
endif()
