# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Registration sub-module: the v4 image metrics on the GPU against ITK's own, and
# inside ITK's registration loop (ImageRegistrationMethodv4).
cif_add_test_binary(RegistrationTests itkMeanSquaresMetricv4GPUTest.cxx itkMattesMetricv4GPUTest.cxx
  itkCorrelationMetricv4GPUTest.cxx itkRegistrationMethodv4GPUTest.cxx itkMetricRandomPointsTest.cxx
  cifImageMetricMathTest.cxx cifMetricPointOrderTest.cxx itkSharedDomainRegistrationTest.cxx
  itkANTSNeighborhoodCorrelationMetricv4GPUTest.cxx itkSyNImageRegistrationMethodGPUTest.cxx)
# elastix's adaptive stochastic gradient descent as a v4 optimizer: its steps against
# elastix's formulas, a registration; with the Elastix sub-module, its automatic
# parameter and scales estimation against elastix 5.0.1's log (skipped without it).
cif_add_test_binary(AdaptiveStochasticGradientDescentTests itkAdaptiveStochasticGradientDescentOptimizerv4Test.cxx)
if(CIF_SUBMODULE_Elastix)
  target_sources(AdaptiveStochasticGradientDescentTests PRIVATE itkAdaptiveStochasticGradientDescentElastixTest.cxx)
  target_link_libraries(AdaptiveStochasticGradientDescentTests PRIVATE ${CIF_TEST_ITK_IO_LIBRARIES})
endif()
