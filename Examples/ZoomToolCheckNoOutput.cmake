# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Fails when a refused ZoomTool run left an output or a partial file in DIR.
file(GLOB leftovers ${DIR}/x.* ${DIR}/*.partial*)
if(leftovers)
  message(FATAL_ERROR "files left by refused runs: ${leftovers}")
endif()
message(STATUS "no output from refused runs in ${DIR}")
