# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Convolution sub-module: ConvolutionGPUImageFilter, the kernel presets and files,
# the zoom/cut-out/enhance filter, and the CUDA kernels run on the host.
cif_add_test_binary(ConvolutionTests
  itkConvolutionGPUImageFilterTest.cxx
  itkZoomGPUImageFilterTest.cxx
  itkConvolutionProgressTest.cxx
  itkConvolutionSlabsTest.cxx
  cifKernelPresetsTest.cxx
  cifKernelFileTest.cxx
  cifKernelEmulationTest.cxx)
# The zoom's streaming tests write MetaImage files through a streaming writer.
target_link_libraries(ConvolutionTests PRIVATE ${CIF_TEST_ITK_IO_LIBRARIES})
# The emulated kernels and the CPU path must round alike: no fused multiply-adds.
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set_source_files_properties(cifKernelEmulationTest.cxx PROPERTIES COMPILE_OPTIONS -ffp-contract=off)
endif()
# The CUDA file it includes.
set_source_files_properties(cifKernelEmulationTest.cxx PROPERTIES OBJECT_DEPENDS
  ${PROJECT_SOURCE_DIR}/Modules/Convolution/src/cifConvolutionKernels.cu)
