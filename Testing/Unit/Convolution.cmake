# Convolution sub-module: ConvolutionGPUImageFilter, the kernel presets and files,
# the zoom/cut-out/enhance filter.
cif_add_test_binary(ConvolutionTests
  itkConvolutionGPUImageFilterTest.cxx
  itkZoomGPUImageFilterTest.cxx
  cifKernelPresetsTest.cxx
  cifKernelFileTest.cxx)
