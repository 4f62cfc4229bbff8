# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# The sub-modules whose headers this one includes (Modules/CMakeLists.txt).
set(cif_depends Core BSpline)
set(cif_sources_cxx src/itkCubicResampleGPUFactory.cxx src/itkCubicBSplineTable.cxx src/itkElastixParameterFile.cxx)
set(cif_sources_cuda src/cifResampleFieldKernels.cu src/cifMirrorPaddingKernels.cu src/cifTextureResampleKernels.cu src/cifPointEvaluationKernels.cu)
# Exact resampling: one generated translation unit per output scalar type (the list of
# cifScalarTypes.h), each a CUDA module that lazy loading loads only when used.
foreach(cif_scalar_type std::uint8_t std::int8_t std::uint16_t std::int16_t std::uint32_t std::int32_t float double)
  string(REPLACE "std::" "" cif_scalar_name "${cif_scalar_type}")
  set(CIF_SCALAR_TYPE "${cif_scalar_type}")
  set(CIF_RESAMPLE_SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/src")
  set(cif_instance "${CMAKE_CURRENT_BINARY_DIR}/Resample/cifResampleKernelsFor_${cif_scalar_name}.cu")
  configure_file(${CMAKE_CURRENT_LIST_DIR}/src/cifResampleKernelsFor.cu.in ${cif_instance} @ONLY)
  list(APPEND cif_sources_cuda ${cif_instance})
endforeach()
set(cif_sources_nocuda src/cifResampleWithoutCuda.cxx src/cifTextureResampleWithoutCuda.cxx
                       src/cifPointEvaluationWithoutCuda.cxx)
