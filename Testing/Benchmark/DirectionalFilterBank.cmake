# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
add_executable(DirectionalFilterBankBenchmark DirectionalFilterBankBenchmark.cxx)
target_link_libraries(DirectionalFilterBankBenchmark PRIVATE CudaImageFilters)
