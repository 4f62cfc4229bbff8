set(cif_sources_cxx src/itkCubicResampleGPUFactory.cxx src/itkCubicBSplineTable.cxx)
set(cif_sources_cuda src/cifResampleKernels.cu src/cifTextureResampleKernels.cu src/cifPointEvaluationKernels.cu)
set(cif_sources_nocuda src/cifResampleWithoutCuda.cxx src/cifTextureResampleWithoutCuda.cxx
                       src/cifPointEvaluationWithoutCuda.cxx)
