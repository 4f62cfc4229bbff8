set(cif_sources_cxx src/itkRegistrationGPUFactory.cxx)
set(cif_sources_cuda src/cifMeanSquaresMetricKernels.cu)
set(cif_sources_nocuda src/cifMeanSquaresMetricWithoutCuda.cxx)
