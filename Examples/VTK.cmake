# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# The VTK example (built when the VTK adapters are): an oblique slice through a
# volume with vtkCudaImageReslice, rendered offscreen into a PNG. Debian's VTK renders
# through X only, so its test runs under xvfb-run (package xvfb).
# (the rendering modules were asked for with the VTK adapters, top-level CMakeLists.txt)
foreach(c ${CIF_VTK_EXAMPLE_COMPONENTS})
  if(NOT TARGET VTK::${c})
    message(STATUS "CudaImageFilters: VTK::${c} not found; ObliqueResliceExample is not built")
    return()
  endif()
endforeach()
add_executable(ObliqueResliceExample ObliqueResliceExample.cxx)
set(cif_vtk_example_targets "")
foreach(c ${CIF_VTK_EXAMPLE_COMPONENTS})
  list(APPEND cif_vtk_example_targets VTK::${c})
endforeach()
target_link_libraries(ObliqueResliceExample PRIVATE CudaImageFiltersVTK ${CIF_EXAMPLE_ITK_LIBRARIES}
                                                    ${cif_vtk_example_targets})
# VTK's object factories (the OpenGL render window, the volume mapper's helpers)
vtk_module_autoinit(TARGETS ObliqueResliceExample MODULES ${cif_vtk_example_targets})

if(CudaImageFilters_BUILD_TESTING)
  add_test(NAME ObliqueResliceExampleMatchesVTK COMMAND ObliqueResliceExample none.png 64 --no-render)
  find_program(CIF_XVFB_RUN xvfb-run)
  if(CIF_XVFB_RUN)
    add_test(NAME ObliqueResliceExampleRenders
             COMMAND ${CIF_XVFB_RUN} -a -s "-screen 0 1280x1024x24" $<TARGET_FILE:ObliqueResliceExample>
                     ${CMAKE_CURRENT_BINARY_DIR}/oblique_reslice.png 96)
  else()
    message(STATUS "CudaImageFilters: xvfb-run not found; ObliqueResliceExample's rendering is not tested")
  endif()
endif()
