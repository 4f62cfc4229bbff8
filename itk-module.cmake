# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# ITK remote-module description of CudaImageFilters (used when the module is built
# inside an ITK source tree; standalone builds use find_package(ITK) instead).
get_filename_component(MY_CURRENT_DIR "${CMAKE_CURRENT_LIST_FILE}" PATH)
file(READ "${MY_CURRENT_DIR}/README.md" DOCUMENTATION)

itk_module(CudaImageFilters
  ENABLE_SHARED
  DEPENDS
    ITKCommon
    ITKImageFunction
    ITKImageGrid
    ITKTransform
    ITKDisplacementField
    ITKMetricsv4
    ITKOptimizersv4
    ITKRegistrationMethodsv4
    ITKSpatialObjects
    ITKImageGradient
  COMPILE_DEPENDS
    ITKIOImageBase
  TEST_DEPENDS
    ITKTestKernel
  DESCRIPTION
    "${DOCUMENTATION}"
  EXCLUDE_FROM_DEFAULT
)
