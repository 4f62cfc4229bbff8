# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Registration sub-module: elastic registration through ITK's ImageRegistrationMethodv4
# with the module's GPU metrics.
add_executable(ElasticRegistrationExample ElasticRegistrationExample.cxx)
target_link_libraries(ElasticRegistrationExample PRIVATE CudaImageFilters ${CIF_EXAMPLE_ITK_LIBRARIES})
# A brain registered to a template as antsRegistrationSyN.sh does (affine, then SyN on
# the GPU): NCC, stage times, Jacobian range, the transforms and a checkerboard PNG.
add_executable(SyNBrainExample SyNBrainExample.cxx)
target_link_libraries(SyNBrainExample PRIVATE CudaImageFilters ${CIF_EXAMPLE_ITK_LIBRARIES})
