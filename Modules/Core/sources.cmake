# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# The sub-modules whose headers this one includes (Modules/CMakeLists.txt).
set(cif_depends "")
set(cif_sources_cxx src/itkCudaDeviceImageDataManager.cxx src/cifDeviceMemoryLimit.cxx src/cifRuntimeSettings.cxx src/cifSimulatedUnsupportedGPU.cxx src/cifPinnedHostMemory.cxx src/itkCudaHostInputRegistration.cxx src/cifITKPoolParking.cxx)
set(cif_sources_cuda src/cifCudaRuntime.cu src/cifDeviceMemoryPool.cu src/cifPinnedStaging.cu)
set(cif_sources_nocuda src/cifCudaRuntimeWithoutCuda.cxx)
