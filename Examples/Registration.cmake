# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Registration sub-module: elastic registration through ITK's ImageRegistrationMethodv4
# with the module's GPU metrics.
add_executable(ElasticRegistrationExample ElasticRegistrationExample.cxx)
target_link_libraries(ElasticRegistrationExample PRIVATE CudaImageFilters ${CIF_EXAMPLE_ITK_LIBRARIES})
