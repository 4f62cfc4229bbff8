# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Registration sub-module: the v4 image metrics on the GPU against ITK's own, and
# inside ITK's registration loop (ImageRegistrationMethodv4).
cif_add_test_binary(RegistrationTests itkMeanSquaresMetricv4GPUTest.cxx itkMattesMetricv4GPUTest.cxx
  itkCorrelationMetricv4GPUTest.cxx itkRegistrationMethodv4GPUTest.cxx itkMetricRandomPointsTest.cxx
  cifImageMetricMathTest.cxx cifMetricPointOrderTest.cxx itkSharedDomainRegistrationTest.cxx)
