# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Tests of the VTK adapters (Modules/VTK), built when VTK was found. Each compares
# with VTK's own CPU classes run in the same test; GPU twins skip without a device.
if(CIF_HAVE_VTK)
  cif_add_test_binary(VTKAdapterTests
    vtkCudaImageBSplineCoefficientsTest.cxx
    vtkCudaImageResliceTest.cxx
    cifITKVTKBridgeTest.cxx
    vtkCudaDeviceArrayTest.cxx
    cifVTKResliceShearTest.cxx)
  target_link_libraries(VTKAdapterTests PRIVATE CudaImageFiltersVTK)
endif()
