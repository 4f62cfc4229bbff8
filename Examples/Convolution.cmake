# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# The zoom/cut-out/enhance command-line tool (the upscaling seed's program) and its
# test picture. Arguments are parsed with TCLAP (Debian: libtclap-dev).
find_path(CIF_ZOOM_TCLAP_DIR tclap/CmdLine.h)
if(NOT CIF_ZOOM_TCLAP_DIR)
  message(STATUS "CudaImageFilters: TCLAP not found; ZoomTool is not built")
  return()
endif()
# The IO libraries only: the tool registers its image formats itself, and ITK's
# generated factory list belongs to the examples' own find_package (Examples/CMakeLists.txt),
# whose every image format the tool links too, as the list names them.
cif_find_itk_libraries(ITKIOImageBase ITKIOPNG ITKIOJPEG ITKIOTIFF ITKIOBMP ITKIONRRD ITKIOMeta ITKIONIFTI)
set(CIF_ZOOM_ITK_LIBRARIES ${CIF_ITK_LIBRARIES})

add_executable(ZoomTool ZoomTool.cxx)
# cifCommandLineSupport.h: the CLI modules' (Plugin/)
target_include_directories(ZoomTool PRIVATE ${CIF_ZOOM_TCLAP_DIR} ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/Plugin)
target_link_libraries(ZoomTool PRIVATE CudaImageFilters ${CIF_ZOOM_ITK_LIBRARIES})
install(TARGETS ZoomTool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

add_executable(ZoomToolTestImage ZoomToolTestImage.cxx)
target_include_directories(ZoomToolTestImage PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(ZoomToolTestImage PRIVATE CudaImageFilters ${CIF_ZOOM_ITK_LIBRARIES})

if(CudaImageFilters_BUILD_TESTING)
  set(zoom_dir ${CMAKE_CURRENT_BINARY_DIR}/zoomtool)
  file(MAKE_DIRECTORY ${zoom_dir})
  file(WRITE ${zoom_dir}/sharpen.txt "# sharpen, written by the build\n0 -1 0\n-1 5 -1\n0 -1 0\n")
  file(WRITE ${zoom_dir}/ragged.txt "1 2 3\n4 5\n7 8 9\n")
  add_test(NAME ZoomToolMakesTestImage COMMAND ZoomToolTestImage ${zoom_dir}/picture.ppm ${zoom_dir}/picture.png)
  set_tests_properties(ZoomToolMakesTestImage PROPERTIES FIXTURES_SETUP ZoomToolPicture)

  # The seed's case: 640x426 RGB PPM, zoom 2 of a cut-out, 15x15 gaussian of sigma 5.
  add_test(NAME ZoomToolZoomsPPMWithGaussian
           COMMAND ZoomTool --center 320,213 --size 200,150 --zoom 2 --kernel gaussian --gauss-length 15
                   --gauss-sigma 5 -v ${zoom_dir}/picture.ppm ${zoom_dir}/zoomed.ppm)
  set_tests_properties(ZoomToolZoomsPPMWithGaussian PROPERTIES FIXTURES_REQUIRED ZoomToolPicture
                       PASS_REGULAR_EXPRESSION "wrote .*zoomed.ppm \\(400 x 300, (GPU|CPU), cubic, gaussian 15x15")
  add_test(NAME ZoomToolZoomsPNGWithKernelFileOnCPU
           COMMAND ZoomTool --cpu --center 20,15 --size 40,30 --zoom 2.5 --kernel-file ${zoom_dir}/sharpen.txt
                   ${zoom_dir}/picture.png ${zoom_dir}/corner.png)
  set_tests_properties(ZoomToolZoomsPNGWithKernelFileOnCPU PROPERTIES FIXTURES_REQUIRED ZoomToolPicture
                       PASS_REGULAR_EXPRESSION "wrote .*corner.png \\(100 x 75, CPU, cubic, .*sharpen.txt\\)")
  add_test(NAME ZoomToolReplicatesPixels
           COMMAND ZoomTool --interpolation nearest --zoom 3 --size 64,48 ${zoom_dir}/picture.ppm ${zoom_dir}/nearest.nrrd)
  set_tests_properties(ZoomToolReplicatesPixels PROPERTIES FIXTURES_REQUIRED ZoomToolPicture
                       PASS_REGULAR_EXPRESSION "wrote .*nearest.nrrd \\(192 x 144, (GPU|CPU), nearest, no kernel\\)")

  # Formats: PNG -> JPEG -> TIFF -> MetaImage -> PPM, each read back by the next run.
  set(previous ${zoom_dir}/picture.png)
  set(fixture ZoomToolPicture)
  foreach(ext jpg tif mha ppm)
    add_test(NAME ZoomToolWrites_${ext}
             COMMAND ZoomTool --zoom 1.5 --size 100,80 --kernel sharpen ${previous} ${zoom_dir}/chain.${ext})
    set_tests_properties(ZoomToolWrites_${ext} PROPERTIES FIXTURES_REQUIRED ${fixture} FIXTURES_SETUP ZoomTool_${ext}
                         PASS_REGULAR_EXPRESSION "wrote .*chain.${ext} \\(150 x 120, ")
    set(previous ${zoom_dir}/chain.${ext})
    set(fixture ZoomTool_${ext})
  endforeach()

  # Clear errors, not crashes (a crash is a non-zero status too: the messages are checked).
  add_test(NAME ZoomToolRefusesMissingFile COMMAND ZoomTool ${zoom_dir}/no-such-file.png ${zoom_dir}/x.png)
  set_tests_properties(ZoomToolRefusesMissingFile PROPERTIES PASS_REGULAR_EXPRESSION "error: cannot read .*no-such-file.png")
  add_test(NAME ZoomToolRefusesBadKernelFile
           COMMAND ZoomTool --kernel-file ${zoom_dir}/ragged.txt ${zoom_dir}/picture.ppm ${zoom_dir}/x.ppm)
  set_tests_properties(ZoomToolRefusesBadKernelFile PROPERTIES FIXTURES_REQUIRED ZoomToolPicture
                       PASS_REGULAR_EXPRESSION "error: .*ragged.txt:2: row has 2 numbers, the first row has 3")
  add_test(NAME ZoomToolRefusesCutOutOutside
           COMMAND ZoomTool --center 630,10 --size 50,50 ${zoom_dir}/picture.ppm ${zoom_dir}/x.ppm)
  set_tests_properties(ZoomToolRefusesCutOutOutside PROPERTIES FIXTURES_REQUIRED ZoomToolPicture
                       PASS_REGULAR_EXPRESSION "error: the cut-out of 50 x 50 pixels centred at \\(630, 10\\).*not inside the image")
  add_test(NAME ZoomToolRefusesZeroZoom COMMAND ZoomTool --zoom 0 ${zoom_dir}/picture.ppm ${zoom_dir}/x.ppm)
  set_tests_properties(ZoomToolRefusesZeroZoom PROPERTIES FIXTURES_REQUIRED ZoomToolPicture
                       PASS_REGULAR_EXPRESSION "error: the zoom factor must be at least 1 \\(got 0\\)")
  add_test(NAME ZoomToolRefusesBadCenter COMMAND ZoomTool --center 12 ${zoom_dir}/picture.ppm ${zoom_dir}/x.ppm)
  set_tests_properties(ZoomToolRefusesBadCenter PROPERTIES PASS_REGULAR_EXPRESSION "error: --center expects two integers")
  add_test(NAME ZoomToolRefusesBadGaussian
           COMMAND ZoomTool --kernel gaussian --gauss-length 16 ${zoom_dir}/picture.ppm ${zoom_dir}/x.ppm)
  set_tests_properties(ZoomToolRefusesBadGaussian PROPERTIES PASS_REGULAR_EXPRESSION "error: Gaussian length must be odd")
  add_test(NAME ZoomToolRefusesUnknownOption COMMAND ZoomTool --zoooom 2 a.png b.png)
  set_tests_properties(ZoomToolRefusesUnknownOption PROPERTIES PASS_REGULAR_EXPRESSION "error: ")
  # A failed run leaves no output file behind (x.* are the targets of the runs above).
  add_test(NAME ZoomToolLeavesNoPartialFiles
           COMMAND ${CMAKE_COMMAND} -DDIR=${zoom_dir} -P ${CMAKE_CURRENT_SOURCE_DIR}/ZoomToolCheckNoOutput.cmake)
  set_tests_properties(ZoomToolLeavesNoPartialFiles PROPERTIES
    DEPENDS "ZoomToolRefusesMissingFile;ZoomToolRefusesBadKernelFile;ZoomToolRefusesCutOutOutside;ZoomToolRefusesZeroZoom")
endif()
