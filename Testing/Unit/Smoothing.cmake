# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Smoothing sub-module: the recursive Gaussian filters (single axis, smoothing,
# gradient) against ITK's own, and the factory.
cif_add_test_binary(SmoothingTests itkRecursiveGaussianGPUTest.cxx)
