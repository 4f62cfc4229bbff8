# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
set(cif_sources_cxx "")
set(cif_sources_cuda src/cifDirectionalFilterBankKernels.cu)
set(cif_sources_nocuda src/cifDirectionalFilterBankWithoutCuda.cxx)
