set(cif_sources_cxx "")
set(cif_sources_cuda src/cifDirectionalFilterBankKernels.cu)
set(cif_sources_nocuda src/cifDirectionalFilterBankWithoutCuda.cxx)
