# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
cif_add_test_binary(DirectionalFilterBankTests
  itkDirectionalFilterBankReconstructionTest.cxx
  itkDirectionalFilterBankDirectionalityTest.cxx
  itkDirectionalFilterBankBadInputTest.cxx
  itkDirectionalFilterBankProgressTest.cxx)
