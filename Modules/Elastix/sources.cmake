# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# elastix's file formats: transform parameter files read as ITK transforms and written
# from them, with the output grid they name (ITK alone, no kernels).
# The sub-modules whose headers this one includes (Modules/CMakeLists.txt).
set(cif_depends Core)
set(cif_sources_cxx src/itkElastixParameterFile.cxx)
set(cif_sources_cuda "")
set(cif_sources_nocuda "")
