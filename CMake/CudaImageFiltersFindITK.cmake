# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# cif_find_itk(<ITK module>...): ITK's libraries, include directories and image and
# transform format factories for the calling directory, for every ITK the module
# builds against:
#   - standalone, an installed ITK 5.2 to 6 (find_package(ITK));
#   - inside ITK's own build as a remote module, through the in-tree ITKConfig.cmake
#     that ITK writes for its modules' examples (ITK_BINARY_DIR/CMakeTmp).
# Sets CIF_ITK_LIBRARIES, what the directory's targets link. ITK 6 deprecates
# UseITK.cmake: there the modules' interface targets carry the include directories,
# and the factory registration UseITK.cmake did is done here.
# A macro, so that find_package's variables land in the caller's scope.
macro(cif_find_itk)
  cif_find_itk_libraries(${ARGN})
  if(ITK_VERSION_MAJOR VERSION_GREATER_EQUAL 6)
    itk_generate_factory_registration()
    foreach(_cif_factory IN LISTS ITK_FACTORY_LIST)
      string(TOUPPER ${_cif_factory} _cif_factory_uc)
      set_property(DIRECTORY APPEND PROPERTY COMPILE_DEFINITIONS ITK_${_cif_factory_uc}_FACTORY_REGISTER_MANAGER)
    endforeach()
    if(ITK_FACTORY_LIST)
      include_directories(BEFORE ${CMAKE_CURRENT_BINARY_DIR}/ITKFactoryRegistration)
    endif()
  else()
    include(${ITK_USE_FILE})
  endif()
endmacro()

# cif_find_itk_libraries(<ITK module>...): CIF_ITK_LIBRARIES alone, for targets that
# register their formats themselves (no generated factory list in the directory).
macro(cif_find_itk_libraries)
  if(ITK_SOURCE_DIR)
    # The in-tree configuration has no version file, and find_package would set
    # ITK_VERSION_MAJOR and the others to 0 for the calling directory: kept as ITK set them.
    foreach(_cif_part MAJOR MINOR PATCH)
      set(_cif_itk_version_${_cif_part} ${ITK_VERSION_${_cif_part}})
    endforeach()
    set(ITK_DIR ${ITK_BINARY_DIR}/CMakeTmp)
    find_package(ITK REQUIRED COMPONENTS ${ARGN})
    foreach(_cif_part MAJOR MINOR PATCH)
      set(ITK_VERSION_${_cif_part} ${_cif_itk_version_${_cif_part}})
    endforeach()
  else()
    find_package(ITK 5.2 REQUIRED COMPONENTS ${ARGN})
  endif()
  if(ITK_VERSION_MAJOR VERSION_GREATER_EQUAL 6)
    set(CIF_ITK_LIBRARIES ${ITK_INTERFACE_LIBRARIES})
  else()
    set(CIF_ITK_LIBRARIES ${ITK_LIBRARIES})
  endif()
endmacro()
