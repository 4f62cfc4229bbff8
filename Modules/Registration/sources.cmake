set(cif_sources_cxx src/itkRegistrationGPUFactory.cxx)
set(cif_sources_cuda src/cifMetricSumsKernels.cu)
set(cif_sources_nocuda src/cifMetricSumsWithoutCuda.cxx)
