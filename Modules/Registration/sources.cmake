# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# The sub-modules whose headers this one includes (Modules/CMakeLists.txt).
set(cif_depends Core BSpline Resample Smoothing)
set(cif_sources_cxx src/itkRegistrationGPUFactory.cxx)
# One source per image instance (a CUDA module each: see src/cifMetricSumsKernels.cuh).
set(cif_sources_cuda src/cifMetricSumsShared.cu src/cifMetricSums2DFloat.cu src/cifMetricSums2DDouble.cu
                     src/cifMetricSums3DFloat.cu src/cifMetricSums3DDouble.cu
                     src/cifNeighborhoodCorrelationKernels.cu src/cifDisplacementFieldKernels.cu)
set(cif_sources_nocuda src/cifMetricSumsWithoutCuda.cxx src/cifNeighborhoodCorrelationWithoutCuda.cxx
                       src/cifDisplacementFieldWithoutCuda.cxx)
