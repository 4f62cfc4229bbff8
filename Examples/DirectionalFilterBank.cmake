# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# The directional filter bank's command-line tool and its seismic denoising example.
find_path(CIF_TCLAP_INCLUDE_DIR tclap/CmdLine.h)
if(CIF_TCLAP_INCLUDE_DIR)
  add_executable(DirectionalFilterBankTool DirectionalFilterBankTool.cxx)
  target_include_directories(DirectionalFilterBankTool PRIVATE ${CIF_TCLAP_INCLUDE_DIR})
  target_link_libraries(DirectionalFilterBankTool PRIVATE CudaImageFilters ${CIF_EXAMPLE_ITK_LIBRARIES})
  if(CudaImageFilters_BUILD_TESTING)
    set(dfb_out ${CMAKE_CURRENT_BINARY_DIR}/dfb)
    file(MAKE_DIRECTORY ${dfb_out})
    add_test(NAME DirectionalFilterBankSeismicDenoising COMMAND DirectionalFilterBankTool seismic ${dfb_out})
    add_test(NAME DirectionalFilterBankToolDecompose
             COMMAND DirectionalFilterBankTool decompose ${dfb_out}/seismic_clean.png ${dfb_out}/subband.nrrd --levels 4)
    set_tests_properties(DirectionalFilterBankToolDecompose PROPERTIES DEPENDS DirectionalFilterBankSeismicDenoising
                         PASS_REGULAR_EXPRESSION "wrote 16 subbands")
    add_test(NAME DirectionalFilterBankToolReconstruct
             COMMAND DirectionalFilterBankTool reconstruct ${dfb_out}/subband.nrrd ${dfb_out}/rebuilt.png --levels 4)
    set_tests_properties(DirectionalFilterBankToolReconstruct PROPERTIES DEPENDS DirectionalFilterBankToolDecompose)
    add_test(NAME DirectionalFilterBankToolRefusesBadSize
             COMMAND DirectionalFilterBankTool decompose ${dfb_out}/seismic_clean.png ${dfb_out}/x.nrrd --levels 5 --filters qmf9)
    set_tests_properties(DirectionalFilterBankToolRefusesBadSize PROPERTIES DEPENDS DirectionalFilterBankSeismicDenoising
                         PASS_REGULAR_EXPRESSION "error: unknown filter set")
    add_test(NAME DirectionalFilterBankToolRefusesMissingFile
             COMMAND DirectionalFilterBankTool denoise ${dfb_out}/no-such.png ${dfb_out}/y.png)
    set_tests_properties(DirectionalFilterBankToolRefusesMissingFile PROPERTIES PASS_REGULAR_EXPRESSION "error: cannot read")
  endif()
endif()
