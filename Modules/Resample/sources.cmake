# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# The sub-modules whose headers this one includes (Modules/CMakeLists.txt).
set(cif_depends Core BSpline)
set(cif_sources_cxx src/itkCubicResampleGPUFactory.cxx src/itkCubicBSplineTable.cxx)
set(cif_sources_cuda src/cifResampleKernels.cu src/cifResampleFieldKernels.cu src/cifMirrorPaddingKernels.cu src/cifTextureResampleKernels.cu src/cifPointEvaluationKernels.cu)
set(cif_sources_nocuda src/cifResampleWithoutCuda.cxx src/cifTextureResampleWithoutCuda.cxx
                       src/cifPointEvaluationWithoutCuda.cxx)
