# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
add_executable(ConvolutionBenchmark ConvolutionBenchmark.cxx)
target_link_libraries(ConvolutionBenchmark PRIVATE CudaImageFilters)
