# Registration sub-module: the v4 image metrics on the GPU against ITK's own.
cif_add_test_binary(RegistrationTests itkMeanSquaresMetricv4GPUTest.cxx itkMattesMetricv4GPUTest.cxx)
