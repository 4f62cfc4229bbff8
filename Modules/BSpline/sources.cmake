# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# The sub-modules whose headers this one includes (Modules/CMakeLists.txt).
set(cif_depends Core)
set(cif_sources_cxx src/itkBSplinePrefilterGPUFactory.cxx)
set(cif_sources_cuda src/cifBSplinePrefilterKernels.cu src/cifChainedAxisKernels.cu)
set(cif_sources_nocuda src/cifBSplinePrefilterWithoutCuda.cxx)
