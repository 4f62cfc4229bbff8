# Convolution sub-module: ConvolutionGPUImageFilter, the kernels, the zoom.
cif_add_test_binary(ConvolutionTests
  itkConvolutionGPUImageFilterTest.cxx)
