set(cif_sources_cxx src/itkCudaImageDataManager.cxx)
set(cif_sources_cuda src/cifCudaRuntime.cu src/cifDeviceMemoryPool.cu)
set(cif_sources_nocuda src/cifCudaRuntimeWithoutCuda.cxx)
