# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# The sub-modules whose headers this one includes (Modules/CMakeLists.txt).
set(cif_depends Core)
set(cif_sources_cxx "")
set(cif_sources_cuda src/cifDirectionalFilterBankKernels.cu)
set(cif_sources_nocuda src/cifDirectionalFilterBankWithoutCuda.cxx)
