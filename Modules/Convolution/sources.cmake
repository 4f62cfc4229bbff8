# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Convolution (GPU twin of itk::ConvolutionImageFilter) and the zoom/cut-out/enhance
# workflow of the upscaling seed.
# The sub-modules whose headers this one includes (Modules/CMakeLists.txt).
set(cif_depends Core BSpline Resample)
set(cif_sources_cxx src/cifKernelPresets.cxx src/cifKernelFile.cxx src/cifKernelSeparability.cxx
                    src/itkConvolutionGPUFactory.cxx)
set(cif_sources_cuda src/cifConvolutionKernels.cu)
set(cif_sources_nocuda src/cifConvolutionWithoutCuda.cxx)
